// SPDX-License-Identifier: GPL-2.0
/*
 * A session's per-CPU parts, for the CPUs online when it starts and for
 * each CPU that comes online while it runs (cpus.h).  A hotplug state of
 * the prepare stage, with one instance per session, allocates them: the
 * kernel calls it for each online CPU when a session adds its instance,
 * and on a control CPU before any other CPU starts.  Nothing is freed
 * when a CPU goes offline: its counters and buffered records are the
 * session's until it ends.  The callback takes no lock of the module's
 * (a session starts and ends under the session mutex, which would order
 * it against the hotplug lock both ways).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/overflow.h>
#include <linux/jiffies.h>
#include "cpus.h"
#include "acct.h"
#include "agg.h"
#include "cgstat.h"
#include "alloc.h"
#include "inflight.h"
#include "probe_nvme.h"

static int iolat_cpuhp_state = -1;

/* CPU @cpu's part of @d's counters, histograms and cgroup slots. */
int iolat_session_dev_cpu(struct iolat_session *s, struct iolat_dev *d,
			  int cpu)
{
	int err = iolat_acct_cpu_init(d, cpu);

	if (!err && s->aggregate)
		err = iolat_agg_cpu_init(d, cpu);
	if (!err && d->cg)
		err = iolat_cgstat_cpu_init(d, cpu);
	return err;
}

/*
 * CPU @cpu's part of @s and of each of its devices, unless it has them.
 * Parts allocated before a failure stay, to be freed with the session.
 */
static int iolat_cpus_alloc(struct iolat_session *s, unsigned int cpu)
{
	int node = cpu_to_node(cpu);
	struct iolat_cpu *c;
	unsigned int i;
	int err;

	if (s->cpu[cpu])
		return 0;
	for (i = 0; i < s->nr_devs; i++) {
		err = iolat_session_dev_cpu(s, s->devs[i], cpu);
		if (err)
			return err;
	}
	c = iolat_zalloc(sizeof(*c), node);
	if (!c)
		return -ENOMEM;
	err = iolat_ring_init(&c->ring, s->ring_slots, s->ring_stride, node);
	if (err) {
		kvfree(c);
		return err;
	}
	iolat_ring_describe(&c->ring, s->record_size, cpu);
	/* no clock reading yet for the bios' stamps */
	c->stash.ref_j = jiffies - IOLAT_REF_JIFFIES;
	atomic_inc(&s->nr_cpus);
	/* the devices' parts are seen before the CPU's: iolat_cpu_of() */
	smp_store_release(&s->cpu[cpu], c);
	return 0;
}

/*
 * The hotplug state's prepare step.  Failing it keeps @cpu offline: a
 * CPU that ran I/O without its parts would break the session's exact
 * counts, so it waits, and the kernel log says why.
 */
static int iolat_cpus_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct iolat_session *s = hlist_entry(node, struct iolat_session,
					      cpuhp);
	int err = iolat_cpus_alloc(s, cpu);
	unsigned int i;

	/* a CPU online before has its part, but a disk since may need tables */
	for (i = 0; !err && i < s->nr_devs; i++)
		err = iolat_inflight_cpu(s->devs[i], cpu, &s->tables_bytes);
	for (i = 0; !err && i < s->nr_ctrls; i++)
		err = iolat_nvme_ctrl_cpu(&s->ctrls[i], cpu, &s->tables_bytes);

	/* at the session's start, its START answers for it */
	if (err && READ_ONCE(s->cpuhp_added))
		pr_warn_ratelimited("CPU %u stays offline: no memory for its part of an iolat session (%zu bytes); stop the session, or free memory, and online it again\n",
				    cpu, s->cpu_bytes);
	return err;
}

/**
 * iolat_cpus_init() - the hotplug state of the sessions' parts
 *
 * Return: 0 or a negative errno.
 */
int iolat_cpus_init(void)
{
	int ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN,
					  "block/iolat:prepare",
					  iolat_cpus_prepare, NULL);

	if (ret < 0) {
		/* the kernel's dynamic prepare states are few (20 in 6.1) */
		pr_err("cannot register a CPU hotplug state: %d\n", ret);
		return ret;
	}
	iolat_cpuhp_state = ret;
	return 0;
}

/* After the last session is freed. */
void iolat_cpus_exit(void)
{
	cpuhp_remove_multi_state(iolat_cpuhp_state);
}

/**
 * iolat_cpus_start() - the parts of session @s, its devices built
 * @s: the session
 *
 * Every CPU online now gets its parts before this returns; a CPU that
 * comes online later, before it runs.
 *
 * Return: 0 or a negative errno (the session is then freed).
 */
int iolat_cpus_start(struct iolat_session *s)
{
	int err;

	s->cpu = iolat_zalloc(array_size(nr_cpu_ids, sizeof(*s->cpu)),
			      NUMA_NO_NODE);
	if (!s->cpu)
		return -ENOMEM;
	err = cpuhp_state_add_instance(iolat_cpuhp_state, &s->cpuhp);
	if (err)
		return err;
	WRITE_ONCE(s->cpuhp_added, true);
	return 0;
}

/* Free @s's CPU parts; its probes are gone.  The devices' go with them. */
void iolat_cpus_free(struct iolat_session *s)
{
	int cpu;

	if (s->cpuhp_added)
		cpuhp_state_remove_instance_nocalls(iolat_cpuhp_state,
						    &s->cpuhp);
	s->cpuhp_added = false;
	if (!s->cpu)
		return;
	for_each_possible_cpu(cpu) {
		if (!s->cpu[cpu])
			continue;
		iolat_ring_free(&s->cpu[cpu]->ring);
		kvfree(s->cpu[cpu]);
	}
	kvfree(s->cpu);
	s->cpu = NULL;
}

/*
 * What iolat_cpus_alloc() allocates for a CPU's own part, @ring_slots
 * records of @stride bytes a ring; its devices' parts are their units'
 * (budget.c).
 */
size_t iolat_cpu_bytes(unsigned int ring_slots, unsigned int stride)
{
	return iolat_alloc_bytes(sizeof(struct iolat_cpu)) +
	       iolat_ring_bytes(ring_slots, stride);
}

/* What @s holds now: its own and its CPUs' parts. */
u64 iolat_cpus_mem(const struct iolat_session *s)
{
	return s->mem_bytes + (u64)atomic_read(&s->nr_cpus) * s->cpu_bytes +
	       atomic64_read(&s->tables_bytes);
}

/**
 * iolat_cpus_take_remote() - take @bio's entry from another CPU's stash
 * @s: the session; this CPU's stash has been searched already
 * @bio: the first bio of a request first seen on this CPU
 * @copy: where to put the entry (iolat_stash_take())
 *
 * Return: whether @copy holds @bio's entry.
 */
bool iolat_cpus_take_remote(struct iolat_session *s, const struct bio *bio,
			    struct iolat_stash_entry *copy)
{
	int self = smp_processor_id(), cpu;
	struct iolat_cpu *c;

	for_each_possible_cpu(cpu) {
		c = iolat_cpu_of(s, cpu);
		if (cpu != self && c && iolat_stash_take(&c->stash, bio, copy))
			return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_cpus_take_remote);
