// SPDX-License-Identifier: GPL-2.0
/*
 * A traced NVMe controller's tables (probe_nvme.h): the commands of each
 * I/O queue, made for the queues of the CPUs present and then of a CPU
 * that comes online after it was made present, as the namespaces'
 * in-flight tables (inflight.c); the admin commands; each qid's count.
 */
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include "probe_nvme.h"
#include "inflight.h"
#include "alloc.h"

/* A queue's command table. */
static size_t iolat_nvme_table_size(u32 depth)
{
	return array_size(depth, sizeof(struct iolat_nvme_slot));
}

/**
 * iolat_nvme_ctrl_bytes() - what a namespace's controller takes
 * @spec: the namespace
 * @tables: set to what its queues' command tables take with the CPUs
 *	present now (iolat_present_tables_bytes())
 *
 * Return: the rest, which iolat_nvme_ctrl_init() allocates whatever the
 * CPUs.
 */
size_t iolat_nvme_ctrl_bytes(const struct iolat_dev_spec *spec,
			     size_t *tables)
{
	*tables = iolat_present_tables_bytes(spec->nr_hwq,
			iolat_alloc_bytes(iolat_nvme_table_size(spec->depth)));
	return iolat_alloc_bytes(array_size(spec->nr_hwq, sizeof(void *))) +
	       iolat_alloc_bytes(array_size(IOLAT_NVME_ADMIN_TAGS,
					    sizeof(struct iolat_nvme_slot))) +
	       iolat_alloc_bytes(array_size(spec->nr_hwq + 1,
					    sizeof(struct iolat_nvme_qid)));
}

/*
 * Queue @q's command table on @node, unless it has one; @bytes counts
 * it.  Before the probes can find @c, or under the CPU hotplug lock.
 */
static int iolat_nvme_table(struct iolat_nvme_ctrl *c, u32 q, int node,
			    atomic64_t *bytes)
{
	struct iolat_nvme_slot *io;

	if (q >= c->nr_hwq || c->io[q])
		return 0;
	io = iolat_zalloc(iolat_nvme_table_size(c->depth), node);
	if (!io)
		return -ENOMEM;
	atomic64_add(iolat_alloc_bytes(iolat_nvme_table_size(c->depth)),
		     bytes);
	/* zeroed before the probes can see it (iolat_nvme_slot()) */
	smp_store_release(&c->io[q], io);
	return 0;
}

/**
 * iolat_nvme_ctrl_cpu() - the command tables of the queues of @cpu
 * @c: a controller of a session
 * @cpu: a CPU present when @c is made, or coming online
 * @bytes: the session's count of its tables' memory
 *
 * Before the probes can find @c, or under the CPU hotplug lock.
 * Return: 0 or -ENOMEM.
 */
int iolat_nvme_ctrl_cpu(struct iolat_nvme_ctrl *c, unsigned int cpu,
			atomic64_t *bytes)
{
	const u16 *q;
	unsigned int i;
	int err;

	if (!c->cpu_hwqs)
		return 0;
	q = &c->cpu_hwqs[cpu * IOLAT_CPU_HWQS];
	for (i = 0; i < IOLAT_CPU_HWQS; i++) {
		if (q[i] == IOLAT_CPU_HWQ_NONE)
			continue;
		err = iolat_nvme_table(c, q[i], cpu_to_node(cpu), bytes);
		if (err)
			return err;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_nvme_ctrl_cpu);

/**
 * iolat_nvme_ctrl_init() - a traced controller's tables
 * @c: the controller, zeroed
 * @instance: nvme<instance>
 * @d: a namespace of it: the geometry of its I/O tag set, and its map of
 *	CPUs to queues, which the controller keeps a copy of
 * @bytes: the session's count of its tables' memory
 *
 * The command tables of the queues of the CPUs present, or of every
 * queue where @d has no map.
 * Return: 0 or -ENOMEM.
 */
int iolat_nvme_ctrl_init(struct iolat_nvme_ctrl *c, u32 instance,
			 const struct iolat_dev *d, atomic64_t *bytes)
{
	unsigned int cpu;
	int err = 0;
	u32 q;

	c->instance = instance;
	c->nr_hwq = d->nr_hwq;
	c->depth = d->depth;
	c->io = iolat_zalloc(array_size(c->nr_hwq, sizeof(*c->io)),
			     NUMA_NO_NODE);
	c->admin = iolat_zalloc(array_size(IOLAT_NVME_ADMIN_TAGS,
					   sizeof(*c->admin)), NUMA_NO_NODE);
	c->qids = iolat_zalloc(array_size(c->nr_hwq + 1, sizeof(*c->qids)),
			       NUMA_NO_NODE);
	if (!c->io || !c->admin || !c->qids)
		return -ENOMEM;
	if (d->cpu_hwqs) {
		c->cpu_hwqs = iolat_zalloc(iolat_cpu_map_size(), NUMA_NO_NODE);
		if (!c->cpu_hwqs)
			return -ENOMEM;
		memcpy(c->cpu_hwqs, d->cpu_hwqs, iolat_cpu_map_size());
		atomic64_add(iolat_alloc_bytes(iolat_cpu_map_size()), bytes);
		for_each_present_cpu(cpu)
			if (!err)
				err = iolat_nvme_ctrl_cpu(c, cpu, bytes);
		return err;
	}
	for (q = 0; !err && q < c->nr_hwq; q++)
		err = iolat_nvme_table(c, q, NUMA_NO_NODE, bytes);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(iolat_nvme_ctrl_init);

void iolat_nvme_ctrl_free(struct iolat_nvme_ctrl *c)
{
	u32 q;

	for (q = 0; c->io && q < c->nr_hwq; q++)
		kvfree(c->io[q]);
	kvfree(c->io);
	kvfree(c->cpu_hwqs);
	kvfree(c->admin);
	kvfree(c->qids);
	memset(c, 0, sizeof(*c));
}
EXPORT_SYMBOL_IF_KUNIT(iolat_nvme_ctrl_free);

/*
 * nvme-core went away with the session's probes detached: its commands
 * are gone, and its controllers will come back under new keys.
 */
void iolat_nvme_ctrl_reset(struct iolat_nvme_ctrl *c)
{
	u32 q;

	for (q = 0; q < c->nr_hwq; q++)
		if (c->io[q])
			memset(c->io[q], 0, iolat_nvme_table_size(c->depth));
	memset(c->admin, 0, IOLAT_NVME_ADMIN_TAGS * sizeof(*c->admin));
	memset(c->qids, 0, (c->nr_hwq + 1) * sizeof(*c->qids));
	WRITE_ONCE(c->key, NULL);
}
