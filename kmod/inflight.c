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

int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec)
{
	d->devt = MKDEV(spec->disk_major, spec->disk_minor);
	d->id = MKDEV(spec->major, spec->minor);
	d->first = spec->start;
	d->last = spec->sectors - 1;
	d->nr_hwq = spec->nr_hwq;
	d->depth = spec->depth;
	d->hwqs = kvmalloc(array_size(d->nr_hwq, sizeof(*d->hwqs)),
			   GFP_KERNEL | __GFP_ZERO);
	if (!d->hwqs)
		return -ENOMEM;
	/* a bio-based device's bios are in its own table instead */
	if (spec->bio_based)
		return iolat_upper_init(d);
	d->slots = kvmalloc(array3_size(d->nr_hwq, d->depth + 1,
					sizeof(*d->slots)),
			    GFP_KERNEL | __GFP_ZERO);
	return d->slots ? 0 : -ENOMEM;
}

void iolat_inflight_free(struct iolat_dev *d)
{
	kvfree(d->slots);
	d->slots = NULL;
	kvfree(d->hwqs);
	d->hwqs = NULL;
	iolat_upper_free(d);
}
