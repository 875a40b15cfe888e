/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's memory, part by part: what START will allocate, checked
 * against the max_session_mb module parameter before anything is, and
 * what a session holds, for GET_INFO (docs/design.md, "Memory").  Each
 * part's size comes from the unit that allocates it.
 */
#ifndef _IOLAT_BUDGET_H
#define _IOLAT_BUDGET_H

#include "iolat.h"

struct iolat_budget {
	u64 session;	/* the session, its devices, controllers, CPU tables */
	u64 rings;	/* the CPUs' parts (cpus.h): rings, stashes, counters */
	u64 inflight;	/* in-flight tables' indexes, bio-based devices', links */
	u64 tables;	/* in-flight tables of the CPUs present: an estimate */
	u64 acct;	/* the CPUs' parts of the devices' counters */
	u64 hist;	/* the CPUs' histograms and cgroup slots (cgstat.h) */
	u64 nvme;	/* NVMe command tables */
	u64 map;	/* the device map, once built (devmap.h) */
	u64 cpus;	/* the CPUs counted: those online */
	u64 per_cpu;	/* the parts of one CPU, in rings, acct and hist */
	unsigned int ring_slots;	/* records a ring */
	unsigned int record_size;	/* the part of a record sent (ring.h) */
	unsigned int stride;		/* a ring slot's bytes (ring.h) */
};

void iolat_budget_count(struct iolat_budget *b,
			const struct iolat_dev_spec *specs, unsigned int nr,
			unsigned int ring_slots, u64 ring_bytes, u32 mode);

void iolat_budget_added(struct iolat_budget *b,
			const struct iolat_dev_spec *spec, u32 mode,
			unsigned int cpus);

static inline u64 iolat_budget_total(const struct iolat_budget *b)
{
	return b->session + b->rings + b->inflight + b->tables + b->acct +
	       b->hist + b->nvme + b->map;
}

#endif /* _IOLAT_BUDGET_H */
