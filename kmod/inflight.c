// SPDX-License-Identifier: GPL-2.0
/*
 * In-flight table and queue depth counters: allocation; see inflight.h.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/kdev_t.h>
#include "inflight.h"
#include "upper.h"
#include "alloc.h"

/*
 * Does a session of @counters_only keep the slots' extension for @spec?
 * Only records, filters and a stack's links use it: a counters session
 * takes none, but on a lower device of a stack (iolat_rq_link()).
 */
static bool iolat_inflight_ext(const struct iolat_dev_spec *spec,
			       bool counters_only)
{
	return !counters_only || spec->lower;
}

int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec,
			bool counters_only)
{
	size_t n;

	/* a slot is one cache line (iolat.h) */
	BUILD_BUG_ON(sizeof(struct iolat_slot) != SMP_CACHE_BYTES);
	d->devt = MKDEV(spec->disk_major, spec->disk_minor);
	d->id = MKDEV(spec->major, spec->minor);
	d->first = spec->start;
	d->last = spec->sectors - 1;
	d->nr_hwq = spec->nr_hwq;
	d->depth = spec->depth;
	d->hwqs = iolat_zalloc(array_size(d->nr_hwq, sizeof(*d->hwqs)),
			       NUMA_NO_NODE);
	if (!d->hwqs)
		return -ENOMEM;
	/* a bio-based device's bios are in its own table instead */
	if (spec->bio_based)
		return iolat_upper_init(d);
	n = array_size(d->nr_hwq, d->depth + 1);
	if (n == SIZE_MAX)
		return -ENOMEM;
	/* one slot more, to align them whatever the allocator returns */
	d->slots_mem = iolat_zalloc(array_size(n + 1, sizeof(*d->slots)),
				    NUMA_NO_NODE);
	if (!d->slots_mem)
		return -ENOMEM;
	if (iolat_inflight_ext(spec, counters_only)) {
		d->slot_ext = iolat_zalloc(array_size(n, sizeof(*d->slot_ext)),
					   NUMA_NO_NODE);
		if (!d->slot_ext)
			return -ENOMEM;
	}
	d->slots = PTR_ALIGN(d->slots_mem, SMP_CACHE_BYTES);
	return 0;
}

/* What iolat_inflight_init() allocates for @spec. */
size_t iolat_inflight_bytes(const struct iolat_dev_spec *spec,
			    bool counters_only)
{
	size_t hwqs = iolat_alloc_bytes(array_size(spec->nr_hwq,
						   sizeof(struct iolat_hwq)));
	size_t n = array_size(spec->nr_hwq, spec->depth + 1);

	if (spec->bio_based)
		return hwqs + iolat_upper_bytes(spec->depth);
	return hwqs +
	       iolat_alloc_bytes(array_size(n + 1, sizeof(struct iolat_slot))) +
	       (iolat_inflight_ext(spec, counters_only) ?
		iolat_alloc_bytes(array_size(n, sizeof(struct iolat_slot_ext))) :
		0);
}

void iolat_inflight_free(struct iolat_dev *d)
{
	kvfree(d->slots_mem);
	d->slots_mem = NULL;
	d->slots = NULL;
	kvfree(d->slot_ext);
	d->slot_ext = NULL;
	kvfree(d->hwqs);
	d->hwqs = NULL;
	iolat_upper_free(d);
}
