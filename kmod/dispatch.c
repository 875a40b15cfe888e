// SPDX-License-Identifier: GPL-2.0
/*
 * The map of every session's disks (dispatch.h), changed under the
 * session mutex while the shared probes read it: a session's device
 * goes at the end of its number's chain by a release store, and leaves
 * it by one, to be freed once no probe can be reading it (the session's
 * detach, tracepoint_synchronize_unregister()).
 */
#include <linux/tracepoint.h>
#include <linux/slab.h>
#include "dispatch.h"
#include "alloc.h"
#include "compat.h"

struct iolat_devmap iolat_subs;
EXPORT_SYMBOL_IF_KUNIT(iolat_subs);

/* The map's tables that it grew out of, until no probe can read them. */
static void *iolat_subs_retired[16];
static unsigned int iolat_subs_nr_retired;

/**
 * iolat_dispatch_free_retired() - free the tables the map grew out of
 *
 * After the changes of a START or a join: one wait for the probes for
 * all of them.  Under the session mutex.
 */
void iolat_dispatch_free_retired(void)
{
	unsigned int i;

	if (!iolat_subs_nr_retired)
		return;
	tracepoint_synchronize_unregister();
	for (i = 0; i < iolat_subs_nr_retired; i++)
		kvfree(iolat_subs_retired[i]);
	iolat_subs_nr_retired = 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_dispatch_free_retired);

/**
 * iolat_dispatch_add() - the shared probes find @d's session from now on
 * @d: a session's first device of its disk number, built, not yet there
 *
 * Under the session mutex.  Return: 0, -ERANGE or -ENOMEM.
 */
int iolat_dispatch_add(struct iolat_dev *d)
{
	struct iolat_dev *p = iolat_devmap_find(&iolat_subs, d->devt);
	void *retired;
	int err;

	d->sub_next = NULL;
	if (p) {
		while (p->sub_next)
			p = p->sub_next;
		/* @d built before a probe can find it */
		smp_store_release(&p->sub_next, d);
		return 0;
	}
	if (iolat_subs_nr_retired == ARRAY_SIZE(iolat_subs_retired))
		iolat_dispatch_free_retired();
	err = iolat_devmap_add(&iolat_subs, d->devt, d, &retired);
	if (retired)
		iolat_subs_retired[iolat_subs_nr_retired++] = retired;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_dispatch_add);

/**
 * iolat_dispatch_del() - the shared probes no longer find @d's session
 * @d: a device iolat_dispatch_add() put in the map
 *
 * A probe already at @d goes on along its chain.  @d is freed after
 * tracepoint_synchronize_unregister().  Under the session mutex.
 */
void iolat_dispatch_del(struct iolat_dev *d)
{
	struct iolat_dev *p = iolat_devmap_find(&iolat_subs, d->devt);

	if (p == d) {
		iolat_devmap_set(&iolat_subs, d->devt, d->sub_next);
		return;
	}
	for (; p; p = p->sub_next) {
		if (p->sub_next == d) {
			WRITE_ONCE(p->sub_next, d->sub_next);
			return;
		}
	}
	WARN_ON_ONCE(1);
}
EXPORT_SYMBOL_IF_KUNIT(iolat_dispatch_del);

/* At module exit: no session, no probe. */
void iolat_dispatch_exit(void)
{
	iolat_dispatch_free_retired();
	iolat_devmap_free(&iolat_subs);
}
EXPORT_SYMBOL_IF_KUNIT(iolat_dispatch_exit);
