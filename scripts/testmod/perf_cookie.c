// SPDX-License-Identifier: GPL-2.0
/*
 * The change cookie of a file, which statx() does not give user space
 * (STATX_CHANGE_COOKIE is kernel-only; nfsd hands it to NFS clients), for
 * the table of what changes a file's identity (make bench): write a path
 * to /proc/perf_cookie, then read the cookie of that file back, or "-"
 * where its file system keeps none. Reading a cookie marks it queried, so
 * that the next change of the file changes it.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/namei.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <linux/iversion.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static DEFINE_MUTEX(perf_cookie_lock);
static char perf_cookie_result[32] = "-\n";

static int perf_cookie_get(const struct path *path, u64 *cookie)
{
#ifdef STATX_CHANGE_COOKIE
	struct kstat st;
	int err;

	err = vfs_getattr(path, &st, STATX_CHANGE_COOKIE, AT_STATX_SYNC_AS_STAT);
	if (err)
		return err;
	if (!(st.result_mask & STATX_CHANGE_COOKIE))
		return -EOPNOTSUPP;
	*cookie = st.change_cookie;
#else
	struct inode *inode = d_inode(path->dentry);

	if (!IS_I_VERSION(inode))
		return -EOPNOTSUPP;
	*cookie = inode_query_iversion(inode);
#endif
	return 0;
}

static ssize_t perf_cookie_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *pos)
{
	struct path path;
	u64 cookie;
	char *name;
	int err;

	name = memdup_user_nul(buf, min_t(size_t, len, PATH_MAX));
	if (IS_ERR(name))
		return PTR_ERR(name);
	name[strcspn(name, "\n")] = '\0';
	err = kern_path(name, LOOKUP_FOLLOW, &path);
	kfree(name);
	if (err)
		return err;
	err = perf_cookie_get(&path, &cookie);
	path_put(&path);
	if (err && err != -EOPNOTSUPP)
		return err;

	mutex_lock(&perf_cookie_lock);
	if (err)
		strscpy(perf_cookie_result, "-\n", sizeof(perf_cookie_result));
	else
		snprintf(perf_cookie_result, sizeof(perf_cookie_result), "%llu\n",
			 (unsigned long long)cookie);
	mutex_unlock(&perf_cookie_lock);
	return len;
}

static ssize_t perf_cookie_read(struct file *file, char __user *buf, size_t len,
				loff_t *pos)
{
	ssize_t ret;

	mutex_lock(&perf_cookie_lock);
	ret = simple_read_from_buffer(buf, len, pos, perf_cookie_result,
				      strlen(perf_cookie_result));
	mutex_unlock(&perf_cookie_lock);
	return ret;
}

static const struct proc_ops perf_cookie_ops = {
	.proc_read = perf_cookie_read,
	.proc_write = perf_cookie_write,
};

static int __init perf_cookie_init(void)
{
	return proc_create("perf_cookie", 0600, NULL, &perf_cookie_ops) ? 0 : -ENOMEM;
}

static void __exit perf_cookie_exit(void)
{
	remove_proc_entry("perf_cookie", NULL);
}

module_init(perf_cookie_init);
module_exit(perf_cookie_exit);
MODULE_DESCRIPTION("The change cookie of a file, for the identity table");
MODULE_LICENSE("GPL");
