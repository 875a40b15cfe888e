// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/iolat, the rings mapped: the CLI binds a file of the device to a
 * CPU's ring of its session (IOLAT_IOC_RING), maps it (linux/iolat.h,
 * struct iolat_ring_map) and takes the records where the probes wrote
 * them.  READ's copies into a dump's skb (zeroed first where
 * init_on_alloc is on) and out of it to the reader are gone; netlink
 * stays the control: start, stop, counters and the events.
 *
 * The binding looks the session up under the session mutex and takes a
 * reference on each of the ring's pages; ->mmap() then only inserts
 * those pages, taking no lock: under the mmap lock, the session mutex
 * would close a circle (the mutex is held where a session takes the CPU
 * hotplug lock, which relay's CPU callback holds while it creates
 * debugfs files, whose inode lock relay's read holds while it copies to
 * user space, under the mmap lock; lockdep, the debug kernel).  The
 * pages outlive the session while the file or a mapping holds them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "iolat.h"
#include "cpus.h"
#include "ring_map.h"

/* A file's ring: its pages, each holding a reference. */
struct iolat_ring_bind {
	unsigned int nr_pages;
	struct page *pages[];
};

static void iolat_ring_bind_free(struct iolat_ring_bind *b)
{
	unsigned int i;

	for (i = 0; i < b->nr_pages; i++)
		put_page(b->pages[i]);
	kvfree(b);
}

static int iolat_ring_map_open(struct inode *inode, struct file *file)
{
	if (!iolat_task_capable_perfmon())
		return -EPERM;
	/* misc_open() left the struct miscdevice here: not bound yet */
	file->private_data = NULL;
	return 0;
}

static int iolat_ring_map_release(struct inode *inode, struct file *file)
{
	struct iolat_ring_bind *b = file->private_data;

	if (b)
		iolat_ring_bind_free(b);
	return 0;
}

/*
 * The ring of @req's session and CPU, its pages held for @file, once: a
 * mapping never sees its pages change.  Under the session mutex, which
 * every binding takes, so that a ring is marked mapped (READ copies none
 * of its records) only when a file holds it.  Return: 0 or a negative
 * errno.
 */
static int iolat_ring_bind(struct file *file, struct iolat_ring_req *req)
{
	struct iolat_ring_bind *b;
	struct iolat_session *s;
	struct iolat_cpu *c;
	struct iolat_ring *r;
	unsigned int i, n;

	int err = 0;

	s = iolat_session_lock(req->portid, NULL);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (file->private_data) {
		err = -EBUSY;
		goto out;
	}
	/* a recorder's rings are read frozen, by READ (watch.h) */
	c = req->cpu < nr_cpu_ids && !s->watch && !s->counters_only &&
	    !s->aggregate ? iolat_cpu_of(s, req->cpu) : NULL;
	if (!c) {
		err = -ENXIO;
		goto out;
	}
	r = &c->ring;
	n = r->map->bytes >> PAGE_SHIFT;
	b = kvzalloc(struct_size(b, pages, n), GFP_KERNEL);
	if (!b) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		b->pages[i] = vmalloc_to_page((void *)r->map + i * PAGE_SIZE);
		get_page(b->pages[i]);
	}
	b->nr_pages = n;
	r->mapped = true;
	/* pairs with ->mmap()'s acquire: the pages are set */
	smp_store_release(&file->private_data, b);
	req->bytes = (u64)n << PAGE_SHIFT;
out:
	iolat_session_unlock();
	return err;
}

static long iolat_ring_map_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	struct iolat_ring_req req;
	int err;

	if (cmd != IOLAT_IOC_RING)
		return -ENOTTY;
	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
		return -EFAULT;
	err = iolat_ring_bind(file, &req);
	if (err)
		return err;
	if (copy_to_user((void __user *)arg, &req, sizeof(req)))
		return -EFAULT;
	return 0;
}

/* The bound ring's pages, from offset 0; no lock taken (above). */
static int iolat_ring_map_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start, i;
	/* pairs with the binding's release: its pages are set */
	struct iolat_ring_bind *b = smp_load_acquire((struct iolat_ring_bind **)
						     &file->private_data);
	int err = 0;

	if (!b)
		return -EINVAL;
	if (vma->vm_pgoff || size > (unsigned long)b->nr_pages << PAGE_SHIFT ||
	    !(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	iolat_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; !err && i < size >> PAGE_SHIFT; i++)
		err = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     b->pages[i]);
	return err;
}

static const struct file_operations iolat_ring_map_fops = {
	.owner = THIS_MODULE,
	.open = iolat_ring_map_open,
	.release = iolat_ring_map_release,
	.unlocked_ioctl = iolat_ring_map_ioctl,
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
