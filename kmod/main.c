// SPDX-License-Identifier: GPL-2.0
/*
 * iolat: block I/O latency tracing.  Module init and exit; the data path
 * is described in iolat.h and docs/design.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "iolat.h"
#include "clocktest.h"
#include "ring_map.h"

IOLAT_COMPAT_DATA;

static int __init iolat_init(void)
{
	unsigned int missing;
	int err;

	err = iolat_compat_init();
	if (err)
		return err;
	err = iolat_session_init();
	if (err) {
		iolat_compat_exit();
		return err;
	}
	missing = iolat_attach_init();
	err = iolat_clocktest_init();
	if (err)
		pr_warn("cannot test the clock across CPUs: %d\n", err);
	err = iolat_netlink_init();
	if (err) {
		pr_err("cannot register the generic netlink family: %d\n", err);
		goto out_session;
	}
	err = iolat_ring_map_init();
	if (err) {
		pr_err("cannot register /dev/iolat: %d\n", err);
		iolat_netlink_exit();
		goto out_session;
	}
	pr_info("version %s loaded (ABI %d)%s\n", IOLAT_VERSION,
		IOLAT_ABI_VERSION,
		missing ? "; block tracepoints missing, tracing unavailable" : "");
	return 0;
out_session:
	iolat_session_exit();
	iolat_compat_exit();
	return err;
}

/* The exact reverse of init; no session, probe or work survives it. */
static void __exit iolat_exit(void)
{
	iolat_ring_map_exit();
	iolat_netlink_exit();
	iolat_session_exit();
	iolat_compat_exit();
}

module_init(iolat_init);
module_exit(iolat_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Block I/O latency tracing for blk-mq and NVMe");
MODULE_VERSION(IOLAT_VERSION);
