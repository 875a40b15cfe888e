/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counts per cgroup without records (IOLAT_A_CGROUP_SLOTS): a counters-only
 * or aggregating session keeps, per device, the requests, bytes and wait
 * times of each of up to IOLAT_CGROUP_SLOTS_MAX cgroups, and of the others
 * in one more slot, each CPU in its own memory as the device's counters
 * (acct.h); an aggregating session also each slot's Q2C histogram
 * (lib/hist.h's struct iolat_cg_hist).  A slot belongs to the first
 * cgroup seen on the device that finds it free, until the reader frees it
 * (IOLAT_CMD_CGROUPS_FREE): the completion compares the request's cgroup
 * with the slots', and if none is its own, takes the first free one with
 * a compare-and-swap.  That line of ids is written once per slot taken or
 * freed, and read by every completion.  No lock, no allocation, no hash.
 *
 * Freeing: the slot is retired (IOLAT_CG_RETIRED: no cgroup's, and not
 * free), the probes that may have found it before are waited for
 * (tracepoint_synchronize_unregister()), its counts and histogram are
 * added to the device's @freed, which the others' slot is read with, and
 * zeroed, and then it is free.
 */
#ifndef _IOLAT_CGSTAT_H
#define _IOLAT_CGSTAT_H

#include <linux/lockdep.h>
#include <linux/smp.h>
#include "iolat.h"
#include "compat.h"
#include "../lib/hist.h"
#include "../lib/record.h"

/* One CPU's counts of one slot: the device's counters' (acct.h). */
struct iolat_cg_count {
	u64 ios[IOLAT_OP_NR];
	u64 bytes[IOLAT_OP_NR];
	u64 wait_ns[IOLAT_OP_NR];
};

/*
 * A device's slots: their cgroups (low 32 bits of the id, 0 while free),
 * and each CPU's part: the counts of its @nr slots and the others, then
 * with @hist their histograms.
 */
struct iolat_cgstat {
	u32 ids[IOLAT_CGROUP_SLOTS_MAX];
	unsigned int nr;
	bool hist;
	/* what the slots freed had counted, under the session's lock */
	struct iolat_cg_count freed;
	struct iolat_cg_hist freed_hist;
	void *cpu[];		/* [nr_cpu_ids] */
};

/* A slot being freed: no cgroup's id (they are below 2^31), nor free. */
#define IOLAT_CG_RETIRED	U32_MAX

/* The cgroup slots of a mode (IOLAT_MODE_CG_SLOTS()), 0 for none. */
static inline unsigned int iolat_mode_cg_slots(u32 mode)
{
	return (mode >> IOLAT_MODE_CG_SHIFT) & 0xff;
}

/* The cgroup id slot @slot is read with: its own, 0 for the others'. */
static inline u64 iolat_cgstat_id(const struct iolat_cgstat *t,
				  unsigned int slot)
{
	return slot < t->nr ? READ_ONCE(t->ids[slot]) : 0;
}

static inline struct iolat_cg_count *iolat_cg_counts(void *cpu)
{
	return cpu;
}

static inline struct iolat_cg_hist *
iolat_cg_hists(const struct iolat_cgstat *t, void *cpu)
{
	return (struct iolat_cg_hist *)((struct iolat_cg_count *)cpu +
					t->nr + 1);
}

/*
 * The slot of cgroup @id (low 32 bits; 0: none) in @t: its own, else the
 * first free one, taken, else the others' (@t->nr).  Slots are taken in
 * order, but a freed one leaves a hole: its own is looked for in all.
 */
static __always_inline unsigned int iolat_cgstat_slot(struct iolat_cgstat *t,
						      u32 id)
{
	unsigned int i, free = t->nr;
	u32 v;

	if (!id)
		return t->nr;
	for (i = 0; i < t->nr; i++) {
		v = READ_ONCE(t->ids[i]);
		if (v == id)
			return i;
		if (!v && free == t->nr)
			free = i;
	}
	for (i = free; i < t->nr; i++) {
		v = READ_ONCE(t->ids[i]) ?: cmpxchg(&t->ids[i], 0, id);
		if (!v || v == id)
			return i;
	}
	return t->nr;
}

int iolat_cgstat_init(struct iolat_dev *d, u32 mode);
size_t iolat_cgstat_bytes(void);
int iolat_cgstat_cpu_init(struct iolat_dev *d, int cpu);
size_t iolat_cgstat_cpu_bytes(u32 mode);
void iolat_cgstat_free(struct iolat_dev *d);
/*
 * A request of @bio (or none), @op, @bytes and @wait_ns into its slot's
 * counts of this CPU's part @p of @t.  Return: the slot.
 */
static __always_inline unsigned int
iolat_cgstat_count(struct iolat_cgstat *t, void *p, struct bio *bio, u8 op,
		   u32 bytes, u64 wait_ns)
{
	unsigned int i = iolat_cgstat_slot(t, bio ? (u32)iolat_bio_cgroup(bio) : 0);
	struct iolat_cg_count *c = &iolat_cg_counts(p)[i];

	lockdep_assert_irqs_disabled();
	c->ios[op]++;
	c->bytes[op] += bytes;
	c->wait_ns[op] += wait_ns;
	return i;
}

/* @c_ns - @q_ns, if both are known and in order */
static inline bool iolat_cgstat_q2c(const struct iolat_slot *slot, u64 c_ns,
				    u64 *q2c)
{
	return slot && iolat_stage_ns(slot->q_ns, slot->g_ns, slot->i_ns,
				      slot->d_ns, c_ns, IOLAT_STAGE_Q2C, q2c);
}

/**
 * __iolat_cgstat_add() - count a completed request in its cgroup's slot
 * @d: its device
 * @bio: its first bio, or NULL
 * @op: enum iolat_op
 * @bytes: its size
 * @wait_ns: its time in the queue, as the device's counters count it
 * @slot: its stages, for the slot's histogram: a request an aggregating
 *	session keeps; else NULL
 * @c_ns: when it completed
 *
 * Called with interrupts off, beside the device's counters; inline: a
 * call cost it some 25 instructions of the 90 it takes.
 */
static __always_inline void
__iolat_cgstat_add(struct iolat_dev *d, struct bio *bio, u8 op, u32 bytes,
		   u64 wait_ns, const struct iolat_slot *slot, u64 c_ns)
{
	struct iolat_cgstat *t = d->cg;
	void *p = t->cpu[smp_processor_id()];
	unsigned int i;
	u64 q2c;

	i = iolat_cgstat_count(t, p, bio, op, bytes, wait_ns);
	if (iolat_cgstat_q2c(slot, c_ns, &q2c))
		iolat_cg_hist_add(&iolat_cg_hists(t, p)[i], q2c);
}

/*
 * A bio-based device's I/O (upper.h): @q2c into the slot's histogram if
 * @hist, as __iolat_cgstat_add().
 */
static __always_inline void
__iolat_cgstat_add_bio(struct iolat_dev *d, struct bio *bio, u8 op, u32 bytes,
		       u64 wait_ns, u64 q2c, bool hist)
{
	struct iolat_cgstat *t = d->cg;
	void *p = t->cpu[smp_processor_id()];
	unsigned int i;

	i = iolat_cgstat_count(t, p, bio, op, bytes, wait_ns);
	if (hist)
		iolat_cg_hist_add(&iolat_cg_hists(t, p)[i], q2c);
}

unsigned int iolat_cgstat_retire(struct iolat_dev *d, u64 id);
void iolat_cgstat_release(struct iolat_dev *d);
void iolat_cgstat_read(const struct iolat_dev *d, unsigned int slot,
		       struct iolat_cg_count *sum);
void iolat_cgstat_hist(const struct iolat_dev *d, unsigned int slot,
		       struct iolat_hist *sum);

#endif /* _IOLAT_CGSTAT_H */
