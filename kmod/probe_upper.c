// SPDX-License-Identifier: GPL-2.0
/*
 * Bio-based device probes (upper.h): a bio queued on a traced
 * device-mapper or md device takes a slot, its queue time and its
 * submitter (the task that queued it, in its own context: never the
 * kernel thread that passes it on), and a place in the device's span;
 * its completion there closes its interval, counts it and writes its
 * record or adds it to the histograms.  A part split off a traced bio
 * with bio_split() (md; device-mapper until it trimmed the bio itself)
 * completes too, before the bio, and is not an I/O of its own.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <trace/events/block.h>
#include "upper.h"
#include "acct.h"
#include "agg.h"
#include "cgstat.h"
#include "stash.h"
#include "cpus.h"
#include "alloc.h"

int iolat_upper_init(struct iolat_dev *d)
{
	d->upper = iolat_zalloc(array_size(d->depth, sizeof(*d->upper)),
				NUMA_NO_NODE);
	d->by_sector = iolat_zalloc(array_size(d->depth, sizeof(*d->by_sector)),
				    NUMA_NO_NODE);
	return d->upper && d->by_sector ? 0 : -ENOMEM;
}

/* What iolat_upper_init() allocates for a table of @depth slots. */
size_t iolat_upper_bytes(u32 depth)
{
	return iolat_alloc_bytes(array_size(depth,
					    sizeof(struct iolat_upper_slot))) +
	       iolat_alloc_bytes(array_size(depth, sizeof(u32)));
}

void iolat_upper_free(struct iolat_dev *d)
{
	kvfree(d->upper);
	d->upper = NULL;
	kvfree(d->by_sector);
	d->by_sector = NULL;
}

/*
 * The links of a session with a stack: as many as the bio-based devices'
 * slots.  A link lives from its bio's remap to the completion of the
 * request the bio became, so an I/O cut into many pieces holds as many;
 * a remap that finds no free link near its hash is counted
 * (REMAPS_UNMATCHED).  Counters only take them too: the request's
 * completion finds its I/O by its bios' links, for the I/O's split.
 */
int iolat_links_init(struct iolat_session *s)
{
	unsigned int i, n = 0;
	bool lower = false;

	for (i = 0; i < s->nr_devs; i++) {
		lower |= s->devs[i]->lower;
		if (s->devs[i]->upper)
			n += s->devs[i]->depth;
	}
	if (!n || !lower)
		return 0;
	s->nr_links = roundup_pow_of_two(n);
	s->links = iolat_zalloc(array_size(s->nr_links, sizeof(*s->links)),
				NUMA_NO_NODE);
	return s->links ? 0 : -ENOMEM;
}

/* What iolat_links_init() allocates for bio-based devices of @slots. */
size_t iolat_links_bytes(u32 slots)
{
	return slots ? iolat_alloc_bytes(array_size(roundup_pow_of_two(slots),
						    sizeof(struct iolat_link))) :
		       0;
}

/*
 * @u's bio, queued at @now, joins the device's span: with interrupts on,
 * as a request's insert does (acct.h).
 */
static void iolat_upper_join(struct iolat_session *s, struct iolat_dev *d,
			     struct iolat_upper_slot *u, u64 now)
{
	struct iolat_acct_cpu *c;
	unsigned int step;
	u64 old;

	u->acct_ns = max(now, READ_ONCE(s->start_ns));
	c = iolat_acct_this(d);
	step = iolat_acct_get(c);
	old = iolat_acct_move(d, 0, c, 1, 1, u->acct_ns - s->base_ns,
			      u->acct_ns - s->base_ns);
	u->qd = iolat_n_issued(old);
	local64_sub(u->acct_ns, &c->queue_sum);
	local64_inc(&c->queue_n);
	local64_sub(u->acct_ns, &c->dev_sum);
	local64_inc(&c->dev_n);
	local64_inc(&c->issues);
	local64_add(u->qd, &c->qd_sum);
	local64_inc(&c->qd_hist[iolat_qd_bucket(u->qd)]);
	iolat_acct_put(c, step);
}

/*
 * block_bio_queue (Q) on a lower device of a stack, after probe_bio.c's
 * probe of the same tracepoint stashed the bio on this CPU: a bio
 * remapped from a traced bio-based device's I/O takes that I/O's
 * submitter, and the request it becomes is the I/O's (IOLAT_F_STACK).
 */
static noinline void iolat_upper_lower_queue(struct iolat_session *s,
					     const struct bio *bio)
{
	struct iolat_stash_entry *e;
	struct iolat_dev *d;

	d = iolat_session_dev(s, iolat_bio_devt(bio), bio->bi_iter.bi_sector);
	if (!d || !d->lower || !iolat_session_armed(s))
		return;
	e = iolat_stash_find(&iolat_cpu(s)->stash, bio);
	if (e)
		iolat_link_take(s, bio, &e->who, &e->flags);
}

/* block_bio_queue (Q) on a bio-based device, or on one under it. */
static void iolat_probe_upper_queue(IOLAT_TP_BIO_PROTO(data, bio))
{
	struct iolat_session *s = data;
	struct iolat_upper_slot *u;
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	d = iolat_session_upper(s, iolat_bio_devt(bio));
	if (!d) {
		/* counters only stash no bio, and take no submitter */
		if (s->links && !s->counters_only)
			iolat_upper_lower_queue(s, bio);
		return;
	}
	if (!iolat_session_armed(s))
		return;
	/*
	 * No free slot near its hash (thousands in flight): its completion
	 * will be one not seen whole, counted there.
	 */
	u = iolat_upper_claim(d, bio);
	if (!u)
		return;
	u->q_ns = iolat_bio_queue_ns(s, &iolat_cpu(s)->stash, bio);
	u->sector = bio->bi_iter.bi_sector;
	u->bytes = bio->bi_iter.bi_size;
	u->op = iolat_record_op(bio->bi_opf);
	u->flags = iolat_record_flags(bio->bi_opf);
	u->piece = 0;
	u->who.pid = 0;
	u->who.tgid = 0;
	u->who.comm[0] = '\0';
	if (in_task() && !(current->flags & PF_KTHREAD))
		u->flags |= iolat_submitter_set(&u->who, current);
	u->filtered = !iolat_filter_wanted(&s->filter, u->op, &u->who,
					   u->flags & IOLAT_F_SUBMITTER) ||
		      (s->filter.nr_cgroups &&
		       !iolat_bio_in_cgroups(bio, s->filter.cgroups,
					     s->filter.nr_cgroups));
	iolat_upper_join(s, d, u, u->q_ns);
	u->link = 0;
	u->low_first = 0;
	u->low_last = 0;
	if (s->links) {
		/* unique in the session: this CPU's count, and the CPU */
		u->link = (local64_inc_return(&iolat_cpu(s)->stash.links) << 16) |
			  (raw_smp_processor_id() & 0xffff);
		/* a remap finds the fields before the index */
		smp_wmb();
		WRITE_ONCE(d->by_sector[hash_64(u->sector, ilog2(d->depth))],
			   u - d->upper + 1);
	}
}

/* Is @u a slot of @d's that holds @from? */
static bool iolat_upper_mine(const struct iolat_dev *d,
			     const struct iolat_upper_slot *u, u64 from)
{
	return u && u >= d->upper && u < d->upper + d->depth &&
	       iolat_upper_holds(u, from);
}

/*
 * The I/O of @d holding @from when neither its index nor this CPU's last
 * remap had it: the task remapping a bio's pieces moved to another CPU
 * between two of them (device-mapper's allocations may sleep), or two
 * bios hashed to the same index.  Each CPU's last remap, then every slot:
 * out of line, a few remaps in a thousand under load.
 */
static noinline struct iolat_upper_slot *
iolat_upper_search(struct iolat_session *s, struct iolat_dev *d, u64 from)
{
	struct iolat_upper_slot *u;
	struct iolat_cpu *c;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = iolat_cpu_of(s, cpu);
		if (!c)
			continue;
		u = READ_ONCE(c->stash.last_upper);
		if (iolat_upper_mine(d, u, from))
			return u;
	}
	for (i = 0; i < d->depth; i++)
		if (iolat_upper_holds(&d->upper[i], from))
			return &d->upper[i];
	return NULL;
}

/*
 * The I/O of bio-based device @d that the kernel remapped a piece of at
 * @from: the one that begins there, else the one this CPU tied the last
 * remap to if it holds @from (the further pieces of a bio that
 * device-mapper cuts at a striped target's chunks, remapped one after
 * the other by the task that queued it), else any that holds it; NULL
 * if none does.
 */
static struct iolat_upper_slot *iolat_upper_remapped(struct iolat_session *s,
						     struct iolat_dev *d,
						     u64 from)
{
	struct iolat_stash *st = &iolat_cpu(s)->stash;
	struct iolat_upper_slot *u = iolat_upper_at(d, from);

	if (!u) {
		u = READ_ONCE(st->last_upper);
		if (!iolat_upper_mine(d, u, from))
			u = iolat_upper_search(s, d, from);
		if (!u)
			return NULL;
	}
	WRITE_ONCE(st->last_upper, u);
	return u;
}

/*
 * block_bio_remap (A): the kernel sends @bio (device-mapper's clone,
 * md's bio for one mirror, dm-crypt's encrypted copy) from @dev at
 * sector @from down to another device.  Where @dev is a traced
 * bio-based device and @bio goes to a lower device of the session, the
 * bio is linked to the I/O it is a piece of, whose submitter its request
 * will carry.  The link's fields are written after it is claimed: the
 * bio reaches its queueing on the lower device only after this
 * tracepoint, through the kernel's own hand-over when another task
 * submits it (md's pending list).  Partitions remap their bios too,
 * from a device that is not bio-based.
 */
static void iolat_probe_upper_remap(IOLAT_TP_REMAP_PROTO(data, bio, dev, from))
{
	struct iolat_session *s = data;
	struct iolat_upper_slot *u;
	struct iolat_link *l;
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	if (!s->links)
		return;
	d = iolat_session_upper(s, dev);
	if (!d || !iolat_session_lower_disk(s, iolat_bio_devt(bio)) ||
	    !iolat_session_armed(s))
		return;
	u = iolat_upper_remapped(s, d, from);
	l = u ? iolat_link_claim(s, bio) : NULL;
	if (!l) {
		iolat_count(s, IOLAT_S_REMAPS_UNMATCHED);
		return;
	}
	l->who = u->who;
	l->flags = u->flags & IOLAT_F_SUBMITTER;
	l->link = u->link;
	l->up = u;
	iolat_count(s, IOLAT_S_REMAPS);
}

/*
 * The completion of a bio on a lower device of the stack that never
 * became a request (ended with an error before one was allocated): its
 * link is freed here.  A request's bios are not traced at their
 * completion (blk-mq clears BIO_TRACE_COMPLETION, as it traced the
 * request's); iolat_rq_link() frees their links.
 */
static noinline void iolat_upper_lower_done(struct iolat_session *s,
					    const struct bio *bio)
{
	struct iolat_link *l = iolat_link_find(s, bio);

	if (l)
		/* every read of the link before another bio can claim it */
		smp_store_release(&l->bio, NULL);
}

/*
 * block_split (X) on a bio-based device: a new @split of a traced bio
 * completes on its own before the bio does; its slot says so.  (Where
 * device-mapper trims the bio itself and says so here, that bio has its
 * slot already.)
 */
static void iolat_probe_upper_split(IOLAT_TP_SPLIT_PROTO(data, split, sector))
{
	struct iolat_session *s = data;
	struct iolat_upper_slot *u;
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	d = iolat_session_upper(s, iolat_bio_devt(split));
	if (!d)
		return;
	iolat_count(s, IOLAT_S_SPLITS);
	if (!iolat_session_armed(s) || iolat_upper_find(d, split))
		return;
	u = iolat_upper_claim(d, split);
	if (u)
		u->piece = 1;
}

/*
 * A completion of a bio not seen queued: in flight when the session
 * began (or queued when the table had no slot for it), it kept the
 * device busy from the start, or from its queueing where the kernel
 * stamped it, and counts from there (its bytes are what is left of it:
 * a bio split on its way down was cut to its last part), its record not
 * seen whole; unless it is after the stop or before the start, and not
 * the session's.
 */
static noinline void iolat_upper_unseen(struct iolat_session *s,
					struct iolat_dev *d,
					const struct bio *bio)
{
	u64 start = READ_ONCE(s->start_ns), now, t;
	u8 op = iolat_record_op(bio->bi_opf);
	struct iolat_acct_cpu *c;
	unsigned long flags;
	unsigned int step;

	if (start == U64_MAX)
		return;
	c = iolat_acct_begin(d, &flags, &step);
	now = iolat_now();
	if (now < READ_ONCE(s->stop_ns)) {
		if (IOLAT_BIO_STAMP_MASK && iolat_bio_stamp(bio))
			start = max(start, iolat_stamp_before(now,
							      iolat_bio_stamp(bio),
							      IOLAT_BIO_STAMP_MASK));
		t = start - s->base_ns;
		iolat_acct_move(d, 0, c, 1, 1, t, t);
		t = now - s->base_ns;
		iolat_acct_move(d, 0, c, -1, -1, t, t);
		local64_add(now - start, &c->dev_sum);
		local64_add(now - start, &c->queue_sum);
		c->ios[op]++;
		c->bytes[op] += bio->bi_iter.bi_size;
		c->wait_ns[op] += now - start;
		iolat_count(s, IOLAT_S_DROP_UNMATCHED);
	}
	iolat_acct_end(c, flags, step);
}

/*
 * @u's I/O, complete at @now, was joined to requests below it
 * (iolat_upper_fold()): its time below them, from the first one's first
 * stage to the last one's completion, and the rest of its Q2C above, into
 * this CPU's counters @c and, if @wanted in an aggregating session, the
 * time above into the device's second histogram.  Out of line: a stack's
 * I/Os only.
 */
static noinline void iolat_upper_split(struct iolat_session *s,
				       struct iolat_dev *d,
				       const struct iolat_upper_slot *u,
				       struct iolat_acct_cpu *c, u64 now,
				       bool wanted)
{
	u64 q2c = now - u->q_ns;
	u64 below = min(u->low_last - u->low_first, q2c);

	c->below_ios[u->op]++;
	c->below_ns[u->op] += below;
	if (s->aggregate && wanted)
		__iolat_agg_add_above(d, u->op, q2c - below);
}

/*
 * A kept bio's record: a stream's, or a flight recorder's (watch.h);
 * with cgroups, the bio's own.
 */
static void iolat_upper_emit(struct iolat_session *s, struct iolat_dev *d,
			     const struct iolat_upper_slot *u, u64 now,
			     struct bio *bio)
{
	if (s->aggregate)
		iolat_count(s, IOLAT_S_WRITTEN);
	iolat_record_emit_upper(s, d, u, now,
				blk_status_to_errno(bio->bi_status),
				s->cgroups ? iolat_bio_cgroup(bio) : 0);
}

/* block_bio_complete (C) on a bio-based device: all of the bio is done. */
static void iolat_probe_upper_complete(IOLAT_TP_BIO_COMPLETE_PROTO(data, bio))
{
	struct iolat_session *s = data;
	struct iolat_upper_slot *u;
	struct iolat_acct_cpu *c;
	struct iolat_dev *d;
	unsigned long flags;
	unsigned int step;
	bool wanted;
	u64 now, t;

	iolat_probe_pin_cpu();
	d = iolat_session_upper(s, iolat_bio_devt(bio));
	if (!d) {
		if (s->links && iolat_session_lower_disk(s, iolat_bio_devt(bio)))
			iolat_upper_lower_done(s, bio);
		return;
	}
	u = iolat_upper_find(d, bio);
	if (!u) {
		iolat_upper_unseen(s, d, bio);
		return;
	}
	if (u->piece) {
		iolat_upper_release(u);
		return;
	}
	c = iolat_acct_begin(d, &flags, &step);
	now = iolat_now();
	/* the counters stop with the session */
	t = min(now, READ_ONCE(s->stop_ns));
	iolat_acct_move(d, 0, c, -1, -1, t - s->base_ns, t - s->base_ns);
	local64_add(t, &c->dev_sum);
	local64_dec(&c->dev_n);
	local64_add(t, &c->queue_sum);
	local64_dec(&c->queue_n);
	c->ios[u->op]++;
	c->bytes[u->op] += u->bytes;
	c->wait_ns[u->op] += t - u->acct_ns;
	wanted = !u->filtered &&
		 (!s->filter.min_ns || now - u->q_ns >= s->filter.min_ns);
	if (s->aggregate && wanted)
		__iolat_agg_add_q2c(d, u->op, u->bytes, now - u->q_ns);
	if (d->cg)
		__iolat_cgstat_add_bio(d, bio, u->op, u->bytes, t - u->acct_ns,
				       now - u->q_ns, s->aggregate && wanted);
	if (READ_ONCE(u->low_last))
		iolat_upper_split(s, d, u, c, now, wanted);
	iolat_acct_end(c, flags, step);
	if (s->counters_only)
		;
	else if (!wanted)
		iolat_count(s, IOLAT_S_FILTERED);
	else if (s->aggregate && !s->watch)
		iolat_count(s, IOLAT_S_WRITTEN);
	else	/* a flight recorder's record is besides its histograms */
		iolat_upper_emit(s, d, u, now, bio);
	iolat_upper_release(u);
}

/* Each probe against the kernel's declaration of its tracepoint. */
static void __maybe_unused iolat_probe_upper_types(void)
{
	check_trace_callback_type_block_bio_queue(iolat_probe_upper_queue);
	check_trace_callback_type_block_split(iolat_probe_upper_split);
	check_trace_callback_type_block_bio_complete(iolat_probe_upper_complete);
	check_trace_callback_type_block_bio_remap(iolat_probe_upper_remap);
}

/*
 * Registered after the request and bio probes (attach.c), completion
 * first, then the split and the remap of a bio already queued, and queue
 * last, only by sessions with a bio-based device, each for itself: a
 * bio's two numbers (the device's and the one under it) decide which.
 */
struct iolat_probe iolat_upper_probes[] = {
	{ .tp_name = "block_bio_complete", .func = iolat_probe_upper_complete,
	  .use = IOLAT_USE_UPPER, .required = true, .per_session = true },
	{ .tp_name = "block_split", .func = iolat_probe_upper_split,
	  .use = IOLAT_USE_UPPER, .per_session = true },
	{ .tp_name = "block_bio_remap", .func = iolat_probe_upper_remap,
	  .use = IOLAT_USE_UPPER, .per_session = true },
	{ .tp_name = "block_bio_queue", .func = iolat_probe_upper_queue,
	  .use = IOLAT_USE_UPPER, .required = true, .per_session = true },
};

const unsigned int iolat_nr_upper_probes = ARRAY_SIZE(iolat_upper_probes);
