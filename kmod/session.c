// SPDX-License-Identifier: GPL-2.0
/*
 * Session life.  Up to max_sessions sessions at once, each owned by the
 * netlink socket that started it: start allocates every table and buffer
 * (the probes never allocate) and attaches the session's own probes, with
 * the session as their data, so that sessions share nothing on the path
 * of a request; stop detaches them and leaves the buffers for a final
 * drain; the session is freed when its socket closes, when the owner
 * starts a new one, or when the module is unloaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/err.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/tracepoint.h>
#include "inflight.h"
#include "acct.h"
#include "agg.h"
#include "cgstat.h"
#include "stash.h"
#include "cpus.h"
#include "upper.h"
#include "probe_nvme.h"
#include "budget.h"
#include "alloc.h"
#include "dispatch.h"
#include "watch.h"

static unsigned int max_sessions = IOLAT_DEFAULT_SESSIONS;
module_param(max_sessions, uint, 0444);
MODULE_PARM_DESC(max_sessions, "sessions at once, 1..16 (default 4)");

static unsigned int max_session_mb = 256;
module_param(max_session_mb, uint, 0644);
MODULE_PARM_DESC(max_session_mb, "a session's memory at most, MiB (default 256)");

static unsigned int ring_mb = 64;
module_param(ring_mb, uint, 0644);
MODULE_PARM_DESC(ring_mb, "the record buffers of a session that does not size them, MiB over every CPU (default 64)");

static DEFINE_MUTEX(iolat_mutex);
/* [max_sessions], under iolat_mutex */
static struct iolat_session *iolat_sessions[IOLAT_MAX_SESSIONS];

/* The place of the session of socket @portid, or NULL.  Under the mutex. */
static struct iolat_session **iolat_session_of(u32 portid)
{
	unsigned int i;

	lockdep_assert_held(&iolat_mutex);
	for (i = 0; i < max_sessions; i++)
		if (iolat_sessions[i] && iolat_sessions[i]->portid == portid)
			return &iolat_sessions[i];
	return NULL;
}

static void iolat_session_free(struct iolat_session *s)
{
	unsigned int i;

	if (s->running) {
		WRITE_ONCE(s->stop_ns, iolat_now());
		iolat_detach(s);
	}
	iolat_cpus_free(s);
	for (i = 0; i < s->nr_devs; i++)
		iolat_session_dev_free(s->devs[i]);
	kvfree(s->devs);
	iolat_devmap_free(&s->map);
	for (i = 0; s->ctrls && i < s->nr_ctrls; i++)
		iolat_nvme_ctrl_free(&s->ctrls[i]);
	kvfree(s->ctrls);
	kvfree(s->links);
	iolat_watch_free(s);
	kvfree(s);
}

static struct iolat_session *iolat_session_alloc(u32 portid,
						 const struct iolat_dev_spec *specs,
						 unsigned int nr_specs,
						 const struct iolat_filter *filter,
						 u32 mode,
						 const struct iolat_watch_conf *watch,
						 const struct iolat_budget *b,
						 struct netlink_ext_ack *extack)
{
	struct iolat_session *s;
	unsigned int i;
	int err;

	s = iolat_zalloc(sizeof(*s), NUMA_NO_NODE);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->portid = portid;
	s->filter = *filter;
	/* the tables count as they are allocated (@tables_bytes) */
	s->mem_bytes = iolat_budget_total(b) - b->cpus * b->per_cpu - b->tables;
	s->cpu_bytes = b->per_cpu;
	s->counters_only = mode & IOLAT_MODE_COUNTERS_ONLY;
	s->aggregate = mode & IOLAT_MODE_AGGREGATE;
	s->nvme = mode & IOLAT_MODE_NVME;
	s->cgroups = mode & IOLAT_MODE_CGROUPS;
	s->cg_slots = iolat_mode_cg_slots(mode);
	/* the counters and the histograms are per device, whoever asked */
	s->want_who = mode & IOLAT_MODE_WHO;
	/* as counted (budget.c) */
	s->ring_slots = b->ring_slots;
	s->ring_stride = b->stride;
	s->record_size = b->record_size;
	s->base_ns = iolat_now();
	if (mode & IOLAT_MODE_WATCH) {
		err = iolat_watch_init(s, watch);
		if (err)
			goto fail;
	}
	s->start_ns = U64_MAX;
	s->stop_ns = U64_MAX;
	s->devs = iolat_zalloc(array_size(nr_specs, sizeof(*s->devs)),
			       NUMA_NO_NODE);
	if (!s->devs) {
		err = -ENOMEM;
		goto fail;
	}
	s->cap_devs = nr_specs;
	/* whole disks, partitions, bio-based devices, in order (nl_start.c) */
	for (i = 0; i < nr_specs; i++)
		if (!specs[i].bio_based)
			s->nr_rq_devs = i + 1;
	for (i = 0; i < nr_specs; i++) {
		s->devs[i] = iolat_session_dev_new(s, &specs[i]);
		if (IS_ERR(s->devs[i])) {
			err = PTR_ERR(s->devs[i]);
			s->devs[i] = NULL;
			goto fail;
		}
		s->nr_devs = i + 1;
		err = iolat_session_map(s, s->devs[i], extack);
		if (err)
			goto fail;
	}
	s->mem_bytes += s->map.bytes;
	err = iolat_links_init(s);
	if (err)
		goto fail;
	/* the NVMe part and the link sent: budget.c's rule, the links' */
	WARN_ON_ONCE((s->nvme || s->links || s->cgroups) !=
		     (s->record_size > IOLAT_RECORD_BLOCK_SIZE));
	if (s->nvme) {
		err = iolat_session_nvme(s, specs, extack);
		if (err)
			goto fail;
	}
	/* the online CPUs' parts, and those of CPUs that come online */
	err = iolat_cpus_start(s);
	if (err)
		goto fail;
	return s;
fail:
	iolat_session_free(s);
	return ERR_PTR(err);
}

/* Note @kind for the client, or count it lost.  Under the mutex. */
static void iolat_session_event(struct iolat_session *s, u32 kind,
				const char *module)
{
	struct iolat_event *ev;

	lockdep_assert_held(&iolat_mutex);
	if (s->nr_events == IOLAT_MAX_EVENTS) {
		iolat_count_task(s, IOLAT_S_EVENTS_LOST, 1);
		return;
	}
	ev = &s->events[s->nr_events++];
	ev->ns = iolat_now();
	ev->kind = kind;
	strscpy(ev->module, module, sizeof(ev->module));
}

/**
 * iolat_session_module() - a module with tracepoints comes or goes
 * @mod: the module
 * @coming: loading, else unloading
 *
 * Called from the tracepoint module notifier below.  When nvme-core
 * goes, a session tracing NVMe commands loses its NVMe probes, its
 * controllers' commands are forgotten and its client is told; when it
 * comes back, the probes go on again, the controllers are known anew by
 * their namespaces' next commands, and the client is told.
 */
static void iolat_session_module(struct module *mod, bool coming)
{
	struct iolat_session *s;
	unsigned int n, i;
	bool ours;

	mutex_lock(&iolat_mutex);
	ours = coming ? iolat_attach_module_coming(mod) &&
			iolat_attach_nvme_available() :
			iolat_attach_module_owns(mod);
	for (n = 0; ours && n < max_sessions; n++) {
		s = iolat_sessions[n];
		if (!s || !s->running || !s->nvme)
			continue;
		if (coming && !s->nvme_attached) {
			if (iolat_attach_nvme(s)) {
				pr_warn("%s is back, but NVMe commands cannot be traced again\n",
					mod->name);
				continue;
			}
			pr_info("%s loaded: tracing NVMe commands again\n",
				mod->name);
			iolat_session_event(s, IOLAT_EVENT_NVME_ATTACHED,
					    mod->name);
		} else if (!coming && s->nvme_attached) {
			iolat_detach_nvme(s);
			for (i = 0; i < s->nr_ctrls; i++)
				iolat_nvme_ctrl_reset(&s->ctrls[i]);
			pr_info("%s unloading: NVMe commands no longer traced\n",
				mod->name);
			iolat_session_event(s, IOLAT_EVENT_NVME_DETACHED,
					    mod->name);
		}
	}
	if (!coming)
		iolat_attach_module_going(mod);
	mutex_unlock(&iolat_mutex);
}

static int iolat_session_module_notify(struct notifier_block *nb,
				       unsigned long val, void *data)
{
	struct tp_module *tp_mod = data;

	if (val == MODULE_STATE_COMING || val == MODULE_STATE_GOING)
		iolat_session_module(tp_mod->mod, val == MODULE_STATE_COMING);
	return NOTIFY_OK;
}

static struct notifier_block iolat_session_module_nb = {
	.notifier_call = iolat_session_module_notify,
};

/**
 * iolat_session_init() - check the limit of sessions, follow CPUs and
 *	modules
 *
 * The tracepoint module notifier is registered before the module looks
 * up the kernel's own tracepoints (iolat_attach_init()), so that no
 * module's are missed between the two.
 *
 * Return: 0, -EINVAL for a bad max_sessions, or the CPU hotplug state's
 * or the notifier's error.
 */
int iolat_session_init(void)
{
	int err;

	if (max_sessions < 1 || max_sessions > IOLAT_MAX_SESSIONS) {
		pr_err("max_sessions=%u: it must be 1..%u\n", max_sessions,
		       IOLAT_MAX_SESSIONS);
		return -EINVAL;
	}
	err = iolat_cpus_init();
	if (err)
		return err;
	err = register_tracepoint_module_notifier(&iolat_session_module_nb);
	if (err)
		iolat_cpus_exit();
	return err;
}

/**
 * iolat_session_start() - start tracing for a netlink socket
 * @portid: the socket
 * @specs: devices to trace, validated
 * @nr_specs: how many, 1..IOLAT_MAX_DEVS
 * @ring_slots: records per CPU buffer, a power of two; 0: as many as
 *	fit the ring_mb module parameter (budget.c)
 * @filter: which requests to record
 * @mode: IOLAT_MODE_*: keep the counters (acct.h) but write no
 *	record; trace the NVMe commands of the devices that are NVMe
 *	namespaces; aggregate into histograms (agg.h), not records; keep
 *	a flight recorder besides (watch.h)
 * @watch: the flight recorder's settings, with IOLAT_MODE_WATCH
 * @extack: for the reason of a failure
 *
 * Return: 0 or a negative errno.
 */
int iolat_session_start(u32 portid, const struct iolat_dev_spec *specs,
			unsigned int nr_specs, unsigned int ring_slots,
			const struct iolat_filter *filter, u32 mode,
			const struct iolat_watch_conf *watch,
			struct netlink_ext_ack *extack)
{
	struct iolat_session *s, **place;
	struct iolat_budget b;
	unsigned int i;
	u64 need;
	int err = 0;

	/* what it would take, before anything is allocated */
	mode |= iolat_mode_who(mode, filter);
	iolat_budget_count(&b, specs, nr_specs, ring_slots,
			   (u64)READ_ONCE(ring_mb) << 20, mode);
	need = iolat_budget_total(&b);
	if (need > (u64)READ_ONCE(max_session_mb) << 20) {
		pr_info_ratelimited("a session of %u devices needs %llu MiB (histograms %llu, records %llu, tables %llu), over max_session_mb=%u\n",
				    nr_specs, DIV_ROUND_UP(need, 1 << 20),
				    b.hist >> 20, b.rings >> 20, (b.inflight + b.tables) >> 20,
				    READ_ONCE(max_session_mb));
		IOLAT_ERR_MSG_FMT(extack,
				  "the session needs more memory than the max_session_mb module parameter allows (the figure is in the kernel log)",
				  "the session needs %llu MiB; max_session_mb is %u",
				  DIV_ROUND_UP(need, 1 << 20),
				  READ_ONCE(max_session_mb));
		return -E2BIG;
	}
	mutex_lock(&iolat_mutex);
	place = iolat_session_of(portid);
	if (place && (*place)->running) {
		NL_SET_ERR_MSG(extack, "this socket's session is already running");
		err = -EBUSY;
		goto out;
	}
	for (i = 0; !place && i < max_sessions; i++)
		if (!iolat_sessions[i])
			place = &iolat_sessions[i];
	if (!place) {
		NL_SET_ERR_MSG(extack, "too many iolat sessions at once (the max_sessions module parameter)");
		err = -EBUSY;
		goto out;
	}
	s = iolat_session_alloc(portid, specs, nr_specs, filter,
				mode, watch, &b, extack);
	if (IS_ERR(s)) {
		if (PTR_ERR(s) == -ENOMEM)
			NL_SET_ERR_MSG(extack, "cannot allocate the session's buffers");
		err = PTR_ERR(s);
		goto out;
	}
	err = iolat_attach(s, extack);
	if (err) {
		iolat_session_free(s);
		goto out;
	}
	/* requests allocated from now on are this session's */
	WRITE_ONCE(s->start_ns, iolat_now());
	for (i = 0; i < s->nr_devs; i++)
		WRITE_ONCE(s->devs[i]->start_ns, s->start_ns);
	s->running = true;
	if (*place)
		iolat_session_free(*place);
	*place = s;
out:
	mutex_unlock(&iolat_mutex);
	return err;
}

/**
 * iolat_session_mem() - the memory of the sessions
 * @portid: a socket
 * @mine: set to its session's, 0 without one
 * @nr: set to the number of sessions
 *
 * Return: all the sessions' memory, and the map of their disks that
 * the shared probes read (dispatch.h), bytes.
 */
u64 iolat_session_mem(u32 portid, u64 *mine, unsigned int *nr)
{
	u64 all = 0;
	unsigned int i;

	*mine = 0;
	*nr = 0;
	mutex_lock(&iolat_mutex);
	for (i = 0; i < max_sessions; i++) {
		if (!iolat_sessions[i])
			continue;
		all += iolat_cpus_mem(iolat_sessions[i]);
		(*nr)++;
		if (iolat_sessions[i]->portid == portid)
			*mine = iolat_cpus_mem(iolat_sessions[i]);
	}
	/* the map of their disks for the shared probes */
	all += iolat_subs.bytes;
	mutex_unlock(&iolat_mutex);
	return all;
}

static struct iolat_session *iolat_session_owned(u32 portid,
						 struct netlink_ext_ack *extack)
{
	struct iolat_session **place = iolat_session_of(portid);

	if (!place) {
		NL_SET_ERR_MSG(extack, "this socket has no iolat session");
		return ERR_PTR(-ENOENT);
	}
	return *place;
}

/* @s's counters, summed over its CPUs (STOP's, and WATCH's). */
void iolat_session_stats(struct iolat_session *s, struct iolat_cpu_stats *st)
{
	unsigned int i;
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct iolat_cpu *c = iolat_cpu_of(s, cpu);

		for (i = 0; c && i < IOLAT_STAT_NR; i++)
			st->n[i] += local64_read(&c->stats[i]);
	}
	/* not counted by the writers: from the rings' positions */
	if (s->watch)
		st->n[IOLAT_S_WATCH_OVERWRITTEN] = iolat_watch_overwritten(s);
}

/**
 * iolat_session_stop() - stop the socket's session
 * @portid: the socket
 * @stats: set to the session's final counters
 * @extack: for the reason of a failure
 *
 * The probes are gone on return, so @stats are final; the records still
 * buffered remain readable until the session is freed.
 *
 * Return: 0 or a negative errno.
 */
int iolat_session_stop(u32 portid, struct iolat_cpu_stats *stats,
		       struct netlink_ext_ack *extack)
{
	struct iolat_session *s;
	int err = 0;

	mutex_lock(&iolat_mutex);
	s = iolat_session_owned(portid, extack);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
		goto out;
	}
	if (s->running) {
		/* no new request from here; those seen run to completion */
		WRITE_ONCE(s->stop_ns, iolat_now());
		iolat_detach(s);
		s->running = false;
	}
	iolat_session_stats(s, stats);
out:
	mutex_unlock(&iolat_mutex);
	return err;
}

/**
 * iolat_session_add() - a whole disk joins the socket's running session
 * @portid: the socket
 * @spec: the disk, validated
 * @extack: for the reason of a failure
 *
 * Return: 0 or a negative errno (iolat_session_join()).
 */
int iolat_session_add(u32 portid, const struct iolat_dev_spec *spec,
		      struct netlink_ext_ack *extack)
{
	struct iolat_session *s;
	int err;

	mutex_lock(&iolat_mutex);
	s = iolat_session_owned(portid, extack);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
	} else if (!s->running) {
		NL_SET_ERR_MSG(extack, "this socket's session is stopped");
		err = -EINVAL;
	} else {
		err = iolat_session_join(s, spec,
					 (u64)READ_ONCE(max_session_mb) << 20,
					 extack);
	}
	mutex_unlock(&iolat_mutex);
	return err;
}

/**
 * iolat_session_lock() - lock the socket's session to drain it
 * @portid: the socket
 * @extack: for the reason of a failure
 *
 * Return: the session, to be released with iolat_session_unlock(); or an
 * ERR_PTR, with nothing locked.
 */
struct iolat_session *iolat_session_lock(u32 portid,
					 struct netlink_ext_ack *extack)
{
	struct iolat_session *s;

	mutex_lock(&iolat_mutex);
	s = iolat_session_owned(portid, extack);
	if (IS_ERR(s))
		mutex_unlock(&iolat_mutex);
	return s;
}

void iolat_session_unlock(void)
{
	mutex_unlock(&iolat_mutex);
}

/**
 * iolat_session_watch_trigger() - trigger every running flight recorder
 * @reason: enum iolat_watch_reason (WATCH_TRIGGER's)
 *
 * Return: how many sessions keep one.
 */
unsigned int iolat_session_watch_trigger(u32 reason)
{
	u64 now = iolat_now();
	struct iolat_session *s;
	unsigned int n, nr = 0;

	mutex_lock(&iolat_mutex);
	for (n = 0; n < max_sessions; n++) {
		s = iolat_sessions[n];
		if (s && s->running && s->watch) {
			iolat_watch_fire(s, reason, NULL, now);
			nr++;
		}
	}
	mutex_unlock(&iolat_mutex);
	return nr;
}

/* The socket @portid is closing: free its session, if any. */
void iolat_session_release(u32 portid)
{
	struct iolat_session **place;

	mutex_lock(&iolat_mutex);
	place = iolat_session_of(portid);
	if (place) {
		iolat_session_free(*place);
		*place = NULL;
	}
	mutex_unlock(&iolat_mutex);
}

/*
 * Module unload: free whatever sessions are left, then stop following
 * modules.  In that order: until a session's NVMe probes are off, the
 * notifier must be there to take them off if nvme-core goes.
 */
void iolat_session_exit(void)
{
	unsigned int i;

	mutex_lock(&iolat_mutex);
	for (i = 0; i < max_sessions; i++) {
		if (!iolat_sessions[i])
			continue;
		pr_info("stopping the session of netlink port %u on unload\n",
			iolat_sessions[i]->portid);
		iolat_session_free(iolat_sessions[i]);
		iolat_sessions[i] = NULL;
	}
	mutex_unlock(&iolat_mutex);
	unregister_tracepoint_module_notifier(&iolat_session_module_nb);
	iolat_cpus_exit();
}
