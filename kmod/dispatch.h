/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block probes shared by every session: each is registered once,
 * while a session wants it, and finds the sessions that trace an I/O's
 * disk by the disk's number in one map of every session's disks, in the
 * map's three loads (devmap.h) and a load per further session.  A
 * session's probes that each ran on every I/O cost each other session
 * about 190 instructions per I/O (docs/bench.md).
 */
#ifndef _IOLAT_DISPATCH_H
#define _IOLAT_DISPATCH_H

#include "iolat.h"

extern struct iolat_devmap iolat_subs;

/*
 * For each session tracing disk @devt: @d, that session's first device
 * of the disk (its partitions follow by @next: iolat_dev_at()).
 */
#define iolat_for_each_sub(d, devt)					\
	for ((d) = iolat_devmap_find(&iolat_subs, (devt)); (d);		\
	     (d) = READ_ONCE((d)->sub_next))

/* @d, or the first after it in its chain that uses @use, or NULL. */
static inline struct iolat_dev *iolat_sub_using(struct iolat_dev *d,
						unsigned int use)
{
	while (d && !(d->uses & BIT(use)))
		d = READ_ONCE(d->sub_next);
	return d;
}

/* The same, for the sessions that use @use (enum iolat_probe_use). */
#define iolat_for_each_sub_using(d, devt, use)				\
	for ((d) = iolat_sub_using(iolat_devmap_find(&iolat_subs, (devt)), \
				   (use));				\
	     (d); (d) = iolat_sub_using(READ_ONCE((d)->sub_next), (use)))

int iolat_dispatch_add(struct iolat_dev *d);
void iolat_dispatch_del(struct iolat_dev *d);
void iolat_dispatch_free_retired(void);
void iolat_dispatch_exit(void);

#endif /* _IOLAT_DISPATCH_H */
