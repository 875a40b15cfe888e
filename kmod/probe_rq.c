// SPDX-License-Identifier: GPL-2.0
/*
 * Request probes: insert (I), issue (D), requeue (R), merge (M) and
 * complete (C).  They run for every request on the machine, return at
 * once for untraced devices and otherwise do one clock read and work on
 * the request's own slot (inflight.h) and its hardware queue's depth
 * counters; no locks, no allocation, no lookup beyond the device compare.
 */
#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <trace/events/block.h>
#include "inflight.h"
#include "submit.h"
#include "../lib/record.h"

static bool iolat_filter_pass(const struct iolat_filter *f,
			      const struct iolat_slot *slot,
			      const struct request *rq)
{
	bool known = slot->flags & IOLAT_F_SUBMITTER;

	if (f->ops && !(f->ops & BIT(iolat_record_op(rq->cmd_flags))))
		return false;
	if (f->pid && (!known || slot->who.pid != f->pid))
		return false;
	if (f->tgid && (!known || slot->who.tgid != f->tgid))
		return false;
	if (f->comm[0] &&
	    (!known || strncmp(slot->who.comm, f->comm, IOLAT_COMM_LEN)))
		return false;
	return true;
}

/*
 * Fill @slot for @rq from this CPU's stash, or, if its bio stages are not
 * there, with the current task as submitter when it runs a user thread.
 */
static void iolat_slot_fill(struct iolat_session *s, struct iolat_slot *slot,
			    const struct request *rq)
{
	struct iolat_stash *st = this_cpu_ptr(s->stash);
	struct iolat_stash_entry *e = NULL;

	memset(slot, 0, sizeof(*slot));
	if (rq->bio)
		e = iolat_stash_find(st, rq->bio);
	if (e) {
		slot->q_ns = e->q_ns;
		slot->g_ns = e->g_ns;
		slot->who = e->who;
		slot->flags = e->flags;
		iolat_stash_release(st, e);
	} else if (in_task() && !(current->flags & PF_KTHREAD)) {
		slot->flags = iolat_submitter_set(&slot->who, current);
	}
	slot->filtered = !iolat_filter_pass(&s->filter, slot, rq);
}

/* The slot's request left without completing: undo its queue depth. */
static void iolat_slot_forget(struct iolat_hwq *h, struct iolat_slot *slot)
{
	if (slot->state == IOLAT_SLOT_ISSUED)
		atomic_dec(&h->issued);
	if (slot->state != IOLAT_SLOT_FREE)
		atomic_dec(&h->queued);
	slot->state = IOLAT_SLOT_FREE;
	slot->rq = NULL;
}

/*
 * First sight of @rq, at insert or issue: it owns @slot from now on.  A
 * request the kernel allocated before the session began is followed too,
 * for the queue depths, but counted as not seen whole at completion.
 * Return: false if the session is not taking new requests.
 */
static bool iolat_slot_begin(struct iolat_session *s, struct iolat_hwq *h,
			     struct iolat_slot *slot, const struct request *rq)
{
	if (!iolat_session_armed(s))
		return false;
	if (slot->rq)
		iolat_slot_forget(h, slot);	/* freed without completion */
	iolat_slot_fill(s, slot, rq);
	slot->outside = rq->start_time_ns &&
			rq->start_time_ns < READ_ONCE(s->start_ns);
	slot->qd_insert = atomic_inc_return(&h->queued) - 1;
	slot->state = IOLAT_SLOT_QUEUED;
	slot->rq = rq;
	return true;
}

/* The traced device, slot and queue of @rq; false if it is not traced. */
static bool iolat_rq_find(struct iolat_session *s, const struct request *rq,
			  struct iolat_dev **d, struct iolat_slot **slot)
{
	*d = iolat_session_dev(s, iolat_rq_devt(rq));
	if (!*d)
		return false;
	*slot = iolat_inflight_slot(*d, rq);
	return *slot;
}

/* block_rq_insert (I): into the scheduler or a software queue. */
static void iolat_probe_rq_insert(IOLAT_TP_RQ_PROTO(data, rq))
{
	struct iolat_session *s = data;
	struct iolat_slot *slot;
	struct iolat_dev *d;
	u64 now;

	if (!iolat_rq_find(s, rq, &d, &slot))
		return;
	if (slot->rq == rq && slot->state != IOLAT_SLOT_ISSUED) {
		/* inserted again after a requeue; the first insert stands */
		slot->state = IOLAT_SLOT_QUEUED;
		return;
	}
	now = iolat_now();
	if (iolat_slot_begin(s, &d->hwqs[iolat_rq_hwq(rq)], slot, rq))
		slot->i_ns = now;
}

/* block_rq_issue (D): the driver is given the request. */
static void iolat_probe_rq_issue(IOLAT_TP_RQ_PROTO(data, rq))
{
	struct iolat_session *s = data;
	struct iolat_slot *slot;
	struct iolat_dev *d;
	struct iolat_hwq *h;
	u64 now;

	if (!iolat_rq_find(s, rq, &d, &slot))
		return;
	now = iolat_now();
	h = &d->hwqs[iolat_rq_hwq(rq)];
	/* not seen yet: issued directly */
	if ((slot->rq != rq || slot->state == IOLAT_SLOT_ISSUED) &&
	    !iolat_slot_begin(s, h, slot, rq))
		return;
	slot->d_ns = now;
	slot->qd_issue = atomic_inc_return(&h->issued) - 1;
	slot->state = IOLAT_SLOT_ISSUED;
}

/* block_rq_requeue (R): the driver gave the request back. */
static void iolat_probe_rq_requeue(IOLAT_TP_RQ_PROTO(data, rq))
{
	struct iolat_session *s = data;
	struct iolat_slot *slot;
	struct iolat_dev *d;

	if (!iolat_rq_find(s, rq, &d, &slot))
		return;
	this_cpu_inc(s->rings->stats.requeues);
	if (slot->rq != rq || slot->state != IOLAT_SLOT_ISSUED)
		return;
	atomic_dec(&d->hwqs[iolat_rq_hwq(rq)].issued);
	slot->state = IOLAT_SLOT_REQUEUED;
	slot->requeues++;
}

/* block_rq_merge (M): the request joined another and will not complete. */
static void iolat_probe_rq_merge(IOLAT_TP_RQ_PROTO(data, rq))
{
	struct iolat_session *s = data;
	struct iolat_slot *slot;
	struct iolat_dev *d;

	if (!iolat_rq_find(s, rq, &d, &slot))
		return;
	this_cpu_inc(s->rings->stats.rq_merges);
	if (slot->rq == rq)
		iolat_slot_forget(&d->hwqs[iolat_rq_hwq(rq)], slot);
}

/*
 * A completion whose request was never seen inserted or issued: it was in
 * flight before the session began or issued after it began to stop,
 * unless the kernel's own allocation time says it is the session's (a
 * request that completes without being issued, like the one an empty
 * flush waits on).  Return: whether to record it.
 */
static bool iolat_rq_unseen(struct iolat_session *s, struct iolat_slot *slot,
			    const struct request *rq)
{
	if (!rq->start_time_ns || rq->start_time_ns < READ_ONCE(s->start_ns) ||
	    rq->start_time_ns >= READ_ONCE(s->stop_ns)) {
		this_cpu_inc(s->rings->stats.drop_unmatched);
		return false;
	}
	iolat_slot_fill(s, slot, rq);
	return true;
}

/*
 * block_rq_complete (C), also reached from the batched completion path.
 * A call covering less than the request's remaining bytes is a partial
 * completion: the request stays in flight.
 */
static void iolat_probe_rq_complete(IOLAT_TP_RQ_COMPLETE_PROTO(data, rq, err,
							       nr_bytes))
{
	struct iolat_session *s = data;
	struct iolat_slot *slot, done;
	struct iolat_dev *d;
	u64 now;

	d = iolat_session_dev(s, iolat_rq_devt(rq));
	if (!d)
		return;
	now = iolat_now();
	if (nr_bytes < blk_rq_bytes(rq)) {
		this_cpu_inc(s->rings->stats.partial);
		return;
	}
	slot = iolat_inflight_slot(d, rq);
	if (!slot) {
		this_cpu_inc(s->rings->stats.drop_range);
		return;
	}
	if (slot->rq == rq) {
		done = *slot;
		iolat_slot_forget(&d->hwqs[iolat_rq_hwq(rq)], slot);
		if (done.outside) {
			this_cpu_inc(s->rings->stats.drop_unmatched);
			return;
		}
	} else if (!iolat_rq_unseen(s, &done, rq)) {
		return;
	}
	if (done.filtered ||
	    (s->filter.min_ns &&
	     iolat_latency_ns(done.q_ns, done.g_ns, done.i_ns, done.d_ns,
			      now) < s->filter.min_ns)) {
		this_cpu_inc(s->rings->stats.filtered);
		return;
	}
	iolat_record_emit(s, d, rq, &done, now, iolat_rq_errno(err));
}

#if IOLAT_HAVE_TP_RQ_ERROR
/* block_rq_error: counted; the completion carries the status. */
static void iolat_probe_rq_error(IOLAT_TP_RQ_COMPLETE_PROTO(data, rq, err,
							    nr_bytes))
{
	struct iolat_session *s = data;

	if (iolat_session_dev(s, iolat_rq_devt(rq)))
		this_cpu_inc(s->rings->stats.errors);
}
#endif

/* Each probe against the kernel's declaration of its tracepoint. */
static void __maybe_unused iolat_probe_rq_types(void)
{
	check_trace_callback_type_block_rq_insert(iolat_probe_rq_insert);
	check_trace_callback_type_block_rq_issue(iolat_probe_rq_issue);
	check_trace_callback_type_block_rq_requeue(iolat_probe_rq_requeue);
	check_trace_callback_type_block_rq_merge(iolat_probe_rq_merge);
	check_trace_callback_type_block_rq_complete(iolat_probe_rq_complete);
#if IOLAT_HAVE_TP_RQ_ERROR
	check_trace_callback_type_block_rq_error(iolat_probe_rq_error);
#endif
}

/*
 * Registration order: completion first, so that no request is seen
 * without its completion being watched; unregistration is the reverse.
 * Issue and completion are required; the rest are reported if missing.
 */
struct iolat_probe iolat_rq_probes[] = {
	{ .tp_name = "block_rq_complete", .func = iolat_probe_rq_complete,
	  .required = true },
#if IOLAT_HAVE_TP_RQ_ERROR
	{ .tp_name = "block_rq_error", .func = iolat_probe_rq_error },
#endif
	{ .tp_name = "block_rq_merge", .func = iolat_probe_rq_merge },
	{ .tp_name = "block_rq_requeue", .func = iolat_probe_rq_requeue },
	{ .tp_name = "block_rq_issue", .func = iolat_probe_rq_issue,
	  .required = true },
	{ .tp_name = "block_rq_insert", .func = iolat_probe_rq_insert },
};

const unsigned int iolat_nr_rq_probes = ARRAY_SIZE(iolat_rq_probes);
