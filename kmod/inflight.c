// SPDX-License-Identifier: GPL-2.0
/*
 * In-flight table and queue depth counters: allocation; see inflight.h.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/kdev_t.h>
#include "inflight.h"

int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec)
{
	d->devt = MKDEV(spec->disk_major, spec->disk_minor);
	d->id = MKDEV(spec->major, spec->minor);
	d->first = spec->start;
	d->last = spec->sectors - 1;
	d->nr_hwq = spec->nr_hwq;
	d->depth = spec->depth;
	d->slots = kvmalloc(array3_size(d->nr_hwq, d->depth + 1,
					sizeof(*d->slots)),
			    GFP_KERNEL | __GFP_ZERO);
	d->hwqs = kvmalloc(array_size(d->nr_hwq, sizeof(*d->hwqs)),
			   GFP_KERNEL | __GFP_ZERO);
	return d->slots && d->hwqs ? 0 : -ENOMEM;
}

void iolat_inflight_free(struct iolat_dev *d)
{
	kvfree(d->slots);
	d->slots = NULL;
	kvfree(d->hwqs);
	d->hwqs = NULL;
}
