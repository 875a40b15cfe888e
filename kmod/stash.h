/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Submission stash: the bio stages of a request before the request can be
 * seen.  block_bio_queue (Q), block_split (X) and block_getrq (G) run in
 * the submitter's context but carry only the bio; the request appears at
 * its first insert (I) or issue (D), where rq->bio is that bio.  Until
 * then the stages and the submitter's pid, tgid and comm wait in a small
 * per-CPU array, found by comparing bio pointers from the newest entry
 * down: usually the newest, at worst a plug's worth of entries, with no
 * hashing and no allocation.  An entry whose request is first seen on
 * another CPU (the submitter was preempted with its plug and migrated,
 * or kblockd ran the queue) is not found there, and only then are the
 * other CPUs' stashes searched, read-only but for taking the entry back
 * (iolat_cpus_take_remote()).  Entries are reused in order, so a lost
 * one is overwritten, never leaked; the entry of a bio merged into a
 * request is given back at once, so the bios of a long merge do not push
 * the entries of requests waiting in a plug out.
 *
 * Writers are probes on this CPU (preemption disabled); an interrupt can
 * nest, so an entry is claimed with local_inc_return() and its bio, the
 * key, is cleared first and stored last, with write barriers between the
 * key and the fields for a reader on another CPU.  That reader copies
 * the fields once it has found the key, like a seqcount reader, and
 * keeps them only if a cmpxchg of the key then takes the entry back,
 * which fails if the owner has reused the entry meanwhile.
 */
#ifndef _IOLAT_STASH_H
#define _IOLAT_STASH_H

#include <linux/sched.h>
#include <asm/local.h>
#include "iolat.h"

#define IOLAT_STASH_ENTRIES	64	/* a power of two, >= a plug's requests */
/*
 * How long a CPU's clock reading serves to put the bios' stamps back
 * together (probe_bio.c), and how old a stamp may be when a fresh reading
 * checks it.
 */
#define IOLAT_REF_JIFFIES	HZ
#define IOLAT_STAMP_SLACK_NS	(10 * NSEC_PER_MSEC)

struct iolat_stash_entry {
	const struct bio *bio;		/* the key; NULL when free */
	u64 q_ns;
	u64 g_ns;
	struct iolat_submitter who;
	u32 flags;			/* IOLAT_F_SPLIT, IOLAT_F_SUBMITTER */
};

struct iolat_stash {
	local_t head;			/* entries claimed so far */
	/* a clock reading and its jiffies, for the bios' own stamps */
	u64 ref_ns;
	unsigned long ref_j;
	/* the bio-based device's I/O this CPU last tied a remap to (upper.h) */
	struct iolat_upper_slot *last_upper;
	local64_t links;		/* I/Os this CPU numbered (upper.h) */
	struct iolat_stash_entry e[IOLAT_STASH_ENTRIES];
};

/*
 * The time of a stamp that keeps only the bits @mask of a clock (the
 * low bits, all ones), from @ref, a reading of the same clock at or
 * before it and less than @mask nanoseconds before.
 */
static inline u64 iolat_stamp_after(u64 ref, u64 stamp, u64 mask)
{
	return ref + ((stamp - ref) & mask);
}

/* The same from @ref, a reading at or after it, less than @mask after. */
static inline u64 iolat_stamp_before(u64 ref, u64 stamp, u64 mask)
{
	return ref - ((ref - stamp) & mask);
}

/* This CPU's entry for @bio, or NULL. */
static inline struct iolat_stash_entry *
iolat_stash_find(struct iolat_stash *st, const struct bio *bio)
{
	unsigned long head = local_read(&st->head);
	unsigned int i;

	for (i = 0; i < IOLAT_STASH_ENTRIES; i++) {
		struct iolat_stash_entry *e =
			&st->e[(head - 1 - i) & (IOLAT_STASH_ENTRIES - 1)];

		if (READ_ONCE(e->bio) == bio)
			return e;
	}
	return NULL;
}

bool iolat_stash_take(struct iolat_stash *st, const struct bio *bio,
		      struct iolat_stash_entry *copy);

/**
 * iolat_stash_claim() - take the next entry of this CPU's stash
 * @st: this CPU's stash (preemption disabled)
 *
 * The entry is cleared; fill it, then make it findable with
 * iolat_stash_publish().
 *
 * Return: the entry.
 */
static inline struct iolat_stash_entry *
iolat_stash_claim(struct iolat_stash *st)
{
	unsigned long n = local_inc_return(&st->head) - 1;
	struct iolat_stash_entry *e = &st->e[n & (IOLAT_STASH_ENTRIES - 1)];

	WRITE_ONCE(e->bio, NULL);
	/* a reader on another CPU sees the key gone before the fields change */
	smp_wmb();
	e->q_ns = 0;
	e->g_ns = 0;
	memset(&e->who, 0, sizeof(e->who));
	e->flags = 0;
	return e;
}

/* Make @e findable by @bio; its other fields are written. */
static inline void iolat_stash_publish(struct iolat_stash_entry *e,
				       const struct bio *bio)
{
	/*
	 * a nested probe on this CPU, or a reader on another, sees the key
	 * only after the fields
	 */
	smp_wmb();
	WRITE_ONCE(e->bio, bio);
}

/**
 * iolat_submitter_set() - take @task as a request's submitter
 * @who: where to put its pid, tgid and comm
 * @task: the task
 *
 * Return: IOLAT_F_SUBMITTER, for the flags of whatever holds @who.
 */
static inline u32 iolat_submitter_set(struct iolat_submitter *who,
				      const struct task_struct *task)
{
	who->pid = task->pid;
	who->tgid = task->tgid;
	memcpy(who->comm, task->comm, IOLAT_COMM_LEN);
	/* comm may be renamed under us; keep it terminated */
	who->comm[IOLAT_COMM_LEN - 1] = '\0';
	return IOLAT_F_SUBMITTER;
}

/**
 * iolat_stash_release() - free an entry whose bio is done with
 * @st: this CPU's stash (preemption disabled)
 * @e: the entry
 *
 * If @e is the newest entry, as for a bio merged right after it was
 * queued, its position is given back too, so that a long run of merged
 * bios does not push older entries out of the stash.
 */
static inline void iolat_stash_release(struct iolat_stash *st,
				       struct iolat_stash_entry *e)
{
	long head = local_read(&st->head);

	WRITE_ONCE(e->bio, NULL);
	if (e == &st->e[(head - 1) & (IOLAT_STASH_ENTRIES - 1)])
		/* fails harmlessly if a nested probe claimed an entry since */
		local_cmpxchg(&st->head, head, head - 1);
}

u64 iolat_bio_queue_clock(struct iolat_session *s, struct iolat_stash *st,
			  u64 stamp, unsigned long j);

/*
 * The time @bio was queued, without a clock read where the kernel took
 * one: its stamp (iolat_bio_stamp(), taken just before this tracepoint)
 * put back on this CPU's last reading, less than a second old; @st is
 * this CPU's stash.
 */
static __always_inline u64 iolat_bio_queue_ns(struct iolat_session *s,
					      struct iolat_stash *st,
					      const struct bio *bio)
{
	u64 stamp = iolat_bio_stamp(bio);
	unsigned long j;

	/* no stamp (none in this kernel's headers, or none on this bio) */
	if (!IOLAT_BIO_STAMP_MASK || !stamp)
		return iolat_now();
	j = jiffies;
	if (j - READ_ONCE(st->ref_j) < IOLAT_REF_JIFFIES &&
	    !READ_ONCE(s->no_stamps))
		return iolat_stamp_after(READ_ONCE(st->ref_ns), stamp,
					 IOLAT_BIO_STAMP_MASK);
	return iolat_bio_queue_clock(s, st, stamp, j);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* block_split's stage (probe_bio.c), for the suite iolat_stash */
void iolat_split(struct iolat_session *s, struct iolat_dev *first,
		 struct bio *split);
#endif

#endif /* _IOLAT_STASH_H */
