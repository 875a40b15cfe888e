// SPDX-License-Identifier: GPL-2.0
/*
 * A session's devices by number (devmap.h), filled at START, before the
 * session's probes are attached, added to while they are (a disk that
 * appears), and freed with the session.
 */
#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/errno.h>
#include "compat.h"
#include "devmap.h"
#include "alloc.h"

/*
 * @m's major @major, with room for chunk @chunk: grown if need be, the
 * table it replaces freed, or, if probes may read it, put in @retired.
 */
static struct iolat_map_major *iolat_devmap_major(struct iolat_devmap *m,
						  u32 major, u32 chunk,
						  void **retired)
{
	struct iolat_map_major *mj = m->major[major], *grown;
	u32 nr = mj ? mj->nr_chunks : 0;

	if (chunk < nr)
		return mj;
	grown = iolat_zalloc(struct_size(grown, chunk, chunk + 1),
			     NUMA_NO_NODE);
	if (!grown)
		return NULL;
	grown->nr_chunks = chunk + 1;
	if (mj)
		memcpy(grown->chunk, mj->chunk, nr * sizeof(mj->chunk[0]));
	m->bytes += iolat_alloc_bytes(struct_size(grown, chunk, chunk + 1)) -
		    (mj ? iolat_alloc_bytes(struct_size(mj, chunk, nr)) : 0);
	/* the chunks copied before the probes can see the new table */
	smp_store_release(&m->major[major], grown);
	if (retired)
		*retired = mj;
	else
		kvfree(mj);
	return grown;
}

/**
 * iolat_devmap_add() - find @d by @devt from now on
 * @m: the session's map
 * @devt: the device's number, or its disk's
 * @d: the device, built: probes find it as soon as this stores it
 * @retired: NULL if no probe reads @m; else set to a table that @m no
 *	longer uses, or NULL, to be freed once no probe can read it
 *	(tracepoint_synchronize_unregister())
 *
 * Return: 0; -EEXIST if @devt has a device already (a disk's partitions
 * are chained by the caller), -ERANGE for a major no block device has,
 * -ENOMEM.
 */
int iolat_devmap_add(struct iolat_devmap *m, dev_t devt, struct iolat_dev *d,
		     void **retired)
{
	u32 chunk = MINOR(devt) >> IOLAT_MAP_CHUNK_BITS;
	struct iolat_map_chunk *c;
	struct iolat_map_major *mj;

	if (retired)
		*retired = NULL;
	if (MAJOR(devt) >= IOLAT_MAP_MAJORS)
		return -ERANGE;
	mj = iolat_devmap_major(m, MAJOR(devt), chunk, retired);
	if (!mj)
		return -ENOMEM;
	c = mj->chunk[chunk];
	if (!c) {
		c = iolat_zalloc(sizeof(*c), NUMA_NO_NODE);
		if (!c)
			return -ENOMEM;
		m->bytes += iolat_alloc_bytes(sizeof(*c));
		/* zeroed before a probe can see it: iolat_devmap_find() */
		smp_store_release(&mj->chunk[chunk], c);
	}
	if (c->dev[MINOR(devt) & (IOLAT_MAP_CHUNK - 1)])
		return -EEXIST;
	/* @d built before a probe can find it */
	smp_store_release(&c->dev[MINOR(devt) & (IOLAT_MAP_CHUNK - 1)], d);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_devmap_add);

/**
 * iolat_devmap_set() - the device of a number in the map becomes @d
 * @m: the map
 * @devt: a number iolat_devmap_add() put in @m
 * @d: its device from now on, or NULL
 */
void iolat_devmap_set(struct iolat_devmap *m, dev_t devt, struct iolat_dev *d)
{
	struct iolat_map_major *mj = m->major[MAJOR(devt)];
	u32 chunk = MINOR(devt) >> IOLAT_MAP_CHUNK_BITS;

	/* @d built before a probe can find it */
	smp_store_release(&mj->chunk[chunk]->dev[MINOR(devt) &
						 (IOLAT_MAP_CHUNK - 1)], d);
}

void iolat_devmap_free(struct iolat_devmap *m)
{
	unsigned int i, j;

	for (i = 0; i < IOLAT_MAP_MAJORS; i++) {
		if (!m->major[i])
			continue;
		for (j = 0; j < m->major[i]->nr_chunks; j++)
			kvfree(m->major[i]->chunk[j]);
		kvfree(m->major[i]);
		m->major[i] = NULL;
	}
	m->bytes = 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_devmap_free);
