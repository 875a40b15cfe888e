/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-flight table: each traced device has a slot per (hardware queue,
 * driver tag), sized when the session starts.  blk-mq gives a request in
 * flight a tag unique within its hardware queue, so the slot is found by
 * indexing, with no lock, hash or allocation; only the request's own CPUs
 * (issue and completion) touch it.  docs/design.md explains the choice.
 */
#ifndef _IOLAT_INFLIGHT_H
#define _IOLAT_INFLIGHT_H

#include "iolat.h"

/* The traced device a request belongs to, or NULL. */
static inline struct iolat_dev *iolat_inflight_dev(struct iolat_session *s,
						   const struct request *rq)
{
	dev_t devt = iolat_rq_devt(rq);
	unsigned int i;

	for (i = 0; i < s->nr_devs; i++)
		if (s->devs[i].devt == devt)
			return &s->devs[i];
	return NULL;
}

/* The request's slot, or NULL if it lies outside the device's geometry. */
static inline u64 *iolat_inflight_slot(const struct iolat_dev *d,
				       const struct request *rq)
{
	u32 hwq = rq->mq_hctx ? rq->mq_hctx->queue_num : 0;
	int tag = rq->tag;

	if (hwq >= d->nr_hwq || tag < 0 || tag >= d->depth)
		return NULL;
	return &d->issue_ns[hwq * d->depth + tag];
}

int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec);
void iolat_inflight_free(struct iolat_dev *d);

#endif /* _IOLAT_INFLIGHT_H */
