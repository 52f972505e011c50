// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose functions a test can make hot, for the kcore and
 * module-symbol tests: writing a number N to /proc/<module name> spins in
 * perf_testmod_spin() for N milliseconds.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/jiffies.h>
#include <linux/uaccess.h>
#include <linux/kernel.h>

static u64 perf_testmod_result;

static noinline u64 perf_testmod_work(u64 x)
{
	int i;

	for (i = 0; i < 1000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static noinline u64 perf_testmod_spin(unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	u64 x = 0;

	while (time_before(jiffies, end)) {
		x = perf_testmod_work(x);
		cond_resched();
	}
	return x;
}

static ssize_t perf_testmod_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	unsigned int ms;
	int err;

	err = kstrtouint_from_user(buf, count, 0, &ms);
	if (err)
		return err;
	if (ms > 60000)
		return -EINVAL;
	/*
	 * Keep the result: pr_debug() compiles to nothing without DEBUG or
	 * dynamic debug, and would take the call to perf_testmod_spin() with it.
	 */
	WRITE_ONCE(perf_testmod_result, perf_testmod_spin(ms));
	pr_debug("perf_testmod: %llx\n", perf_testmod_result);
	return count;
}

static const struct proc_ops perf_testmod_ops = {
	.proc_write = perf_testmod_write,
};

static int __init perf_testmod_init(void)
{
	if (!proc_create(KBUILD_MODNAME, 0200, NULL, &perf_testmod_ops))
		return -ENOMEM;
	return 0;
}

static void __exit perf_testmod_exit(void)
{
	remove_proc_entry(KBUILD_MODNAME, NULL);
}

module_init(perf_testmod_init);
module_exit(perf_testmod_exit);
MODULE_DESCRIPTION("Hot functions for perf's kcore and module-symbol tests");
MODULE_LICENSE("GPL");
