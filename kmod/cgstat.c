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
EXPORT_SYMBOL_IF_KUNIT(iolat_cgstat_init);

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
EXPORT_SYMBOL_IF_KUNIT(iolat_cgstat_cpu_init);

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
EXPORT_SYMBOL_IF_KUNIT(iolat_cgstat_free);

/**
 * iolat_cgstat_retire() - stop counting in cgroup @id's slots of @d
 * @d: the device; with no cgroup slots, nothing is done
 * @id: the cgroup (its low 32 bits are compared)
 *
 * Under the session's lock.  No completion takes or counts in the slots
 * once the probes that found them before have returned; then
 * iolat_cgstat_release() frees them.
 * Return: how many slots were retired.
 */
unsigned int iolat_cgstat_retire(struct iolat_dev *d, u64 id)
{
	unsigned int i, n = 0;

	if (!d->cg || !(u32)id || (u32)id == IOLAT_CG_RETIRED)
		return 0;
	for (i = 0; i < d->cg->nr; i++) {
		if (READ_ONCE(d->cg->ids[i]) == (u32)id) {
			WRITE_ONCE(d->cg->ids[i], IOLAT_CG_RETIRED);
			n++;
		}
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_cgstat_retire);

/* Slot @slot's histograms of the CPUs added to @h, and zeroed. */
static void iolat_cgstat_fold_hist(struct iolat_cgstat *t, unsigned int slot,
				   struct iolat_cg_hist *h)
{
	struct iolat_cg_hist *c;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!t->cpu[cpu])
			continue;
		c = &iolat_cg_hists(t, t->cpu[cpu])[slot];
		h->sum += c->sum;
		h->overflow += c->overflow;
		for (i = 0; i < IOLAT_CG_HIST_NR_BINS; i++)
			h->bins[i] += c->bins[i];
		memset(c, 0, sizeof(*c));
	}
}

/**
 * iolat_cgstat_release() - free @d's retired slots
 * @d: the device, whose retired slots no probe counts in any more
 *
 * Under the session's lock, after the probes that may have found the
 * slots before they were retired have returned.  Their counts and
 * histograms go to @d's freed ones, which the others' slot is read with.
 */
void iolat_cgstat_release(struct iolat_dev *d)
{
	struct iolat_cgstat *t = d->cg;
	struct iolat_cg_count *c;
	unsigned int i, op;
	int cpu;

	for (i = 0; t && i < t->nr; i++) {
		if (READ_ONCE(t->ids[i]) != IOLAT_CG_RETIRED)
			continue;
		for_each_possible_cpu(cpu) {
			if (!t->cpu[cpu])
				continue;
			c = &iolat_cg_counts(t->cpu[cpu])[i];
			for (op = 0; op < IOLAT_OP_NR; op++) {
				t->freed.ios[op] += c->ios[op];
				t->freed.bytes[op] += c->bytes[op];
				t->freed.wait_ns[op] += c->wait_ns[op];
			}
			memset(c, 0, sizeof(*c));
		}
		if (t->hist)
			iolat_cgstat_fold_hist(t, i, &t->freed_hist);
		/* zeroed before it is taken: pairs with the taker's cmpxchg */
		smp_store_release(&t->ids[i], 0);
	}
}
EXPORT_SYMBOL_IF_KUNIT(iolat_cgstat_release);

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

	/* the others' slot holds what the slots freed had counted */
	if (slot == d->cg->nr)
		*sum = d->cg->freed;
	else
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
EXPORT_SYMBOL_IF_KUNIT(iolat_cgstat_read);

/* @h, a CPU's or the freed slots', into @sum's fine bins and totals. */
static void iolat_cgstat_hist_add(struct iolat_hist *sum,
				  const struct iolat_cg_hist *h)
{
	unsigned int i;
	u64 n;

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
	unsigned int i;
	int cpu;
	void *p;

	iolat_hist_init(sum);
	/* the others' slot holds what the slots freed had counted */
	if (slot == d->cg->nr)
		iolat_cgstat_hist_add(sum, &d->cg->freed_hist);
	for_each_possible_cpu(cpu) {
		p = READ_ONCE(d->cg->cpu[cpu]);
		if (p)
			iolat_cgstat_hist_add(sum, &iolat_cg_hists(d->cg, p)[slot]);
	}
	sum->count = sum->overflow;
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++)
		sum->count += sum->bins[i];
	if (sum->overflow)
		sum->max = max_t(u64, sum->max, 1ULL << IOLAT_AGG_HIST_MAX_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(iolat_cgstat_hist);
