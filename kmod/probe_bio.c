// SPDX-License-Identifier: GPL-2.0
/*
 * Bio probes: the stages before a request can be seen.  They run in the
 * submitter's context for every bio on the machine, return at once for
 * untraced devices and otherwise write one entry of this CPU's stash
 * (stash.h); no locks, no allocation.
 */
#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/preempt.h>
#include <trace/events/block.h>
#include "stash.h"
#include "cpus.h"
#include "dispatch.h"

/*
 * A new entry for @bio, its submitter the current task if it runs one
 * and the session has a use for it.
 */
static __always_inline struct iolat_stash_entry *
iolat_stash_new(struct iolat_session *s)
{
	struct iolat_stash_entry *e = iolat_stash_claim(&iolat_cpu(s)->stash);

	if (s->want_who && in_task())
		e->flags |= iolat_submitter_set(&e->who, current);
	return e;
}

/*
 * Q from the clock, once a second per CPU: the reading becomes this
 * CPU's reference, and checks @stamp, which the kernel must have taken just before this
 * tracepoint.  One older than IOLAT_STAMP_SLACK_NS (a kernel that stamps
 * bios elsewhere) turns the stamps off for the session.  The reference
 * is marked stale while it changes, for a probe nested on this CPU.
 */
noinline u64 iolat_bio_queue_clock(struct iolat_session *s,
				   struct iolat_stash *st, u64 stamp,
				   unsigned long j)
{
	u64 now = iolat_now();

	if (!READ_ONCE(s->no_stamps) &&
	    now - iolat_stamp_before(now, stamp, IOLAT_BIO_STAMP_MASK) >
	    IOLAT_STAMP_SLACK_NS) {
		WRITE_ONCE(s->no_stamps, true);
		pr_notice("iolat: this kernel's bio stamps are not taken at block_bio_queue; Q reads the clock\n");
	}
	WRITE_ONCE(st->ref_j, j - IOLAT_REF_JIFFIES);
	barrier();
	WRITE_ONCE(st->ref_ns, now);
	barrier();
	WRITE_ONCE(st->ref_j, j);
	return now;
}

/*
 * block_bio_queue (Q): a bio enters the block layer.  (On a lower device
 * of a stack, probe_upper.c's probe of the same tracepoint, registered
 * after this one, runs next.)
 */
static __always_inline void iolat_bio_queue(struct iolat_session *s,
					    struct iolat_dev *first,
					    struct bio *bio)
{
	struct iolat_stash_entry *e;

	if (!iolat_dev_at(first, bio->bi_iter.bi_sector) ||
	    !iolat_session_armed(s))
		return;
	e = iolat_stash_new(s);
	e->q_ns = iolat_bio_queue_ns(s, &iolat_cpu(s)->stash, bio);
	iolat_stash_publish(e, bio);
}

/*
 * block_bio_backmerge, block_bio_frontmerge (M): the bio joined a request
 * already built; its entry is done (the request counts its bios at issue).
 */
static void iolat_bio_merge(struct iolat_session *s, struct iolat_dev *first,
			    struct bio *bio)
{
	struct iolat_stash_entry *e;
	struct iolat_stash *st;

	if (!iolat_dev_at(first, bio->bi_iter.bi_sector))
		return;
	iolat_count(s, IOLAT_S_BIO_MERGES);
	st = &iolat_cpu(s)->stash;
	e = iolat_stash_find(st, bio);
	if (e)
		iolat_stash_release(st, e);
}

/*
 * @bio's Q and submitter from another CPU's stash into @e: the submitter
 * moved between Q and G (the allocation of a request can sleep for a
 * tag: under bfq on 7.2, a request in 1500 arrived without its Q, its G
 * alone in a new entry).  Out of line, as the slot's remote take: its
 * copy is a stack variable the kernel's automatic initialisation zeroes,
 * which only this rare path should pay for.
 */
static noinline void iolat_stash_adopt(struct iolat_session *s,
				       struct iolat_stash_entry *e,
				       const struct bio *bio)
{
	struct iolat_stash_entry from;

	if (!iolat_cpus_take_remote(s, bio, &from))
		return;
	e->q_ns = from.q_ns;
	e->who = from.who;
	e->flags = from.flags;
}

/*
 * The entry of @parent, the rest of a bio being split, where this CPU's
 * stash has none: the submitter moved to this CPU between Q and X (the
 * allocation of the split can sleep), and the entry is taken from the
 * other CPU's, else begun here.  Without it the rest, submitted last, was
 * not marked as split: on the newest kernel, of 20 reads of 1 MiB cut in
 * 16, one's last part.  Out of line, as the adoption.
 */
static noinline struct iolat_stash_entry *
iolat_split_parent(struct iolat_session *s, const struct bio *parent)
{
	struct iolat_stash_entry *e = iolat_stash_new(s);

	iolat_stash_adopt(s, e, parent);
	iolat_stash_publish(e, parent);
	return e;
}

/*
 * block_split (X): @split is the front of a bio too large for the queue,
 * chained to the rest (split->bi_private, set by bio_chain() just before
 * this tracepoint), which keeps the original bio's identity and is
 * resubmitted.  Both carry the original's Q and submitter and are marked
 * as split.  Static but for the KUnit suite (stash.h).
 */
VISIBLE_IF_KUNIT void iolat_split(struct iolat_session *s,
				  struct iolat_dev *first, struct bio *split)
{
	struct iolat_stash_entry *parent, *e;
	struct iolat_stash *st;

	if (!iolat_dev_at(first, split->bi_iter.bi_sector))
		return;
	iolat_count(s, IOLAT_S_SPLITS);
	if (!iolat_session_armed(s))
		return;
	st = &iolat_cpu(s)->stash;
	parent = split->bi_private ? iolat_stash_find(st, split->bi_private) :
				     NULL;
	if (!parent && split->bi_private)
		parent = iolat_split_parent(s, split->bi_private);
	e = iolat_stash_claim(st);
	if (parent) {
		parent->flags |= IOLAT_F_SPLIT;
		e->q_ns = parent->q_ns;
		e->who = parent->who;
		e->flags = parent->flags;
	} else if (in_task()) {
		e->flags |= iolat_submitter_set(&e->who, current);
	}
	e->flags |= IOLAT_F_SPLIT;
	iolat_stash_publish(e, split);
}
EXPORT_SYMBOL_IF_KUNIT(iolat_split);

/*
 * block_getrq (G): a request was allocated for the bio, in the entry of
 * its Q on this CPU, else in a new one that takes the Q from another
 * CPU's if it is there.
 */
static __always_inline void iolat_getrq(struct iolat_session *s,
					struct iolat_dev *first,
					struct bio *bio)
{
	struct iolat_stash_entry *e;
	u64 now;

	if (!iolat_dev_at(first, bio->bi_iter.bi_sector))
		return;
	now = iolat_now();
	e = iolat_stash_find(&iolat_cpu(s)->stash, bio);
	if (e) {
		e->g_ns = now;
		return;
	}
	if (!iolat_session_armed(s))
		return;
	e = iolat_stash_new(s);
	iolat_stash_adopt(s, e, bio);
	e->g_ns = now;
	iolat_stash_publish(e, bio);
}

/*
 * The probes, shared by the sessions (dispatch.h): each calls its stage
 * for every session that traces the bio's disk and reports the stage.
 */
static void iolat_probe_bio_queue(IOLAT_TP_BIO_PROTO(data, bio))
{
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	iolat_for_each_sub_using(d, iolat_bio_devt(bio), IOLAT_USE_STAGES)
		iolat_bio_queue(d->s, d, bio);
}

static void iolat_probe_split(IOLAT_TP_SPLIT_PROTO(data, split, sector))
{
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	iolat_for_each_sub_using(d, iolat_bio_devt(split), IOLAT_USE_STAGES)
		iolat_split(d->s, d, split);
}

static void iolat_probe_bio_merge(IOLAT_TP_BIO_MERGE_PROTO(data, bio))
{
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	iolat_for_each_sub_using(d, iolat_bio_devt(bio), IOLAT_USE_STAGES)
		iolat_bio_merge(d->s, d, bio);
}

static void iolat_probe_getrq(IOLAT_TP_GETRQ_PROTO(data, bio))
{
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	iolat_for_each_sub_using(d, iolat_bio_devt(bio), IOLAT_USE_RECORDS)
		iolat_getrq(d->s, d, bio);
}

/* block_plug, block_unplug: counted per traced disk. */
static void iolat_probe_plug(void *data, struct request_queue *q)
{
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	iolat_for_each_sub_using(d, iolat_queue_devt(q), IOLAT_USE_STAGES)
		if (iolat_dev_disk(d))
			iolat_count(d->s, IOLAT_S_PLUGS);
}

static void iolat_probe_unplug(void *data, struct request_queue *q,
			       unsigned int depth, bool explicit)
{
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	iolat_for_each_sub_using(d, iolat_queue_devt(q), IOLAT_USE_STAGES)
		if (iolat_dev_disk(d))
			iolat_count(d->s, IOLAT_S_UNPLUGS);
}

/* Each probe against the kernel's declaration of its tracepoint. */
static void __maybe_unused iolat_probe_bio_types(void)
{
	check_trace_callback_type_block_bio_queue(iolat_probe_bio_queue);
	check_trace_callback_type_block_split(iolat_probe_split);
	check_trace_callback_type_block_bio_backmerge(iolat_probe_bio_merge);
	check_trace_callback_type_block_bio_frontmerge(iolat_probe_bio_merge);
	check_trace_callback_type_block_getrq(iolat_probe_getrq);
	check_trace_callback_type_block_plug(iolat_probe_plug);
	check_trace_callback_type_block_unplug(iolat_probe_unplug);
}

/*
 * Registered after the request probes (attach.c), so that every bio
 * stage stashed has its request watched; unregistered before them.  A
 * counters-only session registers none: its requests' first stage is
 * the kernel's own allocation time (probe_rq.c), and it reports no
 * events.
 */
struct iolat_probe iolat_bio_probes[] = {
	{ .tp_name = "block_getrq", .func = iolat_probe_getrq,
	  .use = IOLAT_USE_RECORDS },
	{ .tp_name = "block_bio_backmerge", .func = iolat_probe_bio_merge,
	  .use = IOLAT_USE_STAGES },
	{ .tp_name = "block_bio_frontmerge", .func = iolat_probe_bio_merge,
	  .use = IOLAT_USE_STAGES },
	{ .tp_name = "block_split", .func = iolat_probe_split,
	  .use = IOLAT_USE_STAGES },
	{ .tp_name = "block_plug", .func = iolat_probe_plug,
	  .use = IOLAT_USE_STAGES },
	{ .tp_name = "block_unplug", .func = iolat_probe_unplug,
	  .use = IOLAT_USE_STAGES },
	{ .tp_name = "block_bio_queue", .func = iolat_probe_bio_queue,
	  .use = IOLAT_USE_STAGES },
};

const unsigned int iolat_nr_bio_probes = ARRAY_SIZE(iolat_bio_probes);
