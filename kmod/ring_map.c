// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/iolat, the rings mapped: the CLI maps each CPU's ring of its
 * session (linux/iolat.h, struct iolat_ring_map) and takes the records
 * where the probes wrote them.  READ's copies into a dump's skb (zeroed
 * first where init_on_alloc is on) and out of it to the reader are gone;
 * netlink stays the control: start, stop, counters and the events.
 *
 * The mapping's pages hold a reference each (vm_insert_page()), so a
 * session freed while its reader still has them mapped leaves them to
 * the mapping, which sees records no writer touches any more.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "iolat.h"
#include "cpus.h"
#include "ring_map.h"

static int iolat_ring_map_open(struct inode *inode, struct file *file)
{
	if (!iolat_task_capable_perfmon())
		return -EPERM;
	return 0;
}

/*
 * The session of the socket the offset names, and its CPU's ring; the
 * whole ring mapped is marked so (READ copies none of its records).
 */
static int iolat_ring_map_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start, off;
	u32 portid = vma->vm_pgoff >> IOLAT_RING_MMAP_CPU_BITS;
	unsigned long cpu = vma->vm_pgoff & GENMASK(IOLAT_RING_MMAP_CPU_BITS - 1, 0);
	struct iolat_session *s;
	struct iolat_cpu *c;
	struct iolat_ring *r;
	int err = 0;

	if (vma->vm_pgoff >> IOLAT_RING_MMAP_CPU_BITS > U32_MAX)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	s = iolat_session_lock(portid, NULL);
	if (IS_ERR(s))
		return PTR_ERR(s);
	/* a recorder's rings are read frozen, by READ (watch.h) */
	c = cpu < nr_cpu_ids && !s->watch && !s->counters_only &&
	    !s->aggregate ? iolat_cpu_of(s, cpu) : NULL;
	if (!c) {
		err = -ENXIO;
		goto out;
	}
	r = &c->ring;
	if (size > r->map->bytes) {
		err = -EINVAL;
		goto out;
	}
	iolat_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; !err && off < size; off += PAGE_SIZE)
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((void *)r->map + off));
	if (!err && size == r->map->bytes)
		r->mapped = true;
out:
	iolat_session_unlock();
	return err;
}

static const struct file_operations iolat_ring_map_fops = {
	.owner = THIS_MODULE,
	.open = iolat_ring_map_open,
	.mmap = iolat_ring_map_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice iolat_ring_map_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "iolat",
	.fops = &iolat_ring_map_fops,
	.mode = 0600,
};

int iolat_ring_map_init(void)
{
	return misc_register(&iolat_ring_map_dev);
}

void iolat_ring_map_exit(void)
{
	misc_deregister(&iolat_ring_map_dev);
}
