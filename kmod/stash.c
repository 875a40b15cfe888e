// SPDX-License-Identifier: GPL-2.0
/*
 * Submission stash: claiming and filling entries; see stash.h.
 */
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "stash.h"

/**
 * iolat_stash_take() - take @bio's entry from another CPU's stash
 * @st: that CPU's stash
 * @bio: the first bio of a request first seen on this CPU
 * @copy: where to put the entry's stages, submitter and flags
 *
 * Only for a request this CPU's stash has no entry for, which happens
 * when its submitter moved to another CPU between Q and the request's
 * first I or D: the cost, a compare per entry of every other CPU
 * (iolat_cpus_take_remote()), is paid only then.  The fields are copied
 * after the key is found, and kept only if a cmpxchg of the key then
 * finds it unchanged and takes the entry back; an entry its owner reused
 * meanwhile is left alone.
 *
 * Return: whether @copy holds @bio's entry.
 */
bool iolat_stash_take(struct iolat_stash *st, const struct bio *bio,
		      struct iolat_stash_entry *copy)
{
	unsigned int i;

	for (i = 0; i < IOLAT_STASH_ENTRIES; i++) {
		struct iolat_stash_entry *e = &st->e[i];

		if (READ_ONCE(e->bio) != bio)
			continue;
		/* the fields as published with the key */
		smp_rmb();
		copy->q_ns = READ_ONCE(e->q_ns);
		copy->g_ns = READ_ONCE(e->g_ns);
		copy->who = e->who;
		copy->flags = READ_ONCE(e->flags);
		/* read before the key is found unchanged and taken */
		smp_rmb();
		if (cmpxchg(&e->bio, bio, NULL) == bio)
			return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_stash_take);
