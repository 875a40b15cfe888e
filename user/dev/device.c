// SPDX-License-Identifier: GPL-2.0
/*
 * Block device names -> what the module needs to trace them: the device's
 * dev_t, a partition's disk and range, and the disk's blk-mq tag space
 * (hardware queues, tags per queue), all read from sysfs.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "dev/dev.h"

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/**
 * iolat_devts_read() - the numbers of every block device, sorted
 * @sysfs: sysfs mount point
 * @n: set to how many
 *
 * One read of @sysfs/dev/block, whose entries are "MAJOR:MINOR": what
 * iolat_devts_has() looks a device up in, at a session's device check,
 * instead of reading each traced device's sysfs file.
 *
 * Return: (major << 32 | minor) each, to be freed; NULL on an error.
 */
uint64_t *iolat_devts_read(const char *sysfs, size_t *n)
{
	char path[PATH_MAX];
	unsigned int major, minor;
	size_t cap = 0;
	uint64_t *v = NULL, *w;
	struct dirent *de;
	DIR *dir;

	*n = 0;
	if (!pathf(path, "%s/dev/block", sysfs))
		return NULL;
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		if (sscanf(de->d_name, "%u:%u", &major, &minor) != 2)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			w = realloc(v, cap * sizeof(*v));
			if (!w) {
				free(v);
				closedir(dir);
				return NULL;
			}
			v = w;
		}
		v[(*n)++] = (uint64_t)major << 32 | minor;
	}
	closedir(dir);
	if (v)
		qsort(v, *n, sizeof(*v), cmp_u64);
	return v ? v : calloc(1, sizeof(*v));
}

/* Is there a block device @major:@minor?  One lookup, not a directory. */
bool iolat_devt_present(const char *sysfs, unsigned int major,
			unsigned int minor)
{
	char path[PATH_MAX];

	return pathf(path, "%s/dev/block/%u:%u", sysfs, major, minor) &&
	       !access(path, F_OK);
}

/* Is device @major:@minor among iolat_devts_read()'s @v? */
bool iolat_devts_has(const uint64_t *v, size_t n, unsigned int major,
		     unsigned int minor)
{
	uint64_t key = (uint64_t)major << 32 | minor;

	return v && bsearch(&key, v, n, sizeof(*v), cmp_u64);
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

/* Is class/block/@name there? */
static bool sysfs_has(const char *sysfs, const char *name, const char *sub)
{
	char path[PATH_MAX];

	return pathf(path, "%s/class/block/%s%s", sysfs, name, sub) &&
	       !access(path, F_OK);
}

/* A short name of sysfs: no '/', not "." or "..", fits in @len. */
static bool plain_name(const char *name, size_t len)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && strlen(name) < len;
}

/*
 * The kernel's name of the block device node at @path (any path, through
 * symlinks: /dev/mapper/vg-lv, /dev/vg/lv, /dev/disk/by-id/...), found
 * by its numbers in sysfs/dev/block.
 */
static int node_name(const char *sysfs, const char *path, char *name,
		     size_t len)
{
	char link[PATH_MAX], real[PATH_MAX];
	const char *base;
	struct stat st;

	if (stat(path, &st))
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	if (!pathf(link, "%s/dev/block/%u:%u", sysfs, major(st.st_rdev),
		   minor(st.st_rdev)) || !realpath(link, real))
		return -ENOENT;
	base = strrchr(real, '/') + 1;
	if (!plain_name(base, len))
		return -EINVAL;
	snprintf(name, len, "%s", base);
	return 0;
}

/* The dm-N whose device-mapper name (dm/name) is @arg. */
static int dm_name(const char *sysfs, const char *arg, char *name,
		   size_t len)
{
	char path[PATH_MAX], line[128];
	struct dirent *de;
	int err = -ENOENT;
	DIR *d;

	if (!pathf(path, "%s/class/block", sysfs))
		return -ENOENT;
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while (err && (de = readdir(d))) {
		if (strncmp(de->d_name, "dm-", 3) ||
		    !pathf(path, "%s/class/block/%s/dm/name", sysfs, de->d_name) ||
		    read_line(path, line, sizeof(line)) || strcmp(line, arg) ||
		    !plain_name(de->d_name, len))
			continue;
		snprintf(name, len, "%s", de->d_name);
		err = 0;
	}
	closedir(d);
	return err;
}

/**
 * iolat_dev_name() - the kernel's name of a block device, however named
 * @sysfs: sysfs mount point
 * @arg: a kernel name ("nvme0n1p2", "dm-0", "md0", "loop0"), the same
 *	 under /dev/, a path to a block device node ("/dev/mapper/vg-lv",
 *	 "/dev/vg/lv", a /dev/disk/by-* link; "./" and "../" start one
 *	 relative to the working directory), one relative to /dev
 *	 ("mapper/vg-lv", "vg/lv") or a device-mapper name ("vg-lv")
 * @name: the kernel's name
 * @len: room in @name
 *
 * Return: 0; -EINVAL for a malformed name, -ENOENT for an unknown device,
 * -ENOTBLK for a path that is not a block device.
 */
int iolat_dev_name(const char *sysfs, const char *arg, char *name,
		   size_t len)
{
	const char *base = iolat_dev_basename(arg);
	char path[PATH_MAX];
	int err;

	if (!*base)
		return -EINVAL;
	if (plain_name(base, len) && sysfs_has(sysfs, base, "")) {
		snprintf(name, len, "%s", base);
		return 0;
	}
	if (!strchr(arg, '/') && !plain_name(arg, len))
		return -EINVAL;
	/* a path, or a name under /dev: its node's numbers */
	if (!pathf(path, arg[0] == '/' || !strncmp(arg, "./", 2) ||
		   !strncmp(arg, "../", 3) ? "%s" : "/dev/%s", arg))
		return -EINVAL;
	err = node_name(sysfs, path, name, len);
	if (err != -ENOENT || strchr(arg, '/'))
		return err;
	return dm_name(sysfs, arg, name, len);
}

/* The whole disk of partition @name, its numbers, start and size. */
static int partition_of(const char *sysfs, const char *name,
			struct iolat_dev_req *dev)
{
	char path[PATH_MAX], real[PATH_MAX], line[32];
	const char *disk;

	if (!pathf(path, "%s/class/block/%s/..", sysfs, name) ||
	    !realpath(path, real))
		return -ENOENT;
	disk = strrchr(real, '/') + 1;
	if (!plain_name(disk, sizeof(dev->disk)))
		return -EINVAL;
	snprintf(dev->disk, sizeof(dev->disk), "%s", disk);
	if (read_devt(sysfs, dev->disk, &dev->disk_major, &dev->disk_minor) ||
	    !pathf(path, "%s/class/block/%s/start", sysfs, name) ||
	    read_line(path, line, sizeof(line)))
		return -ENOENT;
	dev->part_start = strtoull(line, NULL, 10);
	if (!pathf(path, "%s/class/block/%s/size", sysfs, name) ||
	    read_line(path, line, sizeof(line)))
		return -ENOENT;
	dev->part_sectors = strtoull(line, NULL, 10);
	/* an empty partition (an extended one's container) has no I/O */
	return dev->part_sectors ? 0 : -ENOSPC;
}

/*
 * What a device without blk-mq queues is, for the user: "device-mapper
 * vg-lv", "md RAID", else "bio-based"; with the devices it sits on
 * (slaves/), space-separated, in @dev->lower.
 */
static void bio_based(const char *sysfs, struct iolat_dev_req *dev)
{
	char path[PATH_MAX], line[64];
	struct dirent *de;
	size_t at = 0;
	DIR *d;

	snprintf(dev->kind, sizeof(dev->kind), "bio-based");
	if (pathf(path, "%s/class/block/%s/dm/name", sysfs, dev->name) &&
	    !read_line(path, line, sizeof(line)))
		snprintf(dev->kind, sizeof(dev->kind), "device-mapper %.32s",
			 line);
	else if (sysfs_has(sysfs, dev->name, "/md"))
		snprintf(dev->kind, sizeof(dev->kind), "md RAID");
	if (!pathf(path, "%s/class/block/%s/slaves", sysfs, dev->name))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    at + strlen(de->d_name) + 2 > sizeof(dev->lower))
			continue;
		at += snprintf(dev->lower + at, sizeof(dev->lower) - at, "%s%s",
			       at ? " " : "", de->d_name);
	}
	closedir(d);
}

/*
 * The partitions of whole disk @dev->disk (the entries of its sysfs
 * directory with a "partition" file), by start: for a breakdown of its
 * requests.  Those past IOLAT_MAX_PARTS are counted in more_parts.
 */
static void read_partitions(const char *sysfs, struct iolat_dev_req *dev)
{
	char path[PATH_MAX], line[32];
	struct iolat_part p, *q;
	struct dirent *de;
	DIR *d;

	if (!pathf(path, "%s/class/block/%s/", sysfs, dev->disk))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!plain_name(de->d_name, sizeof(p.name)) ||
		    !sysfs_has(sysfs, de->d_name, "/partition") ||
		    !pathf(path, "%s/class/block/%s/start", sysfs, de->d_name) ||
		    read_line(path, line, sizeof(line)))
			continue;
		/* (plain_name(): it fits) */
		memcpy(p.name, de->d_name, strlen(de->d_name) + 1);
		p.start = strtoull(line, NULL, 10);
		if (!pathf(path, "%s/class/block/%s/size", sysfs, de->d_name) ||
		    read_line(path, line, sizeof(line)))
			continue;
		p.sectors = strtoull(line, NULL, 10);
		if (!p.sectors)
			continue;	/* an extended partition's container */
		if (dev->nr_parts == IOLAT_MAX_PARTS) {
			dev->more_parts++;
			continue;
		}
		/* insert by start */
		q = &dev->parts[dev->nr_parts++];
		while (q > dev->parts && q[-1].start > p.start) {
			*q = q[-1];
			q--;
		}
		*q = p;
	}
	closedir(d);
}

/**
 * iolat_dev_resolve() - look up a block device to trace
 * @sysfs: sysfs mount point ("/sys"; tests pass a fake tree)
 * @arg: the device, named as iolat_dev_name() takes it
 * @dev: filled in; nvme_ctrl is N for a namespace of controller nvme<N>.
 *	 A partition is traced on its disk (@dev->disk, disk_major and
 *	 disk_minor), over its range of sectors (part_start, part_sectors),
 *	 with its disk's geometry; a disk has part_sectors 0, is its own
 *	 disk and has its partitions listed (nr_parts, parts).
 *
 * A device without blk-mq queues (device-mapper, md, brd, zram) is
 * bio-based (@dev->bio_based, with kind and lower set): its bios are
 * traced, in a table of IOLAT_UPPER_SLOTS.
 *
 * Return: 0; -EINVAL for a malformed name, -ENOENT for an unknown device,
 * -ENOTBLK for a path that is not a block device, -ENOSPC for an empty
 * partition, -EOPNOTSUPP for a partition of a bio-based device.
 */
int iolat_dev_resolve(const char *sysfs, const char *arg,
		      struct iolat_dev_req *dev)
{
	char path[PATH_MAX], line[32];
	int err;

	memset(dev, 0, sizeof(*dev));
	dev->nvme_ctrl = -1;
	err = iolat_dev_name(sysfs, arg, dev->name, sizeof(dev->name));
	if (err)
		return err;
	if (read_devt(sysfs, dev->name, &dev->major, &dev->minor))
		return -ENOENT;
	if (sysfs_has(sysfs, dev->name, "/partition")) {
		err = partition_of(sysfs, dev->name, dev);
		if (err)
			return err;
	} else {
		snprintf(dev->disk, sizeof(dev->disk), "%s", dev->name);
		dev->disk_major = dev->major;
		dev->disk_minor = dev->minor;
	}
	if (!pathf(path, "%s/class/block/%s/mq", sysfs, dev->disk))
		return -ENOENT;
	err = read_geometry(path, dev);
	if (err == -EOPNOTSUPP) {
		/* no blk-mq queues: its bios, unless it is a partition */
		bio_based(sysfs, dev);
		if (dev->part_sectors)
			return err;
		dev->bio_based = true;
		dev->nr_hwq = 1;
		dev->depth = IOLAT_UPPER_SLOTS;
		err = 0;
	} else if (!err) {
		sched_depth(sysfs, dev);
	}
	if (err)
		return err;
	dev->nvme_ctrl = dev->bio_based ? -1 : nvme_ctrl(sysfs, dev->disk);
	/* capacity, for the offset distribution; 0 if sysfs lacks it */
	if (dev->part_sectors) {
		dev->sectors = dev->part_sectors;
		return 0;
	}
	if (pathf(path, "%s/class/block/%s/size", sysfs, dev->name) &&
	    !read_line(path, line, sizeof(line)))
		dev->sectors = strtoull(line, NULL, 10);
	read_partitions(sysfs, dev);
	return 0;
}

/**
 * iolat_dev_mark_lower() - the devices under the bio-based ones
 * @devs: a session's devices, resolved
 * @nr: how many
 *
 * A stack: each device with requests that a bio-based device among
 * @devs sits on (one of the names of its slaves/, whole words of @lower)
 * has its requests joined to that device's I/Os (stack_lower).
 */
void iolat_dev_mark_lower(struct iolat_dev_req *devs, unsigned int nr)
{
	unsigned int d, u;
	const char *p;
	size_t n;

	for (d = 0; d < nr; d++) {
		n = strlen(devs[d].name);
		devs[d].stack_lower = false;
		for (u = 0; !devs[d].bio_based && u < nr; u++) {
			if (!devs[u].bio_based)
				continue;
			for (p = devs[u].lower; (p = strstr(p, devs[d].name));
			     p += n)
				if ((p == devs[u].lower || p[-1] == ' ') &&
				    (!p[n] || p[n] == ' '))
					devs[d].stack_lower = true;
		}
	}
}
