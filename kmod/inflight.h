/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-flight table: each traced device has a slot per (hardware queue,
 * allocation tag), sized when the session starts.  blk-mq gives a request
 * a tag unique within its hardware queue when it is allocated (the
 * scheduler's tag if the queue has an elevator, else the driver tag) and
 * keeps it until the request is freed, so the slot is found by indexing,
 * with no lock, hash or allocation; only the request's own CPUs touch it.
 * The flush machinery's request borrows the tag of the request it
 * flushes for, so flushes have one slot of their own per hardware queue
 * (blk-mq runs one flush at a time per queue).  docs/design.md explains
 * the choice.
 */
#ifndef _IOLAT_INFLIGHT_H
#define _IOLAT_INFLIGHT_H

#include <linux/blk-mq.h>
#include "iolat.h"

enum iolat_slot_state {
	IOLAT_SLOT_FREE,
	IOLAT_SLOT_QUEUED,	/* inserted, not issued */
	IOLAT_SLOT_ISSUED,	/* at the driver */
	IOLAT_SLOT_REQUEUED,	/* given back by the driver, to be issued again */
};

/* The request's slot, or NULL if it lies outside the device's geometry. */
static inline struct iolat_slot *iolat_inflight_slot(const struct iolat_dev *d,
						     const struct request *rq)
{
	u32 hwq = iolat_rq_hwq(rq);
	int tag = rq->internal_tag >= 0 ? rq->internal_tag : rq->tag;

	if (hwq >= d->nr_hwq)
		return NULL;
	if (req_op(rq) == REQ_OP_FLUSH)
		tag = d->depth;
	else if (tag < 0 || tag >= d->depth)
		return NULL;
	return &d->slots[hwq * (d->depth + 1) + tag];
}

/*
 * The rest of @slot, one of @d's table (not a copy on the stack).  A
 * counters session keeps no such table but on a stack's lower devices
 * (inflight.c): it passes this along without reading it.
 */
static inline struct iolat_slot_ext *iolat_slot_ext(const struct iolat_dev *d,
						    const struct iolat_slot *slot)
{
	return &d->slot_ext[slot - d->slots];
}

int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec,
			bool counters_only);
size_t iolat_inflight_bytes(const struct iolat_dev_spec *spec,
			    bool counters_only);
void iolat_inflight_free(struct iolat_dev *d);

#endif /* _IOLAT_INFLIGHT_H */
