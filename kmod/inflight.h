/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-flight table: each traced device has a table per hardware queue, of
 * a slot per allocation tag.  blk-mq gives a request a tag unique within
 * its hardware queue when it is allocated (the scheduler's tag if the
 * queue has an elevator, else the driver tag) and keeps it until the
 * request is freed, so the slot is found by indexing, with no lock, hash
 * or allocation; only the request's own CPUs touch it.  The flush
 * machinery's request borrows the tag of the request it flushes for, so
 * flushes have one slot of their own per table (blk-mq runs one flush at
 * a time per queue).  A queue's table is allocated once a CPU whose
 * requests go to it is present (docs/design.md, "Memory").
 */
#ifndef _IOLAT_INFLIGHT_H
#define _IOLAT_INFLIGHT_H

#include <linux/blk-mq.h>
#include "iolat.h"

/* The hardware queues of a CPU a device keeps: one per queue map. */
#define IOLAT_CPU_HWQS		3
#define IOLAT_CPU_HWQ_NONE	U16_MAX

size_t iolat_cpu_map_size(void);
size_t iolat_present_tables_bytes(u32 nr_hwq, size_t table);

enum iolat_slot_state {
	IOLAT_SLOT_FREE,
	IOLAT_SLOT_QUEUED,	/* inserted, not issued */
	IOLAT_SLOT_ISSUED,	/* at the driver */
	IOLAT_SLOT_REQUEUED,	/* given back by the driver, to be issued again */
};

/* The request's index in its queue's table, or -1 outside the geometry. */
static inline int iolat_slot_index(const struct iolat_dev *d,
				   const struct request *rq)
{
	int tag = rq->internal_tag >= 0 ? rq->internal_tag : rq->tag;

	if (req_op(rq) == REQ_OP_FLUSH)
		return d->depth;
	return tag >= 0 && tag < d->depth ? tag : -1;
}

/*
 * A counters session's slot: the head of struct iolat_slot, all it
 * touches.  Its tables are half the others' (docs/design.md, "Memory").
 */
#define IOLAT_SLOT_HEAD		offsetof(struct iolat_slot, q_ns)

/* Slot @i of @d's @table, slots being 1 << @d->slot_shift bytes. */
static inline struct iolat_slot *iolat_table_slot(const struct iolat_dev *d,
						  struct iolat_slot *table,
						  u32 i)
{
	return (void *)table + ((size_t)i << d->slot_shift);
}

/*
 * The request's slot, or NULL if it lies outside the device's geometry
 * or its queue has no table.
 */
static inline struct iolat_slot *iolat_inflight_slot(const struct iolat_dev *d,
						     const struct request *rq)
{
	u32 hwq = iolat_rq_hwq(rq);
	int i = iolat_slot_index(d, rq);
	struct iolat_slot *table;

	if (hwq >= d->nr_hwq || i < 0)
		return NULL;
	/* published whole (inflight.c); its slots depend on the address */
	table = READ_ONCE(d->tables[hwq]);
	return table ? iolat_table_slot(d, table, i) : NULL;
}

/*
 * The rest of @slot, after its table's slots.  A session that keeps no
 * submitters keeps none but on a stack's lower devices (inflight.c): it
 * passes this along without reading it.
 */
static inline struct iolat_slot_ext *iolat_slot_ext(const struct iolat_dev *d,
						    struct iolat_slot *slot)
{
	u32 i = slot->index;

	return (struct iolat_slot_ext *)iolat_table_slot(d, slot,
							 d->depth + 1 - i) + i;
}

int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec,
			u32 mode, atomic64_t *bytes);
int iolat_inflight_cpu(struct iolat_dev *d, unsigned int cpu,
		       atomic64_t *bytes);
size_t iolat_inflight_bytes(const struct iolat_dev_spec *spec, u32 mode,
			    size_t *tables);
u64 iolat_inflight_held(const struct iolat_dev *d);
void iolat_inflight_free(struct iolat_dev *d);

#endif /* _IOLAT_INFLIGHT_H */
