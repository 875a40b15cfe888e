// SPDX-License-Identifier: GPL-2.0
/*
 * Attach: the block tracepoints are not exported to modules, so they are
 * found by name among the kernel's tracepoints once at load, and the
 * probes are registered on them while a session wants them: the request
 * and bio probes once for all sessions, which then find a session by
 * its disks (dispatch.h), the bio-based devices' for each session that
 * has one.  Request probes go on first (completion before issue before
 * insert), bio probes last (block_bio_queue the very last), and a
 * session's disks are found by the shared ones only once all its
 * probes are there; removal is the exact reverse.
 *
 * nvme-core's tracepoints live in a module that comes and goes: the
 * sessions' tracepoint module notifier (session.c) has them found here
 * when it comes, registered after the block probes of a session that
 * wants them, and taken off when it goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/tracepoint.h>
#include <linux/module.h>
#include <linux/string.h>
#include "iolat.h"
#include "probe_nvme.h"
#include "upper.h"
#include "dispatch.h"

/* The i-th probe in registration order. */
static struct iolat_probe *iolat_probe_nth(unsigned int i)
{
	if (i < iolat_nr_rq_probes)
		return &iolat_rq_probes[i];
	i -= iolat_nr_rq_probes;
	if (i < iolat_nr_bio_probes)
		return &iolat_bio_probes[i];
	i -= iolat_nr_bio_probes;
	return i < iolat_nr_upper_probes ? &iolat_upper_probes[i] : NULL;
}

static void iolat_attach_lookup(struct tracepoint *tp, void *priv)
{
	struct iolat_probe *p;
	unsigned int i;

	for (i = 0; (p = iolat_probe_nth(i)); i++)
		if (p->func && !strcmp(tp->name, p->tp_name))
			p->tp = tp;
}

/**
 * iolat_attach_module_coming() - a module with tracepoints is loading
 * @mod: the module
 *
 * Called by the session with its mutex held, which also guards the NVMe
 * probes' tracepoints.
 *
 * Return: whether it has tracepoints of the NVMe probes.
 */
bool iolat_attach_module_coming(struct module *mod)
{
	bool found = false;
#ifdef CONFIG_TRACEPOINTS
	unsigned int i, j;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = iolat_module_tracepoint(mod, i);

		for (j = 0; j < iolat_nr_nvme_probes; j++) {
			struct iolat_probe *p = &iolat_nvme_probes[j];

			if (strcmp(tp->name, p->tp_name))
				continue;
			p->tp = tp;
			p->owner = mod;
			found = true;
		}
	}
#endif
	if (found)
		iolat_nvme_layout_reset();
	return found;
}

/**
 * iolat_attach_module_going() - a module with tracepoints is going
 * @mod: the module
 *
 * Its tracepoints are forgotten; the caller has taken the session's
 * probes off them first (iolat_attach_module_owns()).
 */
void iolat_attach_module_going(struct module *mod)
{
	unsigned int i;

	for (i = 0; i < iolat_nr_nvme_probes; i++) {
		struct iolat_probe *p = &iolat_nvme_probes[i];

		if (p->owner != mod)
			continue;
		p->tp = NULL;
		p->owner = NULL;
	}
}

/* Does @mod hold the NVMe probes' tracepoints?  Under the session mutex. */
bool iolat_attach_module_owns(struct module *mod)
{
	unsigned int i;

	for (i = 0; i < iolat_nr_nvme_probes; i++)
		if (iolat_nvme_probes[i].owner == mod)
			return true;
	return false;
}

/* Are nvme-core's tracepoints there?  Under the session mutex. */
bool iolat_attach_nvme_available(void)
{
	unsigned int i;

	for (i = 0; i < iolat_nr_nvme_probes; i++)
		if (!iolat_nvme_probes[i].tp)
			return false;
	return true;
}

/**
 * iolat_attach_nvme() - register the session's NVMe probes
 * @s: the session
 *
 * Under the session mutex, with nvme-core's tracepoints there.
 *
 * Return: 0, or a negative errno with none of them registered.
 */
int iolat_attach_nvme(struct iolat_session *s)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < iolat_nr_nvme_probes; i++) {
		struct iolat_probe *p = &iolat_nvme_probes[i];

		err = p->tp ? tracepoint_probe_register(p->tp, p->func, s) :
			      -ENOENT;
		if (err) {
			pr_err("registering on %s failed: %d\n", p->tp_name,
			       err);
			break;
		}
	}
	if (!err) {
		s->nvme_attached = true;
		return 0;
	}
	while (i--) {
		struct iolat_probe *p = &iolat_nvme_probes[i];

		WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->func, s));
	}
	tracepoint_synchronize_unregister();
	return err;
}

/**
 * iolat_detach_nvme() - unregister the session's NVMe probes, in reverse
 * @s: the session, with them registered
 *
 * On return no NVMe probe is running with @s as its data.
 */
void iolat_detach_nvme(struct iolat_session *s)
{
	unsigned int i = iolat_nr_nvme_probes;

	while (i--) {
		struct iolat_probe *p = &iolat_nvme_probes[i];

		WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->func, s));
	}
	tracepoint_synchronize_unregister();
	s->nvme_attached = false;
}

/**
 * iolat_attach_init() - find the tracepoints the probes need
 *
 * Each missing tracepoint is reported here, and to every client in
 * IOLAT_CMD_GET_INFO (iolat_attach_missing()); the module still loads.
 * Modules' tracepoints (nvme-core's) are followed by the sessions'
 * module notifier, registered before this (iolat_session_init()), so
 * that none is missed between the two.
 *
 * Return: the number of required tracepoints not found.
 */
unsigned int iolat_attach_init(void)
{
	struct iolat_probe *p;
	unsigned int i, missing = 0;

	for_each_kernel_tracepoint(iolat_attach_lookup, NULL);
	for (i = 0; (p = iolat_probe_nth(i)); i++) {
		if (p->tp)
			continue;
		if (p->required) {
			pr_warn("tracepoint %s not found; tracing is unavailable\n",
				p->tp_name);
			missing++;
		} else {
			pr_warn("tracepoint %s not in this kernel; its stage is not traced\n",
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

/* Does @s use the probes of @use?  Not if it reports nothing they see. */
static bool iolat_use_wanted(const struct iolat_session *s, unsigned int use)
{
	switch (use) {
	case IOLAT_USE_STAGES:
		return !s->counters_only;
	case IOLAT_USE_RECORDS:
		return iolat_session_records(s);
	case IOLAT_USE_UPPER:
		return s->nr_devs > s->nr_rq_devs;
	case IOLAT_USE_LEAN:
		return !s->links && iolat_session_lean(s);
	case IOLAT_USE_PLAIN:
		return !s->links && !iolat_session_lean(s);
	case IOLAT_USE_STACK:
		return s->links;
	default:
		return true;
	}
}

static bool iolat_probe_wanted(const struct iolat_session *s,
			       const struct iolat_probe *p)
{
	return iolat_use_wanted(s, p->use);
}

/* What @s uses: BIT(enum iolat_probe_use) each, for its devices. */
static u8 iolat_session_uses(const struct iolat_session *s)
{
	unsigned int use;
	u8 uses = 0;

	for (use = IOLAT_USE_ALL; use <= IOLAT_USE_STACK; use++)
		if (iolat_use_wanted(s, use))
			uses |= BIT(use);
	return uses;
}

/* @p on its tracepoint for @s: its own, or a user more of the shared. */
static int iolat_register(struct iolat_session *s, struct iolat_probe *p)
{
	int err;

	if (p->per_session)
		return tracepoint_probe_register(p->tp, p->func, s);
	if (p->users) {
		p->users++;
		return 0;
	}
	err = tracepoint_probe_register(p->tp, p->func, NULL);
	if (!err)
		p->users = 1;
	return err;
}

static void iolat_unregister_one(struct iolat_session *s,
				 struct iolat_probe *p)
{
	if (p->per_session)
		WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->func, s));
	else if (!--p->users)
		WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->func, NULL));
}

/* Unregister the probes registered before position @end, in reverse. */
static void iolat_unregister(struct iolat_session *s, unsigned int end)
{
	struct iolat_probe *p;

	while (end--) {
		p = iolat_probe_nth(end);
		if (p->tp && iolat_probe_wanted(s, p))
			iolat_unregister_one(s, p);
	}
}

/* Is @d the first of its disk number in its session's map? */
static bool iolat_dev_first(struct iolat_session *s, struct iolat_dev *d)
{
	return iolat_devmap_find(&s->map, d->devt) == d;
}

/**
 * iolat_attach_dev() - the shared probes find @d of @s from now on
 * @s: the session, its probes registered
 * @d: a device in its map; nothing if not the first of its number
 *
 * Under the session mutex; iolat_dispatch_free_retired() after.
 * Return: 0, or -ENOMEM.
 */
int iolat_attach_dev(struct iolat_session *s, struct iolat_dev *d)
{
	if (!iolat_dev_first(s, d))
		return 0;
	d->s = s;
	d->uses = iolat_session_uses(s);
	return iolat_dispatch_add(d);
}

/* The shared probes no longer find the first @nr devices of @s. */
static void iolat_detach_devs(struct iolat_session *s, unsigned int nr)
{
	while (nr--)
		if (iolat_dev_first(s, s->devs[nr]))
			iolat_dispatch_del(s->devs[nr]);
}

/* No session: the map of their disks is read by no probe once synced. */
static void iolat_attach_idle(void)
{
	struct iolat_probe *p;
	unsigned int i;

	for (i = 0; (p = iolat_probe_nth(i)); i++)
		if (p->users)
			return;
	iolat_dispatch_exit();
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
	unsigned int i, n;
	int err;

	for (i = 0; (p = iolat_probe_nth(i)); i++) {
		if (!iolat_probe_wanted(s, p))
			continue;
		if (!p->tp) {
			if (!p->required)
				continue;
			NL_SET_ERR_MSG(extack,
				       "a block tracepoint iolat needs is missing from this kernel (see dmesg)");
			err = -EOPNOTSUPP;
			goto fail;
		}
		err = iolat_register(s, p);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot register a tracepoint probe");
			pr_err("registering on %s failed: %d\n", p->tp_name, err);
			goto fail;
		}
	}
	if (s->nvme) {
		if (!iolat_attach_nvme_available()) {
			NL_SET_ERR_MSG(extack, "nvme-core's tracepoints are not there: is the nvme driver loaded?");
			err = -ENOENT;
			goto fail;
		}
		err = iolat_attach_nvme(s);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot register the NVMe probes");
			goto fail;
		}
	}
	for (n = 0; n < s->nr_devs; n++) {
		err = iolat_attach_dev(s, s->devs[n]);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot allocate the map of the sessions' disks");
			iolat_detach_devs(s, n);
			if (s->nvme_attached)
				iolat_detach_nvme(s);
			goto fail;
		}
	}
	iolat_dispatch_free_retired();
	return 0;
fail:
	iolat_unregister(s, i);
	tracepoint_synchronize_unregister();
	iolat_dispatch_free_retired();
	iolat_attach_idle();
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
	iolat_detach_devs(s, s->nr_devs);
	if (s->nvme_attached)
		iolat_detach_nvme(s);
	iolat_unregister(s, iolat_nr_rq_probes + iolat_nr_bio_probes +
			    iolat_nr_upper_probes);
	tracepoint_synchronize_unregister();
	iolat_attach_idle();
}
