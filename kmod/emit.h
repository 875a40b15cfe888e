/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One struct iolat_record per completed request, written into the
 * current CPU's ring: inline in the completion probes (probe_rq.c), whose
 * every record, a stream's or a flight recorder's, it writes; emit.c has
 * a bio-based device's and an admin command's.
 */
#ifndef _IOLAT_EMIT_H
#define _IOLAT_EMIT_H

#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include "inflight.h"
#include "probe_nvme.h"
#include "cpus.h"
#include "watch.h"

/**
 * __iolat_record_flags() - the ABI's IOLAT_F_* flags of a request
 * @opf: rq->cmd_flags
 */
static __always_inline u32 __iolat_record_flags(blk_opf_t opf)
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

/* Bios in the request: the one it was made from and those merged into it. */
static __always_inline u16 iolat_record_bios(const struct request *rq)
{
	const struct bio *bio;
	unsigned int n = 0;

	for (bio = rq->bio; bio && n < U16_MAX; bio = bio->bi_next)
		n++;
	return n;
}

/* No NVMe command: the NVMe part of a record of an NVMe session. */
extern const struct iolat_nvme_slot iolat_record_no_nvme;

/*
 * The NVMe part of a record, from its command's slot (its flags are the
 * caller's); field by field, for the compiler's bounds checks.
 */
static __always_inline void iolat_record_nvme(struct iolat_record *rec,
			      const struct iolat_nvme_ctrl *c,
			      const struct iolat_nvme_slot *n, u16 qid)
{
	rec->nvme_setup_ns = n->setup_ns;
	rec->nvme_done_ns = n->done_ns;
	rec->slba = n->slba;
	rec->dsm_slba = n->dsm_slba;
	rec->dsm_lbas = n->dsm_lbas;
	rec->nsid = n->nsid;
	rec->nlb = n->nlb;
	rec->dsm_nlb = n->dsm_nlb;
	rec->result = n->result;
	rec->ctrl = c ? c->instance : 0;
	rec->qid = qid;
	rec->cid = n->cid;
	rec->status = n->status;
	rec->qd_setup = n->qd;
	rec->dsm_nr = n->dsm_nr;
	rec->opcode = n->opcode;
	rec->lba_shift = n->lba_shift;
	rec->retries = n->retries;
	rec->nvme_pad = 0;
}

/*
 * The record's parts past the block part, only as far as the session
 * sends it: its slot ends there (ring.h); the bios are there until the
 * completion's end (iolat_record_emit()).
 */
static __always_inline void
iolat_record_rest(const struct iolat_session *s, const struct iolat_dev *d,
		  const struct request *rq, struct iolat_record *rec,
		  const struct iolat_slot_ext *x,
		  const struct iolat_nvme_slot *nvme)
{
	if (s->record_size > IOLAT_RECORD_BLOCK_SIZE)
		rec->cgroup = s->cgroups && rq->bio ?
			      iolat_bio_cgroup(rq->bio) : 0;
	if (nvme) {
		rec->flags |= IOLAT_F_NVME | (nvme->dsm ? IOLAT_F_NVME_DSM : 0);
		iolat_record_nvme(rec, d->nvme, nvme, rec->hwq + 1);
	} else if (s->record_size > IOLAT_RECORD_CGROUP_SIZE) {
		iolat_record_nvme(rec, NULL, &iolat_record_no_nvme, 0);
	}
	if (s->record_size > IOLAT_RECORD_NVME_SIZE)
		rec->link = x->link;
}

/*
 * This CPU's next record, or NULL (counted) if its ring is full; a
 * recorder's (watch.h) overwrites its oldest (counted from the rings'
 * positions when read, iolat_watch_overwritten()).
 */
static __always_inline struct iolat_ring_slot *
__iolat_record_reserve(struct iolat_session *s, unsigned long *pos, bool lean)
{
	struct iolat_ring *r = &iolat_cpu(s)->ring;
	struct iolat_ring_slot *rs;
	u64 floor;

	if (lean || !s->watch) {
		rs = iolat_ring_reserve(r, pos);
		if (!rs)
			iolat_count(s, IOLAT_S_DROP_FULL);
		return rs;
	}
	floor = READ_ONCE(s->watch->floor_ns);
	if (!floor) {
		iolat_count(s, IOLAT_S_WATCH_FROZEN);
		return NULL;
	}
	rs = iolat_ring_reserve_over(r, pos, floor);
	if (!rs)
		iolat_count(s, IOLAT_S_WATCH_WINDOW_FULL);
	return rs;
}

static __always_inline struct iolat_ring_slot *
iolat_record_reserve(struct iolat_session *s, unsigned long *pos)
{
	return __iolat_record_reserve(s, pos, false);
}

/*
 * A record is written; a recorder's request went into the histograms,
 * counted there, and may trigger it.
 */
static __always_inline void __iolat_record_publish(struct iolat_session *s,
						   struct iolat_ring_slot *rs,
						   unsigned long pos, int error,
						   bool lean)
{
	iolat_ring_publish(rs, pos);
	if (!lean && s->watch)
		iolat_watch_check(s, &rs->rec, error);
	else
		iolat_count(s, IOLAT_S_WRITTEN);
}

static __always_inline void iolat_record_publish(struct iolat_session *s,
						 struct iolat_ring_slot *rs,
						 unsigned long pos, int error)
{
	__iolat_record_publish(s, rs, pos, error, false);
}

/**
 * iolat_record_emit() - write a completed request's record
 * @s: the session
 * @d: the request's device
 * @rq: the request
 * @slot: its stages, taken out of the in-flight table
 * @x: the rest of its slot: submitter, stack link
 * @c_ns: when it completed
 * @error: 0 or a negative errno
 * @nvme: the NVMe command that carried it, or NULL
 * @lean: a session without optional features (iolat_session_lean()):
 *	its tests compiled out
 *
 * Runs in the completion probe (preemption disabled), before the request's
 * bios are ended.  Counts the record as written, or as dropped if this
 * CPU's ring is full.
 */
static __always_inline void
iolat_record_emit(struct iolat_session *s, const struct iolat_dev *d,
		  const struct request *rq, const struct iolat_slot *slot,
		  const struct iolat_slot_ext *x, u64 c_ns, int error,
		  const struct iolat_nvme_slot *nvme, bool lean)
{
	struct iolat_ring_slot *rs;
	struct iolat_record *rec;
	unsigned long pos;

	rs = __iolat_record_reserve(s, &pos, lean);
	if (!rs)
		return;
	rec = &rs->rec;
	rec->q_ns = slot->q_ns;
	rec->g_ns = slot->g_ns;
	rec->i_ns = slot->i_ns;
	rec->d_ns = slot->d_ns;
	rec->c_ns = c_ns;
	/* a flush's all ones stay so: a partition traces none */
	rec->sector = blk_rq_pos(rq) - d->first;
	rec->major = MAJOR(d->id);
	rec->minor = MINOR(d->id);
	rec->bytes = blk_rq_bytes(rq);
	rec->flags = __iolat_record_flags(rq->cmd_flags) | slot->flags;
	rec->pid = x->who.pid;
	rec->tgid = x->who.tgid;
	memcpy(rec->comm, x->who.comm, IOLAT_COMM_LEN);
	rec->hwq = iolat_rq_hwq(rq);
	rec->tag = rq->tag;
	rec->nr_bios = iolat_record_bios(rq);
	rec->requeues = slot->requeues;
	rec->qd_insert = slot->qd_insert;
	rec->qd_issue = slot->qd_issue;
	rec->op = iolat_record_op(rq->cmd_flags);
	rec->pad = 0;
	rec->error = error;
	/* a block session's record ends here: one test for the rest */
	if (!lean &&
	    unlikely(s->record_size > IOLAT_RECORD_BLOCK_SIZE || nvme))
		iolat_record_rest(s, d, rq, rec, x, nvme);
	__iolat_record_publish(s, rs, pos, error, lean);
}

#endif /* _IOLAT_EMIT_H */
