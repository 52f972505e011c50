# Patch 3: a larger perf_event_attr whose extra bytes are zero is read
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old[:60]
    s = s.replace(old, new)
rep("""		if (evsel->core.attr.size < sizeof(evsel->core.attr)) {
			/*
			 * We are likely in "perf inject" and have read
			 * from an older file. Update attr size so that
			 * reader gets the right offset to the ids.
			 */""", """		if (evsel->core.attr.size != sizeof(evsel->core.attr)) {
			/*
			 * We are likely in "perf inject" and have read
			 * from an older file, or from a newer pipe whose
			 * larger attr has zeroes past ours. Update attr
			 * size so that reader gets the right offset to the
			 * ids: what is written is our attr.
			 */""")
rep("""static int read_attr(int fd, struct perf_header *ph,""", """/* The kernel takes an attr of up to a page, the largest page is 64kB. */
#define PERF_ATTR_SIZE_MAX	65536

/*
 * Like the kernel's perf_copy_attr(): a perf_event_attr larger than the
 * one this perf knows is fine when the bytes past it are zero, as they are
 * in the attr of an event that asks for nothing newer than this perf.
 * Otherwise say which bytes this perf could not understand.
 * @extra: the bytes of the attr past sizeof(struct perf_event_attr).
 */
static bool attr__unknown_bytes_zero(const void *extra, size_t attr_size,
				     const char *what)
{
	const size_t our_sz = sizeof(struct perf_event_attr);
	const u8 *bytes = extra;
	char ranges[256] = "";
	size_t i, start, len = 0;
	bool zero = true;

	for (i = 0; i < attr_size - our_sz; i++) {
		if (!bytes[i])
			continue;
		start = i;
		while (i + 1 < attr_size - our_sz && bytes[i + 1])
			i++;
		if (start == i)
			len += scnprintf(ranges + len, sizeof(ranges) - len, "%s%zu",
					 zero ? "" : ",", our_sz + start);
		else
			len += scnprintf(ranges + len, sizeof(ranges) - len, "%s%zu-%zu",
					 zero ? "" : ",", our_sz + start, our_sz + i);
		zero = false;
	}
	if (!zero) {
		pr_err("%s: perf_event_attr of %zu bytes, this perf knows its first %zu:\\n"
		       "bytes %s of it are not zero, they ask for what this perf does not\\n"
		       "understand. A newer perf is needed.\\n",
		       what, attr_size, our_sz, ranges);
	}
	return zero;
}

static int read_attr(int fd, struct perf_header *ph,""")
rep("""	} else if (sz > our_sz) {
		pr_debug("file uses a more recent and unsupported ABI"
			 " (%zu bytes extra)\\n", sz - our_sz);
		return -1;
	}
	/* what we have not yet read and that we know about */
	left = sz - PERF_ATTR_SIZE_VER0;""", """	} else if (sz > PERF_ATTR_SIZE_MAX) {
		pr_debug("bad attr size %zu, the kernel takes at most %d\\n",
			 sz, PERF_ATTR_SIZE_MAX);
		return -1;
	}
	/* what we have not yet read and that we know about */
	left = min(sz, our_sz) - PERF_ATTR_SIZE_VER0;""")
rep("""		ret = readn(fd, ptr, left);
		if (ret <= 0)
			return -1;
	}
	/* read perf_file_section, ids are read in caller */""", """		ret = readn(fd, ptr, left);
		if (ret <= 0)
			return -1;
	}
	/*
	 * A newer perf's attr, larger than ours: fine if what we don't know
	 * of it is zero. We hold our_sz bytes of it, say so in its size.
	 */
	if (sz > our_sz) {
		void *extra = malloc(sz - our_sz);
		bool zero;

		if (!extra)
			return -1;
		ret = readn(fd, extra, sz - our_sz);
		zero = ret > 0 && attr__unknown_bytes_zero(extra, sz, "perf.data");
		free(extra);
		if (!zero)
			return -1;
		pr_debug("attr size %zu, larger than this perf's %zu, its other bytes are zero\\n",
			 sz, our_sz);
		attr->size = ph->needs_swap ? bswap_32(our_sz) : our_sz;
	}
	/* read perf_file_section, ids are read in caller */""")
rep("""	copy_size = min(attr_size, sizeof(attr));
	memset(&attr, 0, sizeof(attr));""", """	if (attr_size > sizeof(attr) &&
	    !attr__unknown_bytes_zero((void *)&event->attr.attr + sizeof(attr), attr_size,
				      "PERF_RECORD_HEADER_ATTR"))
		return -EINVAL;
	copy_size = min(attr_size, sizeof(attr));
	memset(&attr, 0, sizeof(attr));""")
rep("""	memcpy(&attr, &event->attr.attr, copy_size);
	attr.size = attr_size;
""", """	memcpy(&attr, &event->attr.attr, copy_size);
	attr.size = copy_size;
""")
open(p, 'w').write(s)
