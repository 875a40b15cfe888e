/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU record buffer: the step between the probes, which write one
 * record per completed request, and the netlink drain, which reads them.
 *
 * Each CPU has its own ring.  Writers are the probes running on that CPU,
 * with preemption disabled; an interrupt can nest a second writer inside
 * a first one, so a slot is reserved with local_cmpxchg() on the CPU-local
 * head (no lock prefix, no shared cache line) and published by storing
 * its position + 1 in the slot's seq with release semantics.  The single
 * reader (the drain, serialised by the session mutex) consumes slots in
 * order while their seq says they are published, then releases them by
 * advancing tail.  A writer finding the ring full counts a drop.
 */
#ifndef _IOLAT_RING_H
#define _IOLAT_RING_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/cache.h>
#include <asm/local.h>
#include <linux/iolat.h>
#include "../lib/stats.h"

/*
 * A record and its sequence, in whole cache lines of their own: writing
 * one touches no line of its neighbours.  (The kernel is built without
 * SSE, so a slot the allocator left less aligned costs time, not a
 * fault.)
 */
struct iolat_ring_slot {
	unsigned long seq;		/* position + 1 once published */
	struct iolat_record rec;
} ____cacheline_aligned;

/*
 * A session sends each record as far as it needs (budget.c): its block
 * part (IOLAT_RECORD_BLOCK_SIZE), with the cgroup when it asks for
 * cgroups (IOLAT_RECORD_CGROUP_SIZE), up to the NVMe part's end when it
 * has NVMe commands (IOLAT_RECORD_NVME_SIZE), whole with a stack's link.
 * Its ring's slots are as large as that needs, in whole cache lines:
 * two, three or four; a record is written only as far as its session
 * sends it (emit.c).
 */
#define IOLAT_RECORD_NVME_SIZE	offsetof(struct iolat_record, link)

static inline unsigned int iolat_ring_stride(unsigned int record_size)
{
	return ALIGN(offsetof(struct iolat_ring_slot, rec) + record_size,
		     SMP_CACHE_BYTES);
}

/* A session's counters, n[IOLAT_S_X] what IOLAT_STAT_A_X counts (lib/stats.h). */
struct iolat_cpu_stats {
	u64 n[IOLAT_STAT_NR];
};

/*
 * One CPU's ring.  Its line is written only by that CPU.  The slots
 * follow a page of struct iolat_ring_map (linux/iolat.h): the reader's
 * tail, written once per drain (by the module's READ, or by the CLI in
 * its mapping: kmod/ring_map.c, user/nl/ring_reader.c), and the
 * geometry a mapping reads.
 */
struct iolat_ring {
	local_t head;			/* next position to reserve */
	unsigned long mask;		/* slots - 1 */
	void *slots;			/* of @stride bytes each */
	unsigned int stride;		/* iolat_ring_stride() */
	bool mapped;			/* bound to its reader's file: READ skips it */
	/* a recorder's (watch.h): the latest completion overwritten */
	u64 lost_ns;
	struct iolat_ring_map *map;	/* tail: the first not consumed */
};

/* The reader's position; the reader alone writes it. */
static inline unsigned long iolat_ring_tail(const struct iolat_ring *r)
{
	return READ_ONCE(r->map->tail);
}

/* The slots below @pos are free again. */
static inline void iolat_ring_set_tail(struct iolat_ring *r, unsigned long pos)
{
	/* the reads of the slots first; pairs with the writers' acquire */
	smp_store_release(&r->map->tail, pos);
}

/* The slot of position @pos. */
static inline struct iolat_ring_slot *iolat_ring_slot(const struct iolat_ring *r,
						      unsigned long pos)
{
	return r->slots + (pos & r->mask) * r->stride;
}

/**
 * iolat_ring_reserve() - reserve the next slot of this CPU's ring
 * @r: the ring of the current CPU (preemption disabled)
 * @pos: set to the slot's position
 *
 * Return: the slot to fill and publish with iolat_ring_publish(), or
 * NULL if the ring is full.
 */
static inline struct iolat_ring_slot *
iolat_ring_reserve(struct iolat_ring *r, unsigned long *pos)
{
	long head;

	do {
		unsigned long tail;

		head = local_read(&r->head);
		/* pairs with the reader's release of tail: slots below it are free */
		tail = smp_load_acquire(&r->map->tail);
		if ((unsigned long)head - tail > r->mask)
			return NULL;
	} while (local_cmpxchg(&r->head, head, head + 1) != head);
	*pos = head;
	return iolat_ring_slot(r, head);
}

/**
 * iolat_ring_reserve_over() - reserve the next slot, overwriting the oldest
 * @r: the ring of the current CPU (preemption disabled), a recorder's,
 *	which no reader drains while it is written (watch.h)
 * @pos: set to the slot's position
 * @floor: a record completed at or after it is not overwritten
 *
 * Return: the slot to fill and publish, or NULL if its record is one to
 * keep.  A record overwritten moves @r->lost_ns on to its completion.
 */
static inline struct iolat_ring_slot *
iolat_ring_reserve_over(struct iolat_ring *r, unsigned long *pos, u64 floor)
{
	struct iolat_ring_slot *slot;
	long head;
	u64 c;

	do {
		head = local_read(&r->head);
		slot = iolat_ring_slot(r, head);
		c = 0;
		/* the slot's record, published a ring's length ago */
		if ((unsigned long)head > r->mask &&
		    READ_ONCE(slot->seq) == (unsigned long)head - r->mask) {
			c = slot->rec.c_ns;
			if (c >= floor)
				return NULL;
		}
	} while (local_cmpxchg(&r->head, head, head + 1) != head);
	/* an interrupt's record in between may have moved it on: it stays */
	if (c > r->lost_ns)
		r->lost_ns = c;
	*pos = head;
	return slot;
}

static inline void iolat_ring_publish(struct iolat_ring_slot *slot,
				      unsigned long pos)
{
	/* the record is complete before seq says so; pairs with the reader */
	smp_store_release(&slot->seq, pos + 1);
}

/*
 * The records reserved and not consumed: the reader's bound, of which
 * iolat_ring_read() copies those published in order.  Any CPU's ring;
 * callers serialise readers.
 */
static inline unsigned long iolat_ring_pending(struct iolat_ring *r)
{
	return (unsigned long)local_read(&r->head) - iolat_ring_tail(r);
}

int iolat_ring_init(struct iolat_ring *r, unsigned int nr_slots,
		    unsigned int stride, int node);
size_t iolat_ring_bytes(unsigned int nr_slots, unsigned int stride);
void iolat_ring_describe(struct iolat_ring *r, unsigned int record_size,
			 int cpu);
void iolat_ring_free(struct iolat_ring *r);
unsigned int iolat_ring_read(struct iolat_ring *r, void *dst, unsigned int max,
			     unsigned int size);

#endif /* _IOLAT_RING_H */
