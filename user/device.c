// SPDX-License-Identifier: GPL-2.0
/*
 * Block device names -> what the module needs to trace them: the whole
 * disk's dev_t and its blk-mq tag space (hardware queues, tags per queue),
 * all read from sysfs.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "iolat.h"

/* "nvme0n1" from "/dev/nvme0n1" or "nvme0n1". */
const char *iolat_dev_basename(const char *arg)
{
	return strncmp(arg, "/dev/", 5) ? arg : arg + 5;
}

/* Format a path into a PATH_MAX buffer; false if it does not fit. */
static bool pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n >= 0 && n < PATH_MAX;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Number of hardware queues and the largest tag count among them. */
static int read_geometry(const char *dir, struct iolat_dev_req *dev)
{
	char path[PATH_MAX], line[32];
	struct dirent *de;
	unsigned long q, tags;
	char *end;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -EOPNOTSUPP;
	dev->nr_hwq = 0;
	dev->depth = 0;
	while ((de = readdir(d))) {
		q = strtoul(de->d_name, &end, 10);
		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end)
			continue;
		if (!pathf(path, "%s/%s/nr_tags", dir, de->d_name) ||
		    read_line(path, line, sizeof(line)))
			continue;
		tags = strtoul(line, &end, 10);
		if (*end || !tags)
			continue;
		if (q + 1 > dev->nr_hwq)
			dev->nr_hwq = q + 1;
		if (tags > dev->depth)
			dev->depth = tags;
	}
	closedir(d);
	if (!dev->nr_hwq || dev->nr_hwq > IOLAT_MAX_HWQ ||
	    dev->depth > IOLAT_MAX_DEPTH)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * A request's tag at allocation is the scheduler's when the queue has an
 * elevator: up to nr_requests, which an elevator sets to twice the
 * driver's depth up to 2 * 128 (BLKDEV_DEFAULT_RQ) when it is attached.
 * Size for the largest, so a scheduler switch while tracing still fits.
 */
static void sched_depth(const char *sysfs, struct iolat_dev_req *dev)
{
	char path[PATH_MAX], line[32];
	unsigned long v;
	uint32_t want = 2 * (dev->depth < 128 ? dev->depth : 128);
	char *end;

	if (pathf(path, "%s/class/block/%s/queue/nr_requests", sysfs, dev->name) &&
	    !read_line(path, line, sizeof(line))) {
		v = strtoul(line, &end, 10);
		if (!*end && v > want && v <= IOLAT_MAX_DEPTH)
			want = v;
	}
	if (want > dev->depth)
		dev->depth = want;
}

/*
 * The controller of an NVMe namespace: its device is nvme<N> (a
 * multipath head's is the subsystem, and it has no tag set of its own).
 */
static int nvme_ctrl(const char *sysfs, const char *name)
{
	char path[PATH_MAX], real[PATH_MAX], extra;
	const char *base;
	unsigned int n;

	if (strncmp(name, "nvme", 4) ||
	    !pathf(path, "%s/class/block/%s/device", sysfs, name) ||
	    !realpath(path, real))
		return -1;
	base = strrchr(real, '/');
	if (!base || sscanf(base + 1, "nvme%u%c", &n, &extra) != 1 ||
	    n > UINT16_MAX)
		return -1;
	return n;
}

/* The numbers of block device @name (its sysfs "dev"): 0, or -ENOENT. */
static int read_devt(const char *sysfs, const char *name, unsigned int *major,
		     unsigned int *minor)
{
	char path[PATH_MAX], line[32];
	char extra;

	if (!pathf(path, "%s/class/block/%s/dev", sysfs, name) ||
	    read_line(path, line, sizeof(line)) ||
	    sscanf(line, "%u:%u%c", major, minor, &extra) != 2)
		return -ENOENT;
	return 0;
}

/**
 * iolat_dev_state() - is a traced device still there?
 * @sysfs: sysfs mount point
 * @dev: the device, as iolat_dev_resolve() found it
 * @now: where the numbers of a device of that name that are not @dev's go
 *
 * Return: IOLAT_DEV_PRESENT, IOLAT_DEV_GONE (no device of that name), or
 * IOLAT_DEV_OTHER (a device of that name with other numbers, in @now).
 */
enum iolat_dev_state iolat_dev_state(const char *sysfs,
				     const struct iolat_dev_req *dev,
				     struct iolat_dev_req *now)
{
	unsigned int major, minor;

	if (read_devt(sysfs, dev->name, &major, &minor))
		return IOLAT_DEV_GONE;
	if (major == dev->major && minor == dev->minor)
		return IOLAT_DEV_PRESENT;
	now->major = major;
	now->minor = minor;
	return IOLAT_DEV_OTHER;
}

/**
 * iolat_dev_resolve() - look up a block device to trace
 * @sysfs: sysfs mount point ("/sys"; tests pass a fake tree)
 * @arg: device name, with or without /dev/; a partition means its disk
 * @dev: filled in; nvme_ctrl is N for a namespace of controller nvme<N>
 *
 * Return: 0; -EINVAL for a malformed name, -ENOENT for an unknown device,
 * -EOPNOTSUPP for a device that is not blk-mq.
 */
int iolat_dev_resolve(const char *sysfs, const char *arg,
		      struct iolat_dev_req *dev)
{
	const char *name = iolat_dev_basename(arg);
	char path[PATH_MAX], real[PATH_MAX], line[32];
	unsigned int major, minor;
	int err;

	memset(dev, 0, sizeof(*dev));
	dev->nvme_ctrl = -1;
	if (!*name || strchr(name, '/') || strlen(name) >= sizeof(dev->name))
		return -EINVAL;
	if (!pathf(path, "%s/class/block/%s", sysfs, name) ||
	    access(path, F_OK))
		return -ENOENT;
	if (!pathf(path, "%s/class/block/%s/partition", sysfs, name))
		return -ENOENT;
	if (!access(path, F_OK)) {
		if (!pathf(path, "%s/class/block/%s/..", sysfs, name) ||
		    !realpath(path, real))
			return -ENOENT;
		name = strrchr(real, '/') + 1;
		if (strlen(name) >= sizeof(dev->name))
			return -EINVAL;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	if (read_devt(sysfs, dev->name, &major, &minor))
		return -ENOENT;
	dev->major = major;
	dev->minor = minor;
	if (!pathf(path, "%s/class/block/%s/mq", sysfs, dev->name))
		return -ENOENT;
	err = read_geometry(path, dev);
	if (err)
		return err;
	sched_depth(sysfs, dev);
	dev->nvme_ctrl = nvme_ctrl(sysfs, dev->name);
	/* capacity, for the offset distribution; 0 if sysfs lacks it */
	if (pathf(path, "%s/class/block/%s/size", sysfs, dev->name) &&
	    !read_line(path, line, sizeof(line)))
		dev->sectors = strtoull(line, NULL, 10);
	return 0;
}

/**
 * iolat_dev_index() - which of the devices a record is of
 * @devs: the session's devices
 * @nr: how many
 * @r: the record; an admin command is of its controller's namespaces
 *
 * Return: the index, or -1.
 */
int iolat_dev_index(const struct iolat_dev_req *devs, unsigned int nr,
		    const struct iolat_record *r)
{
	unsigned int d;

	for (d = 0; d < nr; d++) {
		if (r->flags & IOLAT_F_NVME_ADMIN ?
		    devs[d].nvme_ctrl == r->ctrl :
		    devs[d].major == r->major && devs[d].minor == r->minor)
			return d;
	}
	return -1;
}
