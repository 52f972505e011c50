// SPDX-License-Identifier: GPL-2.0
/*
 * fuse-passthrough BACKING_DIR MOUNTPOINT
 *
 * A minimal FUSE file system that mirrors BACKING_DIR at MOUNTPOINT and
 * opens every regular file in kernel FUSE passthrough mode (Linux 6.9 and
 * later): reads, writes and mmap of the file go to the backing file in
 * the kernel, so that its mapped pages are the backing file's, as on
 * overlayfs. The guest tests of what perf's mmap records report for files
 * on a stacked file system use it. Debian bookworm's libfuse (3.14) has no
 * passthrough, so this speaks the /dev/fuse protocol itself.
 *
 * It mounts, answers INIT and forks: the parent exits 0 once the mount is
 * up with passthrough accepted, and the child serves requests, one at a
 * time, until the file system is unmounted. As in libfuse's
 * passthrough_hp, a node stands for a backing inode and holds an O_PATH
 * fd of it. Nothing is cached (timeouts of 0): stat() always gives the
 * backing file's attributes, mtime updates through shared mappings
 * included.
 *
 * Build with -DDEBUG to log each request on stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>

/* Protocol 7.40 (Linux 6.9), which bookworm's <linux/fuse.h> (7.38) lacks */
#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH	(1ULL << 37)
#endif
#ifndef FOPEN_PASSTHROUGH
#define FOPEN_PASSTHROUGH	(1 << 7)
#endif
#ifndef FUSE_DEV_IOC_BACKING_OPEN
struct fuse_backing_map {
	int32_t		fd;
	uint32_t	flags;
	uint64_t	padding;
};
#define FUSE_DEV_IOC_BACKING_OPEN	_IOW(229, 1, struct fuse_backing_map)
#define FUSE_DEV_IOC_BACKING_CLOSE	_IOW(229, 2, uint32_t)
#endif

/* struct fuse_open_out and fuse_init_out as of 7.40 */
struct open_out {
	uint64_t	fh;
	uint32_t	open_flags;
	int32_t		backing_id;
};

struct init_out {
	uint32_t	major;
	uint32_t	minor;
	uint32_t	max_readahead;
	uint32_t	flags;
	uint16_t	max_background;
	uint16_t	congestion_threshold;
	uint32_t	max_write;
	uint32_t	time_gran;
	uint16_t	max_pages;
	uint16_t	map_alignment;
	uint32_t	flags2;
	uint32_t	max_stack_depth;
	uint32_t	unused[6];
};

_Static_assert(sizeof(struct open_out) == sizeof(struct fuse_open_out), "");
_Static_assert(sizeof(struct init_out) == sizeof(struct fuse_init_out), "");

#define MINOR		40
#define MAX_WRITE	(128 * 1024)
#define BUF_SIZE	(MAX_WRITE + 4096)
#define NHASH		1024

struct node {
	struct node	*next;		/* in its hash chain */
	dev_t		dev;
	ino_t		ino;
	int		fd;		/* O_PATH */
	uint64_t	nlookup;	/* the kernel's references */
	int		nopen;		/* open files */
	int		backing_id;	/* while nopen */
};

struct dir {
	DIR		*dp;
	off_t		offset;		/* of the next entry */
	struct dirent	*entry;		/* read, not yet replied */
};

static int fuse_fd;
static struct node root;
static struct node *nodes[NHASH];
static char in_buf[BUF_SIZE] __attribute__((aligned(8)));
static char out_buf[BUF_SIZE] __attribute__((aligned(8)));

static struct node *node_of(uint64_t nodeid)
{
	return nodeid == FUSE_ROOT_ID ? &root : (struct node *)(uintptr_t)nodeid;
}

static uint64_t nodeid_of(struct node *n)
{
	return n == &root ? FUSE_ROOT_ID : (uintptr_t)n;
}

/* The path by which an O_PATH fd is reopened */
static const char *proc_path(int fd)
{
	static char path[32];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return path;
}

static int stat_fd(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

static void fill_attr(struct fuse_attr *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	a->ino = st->st_ino;
	a->size = st->st_size;
	a->blocks = st->st_blocks;
	a->atime = st->st_atim.tv_sec;
	a->mtime = st->st_mtim.tv_sec;
	a->ctime = st->st_ctim.tv_sec;
	a->atimensec = st->st_atim.tv_nsec;
	a->mtimensec = st->st_mtim.tv_nsec;
	a->ctimensec = st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = st->st_rdev;
	a->blksize = st->st_blksize;
}

/* Frees a node that the kernel forgot and that no file has open */
static void put_node(struct node *n)
{
	struct node **p;

	if (n == &root || n->nlookup || n->nopen)
		return;
	for (p = &nodes[n->ino % NHASH]; *p != n; p = &(*p)->next)
		;
	*p = n->next;
	close(n->fd);
	free(n);
}

static void forget(struct node *n, uint64_t nlookup)
{
	n->nlookup -= nlookup < n->nlookup ? nlookup : n->nlookup;
	put_node(n);
}

/* Looks NAME up in P, counting a lookup of its node as the kernel does */
static int do_lookup(struct node *p, const char *name, struct fuse_entry_out *e)
{
	struct node *n;
	struct stat st;
	int fd, err;

	fd = openat(p->fd, name, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (stat_fd(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	for (n = nodes[st.st_ino % NHASH]; n; n = n->next)
		if (n->dev == st.st_dev && n->ino == st.st_ino)
			break;
	if (n) {
		close(fd);
	} else {
		n = calloc(1, sizeof(*n));
		if (!n) {
			close(fd);
			return -ENOMEM;
		}
		n->dev = st.st_dev;
		n->ino = st.st_ino;
		n->fd = fd;
		n->next = nodes[st.st_ino % NHASH];
		nodes[st.st_ino % NHASH] = n;
	}
	n->nlookup++;
	memset(e, 0, sizeof(*e));
	e->nodeid = nodeid_of(n);
	fill_attr(&e->attr, &st);
	return sizeof(*e);
}

static int do_getattr(struct node *n, struct fuse_attr_out *a)
{
	struct stat st;

	if (stat_fd(n->fd, &st) < 0)
		return -errno;
	memset(a, 0, sizeof(*a));
	fill_attr(&a->attr, &st);
	return sizeof(*a);
}

static void set_time(struct timespec *ts, uint32_t valid, uint32_t set,
		     uint32_t now, uint64_t sec, uint32_t nsec)
{
	if (valid & now)
		ts->tv_nsec = UTIME_NOW;
	else if (valid & set)
		*ts = (struct timespec){ .tv_sec = sec, .tv_nsec = nsec };
}

/* On the open file FATTR_FH names, or else by the node's path */
static int do_setattr(struct node *n, const struct fuse_setattr_in *in,
		      struct fuse_attr_out *a)
{
	int fd = in->valid & FATTR_FH ? (int)in->fh : -1;
	const char *path = proc_path(n->fd);
	uint32_t v = in->valid;
	int ret = 0;

	if (v & FATTR_MODE)
		ret = fd >= 0 ? fchmod(fd, in->mode) : chmod(path, in->mode);
	if (!ret && v & (FATTR_UID | FATTR_GID))
		ret = fchownat(n->fd, "", v & FATTR_UID ? in->uid : (uid_t)-1,
			       v & FATTR_GID ? in->gid : (gid_t)-1,
			       AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	if (!ret && v & FATTR_SIZE)
		ret = fd >= 0 ? ftruncate(fd, in->size) :
				truncate(path, in->size);
	if (!ret && v & (FATTR_ATIME | FATTR_MTIME |
			 FATTR_ATIME_NOW | FATTR_MTIME_NOW)) {
		struct timespec ts[2] = {
			{ .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT }
		};

		set_time(&ts[0], v, FATTR_ATIME, FATTR_ATIME_NOW,
			 in->atime, in->atimensec);
		set_time(&ts[1], v, FATTR_MTIME, FATTR_MTIME_NOW,
			 in->mtime, in->mtimensec);
		ret = fd >= 0 ? futimens(fd, ts) :
				utimensat(AT_FDCWD, path, ts, 0);
	}
	return ret < 0 ? -errno : do_getattr(n, a);
}

/*
 * Answers an open of N on FD in passthrough mode. All the open files of
 * an inode must pass through to the same backing file, so the node
 * registers one, with the first open, until the last release.
 */
static int open_passthrough(struct node *n, int fd, struct open_out *o)
{
	if (!n->nopen) {
		struct fuse_backing_map map = { .fd = fd };
		int id = ioctl(fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &map);

		if (id < 0) {
			id = -errno;
			close(fd);
			return id;
		}
		n->backing_id = id;
	}
	n->nopen++;
	*o = (struct open_out){
		.fh = fd,
		.open_flags = FOPEN_PASSTHROUGH,
		.backing_id = n->backing_id,
	};
	return sizeof(*o);
}

static int do_open(struct node *n, const struct fuse_open_in *in,
		   struct open_out *o)
{
	/* O_NOFOLLOW would refuse the magic link */
	int fd = open(proc_path(n->fd),
		      in->flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_NOFOLLOW));

	return fd < 0 ? -errno : open_passthrough(n, fd, o);
}

static int do_create(struct node *p, const struct fuse_create_in *in,
		     const char *name, struct fuse_entry_out *e)
{
	struct node *n;
	int fd, ret;

	fd = openat(p->fd, name, (in->flags | O_CREAT) & ~O_NOCTTY, in->mode);
	if (fd < 0)
		return -errno;
	ret = do_lookup(p, name, e);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	n = node_of(e->nodeid);
	ret = open_passthrough(n, fd, (struct open_out *)(e + 1));
	if (ret < 0) {
		forget(n, 1);
		return ret;
	}
	return sizeof(*e) + ret;
}

static void do_release(struct node *n, const struct fuse_release_in *in)
{
	close(in->fh);
	if (!--n->nopen) {
		uint32_t id = n->backing_id;

		ioctl(fuse_fd, FUSE_DEV_IOC_BACKING_CLOSE, &id);
	}
	put_node(n);
}

static int do_rename(struct node *p, uint64_t newdir, uint32_t flags,
		     const char *name)
{
	const char *newname = name + strlen(name) + 1;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if (renameat2(p->fd, name, node_of(newdir)->fd, newname, flags) < 0)
		return -errno;
	return 0;
}

static int do_opendir(struct node *n, struct open_out *o)
{
	int fd = openat(n->fd, ".", O_RDONLY | O_DIRECTORY);
	struct dir *d;

	if (fd < 0)
		return -errno;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->dp = fdopendir(fd))) {
		int err = d ? -errno : -ENOMEM;

		close(fd);
		free(d);
		return err;
	}
	memset(o, 0, sizeof(*o));
	o->fh = (uintptr_t)d;
	return sizeof(*o);
}

static int do_readdir(const struct fuse_read_in *in, char *out)
{
	struct dir *d = (struct dir *)(uintptr_t)in->fh;
	size_t size = in->size < BUF_SIZE ? in->size : BUF_SIZE, len = 0;

	if ((off_t)in->offset != d->offset) {
		seekdir(d->dp, in->offset);
		d->offset = in->offset;
		d->entry = NULL;
	}
	for (;;) {
		struct fuse_dirent *de = (struct fuse_dirent *)(out + len);
		size_t namelen, reclen;

		if (!d->entry) {
			errno = 0;
			d->entry = readdir(d->dp);
			if (!d->entry) {
				if (errno && !len)
					return -errno;
				break;
			}
		}
		namelen = strlen(d->entry->d_name);
		reclen = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
		if (len + reclen > size)
			break;
		memset(de, 0, reclen);
		de->ino = d->entry->d_ino;
		de->off = d->entry->d_off;
		de->namelen = namelen;
		de->type = d->entry->d_type;
		memcpy(de->name, d->entry->d_name, namelen);
		len += reclen;
		d->offset = d->entry->d_off;
		d->entry = NULL;
	}
	return len;
}

static int do_statfs(struct node *n, struct fuse_statfs_out *out)
{
	struct statvfs sv;

	if (fstatvfs(n->fd, &sv) < 0)
		return -errno;
	memset(out, 0, sizeof(*out));
	out->st.blocks = sv.f_blocks;
	out->st.bfree = sv.f_bfree;
	out->st.bavail = sv.f_bavail;
	out->st.files = sv.f_files;
	out->st.ffree = sv.f_ffree;
	out->st.bsize = sv.f_bsize;
	out->st.namelen = sv.f_namemax;
	out->st.frsize = sv.f_frsize;
	return sizeof(*out);
}

/* 0 or -errno as the return value of a call that sets errno */
static int result(int ret)
{
	return ret < 0 ? -errno : 0;
}

/* NAME's entry in P, which a call that returned ret has just made */
static int made(int ret, struct node *p, const char *name, void *out)
{
	return ret < 0 ? -errno : do_lookup(p, name, out);
}

/* Answers a request with ret: -errno, or the size of the reply in out */
static void reply(const struct fuse_in_header *h, int ret, const void *out)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (ret > 0 ? ret : 0),
		.error = ret < 0 ? ret : 0,
		.unique = h->unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &oh, .iov_len = sizeof(oh) },
		{ .iov_base = (void *)out, .iov_len = ret > 0 ? ret : 0 },
	};

	/* ENOENT: the request was interrupted */
	if (writev(fuse_fd, iov, 2) < 0 && errno != ENOENT)
		perror("fuse-passthrough: reply");
}

static void handle(const struct fuse_in_header *h)
{
	const void *in = h + 1;
	struct node *n = node_of(h->nodeid);
	void *out = out_buf;
	int ret;

#ifdef DEBUG
	fprintf(stderr, "fuse-passthrough: opcode %u nodeid %#llx len %u\n",
		h->opcode, (unsigned long long)h->nodeid, h->len);
#endif
	switch (h->opcode) {
	case FUSE_DESTROY:
		ret = 0;
		break;
	case FUSE_LOOKUP:
		ret = do_lookup(n, in, out);
		break;
	case FUSE_FORGET:
		forget(n, ((const struct fuse_forget_in *)in)->nlookup);
		return;
	case FUSE_BATCH_FORGET: {
		const struct fuse_batch_forget_in *b = in;
		const struct fuse_forget_one *f = (const void *)(b + 1);

		for (uint32_t i = 0; i < b->count; i++)
			forget(node_of(f[i].nodeid), f[i].nlookup);
		return;
	}
	case FUSE_GETATTR:
		ret = do_getattr(n, out);
		break;
	case FUSE_SETATTR:
		ret = do_setattr(n, in, out);
		break;
	case FUSE_READLINK:
		ret = readlinkat(n->fd, "", out, BUF_SIZE);
		ret = ret < 0 ? -errno : ret;
		break;
	case FUSE_SYMLINK: {
		const char *target = (const char *)in + strlen(in) + 1;

		ret = made(symlinkat(target, n->fd, in), n, in, out);
		break;
	}
	case FUSE_MKNOD: {
		const struct fuse_mknod_in *m = in;
		const char *name = (const char *)(m + 1);

		ret = made(mknodat(n->fd, name, m->mode, m->rdev), n, name, out);
		break;
	}
	case FUSE_MKDIR: {
		const struct fuse_mkdir_in *m = in;
		const char *name = (const char *)(m + 1);

		ret = made(mkdirat(n->fd, name, m->mode), n, name, out);
		break;
	}
	case FUSE_UNLINK:
		ret = result(unlinkat(n->fd, in, 0));
		break;
	case FUSE_RMDIR:
		ret = result(unlinkat(n->fd, in, AT_REMOVEDIR));
		break;
	case FUSE_RENAME: {
		const struct fuse_rename_in *r = in;

		ret = do_rename(n, r->newdir, 0, (const char *)(r + 1));
		break;
	}
	case FUSE_RENAME2: {
		const struct fuse_rename2_in *r = in;

		ret = do_rename(n, r->newdir, r->flags, (const char *)(r + 1));
		break;
	}
	case FUSE_LINK: {
		const struct fuse_link_in *l = in;
		const char *name = (const char *)(l + 1);

		ret = made(linkat(AT_FDCWD,
				  proc_path(node_of(l->oldnodeid)->fd),
				  n->fd, name, AT_SYMLINK_FOLLOW), n, name, out);
		break;
	}
	case FUSE_OPEN:
		ret = do_open(n, in, out);
		break;
	case FUSE_CREATE: {
		const struct fuse_create_in *c = in;

		ret = do_create(n, c, (const char *)(c + 1), out);
		break;
	}
	case FUSE_READ: {
		const struct fuse_read_in *r = in;

		ret = pread(r->fh, out, r->size < BUF_SIZE ? r->size : BUF_SIZE,
			    r->offset);
		ret = ret < 0 ? -errno : ret;
		break;
	}
	case FUSE_WRITE: {
		const struct fuse_write_in *w = in;
		struct fuse_write_out *wo = out;
		ssize_t len = pwrite(w->fh, w + 1, w->size, w->offset);

		memset(wo, 0, sizeof(*wo));
		wo->size = len;
		ret = len < 0 ? -errno : (int)sizeof(*wo);
		break;
	}
	case FUSE_FLUSH:
		ret = 0;
		break;
	case FUSE_FSYNC: {
		const struct fuse_fsync_in *f = in;

		ret = result(f->fsync_flags & FUSE_FSYNC_FDATASYNC ?
			     fdatasync(f->fh) : fsync(f->fh));
		break;
	}
	case FUSE_RELEASE:
		do_release(n, in);
		ret = 0;
		break;
	case FUSE_OPENDIR:
		ret = do_opendir(n, out);
		break;
	case FUSE_READDIR:
		ret = do_readdir(in, out);
		break;
	case FUSE_RELEASEDIR: {
		struct dir *d = (struct dir *)(uintptr_t)
			((const struct fuse_release_in *)in)->fh;

		closedir(d->dp);
		free(d);
		ret = 0;
		break;
	}
	case FUSE_FSYNCDIR: {
		const struct fuse_fsync_in *f = in;
		struct dir *d = (struct dir *)(uintptr_t)f->fh;

		ret = result(fsync(dirfd(d->dp)));
		break;
	}
	case FUSE_STATFS:
		ret = do_statfs(n, out);
		break;
	case FUSE_ACCESS:
		ret = result(access(proc_path(n->fd),
				    ((const struct fuse_access_in *)in)->mask));
		break;
	case FUSE_GETXATTR:
		ret = -ENODATA;
		break;
	default:	/* LISTXATTR and SETXATTR too: no extended attributes */
		ret = -ENOSYS;
		break;
	}
	reply(h, ret, out);
}

/* Answers INIT, which the kernel sends first; fails saying why */
static int init(void)
{
	const struct fuse_in_header *h = (const void *)in_buf;
	const struct fuse_init_in *in = (const void *)(h + 1);
	struct fuse_backing_map probe = { .fd = -1 };
	struct init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = MINOR,
		.max_write = MAX_WRITE,
		.time_gran = 1,
		/* backing files on an unstacked fs, as overlayfs is not */
		.max_stack_depth = 1,
	};
	uint64_t flags;

	if (read(fuse_fd, in_buf, sizeof(in_buf)) < 0) {
		perror("fuse-passthrough: reading INIT");
		return -1;
	}
	if (h->opcode != FUSE_INIT || in->major != FUSE_KERNEL_VERSION) {
		fprintf(stderr, "fuse-passthrough: no INIT of protocol 7 (opcode %u)\n",
			h->opcode);
		reply(h, -EPROTO, NULL);
		return -1;
	}
	flags = in->flags;
	if (flags & FUSE_INIT_EXT)
		flags |= (uint64_t)in->flags2 << 32;
	if (!(flags & FUSE_PASSTHROUGH)) {
		fprintf(stderr, "fuse-passthrough: the kernel offers no FUSE passthrough (FUSE_PASSTHROUGH not in INIT's flags)\n");
		reply(h, -EPROTO, NULL);
		return -1;
	}
	flags &= FUSE_INIT_EXT | FUSE_BIG_WRITES | FUSE_PASSTHROUGH;
	out.max_readahead = in->max_readahead;
	out.flags = flags;
	out.flags2 = flags >> 32;
	reply(h, sizeof(out), &out);

	/*
	 * The kernel refuses a backing file with EPERM where it did not take
	 * passthrough, and then a bad fd with EBADF.
	 */
	if (ioctl(fuse_fd, FUSE_DEV_IOC_BACKING_OPEN, &probe) >= 0 ||
	    errno != EBADF) {
		fprintf(stderr, "fuse-passthrough: the kernel did not accept FUSE passthrough (FUSE_DEV_IOC_BACKING_OPEN: %s)\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	struct stat st;
	char opts[128];
	pid_t pid;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: fuse-passthrough BACKING_DIR MOUNTPOINT\n");
		return 2;
	}
	umask(0);	/* the kernel applied the caller's */
	/* An O_PATH fd for each inode the kernel holds */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	root.fd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root.fd < 0 || stat_fd(root.fd, &st) < 0) {
		fprintf(stderr, "fuse-passthrough: %s: %m\n", argv[1]);
		return 1;
	}
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		fprintf(stderr, "fuse-passthrough: /dev/fuse: %m\n");
		return 1;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=%o,user_id=%u,group_id=%u,allow_other,default_permissions",
		 fuse_fd, st.st_mode & S_IFMT, getuid(), getgid());
	if (mount("passthrough", argv[2], "fuse", 0, opts) < 0) {
		fprintf(stderr, "fuse-passthrough: mounting on %s: %m\n",
			argv[2]);
		return 1;
	}
	if (init() < 0) {
		umount2(argv[2], MNT_DETACH);
		return 1;
	}

	pid = fork();
	if (pid < 0) {
		perror("fuse-passthrough: fork");
		umount2(argv[2], MNT_DETACH);
		return 1;
	}
	if (pid > 0)
		return 0;
	setsid();
	if (chdir("/") < 0)
		return 1;
	fd = open("/dev/null", O_RDWR);
	dup2(fd, 0);
	dup2(fd, 1);
#ifndef DEBUG
	dup2(fd, 2);
#endif
	if (fd > 2)
		close(fd);

	for (;;) {
		if (read(fuse_fd, in_buf, sizeof(in_buf)) < 0) {
			if (errno == ENODEV)	/* unmounted */
				return 0;
			if (errno == EINTR || errno == EAGAIN ||
			    errno == ENOENT)
				continue;
			perror("fuse-passthrough: reading /dev/fuse");
			return 1;
		}
		handle((const struct fuse_in_header *)in_buf);
	}
}
