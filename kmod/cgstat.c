// SPDX-License-Identifier: GPL-2.0
/*
 * Counts per cgroup without records: per-CPU slots filled at completion
 * and summed on demand; see cgstat.h.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/lockdep.h>
#include "cgstat.h"
#include "compat.h"
#include "alloc.h"
#include "../lib/record.h"

/* What iolat_cgstat_init() allocates for a device. */
size_t iolat_cgstat_bytes(void)
{
	return iolat_alloc_bytes(sizeof(struct iolat_cgstat) +
				 array_size(nr_cpu_ids, sizeof(void *)));
}

/* A CPU's part: @nr slots and the others', with @hist their histograms. */
static size_t iolat_cgstat_cpu_size(unsigned int nr, bool hist)
{
	return (nr + 1) * (sizeof(struct iolat_cg_count) +
			   (hist ? sizeof(struct iolat_cg_hist) : 0));
}

/* What iolat_cgstat_cpu_init() allocates for a CPU, in a session of @mode. */
size_t iolat_cgstat_cpu_bytes(u32 mode)
{
	return iolat_alloc_bytes(iolat_cgstat_cpu_size(iolat_mode_cg_slots(mode),
						       mode & IOLAT_MODE_AGGREGATE));
}

/* The device's slots, in a session of @mode (IOLAT_MODE_CG_SLOTS()). */
int iolat_cgstat_init(struct iolat_dev *d, u32 mode)
{
	struct iolat_cgstat *t;

	t = iolat_zalloc(sizeof(*t) + array_size(nr_cpu_ids, sizeof(void *)),
			 NUMA_NO_NODE);
	if (!t)
		return -ENOMEM;
	t->nr = iolat_mode_cg_slots(mode);
	t->hist = mode & IOLAT_MODE_AGGREGATE;
	d->cg = t;
	return 0;
}

/* CPU @cpu's part of @d's slots, unless it has it, on its node. */
int iolat_cgstat_cpu_init(struct iolat_dev *d, int cpu)
{
	struct iolat_cgstat *t = d->cg;
	void *p;

	if (t->cpu[cpu])
		return 0;
	p = iolat_zalloc(iolat_cgstat_cpu_size(t->nr, t->hist), cpu_to_node(cpu));
	if (!p)
		return -ENOMEM;
	/* zeroed before seen: pairs with the readers' READ_ONCE() */
	smp_store_release(&t->cpu[cpu], p);
	return 0;
}

void iolat_cgstat_free(struct iolat_dev *d)
{
	int cpu;

	if (!d->cg)
		return;
	for_each_possible_cpu(cpu)
		kvfree(d->cg->cpu[cpu]);
	kvfree(d->cg);
	d->cg = NULL;
}

/**
 * iolat_cgstat_read() - a slot's counts, summed over the CPUs
 * @d: the device
 * @slot: below @d->cg->nr, or it for the others
 * @sum: filled in
 *
 * Each u64 is read whole, written by one CPU: the sum holds what was
 * added before the call began, and nothing twice.
 */
void iolat_cgstat_read(const struct iolat_dev *d, unsigned int slot,
		       struct iolat_cg_count *sum)
{
	const struct iolat_cg_count *c;
	unsigned int op;
	void *p;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		p = READ_ONCE(d->cg->cpu[cpu]);
		if (!p)
			continue;
		c = &iolat_cg_counts(p)[slot];
		for (op = 0; op < IOLAT_OP_NR; op++) {
			sum->ios[op] += READ_ONCE(c->ios[op]);
			sum->bytes[op] += READ_ONCE(c->bytes[op]);
			sum->wait_ns[op] += READ_ONCE(c->wait_ns[op]);
		}
	}
}

/**
 * iolat_cgstat_hist() - a slot's histogram, summed over the CPUs into
 *	lib/hist.h's fine bins, each coarse bin's count at its midpoint
 * @d: the device, of an aggregating session
 * @slot: as iolat_cgstat_read()'s
 * @sum: filled in; its count is the bins' and the overflow's, its min
 *	and max those of the bins, its squares 0
 */
void iolat_cgstat_hist(const struct iolat_dev *d, unsigned int slot,
		       struct iolat_hist *sum)
{
	const struct iolat_cg_hist *h;
	unsigned int i;
	u64 n;
	int cpu;
	void *p;

	iolat_hist_init(sum);
	for_each_possible_cpu(cpu) {
		p = READ_ONCE(d->cg->cpu[cpu]);
		if (!p)
			continue;
		h = &iolat_cg_hists(d->cg, p)[slot];
		sum->sum += READ_ONCE(h->sum);
		sum->overflow += READ_ONCE(h->overflow);
		for (i = 0; i < IOLAT_CG_HIST_NR_BINS; i++) {
			n = READ_ONCE(h->bins[i]);
			if (!n)
				continue;
			sum->bins[iolat_cg_hist_fine_bin(i)] += n;
			sum->min = min(sum->min, iolat_cg_hist_bin_lo(i));
			sum->max = max(sum->max, iolat_cg_hist_bin_hi(i) - 1);
		}
	}
	sum->count = sum->overflow;
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
		sum->count += sum->bins[i];
	if (sum->overflow)
		sum->max = max_t(u64, sum->max, 1ULL << IOLAT_AGG_HIST_MAX_SHIFT);
}
