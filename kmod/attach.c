// SPDX-License-Identifier: GPL-2.0
/*
 * Attach: the block tracepoints are not exported to modules, so they are
 * found by name among the kernel's tracepoints once at load, and the
 * session's probes are registered on them while it runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/tracepoint.h>
#include <linux/string.h>
#include "iolat.h"

static void iolat_attach_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < iolat_nr_blk_probes; i++)
		if (!strcmp(tp->name, iolat_blk_probes[i].tp_name))
			iolat_blk_probes[i].tp = tp;
}

/**
 * iolat_attach_init() - find the tracepoints the probes need
 *
 * A missing tracepoint is reported here and again to every session that
 * asks for it; the module still loads.
 *
 * Return: the number of tracepoints not found.
 */
int iolat_attach_init(void)
{
	unsigned int i;
	int missing = 0;

	for_each_kernel_tracepoint(iolat_attach_lookup, NULL);
	for (i = 0; i < iolat_nr_blk_probes; i++) {
		if (!iolat_blk_probes[i].tp) {
			pr_warn("tracepoint %s not found; tracing is unavailable\n",
				iolat_blk_probes[i].tp_name);
			missing++;
		}
	}
	return missing;
}

static void iolat_unregister(struct iolat_session *s, int from)
{
	int i;

	for (i = from; i >= 0; i--)
		WARN_ON_ONCE(tracepoint_probe_unregister(iolat_blk_probes[i].tp,
							 iolat_blk_probes[i].func,
							 s));
}

/**
 * iolat_attach() - register the session's probes
 * @s: the session; it becomes the probes' data
 * @extack: for the reason of a failure
 *
 * Return: 0, or a negative errno with nothing left registered.
 */
int iolat_attach(struct iolat_session *s, struct netlink_ext_ack *extack)
{
	int i, err;

	for (i = 0; i < iolat_nr_blk_probes; i++) {
		if (!iolat_blk_probes[i].tp) {
			NL_SET_ERR_MSG(extack,
				       "a block tracepoint iolat needs is missing from this kernel (see dmesg)");
			err = -EOPNOTSUPP;
			goto fail;
		}
		err = tracepoint_probe_register(iolat_blk_probes[i].tp,
						iolat_blk_probes[i].func, s);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot register a tracepoint probe");
			pr_err("registering on %s failed: %d\n",
			       iolat_blk_probes[i].tp_name, err);
			goto fail;
		}
	}
	return 0;
fail:
	iolat_unregister(s, i - 1);
	tracepoint_synchronize_unregister();
	return err;
}

/**
 * iolat_detach() - unregister the session's probes, in reverse order
 * @s: the session
 *
 * On return no probe is running with @s as its data.
 */
void iolat_detach(struct iolat_session *s)
{
	iolat_unregister(s, iolat_nr_blk_probes - 1);
	tracepoint_synchronize_unregister();
}
