// SPDX-License-Identifier: GPL-2.0
/*
 * The record file, read (recfile.c writes it; docs/abi.md): every block
 * in order to the reader's callbacks.  A file cut short (the recorder
 * killed, the disk full) or damaged is read up to its last whole, intact
 * block, with a warning saying what was lost.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "file/recfile.h"

#define MAX_BLOCK (64U << 20)	/* a block's payload at most */

/*
 * The size of a file's records: without the link before version 4, the
 * cgroup before 7 (file_record() says where their fields were).
 */
static size_t file_record_size(const struct iolat_file_header *h)
{
	if (h->version < 4)
		return IOLAT_FILE_V3_RECORD;
	return h->version < 7 ? IOLAT_FILE_V6_RECORD :
				sizeof(struct iolat_record);
}

/*
 * One record of a file's records block into @r: as it is since version 8
 * (ABI 6); before, the NVMe part and the link followed the block part
 * directly and the cgroup came last (version 7), where they now follow
 * the cgroup.  An older file's records are shorter: the rest stays 0.
 */
static void file_record(const struct iolat_file_header *h, const void *src,
			size_t size, struct iolat_record *r)
{
	const size_t block = IOLAT_RECORD_BLOCK_SIZE;
	const size_t rest = sizeof(*r) - IOLAT_RECORD_CGROUP_SIZE;

	memset(r, 0, sizeof(*r));
	if (h->version >= 8) {
		memcpy(r, src, size);
		return;
	}
	memcpy(r, src, block);
	/* the NVMe part, then the link from version 4 on */
	memcpy(&r->nvme_setup_ns, (const char *)src + block,
	       size - block < rest ? size - block : rest);
	if (size >= block + rest + sizeof(r->cgroup))
		memcpy(&r->cgroup, (const char *)src + block + rest,
		       sizeof(r->cgroup));
}

/*
 * IOLAT_FB_CGROUPS: each cgroup's path, taught to the resolver
 * (iolat_cgroup_learn()), so that the records' cgroups are named as
 * they were where the file was made.  -1 if an entry is not whole.
 */
static int cgroups_block(const void *buf, uint32_t len)
{
	const char *p = buf, *end = p + len;
	struct iolat_file_cgroup e;

	while (p < end) {
		if ((size_t)(end - p) < sizeof(e))
			return -1;
		memcpy(&e, p, sizeof(e));
		p += sizeof(e);
		if (!e.len || e.len % 8 || e.len > (size_t)(end - p) ||
		    !memchr(p, '\0', e.len))
			return -1;
		iolat_cgroup_learn(e.id, p);
		p += e.len;
	}
	return 0;
}

/* The header is one this CLI reads: one clear message if not. */
static int header_check(const char *path, const struct iolat_file_header *h)
{
	if (memcmp(h->magic, IOLAT_FILE_MAGIC, sizeof(h->magic))) {
		iolat_err("%s is not an iolat record file", path);
		return -EINVAL;
	}
	if (h->endian != IOLAT_FILE_ENDIAN) {
		iolat_err("%s was written on a machine of the other byte order",
			  path);
		return -EINVAL;
	}
	/* version 2 is 3 without partitions, 3 is 4 with ABI 4's records */
	if (h->version < 2 || h->version > IOLAT_FILE_VERSION) {
		iolat_err("%s is a version %u record file; this iolat reads versions 2 to %u",
			  path, h->version, IOLAT_FILE_VERSION);
		return -EINVAL;
	}
	if (h->record_size != file_record_size(h) ||
	    h->nr_devs > (h->version < 6 ? IOLAT_FILE_HEADER_DEVS :
			  IOLAT_CLI_MAX_DEVS)) {
		iolat_err("%s is corrupt: records of %u bytes (%zu expected), %u devices",
			  path, h->record_size, file_record_size(h), h->nr_devs);
		return -EINVAL;
	}
	return 0;
}

/*
 * A file's devices, [h->nr_devs]: the header's, then those of the
 * IOLAT_FB_DEVS block that follows a header without room for them all.
 * @f is past the header, and is left past that block.
 */
static int file_devs(FILE *f, const char *path,
		     const struct iolat_file_header *h,
		     struct iolat_file_dev **devs)
{
	unsigned int i, n = h->nr_devs < IOLAT_FILE_HEADER_DEVS ?
			    h->nr_devs : IOLAT_FILE_HEADER_DEVS;
	struct iolat_file_dev *d = calloc(h->nr_devs ?: 1, sizeof(*d));
	struct iolat_file_block_head bh;
	size_t more = (size_t)(h->nr_devs - n) * sizeof(*d);

	if (!d) {
		iolat_err("out of memory");
		return -ENOMEM;
	}
	memcpy(d, h->devs, n * sizeof(*d));
	if (more &&
	    (fread(&bh, sizeof(bh), 1, f) != 1 || bh.type != IOLAT_FB_DEVS ||
	     bh.len != more || bh.reserved || fread(d + n, more, 1, f) != 1 ||
	     iolat_file_block_crc(&bh, d + n, more, NULL, 0) != bh.crc)) {
		iolat_err("%s is corrupt: the devices after its header are not those it counts (%u)",
			  path, h->nr_devs);
		free(d);
		return -EINVAL;
	}
	for (i = 0; i < h->nr_devs; i++)
		d[i].name[sizeof(d[i].name) - 1] = '\0';
	*devs = d;
	return 0;
}

/**
 * iolat_file_peek() - a record file's header, checked
 * @path: the file
 * @h: the header
 * @devs: NULL, or set to its devices, [h->nr_devs], to be freed
 *
 * Return: 0, or a negative errno after one message.
 */
int iolat_file_peek(const char *path, struct iolat_file_header *h,
		    struct iolat_file_dev **devs)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f) {
		err = -errno;
		iolat_err("cannot read %s: %s", path, strerror(errno));
		return err;
	}
	err = fread(h, sizeof(*h), 1, f) == 1 ? header_check(path, h) : -EINVAL;
	if (err == -EINVAL && feof(f))
		iolat_err("%s is not an iolat record file (too short)", path);
	if (!err && devs)
		err = file_devs(f, path, h, devs);
	fclose(f);
	return err;
}

/*
 * An end block of version 2 to 4 as one of version 5: its counters into
 * @stats, its size returned (0: the block is too short).
 */
static size_t end_v4(const struct iolat_file_header *h, const void *buf,
		     uint32_t len, struct iolat_file_end *e, __u64 *stats)
{
	size_t esz = h->version < 4 ? IOLAT_FILE_V3_END :
		     sizeof(struct iolat_file_end_v4);
	struct iolat_file_end_v4 v = { 0 };

	if (len < esz)
		return 0;
	memcpy(&v, buf, esz);
	e->end_ns = v.end_ns;
	e->seconds_ns = v.seconds_ns;
	e->delivered = v.delivered;
	e->decode_errors = v.decode_errors;
	e->foreign = v.foreign;
	e->incomplete = v.incomplete;
	e->kernel_valid = v.kernel_valid;
	e->nvme_detaches = v.nvme_detaches;
	e->nvme_attaches = v.nvme_attaches;
	e->nr_missing = v.nr_missing;
	memcpy(e->missing, v.missing, sizeof(e->missing));
	memcpy(stats, v.stats, sizeof(v.stats));
	memcpy(stats + 18, v.stack, sizeof(v.stack));
	return esz;
}

static int end_block(const char *path, const struct iolat_file_header *h,
		     const struct iolat_file_dev *devs, const void *buf,
		     uint32_t len, const struct iolat_file_reader *rd)
{
	struct iolat_dev_counters *c;
	const struct iolat_file_counters *fc;
	__u64 stats[IOLAT_STAT_NR > 22 ? IOLAT_STAT_NR : 22] = { 0 };
	struct iolat_file_end e = { 0 };
	struct iolat_run run;
	size_t esz = 0;
	unsigned int d;

	if (h->version < 5) {
		esz = end_v4(h, buf, len, &e, stats);
	} else if (len >= sizeof(e)) {
		memcpy(&e, buf, sizeof(e));
		esz = sizeof(e) + (size_t)e.nr_stats * sizeof(__u64);
		if (esz <= len)
			memcpy(stats, (const char *)buf + sizeof(e),
			       (e.nr_stats < IOLAT_STAT_NR ? e.nr_stats :
				IOLAT_STAT_NR) * sizeof(__u64));
	}
	if (!esz || len != esz + h->nr_devs * sizeof(*fc)) {
		iolat_err("%s is corrupt: an end block of %u bytes", path, len);
		return -EINVAL;
	}
	fc = (const void *)((const char *)buf + esz);
	memset(&run, 0, sizeof(run));
	c = calloc(h->nr_devs ?: 1, sizeof(*c));
	if (!c || iolat_run_alloc(&run, h->nr_devs)) {
		free(c);
		iolat_err("out of memory");
		return -ENOMEM;
	}
	run.seconds = e.seconds_ns / 1e9;
	run.delivered = e.delivered;
	run.decode_errors = e.decode_errors;
	run.foreign = e.foreign;
	memcpy(run.stats.n, stats, sizeof(run.stats.n));
	run.incomplete = e.incomplete;
	run.kernel_valid = e.kernel_valid;
	run.nvme_detaches = e.nvme_detaches;
	run.nvme_attaches = e.nvme_attaches;
	run.nr_missing = e.nr_missing < IOLAT_MAX_MISSING ? e.nr_missing :
			 IOLAT_MAX_MISSING;
	memcpy(run.missing, e.missing, sizeof(run.missing));
	for (d = 0; d < IOLAT_MAX_MISSING; d++)
		run.missing[d][sizeof(run.missing[d]) - 1] = '\0';
	for (d = 0; d < h->nr_devs; d++) {
		c[d].major = devs[d].major;
		c[d].minor = devs[d].minor;
		c[d].valid = true;
		c[d].start_ns = fc[d].start_ns;
		c[d].now_ns = fc[d].now_ns;
		c[d].busy_ns = fc[d].busy_ns;
		c[d].qbusy_ns = fc[d].qbusy_ns;
		c[d].inflight_ns = fc[d].inflight_ns;
		c[d].qinflight_ns = fc[d].qinflight_ns;
		memcpy(c[d].ios, fc[d].ios, sizeof(c[d].ios));
		memcpy(c[d].bytes, fc[d].bytes, sizeof(c[d].bytes));
		memcpy(c[d].wait_ns, fc[d].wait_ns, sizeof(c[d].wait_ns));
		c[d].issues = fc[d].issues;
		c[d].qd_sum = fc[d].qd_sum;
		memcpy(run.kstart[d].f, fc[d].kstart, sizeof(run.kstart[d].f));
		memcpy(run.kend[d].f, fc[d].kend, sizeof(run.kend[d].f));
	}
	if (rd->end)
		rd->end(rd->arg, e.end_ns, &run, c);
	iolat_run_free(&run);
	free(c);
	return 0;
}

/* Partitions of the header's whole disks, each checked. */
static int parts_block(const char *path, const struct iolat_file_header *h,
		       const void *buf, uint32_t len,
		       const struct iolat_file_reader *rd)
{
	struct iolat_file_part fp;
	struct iolat_part p;
	uint32_t i;

	if (!len || len % sizeof(fp) || len / sizeof(fp) >
	    (size_t)h->nr_devs * IOLAT_MAX_PARTS)
		goto bad;
	for (i = 0; i < len / sizeof(fp); i++) {
		memcpy(&fp, (const char *)buf + i * sizeof(fp), sizeof(fp));
		if (fp.dev >= h->nr_devs || !fp.sectors ||
		    memchr(fp.name, '\0', sizeof(fp.name)) == NULL)
			goto bad;
		memcpy(p.name, fp.name, sizeof(p.name));
		p.start = fp.start;
		p.sectors = fp.sectors;
		if (rd->part)
			rd->part(rd->arg, fp.dev, &p);
	}
	return 0;
bad:
	iolat_err("%s is corrupt: a partitions block of %u bytes", path, len);
	return -EINVAL;
}

static int block(const char *path, const struct iolat_file_header *h,
		 const struct iolat_file_dev *devs, uint32_t type,
		 const void *buf, uint32_t len,
		 const struct iolat_file_reader *rd)
{
	struct iolat_record r = { 0 };
	struct iolat_file_event e;
	uint32_t i, size = h->record_size;
	uint64_t ns;

	switch (type) {
	case IOLAT_FB_RECORDS:
		if (!len || len % size)
			break;
		for (i = 0; rd->record && i < len / size; i++) {
			file_record(h, (const char *)buf + (size_t)i * size,
				    size, &r);
			rd->record(rd->arg, &r);
		}
		return 0;
	case IOLAT_FB_MARK:
		if (len != sizeof(ns))
			break;
		memcpy(&ns, buf, sizeof(ns));
		if (rd->mark)
			rd->mark(rd->arg, ns);
		return 0;
	case IOLAT_FB_EVENT:
		if (len != sizeof(e))
			break;
		memcpy(&e, buf, sizeof(e));
		e.module[sizeof(e.module) - 1] = '\0';
		if (rd->event)
			rd->event(rd->arg, e.ns, e.kind, e.module);
		return 0;
	case IOLAT_FB_END:
		return end_block(path, h, devs, buf, len, rd);
	case IOLAT_FB_CGROUPS:
		if (cgroups_block(buf, len))
			break;
		return 0;
	case IOLAT_FB_PARTS:
		return parts_block(path, h, buf, len, rd);
	case IOLAT_FB_WATCH:
		if (len != sizeof(struct iolat_file_watch))
			break;
		if (rd->watch)
			rd->watch(rd->arg, buf);
		return 0;
	}
	iolat_err("%s is corrupt: a block of type %u and %u bytes", path, type,
		  len);
	return -EINVAL;
}

/*
 * A file that stops before its end block, or whose block at @off is
 * damaged: what was before it has been read; say what was not.
 */
static int partial(const char *path, long off, long size, const char *what)
{
	iolat_warn("%s %s at byte %ld: read up to there; the %ld byte%s from there on are lost, and with the end block the run's accounting and device counters",
		   path, what, off, size - off, size - off == 1 ? "" : "s");
	return IOLAT_FILE_PARTIAL;
}

/**
 * iolat_file_read() - read a record file, every block to @rd in order
 * @path: the file
 * @rd: the callbacks
 *
 * Return: 0 if the file was read to its end block; IOLAT_FILE_PARTIAL if
 * it stopped at a truncated or damaged block, after a warning (the
 * blocks before it were read, @rd->end was not called); else a negative
 * errno after one message.
 */
int iolat_file_read(const char *path, const struct iolat_file_reader *rd)
{
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	struct iolat_file_dev *devs = NULL;
	struct iolat_file_block_head bh;
	bool ended = false;
	void *buf = NULL;
	struct stat sb;
	long off, size;
	size_t got;
	FILE *f;
	int err = -EINVAL;

	f = fopen(path, "r");
	if (!f || !h) {
		iolat_err("cannot read %s: %s", path, strerror(errno));
		free(h);
		if (f)
			fclose(f);
		return -errno;
	}
	if (fread(h, sizeof(*h), 1, f) != 1) {
		iolat_err("%s is not an iolat record file (too short)", path);
		goto out;
	}
	err = header_check(path, h) ?: file_devs(f, path, h, &devs);
	if (!err && rd->header)
		err = rd->header(rd->arg, h, devs);
	buf = malloc(MAX_BLOCK);
	if (!buf)
		err = -ENOMEM;
	size = fstat(fileno(f), &sb) ? 0 : sb.st_size;
	while (!err && !ended) {
		off = ftell(f);
		got = fread(&bh, 1, sizeof(bh), f);
		if (!got) {
			err = partial(path, off, size, "ends without its end block");
			break;
		}
		if (got < sizeof(bh)) {
			err = partial(path, off, size, "is cut short in a block");
			break;
		}
		if (bh.len > MAX_BLOCK || bh.reserved) {
			err = partial(path, off, size, "is damaged (a block's length)");
			break;
		}
		if (bh.len && fread(buf, bh.len, 1, f) != 1) {
			err = partial(path, off, size, "is cut short in a block");
			break;
		}
		if (iolat_file_block_crc(&bh, buf, bh.len, NULL, 0) != bh.crc) {
			err = partial(path, off, size, "is damaged (a block's checksum)");
			break;
		}
		err = block(path, h, devs, bh.type, buf, bh.len, rd);
		ended = bh.type == IOLAT_FB_END;
	}
	if (!err && fgetc(f) != EOF) {
		iolat_err("%s is corrupt: data after the end block", path);
		err = -EINVAL;
	}
out:
	free(buf);
	free(devs);
	free(h);
	fclose(f);
	return err;
}
