/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's devices by number: from an I/O's dev_t to its struct
 * iolat_dev in three loads, whatever the number of devices, with no
 * hash and no scan (docs/design.md, "Finding a device").  A device added
 * while the probes run is published by release stores, as RCU would, and
 * a major's table that grows is freed once no probe can be reading it.
 */
#ifndef _IOLAT_DEVMAP_H
#define _IOLAT_DEVMAP_H

#include <linux/kdev_t.h>
#include <linux/types.h>
#include <linux/bits.h>

/* BLKDEV_MAJOR_MAX: register_blkdev() gives no major above */
#define IOLAT_MAP_MAJORS	512
#define IOLAT_MAP_CHUNK_BITS	6
#define IOLAT_MAP_CHUNK		BIT(IOLAT_MAP_CHUNK_BITS)	/* minors */

struct iolat_dev;

/* IOLAT_MAP_CHUNK consecutive minors of a major */
struct iolat_map_chunk {
	struct iolat_dev *dev[IOLAT_MAP_CHUNK];
};

/* A major's chunks, up to the one of its highest minor in the map. */
struct iolat_map_major {
	u32 nr_chunks;
	struct iolat_map_chunk *chunk[];
};

/* 4 KiB a session, and a chunk (512 bytes) per 64 minors in use */
struct iolat_devmap {
	struct iolat_map_major *major[IOLAT_MAP_MAJORS];
	size_t bytes;		/* what the majors and chunks take */
};

/**
 * iolat_devmap_find() - the first device of number @devt, or NULL
 * @m: the session's map
 * @devt: a disk's number (a partition's I/O is its disk's)
 *
 * A disk's partitions follow the first one by their @next (iolat.h).
 */
static inline struct iolat_dev *iolat_devmap_find(const struct iolat_devmap *m,
						  dev_t devt)
{
	const struct iolat_map_major *mj;
	const struct iolat_map_chunk *c;
	u32 chunk = MINOR(devt) >> IOLAT_MAP_CHUNK_BITS;

	/* each pointer published by a release store: iolat_devmap_add() */
	if (unlikely(MAJOR(devt) >= IOLAT_MAP_MAJORS))
		return NULL;
	mj = READ_ONCE(m->major[MAJOR(devt)]);
	if (!mj || chunk >= mj->nr_chunks)
		return NULL;
	c = READ_ONCE(mj->chunk[chunk]);
	return c ? READ_ONCE(c->dev[MINOR(devt) & (IOLAT_MAP_CHUNK - 1)]) :
		   NULL;
}

int iolat_devmap_add(struct iolat_devmap *m, dev_t devt,
		     struct iolat_dev *d, void **retired);
void iolat_devmap_set(struct iolat_devmap *m, dev_t devt, struct iolat_dev *d);
void iolat_devmap_free(struct iolat_devmap *m);

#endif /* _IOLAT_DEVMAP_H */
