// SPDX-License-Identifier: GPL-2.0
/*
 * The control of the life suite's leak check: loading this module leaks
 * one object on purpose, filled with 0xa5, so that the suite sees
 * kmemleak find an unreferenced object of a module that is gone, as it
 * would find one of iolat's.  Test code only; never installed.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/compiler.h>

static int __init kmemleak_probe_init(void)
{
	void *p = kmalloc(512, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0xa5, 512);
	barrier_data(p);	/* the fill stays; the only reference goes */
	pr_info("kmemleak_probe: leaked 512 bytes on purpose\n");
	return 0;
}

static void __exit kmemleak_probe_exit(void)
{
}

module_init(kmemleak_probe_init);
module_exit(kmemleak_probe_exit);
MODULE_DESCRIPTION("iolat tests: a deliberate leak for kmemleak to find");
MODULE_LICENSE("GPL");
