/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bio-based devices: device-mapper and md take bios and pass them (or
 * their clones) on to the devices under them, and have no requests, tags
 * or hardware queues of their own.  Their I/O is a bio from
 * block_bio_queue on the device to block_bio_complete there, which the
 * kernel fires for every bio it traced at queue (BIO_TRACE_COMPLETION)
 * once all its parts are done.  A bio has no tag to index a table by, so
 * each such device has a table of slots found by the bio's address:
 * open addressing from a hash of it, claimed by compare-and-swap, no
 * lock and no allocation.  Sessions without a bio-based device register
 * none of this (the devices with requests never look here).
 */
#ifndef _IOLAT_UPPER_H
#define _IOLAT_UPPER_H

#include <linux/hash.h>
#include "iolat.h"

/* How far a bio's slot may be from its hash's: a full run is a drop. */
#define IOLAT_UPPER_PROBES	16

/* A bio of a bio-based device while it is in flight. */
struct iolat_upper_slot {
	const struct bio *bio;	/* owner; NULL when free */
	u64 q_ns;
	u64 acct_ns;		/* start of its interval, not before the session */
	u64 sector;
	struct iolat_submitter who;
	u32 bytes;
	u32 flags;		/* IOLAT_F_*, of the bio's flags and submitter */
	u16 qd;			/* the device's bios in flight before it */
	u8 op;			/* enum iolat_op */
	u8 filtered;
	u8 piece;		/* a part split off a traced bio: not an I/O */
	u64 link;		/* its number, in a session with a stack */
	/*
	 * Its requests below (iolat_upper_fold()): the first one's first
	 * stage and the last one's completion; 0 before the first.
	 */
	u64 low_first;
	u64 low_last;
};

/*
 * A bio the kernel remapped from an I/O of a traced bio-based device to
 * one of the session's lower devices, from the remap until the request
 * it becomes completes: the I/O's submitter, taken at the bio's queueing,
 * and the I/O's number, taken by the request's record.
 */
struct iolat_link {
	const struct bio *bio;	/* owner; NULL when free */
	struct iolat_submitter who;
	u32 flags;		/* the I/O's IOLAT_F_SUBMITTER */
	u64 link;		/* the I/O's number */
	struct iolat_upper_slot *up;	/* its slot, while @link is its */
};

static inline u32 iolat_upper_hash(const struct iolat_dev *d,
				   const struct bio *bio)
{
	return hash_ptr((void *)bio, ilog2(d->depth));
}

/* @bio's slot, or NULL. */
static inline struct iolat_upper_slot *
iolat_upper_find(const struct iolat_dev *d, const struct bio *bio)
{
	u32 h = iolat_upper_hash(d, bio), i;
	struct iolat_upper_slot *u;

	for (i = 0; i < IOLAT_UPPER_PROBES; i++) {
		u = &d->upper[(h + i) & (d->depth - 1)];
		if (READ_ONCE(u->bio) == bio)
			return u;
	}
	return NULL;
}

/* A free slot, now @bio's; NULL if every one it may have is taken. */
static inline struct iolat_upper_slot *
iolat_upper_claim(struct iolat_dev *d, const struct bio *bio)
{
	u32 h = iolat_upper_hash(d, bio), i;
	struct iolat_upper_slot *u;

	for (i = 0; i < IOLAT_UPPER_PROBES; i++) {
		u = &d->upper[(h + i) & (d->depth - 1)];
		if (!READ_ONCE(u->bio) && !cmpxchg(&u->bio, NULL, bio))
			return u;
	}
	return NULL;
}

/* The slot's bio is done with. */
static inline void iolat_upper_release(struct iolat_upper_slot *u)
{
	/* every read of the slot before another bio can claim it */
	smp_store_release(&u->bio, NULL);
}

/* The slot of @d's I/O in flight that begins at @sector, or NULL. */
static inline struct iolat_upper_slot *
iolat_upper_at(const struct iolat_dev *d, u64 sector)
{
	u32 i = READ_ONCE(d->by_sector[hash_64(sector, ilog2(d->depth))]);
	struct iolat_upper_slot *u;

	if (!i)
		return NULL;
	u = &d->upper[i - 1];
	/* the fields were written before the index (iolat_probe_upper_queue()) */
	smp_rmb();
	return READ_ONCE(u->bio) && u->sector == sector && !u->piece ? u : NULL;
}

/* Is @sector within the I/O in flight in @u? */
static inline bool iolat_upper_holds(const struct iolat_upper_slot *u,
				     u64 sector)
{
	return READ_ONCE(u->bio) && !u->piece && sector >= u->sector &&
	       sector - u->sector < u->bytes >> SECTOR_SHIFT;
}

/* @s's link of @bio, or NULL. */
static inline struct iolat_link *iolat_link_find(struct iolat_session *s,
						 const struct bio *bio)
{
	u32 h = hash_ptr((void *)bio, ilog2(s->nr_links)), i;
	struct iolat_link *l;

	for (i = 0; i < IOLAT_UPPER_PROBES; i++) {
		l = &s->links[(h + i) & (s->nr_links - 1)];
		if (READ_ONCE(l->bio) == bio)
			return l;
	}
	return NULL;
}

/*
 * @bio's link: the one it still has (a bio freed and allocated again
 * before its link was, which a remap outside the session's window can
 * leave), else a free one, now its; NULL if every one it may have is
 * taken.
 */
static inline struct iolat_link *iolat_link_claim(struct iolat_session *s,
						  const struct bio *bio)
{
	u32 h = hash_ptr((void *)bio, ilog2(s->nr_links)), i;
	struct iolat_link *l = iolat_link_find(s, bio);

	if (l)
		return l;
	for (i = 0; i < IOLAT_UPPER_PROBES; i++) {
		l = &s->links[(h + i) & (s->nr_links - 1)];
		if (!READ_ONCE(l->bio) && !cmpxchg(&l->bio, NULL, bio))
			return l;
	}
	return NULL;
}

/*
 * Take @bio's link, if it has one, into the stash entry of its Q on a
 * lower device: the request it becomes is its I/O's (IOLAT_F_STACK).
 * The link stays until the request completes, for its record.
 */
static inline void iolat_link_take(struct iolat_session *s,
				   const struct bio *bio, struct iolat_submitter *who,
				   u32 *flags)
{
	struct iolat_link *l = iolat_link_find(s, bio);

	if (!l)
		return;
	/* the fields were written before the key (iolat_probe_upper_remap()) */
	smp_rmb();
	*who = l->who;
	*flags = (*flags & ~IOLAT_F_SUBMITTER) | l->flags | IOLAT_F_STACK;
}

/*
 * A request below @u's I/O number @link, in its queue from @first to its
 * completion at @last: the I/O's time below spans it.  Requests below one
 * I/O (md raid1's mirrors) complete on any CPU, so the bounds move by
 * compare-and-swap; all of them complete before the I/O does, which ends
 * after them through the kernel's own atomic count of its parts.  A slot
 * taken by another I/O since (the link outlived its I/O: never for a
 * request made from it) has another number and is left alone.
 */
static inline void iolat_upper_fold(struct iolat_upper_slot *u, u64 link,
				    u64 first, u64 last)
{
	u64 old;

	if (READ_ONCE(u->link) != link || !READ_ONCE(u->bio))
		return;
	do {
		old = READ_ONCE(u->low_first);
		if (old && old <= first)
			break;
	} while (cmpxchg64(&u->low_first, old, first) != old);
	do {
		old = READ_ONCE(u->low_last);
		if (old >= last)
			break;
	} while (cmpxchg64(&u->low_last, old, last) != old);
}

int iolat_upper_init(struct iolat_dev *d);
size_t iolat_upper_bytes(u32 depth);
int iolat_links_init(struct iolat_session *s);
size_t iolat_links_bytes(u32 slots);
void iolat_upper_free(struct iolat_dev *d);
void iolat_record_emit_upper(struct iolat_session *s,
			     const struct iolat_dev *d,
			     const struct iolat_upper_slot *u, u64 c_ns,
			     int error, u64 cgroup);

extern struct iolat_probe iolat_upper_probes[];
extern const unsigned int iolat_nr_upper_probes;

#endif /* _IOLAT_UPPER_H */
