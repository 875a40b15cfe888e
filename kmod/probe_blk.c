// SPDX-License-Identifier: GPL-2.0
/*
 * Block-layer probes.  They run for every request of every device on the
 * machine, so they return at once for untraced devices and otherwise do
 * one clock read and one slot access each; no locks, no allocation.
 */
#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include "inflight.h"

/* block_rq_issue (D): the driver is given the request. */
static void iolat_probe_rq_issue(IOLAT_TP_RQ_ISSUE_PROTO(data, rq))
{
	struct iolat_dev *d = iolat_inflight_dev(data, rq);
	u64 *slot;

	if (!d)
		return;
	slot = iolat_inflight_slot(d, rq);
	if (slot)
		WRITE_ONCE(*slot, iolat_now());
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
	struct iolat_dev *d = iolat_inflight_dev(s, rq);
	u64 now, issue, *slot;

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
	issue = READ_ONCE(*slot);
	WRITE_ONCE(*slot, 0);
	if (!issue) {
		this_cpu_inc(s->rings->stats.drop_unmatched);
		return;
	}
	iolat_record_emit(s, d, rq, issue, now, iolat_rq_errno(err));
}

/*
 * Registration order: completion before issue, so that no request is seen
 * issued without its completion being watched; unregistration is the
 * exact reverse.
 */
struct iolat_probe iolat_blk_probes[] = {
	{ .tp_name = "block_rq_complete", .func = iolat_probe_rq_complete },
	{ .tp_name = "block_rq_issue", .func = iolat_probe_rq_issue },
};

const unsigned int iolat_nr_blk_probes = ARRAY_SIZE(iolat_blk_probes);
