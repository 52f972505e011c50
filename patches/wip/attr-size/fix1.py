# Patch 1 (fix): read_attr refuses an attr smaller than PERF_ATTR_SIZE_VER0
import sys
p = sys.argv[1]
s = open(p).read()
old = """	if (sz == 0) {
		/* assume ABI0 */
		sz =  PERF_ATTR_SIZE_VER0;
	} else if (sz > our_sz) {"""
new = """	if (sz == 0) {
		/* assume ABI0 */
		sz =  PERF_ATTR_SIZE_VER0;
	} else if (sz < PERF_ATTR_SIZE_VER0) {
		pr_debug("bad attr size %zu, expected at least %d\\n",
			 sz, PERF_ATTR_SIZE_VER0);
		return -1;
	} else if (sz > our_sz) {"""
assert s.count(old) == 1
s = s.replace(old, new)
old = """		ret = readn(fd, ptr, left);
	}
	/* read perf_file_section, ids are read in caller */"""
new = """		ret = readn(fd, ptr, left);
		if (ret <= 0)
			return -1;
	}
	/* read perf_file_section, ids are read in caller */"""
assert s.count(old) == 1
s = s.replace(old, new)
open(p, 'w').write(s)
