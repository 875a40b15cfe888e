// SPDX-License-Identifier: GPL-2.0
/*
 * In-flight tables: their allocation, each hardware queue's once a CPU
 * whose requests go to it is present, as the disk's own map of CPUs to
 * queues says; see inflight.h.  Present: the CPUs a machine has, online
 * or not, and not the many more a VM may declare possible for hot-add.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/kdev_t.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/log2.h>
#include "inflight.h"
#include "alloc.h"

/*
 * Does a session of @mode (IOLAT_MODE_*) keep the slots' extension for
 * @spec?  Only submitters (records, filters by process) and a stack's
 * links use it: a counters or aggregating session without such a filter
 * takes none, but on a lower device of a stack (iolat_rq_link()).
 */
static bool iolat_inflight_ext(const struct iolat_dev_spec *spec, u32 mode)
{
	return (mode & IOLAT_MODE_WHO) || spec->lower;
}

/*
 * A slot's size in a session of @mode: a counters session's is its head
 * alone (IOLAT_SLOT_HEAD), the others' the whole, with the stage times.
 */
static size_t iolat_slot_size(u32 mode)
{
	return mode & IOLAT_MODE_COUNTERS_ONLY ? IOLAT_SLOT_HEAD :
						  sizeof(struct iolat_slot);
}

/*
 * A queue's table: its slots of @slot bytes, one more to align them,
 * their extensions.
 */
static size_t iolat_table_size(u32 depth, size_t slot, bool ext)
{
	return array_size(depth + 2, slot) +
	       (ext ? array_size(depth + 1, sizeof(struct iolat_slot_ext)) : 0);
}

/* The bytes of a map of CPUs to queues (struct iolat_dev's cpu_hwqs). */
size_t iolat_cpu_map_size(void)
{
	return array3_size(nr_cpu_ids, IOLAT_CPU_HWQS, sizeof(u16));
}
EXPORT_SYMBOL_IF_KUNIT(iolat_cpu_map_size);

/*
 * Queue @q's table of @d, on @node, unless it has one; @bytes counts it.
 * Before the probes can find @d, or under the CPU hotplug lock, which
 * orders the callers.
 */
static int iolat_inflight_table(struct iolat_dev *d, u32 q, int node,
				atomic64_t *bytes)
{
	struct iolat_slot *table;
	void *mem;
	u32 i;

	if (q >= d->nr_hwq || d->tables[q])
		return 0;
	mem = iolat_zalloc(d->table_size, node);
	if (!mem)
		return -ENOMEM;
	d->tables_mem[q] = mem;
	atomic64_add(iolat_alloc_bytes(d->table_size), bytes);
	/* a slot in one cache line, never across two */
	table = PTR_ALIGN(mem, 1 << d->slot_shift);
	for (i = 0; i <= d->depth; i++)
		iolat_table_slot(d, table, i)->index = i;
	/* its slots before the probes can see it */
	smp_store_release(&d->tables[q], table);
	return 0;
}

/*
 * The hardware queues each possible CPU's requests go to on @d's disk,
 * from its queue's maps, or NULL where they cannot be read (the disk
 * cannot be opened, or has more maps than a CPU keeps).
 */
static u16 *iolat_inflight_map(const struct iolat_dev *d)
{
	u16 *map = iolat_zalloc(iolat_cpu_map_size(), NUMA_NO_NODE);
	u32 hwq[IOLAT_CPU_HWQS];
	struct block_device *bdev;
	unsigned int cpu, i;
	int n = 0;
	void *h;

	if (!map)
		return NULL;
	bdev = iolat_bdev_open(d->devt, &h);
	if (IS_ERR(bdev))
		goto fail;
	for_each_possible_cpu(cpu) {
		n = iolat_cpu_hwqs(bdev_get_queue(bdev), cpu, hwq,
				   IOLAT_CPU_HWQS);
		if (n <= 0)
			break;
		for (i = 0; i < IOLAT_CPU_HWQS; i++)
			map[cpu * IOLAT_CPU_HWQS + i] =
				i < n && hwq[i] < d->nr_hwq ? hwq[i] :
				IOLAT_CPU_HWQ_NONE;
	}
	iolat_bdev_close(bdev, h);
	if (n > 0)
		return map;
fail:
	kvfree(map);
	return NULL;
}

/**
 * iolat_inflight_init() - a device's geometry and in-flight tables
 * @d: the device, zeroed
 * @spec: what START says of it
 * @mode: what the session keeps (IOLAT_MODE_*)
 * @bytes: the session's count of its tables' memory
 *
 * A disk of several queues gets its map of CPUs to queues and the tables
 * of the present CPUs' queues, and those of a CPU made present later when
 * it comes online (iolat_inflight_cpu()); where the map cannot be read,
 * and on a disk of one queue, every queue gets its table now.
 *
 * Return: 0 or -ENOMEM.
 */
int iolat_inflight_init(struct iolat_dev *d, const struct iolat_dev_spec *spec,
			u32 mode, atomic64_t *bytes)
{
	unsigned int cpu;
	size_t slot;
	u32 q;
	int err;

	/* a slot is a cache line, or half of one in a counters session */
	BUILD_BUG_ON(sizeof(struct iolat_slot) != 64 || IOLAT_SLOT_HEAD != 32);
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
	/* a bio-based device's bios are in its own table (upper.h) */
	if (spec->bio_based)
		return 0;
	slot = iolat_slot_size(mode);
	d->slot_shift = ilog2(slot);
	d->table_size = iolat_table_size(d->depth, slot,
					 iolat_inflight_ext(spec, mode));
	/* the tables, then their allocations (@tables_mem) */
	d->tables = iolat_zalloc(array_size(2 * d->nr_hwq, sizeof(void *)),
				 NUMA_NO_NODE);
	if (!d->tables)
		return -ENOMEM;
	d->tables_mem = (void **)(d->tables + d->nr_hwq);
	if (d->nr_hwq > 1)
		d->cpu_hwqs = iolat_inflight_map(d);
	if (d->cpu_hwqs) {
		atomic64_add(iolat_alloc_bytes(iolat_cpu_map_size()), bytes);
		for_each_present_cpu(cpu) {
			err = iolat_inflight_cpu(d, cpu, bytes);
			if (err)
				return err;
		}
		return 0;
	}
	for (q = 0; q < d->nr_hwq; q++) {
		err = iolat_inflight_table(d, q, NUMA_NO_NODE, bytes);
		if (err)
			return err;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_inflight_init);

/**
 * iolat_inflight_cpu() - the tables of the queues @cpu's requests go to
 * @d: a device of a session
 * @cpu: a CPU present when @d is made, coming online, or online when @d
 *	joins its session
 * @bytes: the session's count of its tables' memory
 *
 * Before the probes can find @d, or under the CPU hotplug lock.
 * Return: 0 or -ENOMEM.
 */
int iolat_inflight_cpu(struct iolat_dev *d, unsigned int cpu,
		       atomic64_t *bytes)
{
	const u16 *q;
	unsigned int i;
	int err;

	if (!d->cpu_hwqs)
		return 0;
	q = &d->cpu_hwqs[cpu * IOLAT_CPU_HWQS];
	for (i = 0; i < IOLAT_CPU_HWQS; i++) {
		if (q[i] == IOLAT_CPU_HWQ_NONE)
			continue;
		err = iolat_inflight_table(d, q[i], cpu_to_node(cpu), bytes);
		if (err)
			return err;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_inflight_cpu);

/*
 * What a disk of @nr_hwq queues' tables of @table bytes each take with
 * the CPUs present now, each on a queue of its own, and its map: an
 * estimate, for the cap on a session's memory (a session counts what
 * they take).  The in-flight tables' and the NVMe command tables' alike.
 */
size_t iolat_present_tables_bytes(u32 nr_hwq, size_t table)
{
	return nr_hwq == 1 ? table :
	       iolat_alloc_bytes(iolat_cpu_map_size()) +
	       min(nr_hwq, num_present_cpus()) * table;
}

/**
 * iolat_inflight_bytes() - what iolat_inflight_init() allocates for @spec
 * @spec: the device
 * @mode: what the session keeps (IOLAT_MODE_*)
 * @tables: set to what its tables and map would take with the CPUs
 *	present now, each on a queue of its own: an estimate, for the cap
 *	on a session's memory (the session counts what they take)
 *
 * Return: the rest, which iolat_inflight_init() allocates whatever the
 * CPUs.
 */
size_t iolat_inflight_bytes(const struct iolat_dev_spec *spec, u32 mode,
			    size_t *tables)
{
	size_t hwqs = iolat_alloc_bytes(array_size(spec->nr_hwq,
						   sizeof(struct iolat_hwq)));
	size_t table = iolat_alloc_bytes(iolat_table_size(spec->depth,
						iolat_slot_size(mode),
						iolat_inflight_ext(spec, mode)));

	if (spec->bio_based) {
		*tables = 0;
		return hwqs;
	}
	*tables = iolat_present_tables_bytes(spec->nr_hwq, table);
	return hwqs + iolat_alloc_bytes(array_size(2 * spec->nr_hwq,
						   sizeof(void *)));
}

/* What @d's tables and map hold now. */
u64 iolat_inflight_held(const struct iolat_dev *d)
{
	u64 held = d->cpu_hwqs ? iolat_alloc_bytes(iolat_cpu_map_size()) : 0;
	u32 q;

	for (q = 0; d->tables && q < d->nr_hwq; q++)
		if (d->tables[q])
			held += iolat_alloc_bytes(d->table_size);
	return held;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_inflight_held);

void iolat_inflight_free(struct iolat_dev *d)
{
	u32 q;

	for (q = 0; d->tables && q < d->nr_hwq; q++)
		kvfree(d->tables_mem[q]);
	kvfree(d->tables);
	d->tables = NULL;
	d->tables_mem = NULL;
	kvfree(d->cpu_hwqs);
	d->cpu_hwqs = NULL;
	kvfree(d->hwqs);
	d->hwqs = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_inflight_free);
