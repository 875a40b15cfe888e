// SPDX-License-Identifier: GPL-2.0
/*
 * Accounting: the read side and the per-CPU counters' allocation; the
 * hot path is in acct.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <linux/string.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include "acct.h"
#include "alloc.h"

/* The device's table of its CPUs' counters, filled by iolat_acct_cpu_init(). */
int iolat_acct_init(struct iolat_dev *d)
{
	if (d->nr_hwq > 1)
		iolat_hwqs_init(d->hwqs, d->nr_hwq);
	d->acct = iolat_zalloc(array_size(nr_cpu_ids, sizeof(*d->acct)),
			       NUMA_NO_NODE);
	return d->acct ? 0 : -ENOMEM;
}

/* What iolat_acct_init() allocates. */
size_t iolat_acct_bytes(void)
{
	return iolat_alloc_bytes(array_size(nr_cpu_ids,
					    sizeof(struct iolat_acct_cpu *)));
}

static size_t iolat_acct_cpu_size(u32 nr_hwq)
{
	return struct_size((struct iolat_acct_cpu *)NULL, hwq_words,
			   nr_hwq == 1 ? 0 : nr_hwq * IOLAT_NR_SPANS);
}

/*
 * CPU @cpu's counters of @d, unless it has them, on its node; seen by
 * readers once stored (cpus.c publishes the CPU's whole part after).
 */
int iolat_acct_cpu_init(struct iolat_dev *d, int cpu)
{
	struct iolat_acct_cpu *c;

	if (d->acct[cpu])
		return 0;
	c = iolat_zalloc(iolat_acct_cpu_size(d->nr_hwq), cpu_to_node(cpu));
	if (!c)
		return -ENOMEM;
	/* zeroed before seen: pairs with the readers' READ_ONCE() */
	smp_store_release(&d->acct[cpu], c);
	return 0;
}

/* What iolat_acct_cpu_init() allocates for @nr_hwq queues. */
size_t iolat_acct_cpu_bytes(u32 nr_hwq)
{
	return iolat_alloc_bytes(iolat_acct_cpu_size(nr_hwq));
}

void iolat_acct_free(struct iolat_dev *d)
{
	int cpu;

	if (!d->acct)
		return;
	for_each_possible_cpu(cpu)
		kvfree(d->acct[cpu]);
	kvfree(d->acct);
	d->acct = NULL;
}

/*
 * The time of a reading: now while the session runs, its stop once the
 * probes are gone, so that the counters of a stopped session stay put.
 */
u64 iolat_acct_now(const struct iolat_session *s)
{
	u64 now = iolat_now(), stop = READ_ONCE(s->stop_ns);

	return min(now, stop);
}

/*
 * Busy time of each span of hardware queue @hwq at @now, into @busy: the
 * sum of its word's parts on every CPU (each read whole; a transition on
 * one CPU while another's part is read is off by at most the reading's
 * time).  A device with one queue keeps them in its counters.
 */
void iolat_acct_hwq_busy(const struct iolat_session *s,
			 const struct iolat_dev *d, u32 hwq, u64 now,
			 u64 busy[IOLAT_NR_SPANS])
{
	u64 word[IOLAT_NR_SPANS] = { 0 };
	struct iolat_acct_cpu *c;
	local64_t *part;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = READ_ONCE(d->acct[cpu]);
		if (!c)
			continue;
		part = d->nr_hwq == 1 ? c->busy :
		       c->hwq_words + hwq * IOLAT_NR_SPANS;
		for (i = 0; i < IOLAT_NR_SPANS; i++)
			word[i] += local64_read(&part[i]);
	}
	for (i = 0; i < IOLAT_NR_SPANS; i++)
		busy[i] = iolat_busy_read((s64)word[i], now - s->base_ns);
}

/*
 * A stable copy of CPU @cpu's counters.  An update holds its CPU for a
 * few hundred instructions, so a sequence count that stays odd for a
 * second is a bug (as when the probes ran preemptible, compat.h's
 * iolat_probe_pin_cpu()): the reader, which holds the netlink family's
 * lock, takes the copy as it is and says so in the kernel log, instead
 * of spinning for ever.
 */
static void iolat_acct_copy(const struct iolat_acct_cpu *c, int cpu,
			    struct iolat_acct_cpu *copy)
{
	u64 give_up = 0;
	long seq;

	for (;;) {
		seq = local_read(&c->seq);
		smp_rmb();	/* pairs with the one in iolat_acct_get() */
		memcpy(copy, c, sizeof(*copy));
		smp_rmb();	/* pairs with the one in iolat_acct_put() */
		if (!(seq & 1) && seq == local_read(&c->seq))
			return;
		if (!give_up) {
			give_up = ktime_get_ns() + NSEC_PER_SEC;
		} else if (ktime_get_ns() > give_up) {
			pr_err_once("CPU %d's counters stayed mid-update for a second: read as they are (a bug)\n",
				    cpu);
			return;
		}
		cond_resched();
	}
}

/**
 * iolat_acct_snapshot() - a device's counters, summed over its CPUs
 * @s: the session
 * @d: the device
 * @snap: filled in
 * @c: room for a copy of one CPU's counters (too big for the stack)
 *
 * Every CPU's counters are read stable; a request that moves between two
 * CPUs while they are read is counted at one of its ends, so that the
 * integrals are off by at most the time the reading takes.
 */
void iolat_acct_snapshot(const struct iolat_session *s,
			 const struct iolat_dev *d, struct iolat_acct_snap *snap,
			 struct iolat_acct_cpu *c)
{
	u64 dev_sum = 0, dev_n = 0, queue_sum = 0, queue_n = 0;
	u64 busy[IOLAT_NR_SPANS] = { 0 }, n;
	const struct iolat_acct_cpu *part;
	unsigned int i;
	int cpu;

	memset(snap, 0, sizeof(*snap));
	snap->now_ns = iolat_acct_now(s);
	for_each_possible_cpu(cpu) {
		part = READ_ONCE(d->acct[cpu]);
		if (!part)
			continue;
		iolat_acct_copy(part, cpu, c);
		dev_sum += local64_read(&c->dev_sum);
		dev_n += local64_read(&c->dev_n);
		queue_sum += local64_read(&c->queue_sum);
		queue_n += local64_read(&c->queue_n);
		for (i = 0; i < IOLAT_OP_NR; i++) {
			snap->ios[i] += c->ios[i];
			snap->bytes[i] += c->bytes[i];
			snap->wait_ns[i] += c->wait_ns[i];
			snap->below_ios[i] += c->below_ios[i];
			snap->below_ns[i] += c->below_ns[i];
		}
		snap->issues += local64_read(&c->issues);
		snap->qd_sum += local64_read(&c->qd_sum);
		for (i = 0; i < IOLAT_QD_BUCKETS; i++)
			snap->qd_hist[i] += local64_read(&c->qd_hist[i]);
		for (i = 0; i < IOLAT_NR_SPANS; i++)
			busy[i] += local64_read(&c->busy[i]);
	}
	snap->inflight_ns = iolat_integral_read(dev_sum, dev_n, snap->now_ns);
	snap->qinflight_ns = iolat_integral_read(queue_sum, queue_n,
						 snap->now_ns);
	snap->busy_ns = iolat_busy_read((s64)busy[IOLAT_SPAN_DEV],
					snap->now_ns - s->base_ns);
	snap->qbusy_ns = iolat_busy_read((s64)busy[IOLAT_SPAN_QUEUE],
					 snap->now_ns - s->base_ns);
	for (i = 0; i < d->nr_hwq; i++) {
		n = iolat_n_counts(atomic64_read(&d->hwqs[i].n), d->nr_hwq);
		snap->queued += iolat_n_queued(n);
		snap->issued += iolat_n_issued(n);
	}
}
