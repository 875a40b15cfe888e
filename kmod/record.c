// SPDX-License-Identifier: GPL-2.0
/*
 * One struct iolat_record per completed request, written into the
 * current CPU's ring.
 */
#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include "iolat.h"

/**
 * iolat_record_op() - the ABI's operation for a request's op and flags
 * @opf: rq->cmd_flags
 */
u8 iolat_record_op(blk_opf_t opf)
{
	switch (opf & REQ_OP_MASK) {
	case REQ_OP_READ:
		return IOLAT_OP_READ;
	case REQ_OP_WRITE:
		return IOLAT_OP_WRITE;
	case REQ_OP_FLUSH:
		return IOLAT_OP_FLUSH;
	case REQ_OP_DISCARD:
		return IOLAT_OP_DISCARD;
	case REQ_OP_WRITE_ZEROES:
		return IOLAT_OP_WRITE_ZEROES;
	default:
		return IOLAT_OP_OTHER;
	}
}
EXPORT_SYMBOL_IF_KUNIT(iolat_record_op);

/**
 * iolat_record_flags() - the ABI's IOLAT_F_* flags of a request
 * @opf: rq->cmd_flags
 */
u32 iolat_record_flags(blk_opf_t opf)
{
	u32 flags = 0;

	if (opf & REQ_SYNC)
		flags |= IOLAT_F_SYNC;
	if (opf & REQ_META)
		flags |= IOLAT_F_META;
	if (opf & REQ_FUA)
		flags |= IOLAT_F_FUA;
	if (opf & REQ_PREFLUSH)
		flags |= IOLAT_F_PREFLUSH;
	return flags;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_record_flags);

/**
 * iolat_record_emit() - write a completed request's record
 * @s: the session
 * @d: the request's device
 * @rq: the request
 * @issue_ns: when it was issued
 * @complete_ns: when it completed
 * @error: 0 or a negative errno
 *
 * Runs in the completion probe (preemption disabled).  Counts the record
 * as written, or as dropped if this CPU's ring is full.
 */
void iolat_record_emit(struct iolat_session *s, const struct iolat_dev *d,
		       const struct request *rq, u64 issue_ns,
		       u64 complete_ns, int error)
{
	struct iolat_ring *r = this_cpu_ptr(s->rings);
	struct iolat_ring_slot *slot;
	struct iolat_record *rec;
	unsigned long pos;

	slot = iolat_ring_reserve(r, &pos);
	if (!slot) {
		this_cpu_inc(s->rings->stats.drop_full);
		return;
	}
	rec = &slot->rec;
	rec->issue_ns = issue_ns;
	rec->complete_ns = complete_ns;
	rec->sector = blk_rq_pos(rq);
	rec->major = MAJOR(d->devt);
	rec->minor = MINOR(d->devt);
	rec->bytes = blk_rq_bytes(rq);
	rec->flags = iolat_record_flags(rq->cmd_flags);
	rec->hwq = rq->mq_hctx ? rq->mq_hctx->queue_num : 0;
	rec->tag = rq->tag;
	rec->op = iolat_record_op(rq->cmd_flags);
	rec->pad = 0;
	rec->error = error;
	iolat_ring_publish(slot, pos);
	this_cpu_inc(s->rings->stats.written);
}
