// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record buffer: allocation and the reader side; see ring.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include "compat.h"
#include "ring.h"

/**
 * iolat_ring_init() - set up an empty ring
 * @r: the ring
 * @nr_slots: number of records it holds, a power of two
 * @stride: the bytes of a slot, iolat_ring_stride()
 * @node: NUMA node to allocate on
 *
 * Return: 0 or -ENOMEM; -EINVAL if @nr_slots is not a power of two or
 * @stride is not a whole number of cache lines holding the block part.
 */
int iolat_ring_init(struct iolat_ring *r, unsigned int nr_slots,
		    unsigned int stride, int node)
{
	size_t bytes;

	if (!is_power_of_2(nr_slots) ||
	    stride < iolat_ring_stride(IOLAT_RECORD_BLOCK_SIZE) ||
	    stride > sizeof(struct iolat_ring_slot) ||
	    stride % SMP_CACHE_BYTES)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	/* whole pages, which the reader may map (ring_map.c) */
	bytes = iolat_ring_bytes(nr_slots, stride);
	r->map = vzalloc_node(bytes, node);
	if (!r->map)
		return -ENOMEM;
	r->slots = (void *)r->map + PAGE_SIZE;
	r->map->version = IOLAT_RING_MAP_VERSION;
	r->map->slots = nr_slots;
	r->map->stride = stride;
	r->map->data_offset = PAGE_SIZE;
	r->map->bytes = bytes;
	local_set(&r->head, 0);
	r->mask = nr_slots - 1;
	r->stride = stride;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_ring_init);

/* What a mapping reads besides the geometry: its records' size, its CPU. */
void iolat_ring_describe(struct iolat_ring *r, unsigned int record_size,
			 int cpu)
{
	r->map->record_size = record_size;
	r->map->cpu = cpu;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_ring_describe);

/*
 * What iolat_ring_init() allocates for @nr_slots records of @stride: the
 * page of struct iolat_ring_map, then the slots in whole pages.
 */
size_t iolat_ring_bytes(unsigned int nr_slots, unsigned int stride)
{
	return PAGE_SIZE + PAGE_ALIGN(array_size(nr_slots, stride));
}
EXPORT_SYMBOL_IF_KUNIT(iolat_ring_bytes);

/*
 * A mapping's pages outlive the ring: each holds a reference the mapping
 * took (vm_insert_page()), which vfree() does not drop.
 */
void iolat_ring_free(struct iolat_ring *r)
{
	vfree(r->map);
	r->map = NULL;
	r->slots = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_ring_free);

/**
 * iolat_ring_read() - consume published records
 * @r: the ring (any CPU's); callers serialise readers
 * @dst: where to copy the records, with no alignment needed
 * @max: room in @dst, in records
 * @size: bytes of each record to copy, from its start: as far as the
 *	ring's slots hold it
 *
 * Copies records in order while they are published, stopping at the
 * first slot still being written, and gives their slots back.
 *
 * Return: the number of records copied.
 */
unsigned int iolat_ring_read(struct iolat_ring *r, void *dst, unsigned int max,
			     unsigned int size)
{
	unsigned long pos = iolat_ring_tail(r);
	unsigned int n;

	if (WARN_ON_ONCE(size > r->stride - offsetof(struct iolat_ring_slot, rec)))
		return 0;
	for (n = 0; n < max; n++, pos++) {
		struct iolat_ring_slot *slot = iolat_ring_slot(r, pos);

		/* pairs with iolat_ring_publish(): the record is complete */
		if (smp_load_acquire(&slot->seq) != pos + 1)
			break;
		memcpy(dst + n * size, &slot->rec, size);
	}
	/* the copies are done before writers may reuse the slots */
	iolat_ring_set_tail(r, pos);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_ring_read);
