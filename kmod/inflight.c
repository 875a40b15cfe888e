// SPDX-License-Identifier: GPL-2.0
/*
 * In-flight table allocation; see inflight.h.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/kdev_t.h>
#include "inflight.h"

int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec)
{
	d->devt = MKDEV(spec->major, spec->minor);
	d->nr_hwq = spec->nr_hwq;
	d->depth = spec->depth;
	d->issue_ns = kvmalloc(array3_size(d->nr_hwq, d->depth,
					   sizeof(*d->issue_ns)),
			       GFP_KERNEL | __GFP_ZERO);
	return d->issue_ns ? 0 : -ENOMEM;
}

void iolat_inflight_free(struct iolat_dev *d)
{
	kvfree(d->issue_ns);
	d->issue_ns = NULL;
}
