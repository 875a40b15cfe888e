// SPDX-License-Identifier: GPL-2.0
/*
 * A session's devices: built at START, before its probes are attached,
 * and a whole disk added while they run (a disk that appeared: the CLI's
 * sessions over every disk, docs/design.md, "Disks that come and go").
 * The session's life and its lock: session.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/err.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/tracepoint.h>
#include "inflight.h"
#include "acct.h"
#include "agg.h"
#include "cpus.h"
#include "probe_nvme.h"
#include "budget.h"
#include "alloc.h"
#include "dispatch.h"
#include "upper.h"
#include "cgstat.h"

void iolat_session_dev_free(struct iolat_dev *d)
{
	iolat_inflight_free(d);
	iolat_upper_free(d);
	iolat_acct_free(d);
	iolat_agg_free(d);
	iolat_cgstat_free(d);
	kvfree(d);
}

/* @d, of @s but never seen by its probes, and what it counted there. */
static void iolat_session_dev_drop(struct iolat_session *s,
				   struct iolat_dev *d)
{
	atomic64_sub(iolat_inflight_held(d), &s->tables_bytes);
	iolat_session_dev_free(d);
}

/* A device of @s, as @spec says, without its CPUs' parts (cpus.c). */
struct iolat_dev *iolat_session_dev_new(struct iolat_session *s,
					const struct iolat_dev_spec *spec)
{
	struct iolat_dev *d = iolat_zalloc(sizeof(*d), NUMA_NO_NODE);
	int err;

	if (!d)
		return ERR_PTR(-ENOMEM);
	err = iolat_inflight_init(d, spec, iolat_session_mode(s),
				  &s->tables_bytes);
	if (!err && spec->bio_based)
		err = iolat_upper_init(d);
	if (!err)
		err = iolat_acct_init(d);
	if (!err && s->aggregate)
		err = iolat_agg_init(d);
	if (!err && s->cg_slots)
		err = iolat_cgstat_init(d, iolat_session_mode(s));
	if (err) {
		iolat_session_dev_drop(s, d);
		return ERR_PTR(err);
	}
	d->start_ns = U64_MAX;
	d->lower = spec->lower;
	d->kind = spec->bio_based ? IOLAT_DEV_UPPER :
		  spec->sectors ? IOLAT_DEV_PART : IOLAT_DEV_DISK;
	return d;
}

/*
 * The controllers of the session's NVMe namespaces, each with its key,
 * found by opening one of its namespaces.
 */
int iolat_session_nvme(struct iolat_session *s,
		       const struct iolat_dev_spec *specs,
		       struct netlink_ext_ack *extack)
{
	struct iolat_nvme_ctrl *c;
	unsigned int i, j;
	int err;

	s->ctrls = iolat_zalloc(array_size(s->nr_devs, sizeof(*s->ctrls)),
				NUMA_NO_NODE);
	if (!s->ctrls)
		return -ENOMEM;
	for (i = 0; i < s->nr_devs; i++) {
		if (specs[i].nvme_ctrl < 0)
			continue;
		for (j = 0; j < s->nr_ctrls; j++)
			if (s->ctrls[j].instance == specs[i].nvme_ctrl)
				break;
		c = &s->ctrls[j];
		if (j == s->nr_ctrls) {
			s->nr_ctrls++;
			err = iolat_nvme_ctrl_init(c, specs[i].nvme_ctrl,
						   s->devs[i], &s->tables_bytes);
			if (err)
				return err;
		} else if (c->nr_hwq != specs[i].nr_hwq ||
			   c->depth != specs[i].depth) {
			NL_SET_ERR_MSG(extack, "NVMe namespaces of one controller with different tag sets");
			return -EINVAL;
		}
		err = iolat_nvme_ctrl_key(c, s->devs[i]->devt, extack);
		if (err)
			return err;
		s->devs[i]->nvme = c;
	}
	if (!s->nr_ctrls) {
		NL_SET_ERR_MSG(extack, "NVMe tracing asked for, but no device is an NVMe namespace");
		return -EINVAL;
	}
	return 0;
}

/*
 * @d found by its disk's number from now on: alone, or, a partition,
 * after the disk's other partitions (iolat_session_dev()).
 */
int iolat_session_map(struct iolat_session *s, struct iolat_dev *d,
		      struct netlink_ext_ack *extack)
{
	struct iolat_dev *p;
	int err = iolat_devmap_add(&s->map, d->devt, d, NULL);

	if (err == -EEXIST && d->kind == IOLAT_DEV_PART) {
		p = iolat_devmap_find(&s->map, d->devt);
		if (p->kind == IOLAT_DEV_PART) {
			while (p->next)
				p = p->next;
			p->next = d;
			return 0;
		}
	}
	if (err == -ERANGE)
		NL_SET_ERR_MSG(extack, "a device's major is above any block device's");
	else if (err == -EEXIST)
		NL_SET_ERR_MSG(extack, "two devices of one number");
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_session_map);

/* The session's table of devices, with room for @cap. */
static struct iolat_dev **iolat_session_devs_room(struct iolat_session *s,
						  unsigned int cap)
{
	struct iolat_dev **devs = iolat_zalloc(array_size(cap, sizeof(*devs)),
					       NUMA_NO_NODE);

	if (devs)
		memcpy(devs, s->devs, s->nr_devs * sizeof(*devs));
	return devs;
}

/* Can a whole disk join @s as it runs?  One extack message if not. */
static int iolat_session_joinable(struct iolat_session *s,
				  const struct iolat_dev_spec *spec,
				  struct netlink_ext_ack *extack)
{
	if (spec->bio_based || spec->sectors || spec->lower) {
		NL_SET_ERR_MSG(extack, "only a whole blk-mq disk joins a running session");
		return -EINVAL;
	}
	if (s->nvme || s->nr_devs > s->nr_rq_devs) {
		NL_SET_ERR_MSG(extack, "a session tracing NVMe commands or a bio-based device takes no disk once started");
		return -EOPNOTSUPP;
	}
	if (iolat_devmap_find(&s->map, MKDEV(spec->major, spec->minor))) {
		NL_SET_ERR_MSG(extack, "the disk is traced already");
		return -EEXIST;
	}
	if (s->nr_devs >= IOLAT_MAX_DEVS) {
		NL_SET_ERR_MSG(extack, "the session has its most devices already");
		return -E2BIG;
	}
	return 0;
}

/*
 * @d, built, given its part of every CPU that has the session's, and
 * put in the session's table (@devs: a larger one, or NULL).  Under the
 * CPU hotplug lock: a CPU that comes online after this gets its part
 * of @d from the hotplug state (cpus.c), one that came before got it
 * here.  Return: 0, or -ENOMEM with @s as it was.
 */
static int iolat_session_devs_put(struct iolat_session *s,
				  struct iolat_dev *d, struct iolat_dev **devs,
				  unsigned int cap, const struct iolat_budget *b)
{
	struct iolat_dev **old = NULL;
	int cpu, err = 0;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (!s->cpu[cpu])
			continue;
		err = iolat_session_dev_cpu(s, d, cpu);
		if (err)
			break;
	}
	/*
	 * The present CPUs' tables came with @d; this adds those of a CPU
	 * made present and online since, now that the hotplug lock orders
	 * it (cpus.c gives those of one that comes online after).
	 */
	for_each_online_cpu(cpu)
		if (!err)
			err = iolat_inflight_cpu(d, cpu, &s->tables_bytes);
	if (!err) {
		if (devs) {
			old = s->devs;
			s->devs = devs;
			s->mem_bytes += iolat_alloc_bytes(array_size(cap, sizeof(*devs))) -
					iolat_alloc_bytes(array_size(s->cap_devs,
								     sizeof(*devs)));
			s->cap_devs = cap;
		}
		s->devs[s->nr_devs++] = d;
		s->nr_rq_devs = s->nr_devs;
		s->mem_bytes += b->session + b->inflight;
		s->cpu_bytes += b->per_cpu;
	}
	cpus_read_unlock();
	kvfree(old);
	return err;
}

/**
 * iolat_session_join() - a whole disk joins a running session
 * @s: the session, running, under the session mutex
 * @spec: the disk, validated as START's devices are
 * @max_bytes: the session's memory at most (max_session_mb)
 * @extack: for the reason of a refusal
 *
 * The disk is traced from here: its requests allocated before are not
 * the session's, as a disk's at START are not.  Nothing on the path of
 * any other disk's requests changes or waits; the probes find the disk
 * once it is whole, by the map's release stores (devmap.c).
 *
 * Return: 0, or a negative errno with @s as it was.
 */
int iolat_session_join(struct iolat_session *s,
		       const struct iolat_dev_spec *spec, u64 max_bytes,
		       struct netlink_ext_ack *extack)
{
	u32 mode = iolat_session_mode(s);
	unsigned int cap = s->cap_devs;
	struct iolat_dev **devs = NULL;
	struct iolat_budget b;
	size_t map_bytes;
	struct iolat_dev *d;
	void *retired;
	u64 need;
	int err;

	err = iolat_session_joinable(s, spec, extack);
	if (err)
		return err;
	if (s->nr_devs == cap)
		cap = max(2 * cap, 16U);
	iolat_budget_added(&b, spec, mode, atomic_read(&s->nr_cpus));
	need = iolat_cpus_mem(s) + iolat_budget_total(&b) +
	       (cap != s->cap_devs ? iolat_alloc_bytes(array_size(cap, sizeof(*devs))) : 0);
	if (need > max_bytes) {
		IOLAT_ERR_MSG_FMT(extack,
				  "the disk would take the session over the max_session_mb module parameter",
				  "the session would need %llu MiB; max_session_mb is %llu",
				  DIV_ROUND_UP(need, 1 << 20), max_bytes >> 20);
		return -E2BIG;
	}
	d = iolat_session_dev_new(s, spec);
	if (IS_ERR(d))
		return PTR_ERR(d);
	if (cap != s->cap_devs) {
		devs = iolat_session_devs_room(s, cap);
		if (!devs) {
			iolat_session_dev_drop(s, d);
			return -ENOMEM;
		}
	}
	err = iolat_session_devs_put(s, d, devs, cap, &b);
	if (err) {
		kvfree(devs);
		iolat_session_dev_drop(s, d);
		return err;
	}
	/* its requests from now on; stored before the probes can find it */
	d->start_ns = iolat_now();
	map_bytes = s->map.bytes;
	err = iolat_devmap_add(&s->map, d->devt, d, &retired);
	s->mem_bytes += s->map.bytes - map_bytes;
	if (!err) {
		/* the shared probes find it from here */
		err = iolat_attach_dev(s, d);
		if (err)
			iolat_devmap_set(&s->map, d->devt, NULL);
	}
	if (retired || err) {
		/* a major's old table (uncounted already): no probe reads it */
		tracepoint_synchronize_unregister();
		kvfree(retired);
	}
	iolat_dispatch_free_retired();
	if (err) {
		/* -ENOMEM: no probe found it; as it was but the table's room */
		cpus_read_lock();
		s->nr_rq_devs = --s->nr_devs;
		s->mem_bytes -= b.session + b.inflight;
		s->cpu_bytes -= b.per_cpu;
		cpus_read_unlock();
		iolat_session_dev_drop(s, d);
	}
	return err;
}
