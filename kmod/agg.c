// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel aggregation: per-CPU histograms, filled by the completion
 * probe and summed on demand; see agg.h.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/irqflags.h>
#include <linux/smp.h>
#include <linux/lockdep.h>
#include "agg.h"
#include "../lib/record.h"
#include "alloc.h"

/* What iolat_agg_init() allocates for a device. */
size_t iolat_agg_bytes(void)
{
	return iolat_alloc_bytes(array_size(nr_cpu_ids,
					    sizeof(struct iolat_agg_cpu *)));
}

/* What iolat_agg_cpu_init() allocates for a CPU. */
size_t iolat_agg_cpu_bytes(void)
{
	return iolat_alloc_bytes(sizeof(struct iolat_agg_cpu));
}

/* The device's table of its CPUs' histograms. */
int iolat_agg_init(struct iolat_dev *d)
{
	/* the ABI's numbers are enum iolat_stage's */
	BUILD_BUG_ON(sizeof(struct iolat_agg_cpu) > IOLAT_AGG_CPU_MAX);
	BUILD_BUG_ON(IOLAT_AGG_STAGE_D2C - IOLAT_STAGE_D2C);
	BUILD_BUG_ON(IOLAT_AGG_STAGE_Q2C - IOLAT_STAGE_Q2C);
	d->agg = iolat_zalloc(array_size(nr_cpu_ids, sizeof(*d->agg)),
			      NUMA_NO_NODE);
	return d->agg ? 0 : -ENOMEM;
}

/* CPU @cpu's histograms of @d, unless it has them, on its node. */
int iolat_agg_cpu_init(struct iolat_dev *d, int cpu)
{
	struct iolat_agg_cpu *a;
	unsigned int op, i;

	if (d->agg[cpu])
		return 0;
	a = iolat_zalloc(sizeof(*a), cpu_to_node(cpu));
	if (!a)
		return -ENOMEM;
	for (op = 0; op < IOLAT_OP_NR; op++)
		for (i = 0; i < IOLAT_AGG_NR_STAGES; i++)
			iolat_agg_hist_init(&a->h[op][i]);
	/* set up before seen: pairs with the readers' READ_ONCE() */
	smp_store_release(&d->agg[cpu], a);
	return 0;
}

void iolat_agg_free(struct iolat_dev *d)
{
	int cpu;

	if (!d->agg)
		return;
	for_each_possible_cpu(cpu)
		kvfree(d->agg[cpu]);
	kvfree(d->agg);
	d->agg = NULL;
}

/* Stage @i of the request of stages @slot, completed at @c_ns, into @h[@i]. */
static __always_inline void iolat_agg_stage_add(struct iolat_agg_hist *h,
						unsigned int i,
						const struct iolat_slot *slot,
						u64 c_ns)
{
	u64 ns;

	if (iolat_stage_ns(slot->q_ns, slot->g_ns, slot->i_ns, slot->d_ns,
			   c_ns, iolat_agg_stage(i), &ns))
		iolat_agg_hist_add(&h[i], ns);
}

/**
 * __iolat_agg_add() - add a completed request to this CPU's histograms
 * @d: its device
 * @op: enum iolat_op
 * @bytes: its size
 * @slot: its stages
 * @c_ns: when it completed
 *
 * Called with interrupts off: a completion interrupt may nest in a
 * completion run by a task (polled I/O) on the same CPU.
 */
void __iolat_agg_add(struct iolat_dev *d, u8 op, u32 bytes,
		     const struct iolat_slot *slot, u64 c_ns)
{
	struct iolat_agg_cpu *a = d->agg[smp_processor_id()];

	lockdep_assert_irqs_disabled();
	a->ios[op]++;
	a->bytes[op] += bytes;
	/* a call per stage, not a loop: the loop cost 12 instructions more */
	BUILD_BUG_ON(IOLAT_AGG_NR_STAGES != 2);
	iolat_agg_stage_add(a->h[op], 0, slot, c_ns);
	iolat_agg_stage_add(a->h[op], 1, slot, c_ns);
}

/*
 * A bio-based device's I/O (upper.h): only its Q2C, under interrupts off
 * as __iolat_agg_add().
 */
void __iolat_agg_add_q2c(struct iolat_dev *d, u8 op, u32 bytes, u64 q2c)
{
	struct iolat_agg_cpu *a = d->agg[smp_processor_id()];

	lockdep_assert_irqs_disabled();
	a->ios[op]++;
	a->bytes[op] += bytes;
	iolat_agg_hist_add(&a->h[op][0], q2c);
}

/*
 * A stack's I/O of bio-based device @d: its time @above the requests
 * below it (upper.h), in the histogram a device with requests keeps D2C
 * in; with interrupts off.
 */
void __iolat_agg_add_above(struct iolat_dev *d, u8 op, u64 above)
{
	struct iolat_agg_cpu *a = d->agg[smp_processor_id()];

	lockdep_assert_irqs_disabled();
	iolat_agg_hist_add(&a->h[op][1], above);
}

/* __iolat_agg_add() from a context with interrupts on. */
void iolat_agg_add(struct iolat_dev *d, u8 op, u32 bytes,
		   const struct iolat_slot *slot, u64 c_ns)
{
	unsigned long flags;

	local_irq_save(flags);
	__iolat_agg_add(d, op, bytes, slot, c_ns);
	local_irq_restore(flags);
}

/**
 * iolat_agg_sum() - one histogram of a device, summed over its CPUs
 * @d: the device
 * @op: enum iolat_op
 * @stage: 0 (Q2C) or 1 (D2C)
 * @sum: filled in
 *
 * Read while the CPUs add to them: each bin is read whole (a u64 written
 * by one CPU), so the sum holds every value added before the call began
 * and none twice.  Each coarse bin's count goes to the fine bin of its
 * midpoint (lib/hist.h).  The count is the sum of the bins read, so that the
 * totals and the bins agree; sum, min, max and the squares may include a
 * value whose bin was not yet read.
 */
void iolat_agg_sum(const struct iolat_dev *d, unsigned int op,
		   unsigned int stage, struct iolat_hist *sum)
{
	const struct iolat_agg_cpu *a;
	const struct iolat_agg_hist *h;
	unsigned int i;
	u64 lo, n;
	int cpu;

	iolat_hist_init(sum);
	for_each_possible_cpu(cpu) {
		a = READ_ONCE(d->agg[cpu]);
		if (!a)
			continue;
		h = &a->h[op][stage];
		sum->sum += READ_ONCE(h->sum);
		sum->min = min(sum->min, READ_ONCE(h->min));
		sum->max = max(sum->max, READ_ONCE(h->max));
		sum->overflow += READ_ONCE(h->overflow);
		lo = READ_ONCE(h->sumsq_lo);
		sum->sumsq_lo += lo;
		sum->sumsq_hi += READ_ONCE(h->sumsq_hi) + (sum->sumsq_lo < lo);
		for (i = 0; i < IOLAT_AGG_HIST_NR_BINS; i++) {
			n = READ_ONCE(h->bins[i]);
			if (n)
				sum->bins[iolat_agg_hist_fine_bin(i)] += n;
		}
	}
	sum->count = sum->overflow;
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
		sum->count += sum->bins[i];
}

/**
 * iolat_agg_counts() - requests and bytes added, per op, over the CPUs
 * @d: the device
 * @ios: [IOLAT_OP_NR], filled in
 * @bytes: [IOLAT_OP_NR], filled in
 */
void iolat_agg_counts(const struct iolat_dev *d, u64 *ios, u64 *bytes)
{
	const struct iolat_agg_cpu *a;
	unsigned int op;
	int cpu;

	for (op = 0; op < IOLAT_OP_NR; op++) {
		ios[op] = 0;
		bytes[op] = 0;
		for_each_possible_cpu(cpu) {
			a = READ_ONCE(d->agg[cpu]);
			if (!a)
				continue;
			ios[op] += READ_ONCE(a->ios[op]);
			bytes[op] += READ_ONCE(a->bytes[op]);
		}
	}
}
