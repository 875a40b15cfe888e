/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's allocations, of a footprint known before they are made
 * (budget.h): the slab's size class up to KMALLOC_MAX_CACHE_SIZE, whole
 * pages of vmalloc above.  kvmalloc() would take a power of two of pages
 * when it can: 32 KiB for a device's 20 KiB of histograms per CPU.
 * Freed with kvfree().
 */
#ifndef _IOLAT_ALLOC_H
#define _IOLAT_ALLOC_H

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/log2.h>

static inline void *iolat_zalloc(size_t size, int node)
{
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return vzalloc_node(size, node);
	return kzalloc_node(size, GFP_KERNEL, node);
}

/* What iolat_zalloc(@size) takes. */
static inline size_t iolat_alloc_bytes(size_t size)
{
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return PAGE_ALIGN(size);
	if (size <= 8)
		return 8;
	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	return roundup_pow_of_two(size);
}

#endif /* _IOLAT_ALLOC_H */
