// SPDX-License-Identifier: GPL-2.0
/*
 * Request probes: insert (I), issue (D), requeue (R), merge (M) and
 * complete (C).  They run for every request on the machine, return at
 * once for untraced devices and otherwise do one clock read and work on
 * the request's own slot (inflight.h), its hardware queue's depth and
 * busy counters and this CPU's counters (acct.h); no locks, no
 * allocation, no lookup beyond the device compare.
 *
 * One file, over 600 lines, on purpose: the probes and the static
 * helpers they share are one translation unit, so that the compiler
 * inlines the helpers into each probe as the instruction counts of
 * docs/bench.md were measured; split, they would be calls.
 */
#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <trace/events/block.h>
#include "inflight.h"
#include "acct.h"
#include "agg.h"
#include "cgstat.h"
#include "emit.h"
#include "stash.h"
#include "cpus.h"
#include "probe_nvme.h"
#include "upper.h"
#include "dispatch.h"
#include "../lib/record.h"

/*
 * Take the bio stages, flags and, if @s keeps them, submitter of @e into
 * @slot and @x.
 */
static void iolat_slot_take(struct iolat_session *s, struct iolat_slot *slot,
			    struct iolat_slot_ext *x,
			    const struct iolat_stash_entry *e)
{
	slot->q_ns = e->q_ns;
	slot->g_ns = e->g_ns;
	if (s->want_who)
		x->who = e->who;
	slot->flags = e->flags;
}

/*
 * @bio's entry from another CPU's stash into @slot and @x.  Out of line: its
 * copy of the entry is a stack variable the kernel's automatic
 * initialisation (CONFIG_INIT_STACK_ALL_ZERO) zeroes, which only this
 * rare path should pay for.
 */
static noinline bool iolat_slot_take_remote(struct iolat_session *s,
					    struct iolat_slot *slot,
					    struct iolat_slot_ext *x,
					    const struct bio *bio)
{
	struct iolat_stash_entry e;

	if (!iolat_cpus_take_remote(s, bio, &e))
		return false;
	iolat_slot_take(s, slot, x, &e);
	return true;
}

/*
 * Fill @slot and @x for @rq, allocated at @alloc_ns (iolat_rq_start_ns()), from
 * this CPU's stash, or another CPU's if its submitter moved (a bio-less
 * or passthrough request has no entry to look for), or else with the
 * current task as submitter when it runs a user thread.  @x, the slot's
 * extension, is written only in a session that keeps submitters: the
 * others' tables may have none (inflight.c).  Field by field
 * rather than memset(): for every request, and a memset() of the slot is
 * a `rep stos`, which costs far more than a few stores under emulation
 * and is not free on hardware either.
 */
static __always_inline void
iolat_slot_fill(struct iolat_session *s, struct iolat_slot *slot,
		struct iolat_slot_ext *x, const struct request *rq, u64 alloc_ns)
{
	struct iolat_stash *st = &iolat_cpu(s)->stash;
	struct iolat_stash_entry *e = NULL;

	slot->rq = NULL;
	slot->acct_ns = 0;
	slot->requeues = 0;
	slot->qd_insert = 0;
	slot->qd_issue = 0;
	slot->state = IOLAT_SLOT_FREE;
	slot->outside = 0;
	if (s->counters_only) {
		/*
		 * No bio probes, no submitter, no filter, and no stage
		 * times: its slot is the head alone (inflight.h).
		 */
		slot->flags = 0;
		slot->filtered = false;
		return;
	}
	slot->i_ns = 0;
	slot->d_ns = 0;
	if (rq->bio)
		e = iolat_stash_find(st, rq->bio);
	if (e) {
		iolat_slot_take(s, slot, x, e);
		iolat_stash_release(st, e);
		goto filter;
	}
	slot->q_ns = 0;
	slot->g_ns = 0;
	slot->flags = 0;
	if (s->want_who)
		memset(&x->who, 0, sizeof(x->who));
	if (rq->bio && !iolat_rq_passthrough(rq) &&
	    iolat_slot_take_remote(s, slot, x, rq->bio))
		goto filter;
	if (s->want_who && in_task() && !(current->flags & PF_KTHREAD))
		slot->flags = iolat_submitter_set(&x->who, current);
filter:
	/* a filter by process keeps the submitters (iolat_mode_who()) */
	slot->filtered = s->filter.on &&
			 (!iolat_filter_wanted(&s->filter,
					       iolat_record_op(rq->cmd_flags),
					       &x->who,
					       slot->flags & IOLAT_F_SUBMITTER) ||
			  (s->filter.nr_cgroups &&
			   !iolat_bio_in_cgroups(rq->bio, s->filter.cgroups,
						 s->filter.nr_cgroups)));
}

/* Does the session keep a request of stages @done that completed at @now? */
static __always_inline bool
iolat_rq_wanted(const struct iolat_session *s, const struct iolat_slot *done,
		u64 now, bool lean)
{
	/* without a filter, no request is filtered (iolat_slot_fill()) */
	if (lean || !s->filter.on)
		return true;
	return !done->filtered &&
	       (!s->filter.min_ns ||
		iolat_latency_ns(done->q_ns, done->g_ns, done->i_ns,
				 done->d_ns, now) >= s->filter.min_ns);
}

/*
 * The slot's request leaves its queue: completed, or gone without
 * completing (merged into another, or its slot found reused).  The
 * clock is read with interrupts off right before the counts change, so
 * that the busy time's order of events is the order of their times.
 * With @agg (a completion in an aggregating session), a request the
 * session keeps goes into the histograms under the same interrupts-off
 * section.  @lean: a session without optional features
 * (iolat_session_lean()), their tests compiled out.
 * Return: the time it left.
 */
static __always_inline u64
iolat_slot_end(struct iolat_session *s, struct iolat_dev *d,
	       struct iolat_slot *slot, const struct request *rq,
	       bool completed, bool agg, bool lean)
{
	bool issued = slot->state == IOLAT_SLOT_ISSUED;
	bool queued = slot->state != IOLAT_SLOT_FREE;
	struct iolat_acct_cpu *c;
	unsigned long flags;
	unsigned int step;
	u64 now, t;
	u8 op;

	c = iolat_acct_begin(d, &flags, &step);
	now = iolat_now();
	/* the counters stop with the session */
	t = min(now, READ_ONCE(s->stop_ns));
	if (queued)
		iolat_acct_move(d, iolat_rq_hwq(rq), c, -1, issued ? -1 : 0,
				t - s->base_ns, t - s->base_ns);
	if (issued) {
		local64_add(t, &c->dev_sum);
		local64_dec(&c->dev_n);
	}
	if (queued) {
		local64_add(t, &c->queue_sum);
		local64_dec(&c->queue_n);
	}
	if (queued && completed) {
		op = iolat_record_op(rq->cmd_flags);
		c->ios[op]++;
		c->bytes[op] += blk_rq_bytes(rq);
		c->wait_ns[op] += t - slot->acct_ns;
		agg = agg && !slot->outside &&
		      iolat_rq_wanted(s, slot, now, lean);
		if (agg)
			__iolat_agg_add(d, op, blk_rq_bytes(rq), slot, now);
		if (!lean && d->cg)	/* its cgroup's slot (cgstat.h) */
			__iolat_cgstat_add(d, rq->bio, op, blk_rq_bytes(rq),
					   t - slot->acct_ns, agg ? slot : NULL,
					   now);
	}
	iolat_acct_end(c, flags, step);
	slot->state = IOLAT_SLOT_FREE;
	slot->rq = NULL;
	return now;
}

/*
 * iolat_slot_end() of a request gone without completing (merged, or its
 * slot found reused) or held in no slot (iolat_acct_held()): out of
 * line, so that only the completion carries a copy.
 * Return: the time it left.
 */
static noinline u64 iolat_slot_drop(struct iolat_session *s,
				    struct iolat_dev *d,
				    struct iolat_slot *slot,
				    const struct request *rq, bool completed)
{
	return iolat_slot_end(s, d, slot, rq, completed, false, false);
}

/*
 * First sight of @rq, at insert or issue: it will own @slot.  A request
 * the kernel allocated before the session began is followed too, for
 * the queue depths and busy time, but counted as not seen whole at
 * completion.  @first is set to the time of its first stage, or 0: its
 * bio's queueing or its allocation, or in a counters session (with no
 * bio probes) the kernel's own time of its allocation, from which
 * diskstats counts too.
 * Return: false if the session is not taking new requests.
 */
static __always_inline bool
iolat_slot_prepare(struct iolat_session *s, struct iolat_dev *d,
		   struct iolat_slot *slot, const struct request *rq,
		   u64 *first)
{
	u64 alloc_ns;

	if (!iolat_session_armed(s))
		return false;
	if (slot->rq)	/* freed without completion */
		iolat_slot_drop(s, d, slot, rq, false);
	alloc_ns = iolat_rq_start_ns(rq);
	iolat_slot_fill(s, slot, iolat_slot_ext(d, slot), rq, alloc_ns);
	slot->outside = alloc_ns && alloc_ns < READ_ONCE(d->start_ns);
	*first = s->counters_only ? alloc_ns : slot->q_ns ?: slot->g_ns;
	return true;
}

/*
 * The prepared request is in its queue at @now, since its first stage at
 * @first (iolat_slot_prepare()) but not before the session, and at the
 * driver too if @issued (issued directly).  Called with this CPU's
 * counters @c begun (iolat_acct_get()), interrupts on: each counter
 * changes by one local64 operation.
 * Return: the requests of its hardware queue before (iolat_acct_move()).
 */
static __always_inline u64
iolat_slot_queue(struct iolat_session *s, struct iolat_dev *d,
		 struct iolat_slot *slot, const struct request *rq,
		 struct iolat_acct_cpu *c, u64 first, u64 now, bool issued)
{
	u64 from;
	u64 old;

	from = max(min(first ?: now, now), READ_ONCE(d->start_ns));
	slot->acct_ns = from;
	old = iolat_acct_move(d, iolat_rq_hwq(rq), c, 1, issued,
			      from - s->base_ns, now - s->base_ns);
	slot->qd_insert = iolat_n_queued(old);
	local64_sub(from, &c->queue_sum);
	local64_inc(&c->queue_n);
	slot->state = IOLAT_SLOT_QUEUED;
	slot->rq = rq;
	return old;
}

/*
 * The traced device, slot and queue of @rq, from its disk's first device
 * in the session (dispatch.h); false if it is not traced.
 */
static __always_inline bool
iolat_rq_find(struct iolat_dev *first, const struct request *rq,
	      struct iolat_dev **d, struct iolat_slot **slot)
{
	*d = iolat_dev_at(first, blk_rq_pos(rq));
	if (!*d)
		return false;
	*slot = iolat_inflight_slot(*d, rq);
	return *slot;
}

/* block_rq_insert (I): into the scheduler or a software queue. */
static __always_inline void
iolat_rq_insert(struct iolat_session *s, struct iolat_dev *first,
		struct request *rq)
{
	struct iolat_acct_cpu *c;
	struct iolat_slot *slot;
	struct iolat_dev *d;
	unsigned int step;
	u64 from, now;

	if (!iolat_rq_find(first, rq, &d, &slot))
		return;
	if (slot->rq == rq && slot->state != IOLAT_SLOT_ISSUED) {
		/* inserted again after a requeue; the first insert stands */
		slot->state = IOLAT_SLOT_QUEUED;
		return;
	}
	if (!iolat_slot_prepare(s, d, slot, rq, &from))
		return;
	c = iolat_acct_this(d);
	step = iolat_acct_get(c);
	/*
	 * Counters only: in the queue since the kernel's time, if it took
	 * one, and no stage times kept.
	 */
	if (s->counters_only) {
		now = from ?: iolat_now();
	} else {
		now = iolat_now();
		slot->i_ns = now;
	}
	iolat_slot_queue(s, d, slot, rq, c, from, now, false);
	iolat_acct_put(c, step);
}

/* block_rq_issue (D): the driver is given the request. */
static __always_inline void
iolat_rq_issue(struct iolat_session *s, struct iolat_dev *first,
		struct request *rq)
{
	struct iolat_acct_cpu *c;
	struct iolat_slot *slot;
	struct iolat_dev *d;
	unsigned int step;
	u64 now, t, old;
	u64 from = 0;
	bool fresh;
	u64 qd;

	if (!iolat_rq_find(first, rq, &d, &slot))
		return;
	/* not seen yet: issued directly */
	fresh = slot->rq != rq || slot->state == IOLAT_SLOT_ISSUED;
	if (fresh && !iolat_slot_prepare(s, d, slot, rq, &from))
		return;
	/* interrupts on: iolat_acct_get() */
	c = iolat_acct_this(d);
	step = iolat_acct_get(c);
	now = iolat_now();
	/*
	 * The counters stop with the session: a request queued before the
	 * stop and issued after it is at the driver from the stop on, as its
	 * completion will be counted at the stop (iolat_slot_end()).
	 */
	t = min(now, READ_ONCE(s->stop_ns));
	if (fresh)
		old = iolat_slot_queue(s, d, slot, rq, c, from, t, true);
	else
		old = iolat_acct_move(d, iolat_rq_hwq(rq), c, 0, 1, 0,
				      t - s->base_ns);
	qd = (u16)iolat_n_issued(old);	/* as slot->qd_issue holds it */
	if (!s->counters_only)
		slot->d_ns = now;
	slot->qd_issue = qd;
	slot->state = IOLAT_SLOT_ISSUED;
	local64_sub(t, &c->dev_sum);
	local64_inc(&c->dev_n);
	local64_inc(&c->issues);
	local64_add(qd, &c->qd_sum);
	local64_inc(&c->qd_hist[iolat_qd_bucket(qd)]);
	iolat_acct_put(c, step);
}

/* block_rq_requeue (R): the driver gave the request back. */
static __always_inline void
iolat_rq_requeue(struct iolat_session *s, struct iolat_dev *first,
		struct request *rq)
{
	struct iolat_acct_cpu *c;
	struct iolat_slot *slot;
	struct iolat_dev *d;
	unsigned long flags;
	unsigned int step;
	u64 now, from;

	if (!iolat_rq_find(first, rq, &d, &slot))
		return;
	iolat_count(s, IOLAT_S_REQUEUES);
	/*
	 * Given back before it was started, too: a driver may refuse a
	 * request before its blk_mq_start_request() (null_blk's bandwidth
	 * limit does on newer kernels), and blk-mq requeues it all the same.
	 * One issued directly is first seen here, then: it is in its queue
	 * since its first stage, as at an insert.
	 */
	if (slot->rq != rq) {
		if (!iolat_slot_prepare(s, d, slot, rq, &from))
			return;
		c = iolat_acct_this(d);
		step = iolat_acct_get(c);
		iolat_slot_queue(s, d, slot, rq, c, from, iolat_now(), false);
		iolat_acct_put(c, step);
	}
	slot->requeues++;
	if (slot->state != IOLAT_SLOT_ISSUED)
		return;
	c = iolat_acct_begin(d, &flags, &step);
	now = min(iolat_now(), READ_ONCE(s->stop_ns));
	iolat_acct_move(d, iolat_rq_hwq(rq), c, 0, -1, 0, now - s->base_ns);
	local64_add(now, &c->dev_sum);
	local64_dec(&c->dev_n);
	iolat_acct_end(c, flags, step);
	slot->state = IOLAT_SLOT_REQUEUED;
}

/* block_rq_merge (M): the request joined another and will not complete. */
static __always_inline void
iolat_rq_merge(struct iolat_session *s, struct iolat_dev *first,
		struct request *rq)
{
	struct iolat_slot *slot;
	struct iolat_dev *d;

	if (!iolat_rq_find(first, rq, &d, &slot))
		return;
	iolat_count(s, IOLAT_S_RQ_MERGES);
	if (slot->rq == rq)
		iolat_slot_drop(s, d, slot, rq, false);
}

/*
 * A completion the session followed in no slot, counted as completed and
 * as in its queue since @from (and at the device too, if @issued).
 * Return: the time of its completion.
 */
static u64 iolat_acct_held(struct iolat_session *s, struct iolat_dev *d,
			   const struct request *rq, u64 from, bool issued)
{
	struct iolat_slot held = {
		.state = issued ? IOLAT_SLOT_ISSUED : IOLAT_SLOT_QUEUED,
		.acct_ns = from,
	};
	struct iolat_acct_cpu *c;
	unsigned long flags;
	unsigned int step;

	c = iolat_acct_begin(d, &flags, &step);
	iolat_acct_move(d, iolat_rq_hwq(rq), c, 1, issued, from - s->base_ns,
			from - s->base_ns);
	local64_sub(from, &c->queue_sum);
	local64_inc(&c->queue_n);
	if (issued) {
		local64_sub(from, &c->dev_sum);
		local64_inc(&c->dev_n);
	}
	iolat_acct_end(c, flags, step);
	return iolat_slot_drop(s, d, &held, rq, true);
}

/*
 * A request in flight when the session began completes: it kept its
 * queue and the device busy from the session's start, so it counts as
 * issued there (its record is DROP_UNMATCHED, being not seen whole).
 */
static void iolat_acct_at_start(struct iolat_session *s, struct iolat_dev *d,
				const struct request *rq)
{
	iolat_acct_held(s, d, rq, READ_ONCE(d->start_ns), true);
}

/*
 * A request of the session's completes that it did not see issued:
 * issued while the session was being armed (between the start's clock
 * reading and the probes' sight of it), issued directly after the stop,
 * or never issued (the one an empty flush waits on).  It was in its
 * queue from its allocation at @alloc_ns and is counted there and as
 * completed, as its record is delivered; the device's busy time and
 * in-flight sum, which start at an issue, do not hold it.
 * Return: the time of its completion, for its record too.
 */
static u64 iolat_acct_unseen(struct iolat_session *s, struct iolat_dev *d,
			     const struct request *rq, u64 alloc_ns)
{
	return iolat_acct_held(s, d, rq, alloc_ns, false);
}

/*
 * A completion whose request was never seen inserted or issued: it was in
 * flight when the session began (counted as not seen whole), unless the
 * kernel's own allocation time says it is the session's: then it is
 * recorded with the stages it has, and counted (iolat_acct_unseen()).
 * A completion before the session's start (while its probes are
 * still being attached) or of a request that began after its stop is
 * not the session's, and not counted: the probes are attached before
 * the start and stay so for a grace period after the stop (a few
 * milliseconds on hardware, hundreds under emulation), and a busy device
 * completes thousands of requests meanwhile, which were reported as
 * dropped.  The clock is read only where its time is used.
 * Return: whether to record it, with @now set to the completion's time.
 */
static bool iolat_rq_unseen(struct iolat_session *s, struct iolat_dev *d,
			    struct iolat_slot *slot, struct iolat_slot_ext *x,
			    const struct request *rq, u64 *now)
{
	u64 start = READ_ONCE(d->start_ns), alloc_ns = iolat_rq_start_ns(rq);
	u64 stop = READ_ONCE(s->stop_ns);

	if (start == U64_MAX || alloc_ns >= stop)
		return false;
	if (alloc_ns && alloc_ns < start) {
		iolat_acct_at_start(s, d, rq);
		iolat_count(s, IOLAT_S_DROP_UNMATCHED);
		return false;
	}
	if (!alloc_ns) {
		/* no allocation time: in flight at the start, or after the stop */
		if (iolat_now() < stop)
			iolat_count(s, IOLAT_S_DROP_UNMATCHED);
		return false;
	}
	iolat_slot_fill(s, slot, x, rq, alloc_ns);
	/* one clock read: the record's completion is the counters' */
	*now = iolat_acct_unseen(s, d, rq, alloc_ns);
	return true;
}

/*
 * A completed request's stages in @slot and @x, complete at @now: counted
 * as filtered, or kept as the session's mode says.  @seen: @slot is the
 * in-flight table's, already added to an aggregating session's
 * histograms by iolat_slot_end().
 */
static __always_inline void
iolat_rq_keep(struct iolat_session *s, struct iolat_dev *d,
	      const struct request *rq, const struct iolat_slot *slot,
	      const struct iolat_slot_ext *x, u64 now, int err,
	      const struct iolat_nvme_slot *cmd, bool seen, bool lean)
{
	if (s->counters_only)
		return;		/* it takes no filter: counted in iolat_slot_end() */
	if (!iolat_rq_wanted(s, slot, now, lean)) {
		iolat_count(s, IOLAT_S_FILTERED);
		return;
	}
	if (s->aggregate) {
		if (!seen)
			iolat_agg_add(d, iolat_record_op(rq->cmd_flags),
				      blk_rq_bytes(rq), slot, now);
		iolat_count(s, IOLAT_S_WRITTEN);
		/* a flight recorder's record too (watch.h) */
		if (!lean && s->watch)
			iolat_record_emit(s, d, rq, slot, x, now, err, cmd,
					  false);
		return;
	}
	iolat_record_emit(s, d, rq, slot, x, now, err, cmd, lean);
}

/*
 * A completion whose request has no slot of its own: its stages are
 * gathered on the stack, out of line, so that the automatic zeroing of
 * that copy is paid only here.
 */
static noinline void iolat_rq_done_unseen(struct iolat_session *s,
					  struct iolat_dev *d,
					  const struct request *rq, int err,
					  const struct iolat_nvme_slot *cmd)
{
	struct iolat_slot_ext x;
	struct iolat_slot done;
	u64 now;

	x.link = 0;
	if (iolat_rq_unseen(s, d, &done, &x, rq, &now))
		iolat_rq_keep(s, d, rq, &done, &x, now, err, cmd, false,
			      false);
}

/*
 * The completion of @rq, with @cmd the NVMe command that carried it or
 * NULL.  A request's slot is read after iolat_slot_end() has freed it:
 * the slot is indexed by the request's tag, which is not given to
 * another request before this one is freed, after its completion.
 */
static __always_inline u64
iolat_rq_done(struct iolat_session *s, struct iolat_dev *d,
	      const struct request *rq, int err,
	      const struct iolat_nvme_slot *cmd, bool stack, bool lean)
{
	struct iolat_slot *slot = iolat_inflight_slot(d, rq);
	u64 now;

	if (!slot) {
		iolat_count(s, IOLAT_S_DROP_RANGE);
		return 0;
	}
	if (slot->rq != rq) {
		iolat_rq_done_unseen(s, d, rq, err, cmd);
		return 0;
	}
	now = iolat_slot_end(s, d, slot, rq, true, s->aggregate, lean);
	if (slot->outside) {
		iolat_count(s, IOLAT_S_DROP_UNMATCHED);
		return now;
	}
	/* a lower device's request: joined, or the stack's own */
	if (stack && d->lower) {
		if (slot->flags & IOLAT_F_STACK)
			iolat_count(s, IOLAT_S_STACK_JOINED);
		else
			iolat_count(s, IOLAT_S_STACK_UNJOINED);
	}
	iolat_rq_keep(s, d, rq, slot, iolat_slot_ext(d, slot), now, err, cmd,
		      true, lean);
	return now;
}

/*
 * The completion of @rq with the NVMe command that carried it, read in
 * its slot and freed after, whatever becomes of the record.  Out of
 * line: a copy of iolat_rq_done() for traced controllers only.
 */
static noinline u64 iolat_rq_done_nvme(struct iolat_session *s,
				       struct iolat_dev *d,
				       const struct request *rq, int err,
				       bool stack)
{
	struct iolat_nvme_slot *cmd = iolat_nvme_done(d, rq);
	u64 now = iolat_rq_done(s, d, rq, err, cmd, stack, false);

	if (cmd)
		iolat_nvme_release(cmd);
	return now;
}

/*
 * A lower device's request in a session with a stack: the number of the
 * I/O its first bio was remapped from, for its record, and the I/O's
 * slot into @up, for its split; the links of its bios are freed (blk-mq
 * traces the request's completion, not its bios').  A request the
 * session follows that is joined is marked so (IOLAT_F_STACK: counters
 * only take no stash, where the bio's queueing marks it).
 * Return: the I/O's number, or 0 if the request is not joined.
 */
static noinline u64 iolat_rq_link(struct iolat_session *s,
				  struct iolat_dev *d,
				  const struct request *rq,
				  struct iolat_upper_slot **up)
{
	struct iolat_slot *slot = iolat_inflight_slot(d, rq);
	struct iolat_link *l;
	struct bio *bio;
	u64 link = 0;

	for (bio = rq->bio; bio; bio = bio->bi_next) {
		l = iolat_link_find(s, bio);
		if (!l)
			continue;
		/* its fields were written before the key (iolat_probe_upper_remap()) */
		smp_rmb();
		if (bio == rq->bio) {
			link = READ_ONCE(l->link);
			*up = READ_ONCE(l->up);
		}
		/* every read of the link before another bio can claim it */
		smp_store_release(&l->bio, NULL);
	}
	if (!slot || slot->rq != rq || slot->state == IOLAT_SLOT_FREE)
		return 0;
	iolat_slot_ext(d, slot)->link = link;
	if (link)
		slot->flags |= IOLAT_F_STACK;
	return link;
}

/*
 * A joined request of a stack, complete at @now (0: not followed whole):
 * the I/O @link in @up spans it (iolat_upper_fold()), from its first
 * stage in its queue, as the lower device's busy time counts it.
 */
static noinline void iolat_rq_fold(struct iolat_dev *d,
				   const struct request *rq,
				   struct iolat_upper_slot *up, u64 link,
				   u64 now)
{
	const struct iolat_slot *slot = iolat_inflight_slot(d, rq);

	/* freed by its completion, not yet reused: its tag is not free */
	if (slot && now && !slot->outside)
		iolat_upper_fold(up, link, slot->acct_ns, now);
}

/*
 * block_rq_complete (C), also reached from the batched completion path.
 * A call covering less than the request's remaining bytes is a partial
 * completion: the request stays in flight.  @stack: a session with a
 * stack, which counts its lower devices' requests joined or not; the
 * others register the probe without it, which costs them nothing.
 * @lean: sessions without a stack or any optional feature
 * (iolat_session_lean()), whose probe has no test of them.
 */
static __always_inline void
iolat_rq_complete(struct iolat_session *s, struct iolat_dev *first,
		  struct request *rq, int err, unsigned int nr_bytes,
		  bool stack, bool lean)
{
	struct iolat_upper_slot *up = NULL;
	struct iolat_dev *d;
	u64 link = 0, now;

	d = iolat_dev_at(first, blk_rq_pos(rq));
	if (!d)
		return;
	iolat_cost_control();
	if (nr_bytes < blk_rq_bytes(rq)) {
		iolat_count(s, IOLAT_S_PARTIAL);
		return;
	}
	if (stack && d->lower)
		link = iolat_rq_link(s, d, rq, &up);
	if (!lean && d->nvme)
		now = iolat_rq_done_nvme(s, d, rq, err, stack);
	else
		now = iolat_rq_done(s, d, rq, err, NULL, stack, lean);
	if (stack && link && up)
		iolat_rq_fold(d, rq, up, link, now);
}

/*
 * The probes, shared by the sessions (dispatch.h): each calls its stage
 * for every session that traces the request's disk.
 */
#define IOLAT_RQ_PROBE(stage)						\
static void iolat_probe_rq_##stage(IOLAT_TP_RQ_PROTO(data, rq))	\
{									\
	struct iolat_dev *d;						\
									\
	iolat_probe_pin_cpu();						\
	iolat_for_each_sub(d, iolat_rq_devt(rq))			\
		iolat_rq_##stage(d->s, d, rq);				\
}

IOLAT_RQ_PROBE(insert)
IOLAT_RQ_PROBE(issue)
IOLAT_RQ_PROBE(requeue)
IOLAT_RQ_PROBE(merge)

/* The completion for the sessions of @rq's disk that use @use. */
static __always_inline void iolat_rq_complete_subs(struct request *rq,
						   int err,
						   unsigned int nr_bytes,
						   unsigned int use,
						   bool stack, bool lean)
{
	struct iolat_dev *d;

	iolat_for_each_sub_using(d, iolat_rq_devt(rq), use)
		iolat_rq_complete(d->s, d, rq, err, nr_bytes, stack, lean);
}

/*
 * The completion probe of the sessions of @use: @stack and @lean as
 * iolat_rq_complete() has them.
 */
#define IOLAT_RQ_COMPLETE_PROBE(name, use, stack, lean)			\
static void name(IOLAT_TP_RQ_COMPLETE_PROTO(data, rq, err, nr_bytes))	\
{									\
	iolat_probe_pin_cpu();						\
	iolat_rq_complete_subs(rq, iolat_rq_errno(err), nr_bytes,	\
			       use, stack, lean);			\
}

/*
 * The sessions without a stack or any optional feature: a feature costs
 * nothing when off (issue 48); those with one and no stack; those with
 * a stack.
 */
IOLAT_RQ_COMPLETE_PROBE(iolat_probe_rq_complete_lean, IOLAT_USE_LEAN,
			false, true)
IOLAT_RQ_COMPLETE_PROBE(iolat_probe_rq_complete, IOLAT_USE_PLAIN,
			false, false)
IOLAT_RQ_COMPLETE_PROBE(iolat_probe_rq_complete_stack, IOLAT_USE_STACK,
			true, false)

#if IOLAT_TP_HAS_RQ_ERROR
/* block_rq_error: counted; the completion carries the status. */
static void iolat_probe_rq_error(IOLAT_TP_RQ_COMPLETE_PROTO(data, rq, err,
							    nr_bytes))
{
	struct iolat_dev *d;

	iolat_probe_pin_cpu();
	iolat_for_each_sub(d, iolat_rq_devt(rq))
		if (iolat_dev_at(d, blk_rq_pos(rq)))
			iolat_count(d->s, IOLAT_S_ERRORS);
}
#endif

/* Each probe against the kernel's declaration of its tracepoint. */
static void __maybe_unused iolat_probe_rq_types(void)
{
	check_trace_callback_type_block_rq_insert(iolat_probe_rq_insert);
	check_trace_callback_type_block_rq_issue(iolat_probe_rq_issue);
	check_trace_callback_type_block_rq_requeue(iolat_probe_rq_requeue);
#if IOLAT_TP_HAS_RQ_MERGE
	check_trace_callback_type_block_rq_merge(iolat_probe_rq_merge);
#endif
	check_trace_callback_type_block_rq_complete(iolat_probe_rq_complete_lean);
	check_trace_callback_type_block_rq_complete(iolat_probe_rq_complete);
	check_trace_callback_type_block_rq_complete(iolat_probe_rq_complete_stack);
#if IOLAT_TP_HAS_RQ_ERROR
	check_trace_callback_type_block_rq_error(iolat_probe_rq_error);
#endif
}

/*
 * Registration order: completion first, so that no request is seen
 * without its completion being watched; unregistration is the reverse.
 * Issue and completion are required; the rest are reported if missing.
 */
struct iolat_probe iolat_rq_probes[] = {
	{ .tp_name = "block_rq_complete", .func = iolat_probe_rq_complete_lean,
	  .use = IOLAT_USE_LEAN, .required = true },
	{ .tp_name = "block_rq_complete", .func = iolat_probe_rq_complete,
	  .use = IOLAT_USE_PLAIN, .required = true },
	{ .tp_name = "block_rq_complete", .func = iolat_probe_rq_complete_stack,
	  .use = IOLAT_USE_STACK, .required = true },
#if IOLAT_TP_HAS_RQ_ERROR
	{ .tp_name = "block_rq_error", .func = iolat_probe_rq_error },
#endif
	/* where the kernel has none, reported missing (attach.c) */
	{ .tp_name = "block_rq_merge",
	  .func = IOLAT_TP_HAS_RQ_MERGE ? iolat_probe_rq_merge : NULL },
	{ .tp_name = "block_rq_requeue", .func = iolat_probe_rq_requeue },
	{ .tp_name = "block_rq_issue", .func = iolat_probe_rq_issue,
	  .required = true },
	{ .tp_name = "block_rq_insert", .func = iolat_probe_rq_insert },
};

const unsigned int iolat_nr_rq_probes = ARRAY_SIZE(iolat_rq_probes);
