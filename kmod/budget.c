// SPDX-License-Identifier: GPL-2.0
/*
 * A session's memory, part by part (budget.h).
 */
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include "budget.h"
#include "inflight.h"
#include "acct.h"
#include "agg.h"
#include "cgstat.h"
#include "watch.h"
#include "cpus.h"
#include "upper.h"
#include "probe_nvme.h"
#include "alloc.h"

/* Is @specs[@i] the first namespace given of its controller? */
static bool iolat_budget_first_ns(const struct iolat_dev_spec *specs,
				  unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++)
		if (specs[j].nvme_ctrl == specs[i].nvme_ctrl)
			return false;
	return true;
}

/*
 * What one device of @spec adds to @b, but its controller's NVMe table;
 * @acct and @hist: a CPU's part of its counters and histograms.
 */
static void iolat_budget_dev(struct iolat_budget *b,
			     const struct iolat_dev_spec *spec, u32 mode,
			     u64 *acct, u64 *hist)
{
	size_t tables;

	b->session += iolat_alloc_bytes(sizeof(struct iolat_dev)) +
		      iolat_acct_bytes();
	b->inflight += iolat_inflight_bytes(spec, mode, &tables) +
		       (spec->bio_based ? iolat_upper_bytes(spec->depth) : 0);
	b->tables += tables;
	*acct += iolat_acct_cpu_bytes(spec->nr_hwq);
	if (mode & IOLAT_MODE_AGGREGATE) {
		b->session += iolat_agg_bytes();
		*hist += iolat_agg_cpu_bytes();
	}
	if (iolat_mode_cg_slots(mode)) {
		b->session += iolat_cgstat_bytes();
		*hist += iolat_cgstat_cpu_bytes(mode);
	}
}

/*
 * Records per CPU buffer when START gives none: IOLAT_RING_DEFAULT, or
 * fewer, a power of two, so that the buffers of the @cpus online fit in
 * @ring_bytes; at least IOLAT_RING_MIN.
 */
static unsigned int iolat_budget_ring_default(u64 ring_bytes, u64 cpus,
					      unsigned int stride)
{
	u64 fit = div64_u64(ring_bytes, cpus * stride);

	if (fit < IOLAT_RING_MIN)
		return IOLAT_RING_MIN;
	return min_t(u64, IOLAT_RING_DEFAULT, rounddown_pow_of_two(fit));
}

/**
 * iolat_budget_count() - what a session of these devices allocates
 * @b: set to its parts; @b->map is 0, the map's size being known once
 *	it is built
 * @specs: its devices, as START gives them to iolat_session_start()
 * @nr: how many
 * @ring_slots: records per CPU buffer, or 0 for the default (set in
 *	@b->ring_slots)
 * @ring_bytes: the default records' room: the ring_mb module parameter, bytes
 * @mode: IOLAT_MODE_*
 *
 * The CPUs' parts count the CPUs online now (cpus.h); one that comes
 * online later adds its own.
 */
void iolat_budget_count(struct iolat_budget *b,
			const struct iolat_dev_spec *specs, unsigned int nr,
			unsigned int ring_slots, u64 ring_bytes, u32 mode)
{
	u64 acct = 0, hist = 0;	/* a CPU's parts of the devices */
	size_t tables;
	u32 upper_slots = 0;
	bool lower = false;
	unsigned int i;

	memset(b, 0, sizeof(*b));
	b->cpus = num_online_cpus();
	b->session = iolat_alloc_bytes(sizeof(struct iolat_session)) +
		     iolat_alloc_bytes(array_size(nr,
						  sizeof(struct iolat_dev *))) +
		     iolat_alloc_bytes(array_size(nr_cpu_ids,
						  sizeof(struct iolat_cpu *)));
	if (mode & IOLAT_MODE_NVME)
		b->session += iolat_alloc_bytes(array_size(nr,
						sizeof(struct iolat_nvme_ctrl)));
	for (i = 0; i < nr; i++) {
		iolat_budget_dev(b, &specs[i], mode, &acct, &hist);
		if (specs[i].bio_based)
			upper_slots += specs[i].depth;
		lower |= specs[i].lower;
		if ((mode & IOLAT_MODE_NVME) && specs[i].nvme_ctrl >= 0 &&
		    iolat_budget_first_ns(specs, i)) {
			b->nvme += iolat_nvme_ctrl_bytes(&specs[i], &tables);
			b->tables += tables;
		}
	}
	if (lower)
		b->inflight += iolat_links_bytes(upper_slots);
	/*
	 * records whole with a stack's links (the links' own rule,
	 * iolat_links_init()), up to the link with NVMe commands, up to
	 * the cgroup with cgroups; without records, the buffers only hold
	 * the counters
	 */
	if (lower && upper_slots)
		b->record_size = sizeof(struct iolat_record);
	else if (mode & IOLAT_MODE_NVME)
		b->record_size = IOLAT_RECORD_NVME_SIZE;
	else if (mode & IOLAT_MODE_CGROUPS)
		b->record_size = IOLAT_RECORD_CGROUP_SIZE;
	else
		b->record_size = IOLAT_RECORD_BLOCK_SIZE;
	b->stride = iolat_ring_stride(b->record_size);
	if (mode & IOLAT_MODE_WATCH)	/* a flight recorder: records too */
		b->session += iolat_watch_bytes();
	if ((mode & (IOLAT_MODE_COUNTERS_ONLY | IOLAT_MODE_AGGREGATE)) &&
	    !(mode & IOLAT_MODE_WATCH))
		ring_slots = IOLAT_RING_MIN;
	else if (!ring_slots)
		ring_slots = iolat_budget_ring_default(ring_bytes, b->cpus,
						       b->stride);
	b->ring_slots = ring_slots;
	b->per_cpu = iolat_cpu_bytes(ring_slots, b->stride) + acct + hist;
	b->rings = b->cpus * iolat_cpu_bytes(ring_slots, b->stride);
	b->acct = b->cpus * acct;
	b->hist = b->cpus * hist;
}

/**
 * iolat_budget_added() - what a disk added to a running session takes
 * @b: set to its parts: @b->per_cpu, its part of each CPU's, over
 *	@cpus CPUs; the growth of the session's device table and map not
 *	included
 * @spec: the disk
 * @mode: the session's IOLAT_MODE_*
 * @cpus: the CPUs with parts in the session
 */
void iolat_budget_added(struct iolat_budget *b,
			const struct iolat_dev_spec *spec, u32 mode,
			unsigned int cpus)
{
	u64 acct = 0, hist = 0;

	memset(b, 0, sizeof(*b));
	b->cpus = cpus;
	iolat_budget_dev(b, spec, mode, &acct, &hist);
	b->per_cpu = acct + hist;
	b->acct = b->cpus * acct;
	b->hist = b->cpus * hist;
}
