# Patch 2 (fix): PERF_RECORD_HEADER_ATTR: take only the attr's own bytes
import sys
p = sys.argv[1]
s = open(p).read()
a = s.index("int perf_event__process_attr(")
b = s.index("\treturn 0;\n}\n", a)
body = s[a:b]
# the declarations
old_decl = """{
	u32 i, n_ids;
	u64 *ids;
	struct evsel *evsel;
	struct evlist *evlist = *pevlist;
"""
new_decl = """{
	struct perf_event_attr attr;
	size_t attr_size, copy_size;
	u32 i, n_ids;
	u64 *ids;
	struct evsel *evsel;
	struct evlist *evlist = *pevlist;
"""
assert body.count(old_decl) == 1
body = body.replace(old_decl, new_decl)
old_new = """	evsel = evsel__new(&event->attr.attr);"""
new_new = """	/*
	 * The attr is as large as the perf that wrote it knew it, and the
	 * ids follow it: copy only its own bytes, the fields that it did
	 * not have stay zero. ABI0 (size 0) is PERF_ATTR_SIZE_VER0 bytes.
	 */
	attr_size = event->attr.attr.size ?: PERF_ATTR_SIZE_VER0;
	copy_size = min(attr_size, sizeof(attr));
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, &event->attr.attr, copy_size);
	attr.size = attr_size;

	evsel = evsel__new(&attr);"""
assert body.count(old_new) == 1
body = body.replace(old_new, new_new)
old_ids = """	n_ids = event->header.size - sizeof(event->header) - event->attr.attr.size;"""
new_ids = """	n_ids = event->header.size - sizeof(event->header) - attr_size;"""
assert body.count(old_ids) == 1
body = body.replace(old_ids, new_ids)
new_idp = """	ids = (void *)&event->attr.attr + attr_size;"""
for old_idp in ("""	ids = perf_record_header_attr_id(event);""",
		"""	ids = (void *)&event->attr.attr + event->attr.attr.size;"""):
    body = body.replace(old_idp, new_idp)
assert body.count(new_idp) == 1
s = s[:a] + body + s[b:]
open(p, 'w').write(s)
s = open(p).read()
old_chk = """	/* The ids follow the attr, in the rest of the record. */
	if (event->header.size < sizeof(event->header) + event->attr.attr.size) {
		pr_err("PERF_RECORD_HEADER_ATTR: an attr of %u bytes does not fit in header.size %u\\n",
		       event->attr.attr.size, event->header.size);
		return -EINVAL;
	}
"""
new_chk = """	/* The ids follow the attr, in the rest of the record. */
	attr_size = event->attr.attr.size ?: PERF_ATTR_SIZE_VER0;
	if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size % sizeof(u64)) {
		pr_err("PERF_RECORD_HEADER_ATTR: bad attr size %u\\n", event->attr.attr.size);
		return -EINVAL;
	}
	if (event->header.size < sizeof(event->header) + attr_size) {
		pr_err("PERF_RECORD_HEADER_ATTR: an attr of %zu bytes does not fit in header.size %u\\n",
		       attr_size, event->header.size);
		return -EINVAL;
	}
"""
assert s.count(old_chk) == 1, "check"
s = s.replace(old_chk, new_chk)
old2 = """	 * not have stay zero. ABI0 (size 0) is PERF_ATTR_SIZE_VER0 bytes.
	 */
	attr_size = event->attr.attr.size ?: PERF_ATTR_SIZE_VER0;
	copy_size"""
new2 = """	 * not have stay zero.
	 */
	copy_size"""
assert s.count(old2) == 1
s = s.replace(old2, new2)
open(p, 'w').write(s)
