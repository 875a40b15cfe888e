// SPDX-License-Identifier: GPL-2.0
/*
 * Attach: the block tracepoints are not exported to modules, so they are
 * found by name among the kernel's tracepoints once at load, and the
 * session's probes are registered on them while it runs.  Request probes
 * go on first (completion before issue before insert), bio probes last
 * (block_bio_queue the very last), so that every stage a probe starts has
 * the probes of its later stages already in place; removal is the exact
 * reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/tracepoint.h>
#include <linux/string.h>
#include "iolat.h"

/* The i-th probe in registration order. */
static struct iolat_probe *iolat_probe_nth(unsigned int i)
{
	if (i < iolat_nr_rq_probes)
		return &iolat_rq_probes[i];
	i -= iolat_nr_rq_probes;
	return i < iolat_nr_bio_probes ? &iolat_bio_probes[i] : NULL;
}

static void iolat_attach_lookup(struct tracepoint *tp, void *priv)
{
	struct iolat_probe *p;
	unsigned int i;

	for (i = 0; (p = iolat_probe_nth(i)); i++)
		if (!strcmp(tp->name, p->tp_name))
			p->tp = tp;
}

/**
 * iolat_attach_init() - find the tracepoints the probes need
 *
 * Each missing tracepoint is reported here, and to every client in
 * IOLAT_CMD_GET_INFO (iolat_attach_missing()); the module still loads.
 *
 * Return: the number of required tracepoints not found.
 */
int iolat_attach_init(void)
{
	struct iolat_probe *p;
	unsigned int i;
	int missing = 0;

	for_each_kernel_tracepoint(iolat_attach_lookup, NULL);
	for (i = 0; (p = iolat_probe_nth(i)); i++) {
		if (p->tp)
			continue;
		if (p->required) {
			pr_warn("tracepoint %s not found; tracing is unavailable\n",
				p->tp_name);
			missing++;
		} else {
			pr_warn("tracepoint %s not found; its stage is not traced\n",
				p->tp_name);
		}
	}
	return missing;
}

/**
 * iolat_attach_missing() - the i-th tracepoint this kernel lacks
 * @i: from 0
 *
 * Return: its name, or NULL after the last.
 */
const char *iolat_attach_missing(unsigned int i)
{
	struct iolat_probe *p;
	unsigned int n;

	for (n = 0; (p = iolat_probe_nth(n)); n++)
		if (!p->tp && !i--)
			return p->tp_name;
	return NULL;
}

/* Unregister the probes registered before position @end, in reverse. */
static void iolat_unregister(struct iolat_session *s, unsigned int end)
{
	struct iolat_probe *p;

	while (end--) {
		p = iolat_probe_nth(end);
		if (p->tp)
			WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->func, s));
	}
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
	struct iolat_probe *p;
	unsigned int i;
	int err;

	for (i = 0; (p = iolat_probe_nth(i)); i++) {
		if (!p->tp) {
			if (!p->required)
				continue;
			NL_SET_ERR_MSG(extack,
				       "a block tracepoint iolat needs is missing from this kernel (see dmesg)");
			err = -EOPNOTSUPP;
			goto fail;
		}
		err = tracepoint_probe_register(p->tp, p->func, s);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot register a tracepoint probe");
			pr_err("registering on %s failed: %d\n", p->tp_name, err);
			goto fail;
		}
	}
	return 0;
fail:
	iolat_unregister(s, i);
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
	iolat_unregister(s, iolat_nr_rq_probes + iolat_nr_bio_probes);
	tracepoint_synchronize_unregister();
}
