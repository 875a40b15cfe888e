// SPDX-License-Identifier: GPL-2.0
/*
 * The record file of `iolat record -w`, written: a header (versions,
 * host, kernel, devices), then blocks in the order the session saw them:
 * the devices beyond the header's and the partitions, records, marks (a
 * drain began), events, and the end (drop counts, counters).  docs/abi.md
 * describes the layout.  Every block carries a CRC32C.  recfile_read.c
 * reads it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "file/recfile.h"

#define BATCH 1024		/* records per block at most */

struct iolat_file {
	FILE *f;
	const char *path;
	unsigned int nr;
	struct iolat_record batch[BATCH];
	int err;
	bool cgroups;		/* IOLAT_FILE_F_CGROUPS */
	uint64_t *cg_ids;	/* the cgroups written, in IOLAT_FB_CGROUPS */
	unsigned int nr_cg, cap_cg;
};

/* A block's checksum: its type and length, then its payload. */
uint32_t iolat_file_block_crc(const struct iolat_file_block_head *bh,
			      const void *a, uint32_t alen, const void *b,
			      uint32_t blen)
{
	uint32_t crc = iolat_crc32c(0, bh, 2 * sizeof(__u32));

	crc = iolat_crc32c(crc, a, alen);
	return iolat_crc32c(crc, b, blen);
}

static int put(struct iolat_file *f, uint32_t type, const void *a,
	       uint32_t alen, const void *b, uint32_t blen)
{
	struct iolat_file_block_head bh = { .type = type, .len = alen + blen };

	if (f->err)
		return f->err;
	bh.crc = iolat_file_block_crc(&bh, a, alen, b, blen);
	if (fwrite(&bh, sizeof(bh), 1, f->f) != 1 ||
	    (alen && fwrite(a, alen, 1, f->f) != 1) ||
	    (blen && fwrite(b, blen, 1, f->f) != 1))
		f->err = errno ? -errno : -EIO;
	return f->err;
}

/*
 * The batch's cgroups not yet in the file, in an IOLAT_FB_CGROUPS block
 * before it: their paths as the io controller's hierarchy has them now
 * (a cgroup removed since its first request, which the resolver saw,
 * keeps its path there), so that report names them wherever it runs.
 */
static int put_cgroups(struct iolat_file *f)
{
	uint64_t last = 0;	/* runs of one cgroup: looked up once */
	char *buf = NULL;
	size_t len = 0;
	unsigned int i, j;
	FILE *m = NULL;
	int err;

	for (i = 0; i < f->nr; i++) {
		uint64_t id = f->batch[i].cgroup;
		struct iolat_file_cgroup e = { .id = id };
		const char *path;

		if (id == last)
			continue;
		last = id;
		for (j = 0; j < f->nr_cg && f->cg_ids[j] != id; j++)
			;
		path = id && j == f->nr_cg ? iolat_cgroup_path(id) : NULL;
		if (!path)
			continue;
		if (!m)
			m = open_memstream(&buf, &len);
		if (!m)
			return f->err = -ENOMEM;
		f->cg_ids = iolat_grow(f->cg_ids, &f->cap_cg, f->nr_cg + 1,
				       sizeof(*f->cg_ids));
		f->cg_ids[f->nr_cg++] = id;
		e.len = (strlen(path) + 8) & ~7U;
		fwrite(&e, sizeof(e), 1, m);
		fwrite(path, 1, strlen(path), m);
		fwrite("\0\0\0\0\0\0\0\0", 1, e.len - strlen(path), m);
	}
	if (!m)
		return 0;
	err = fclose(m) ? -ENOMEM : 0;
	if (!err && len)
		err = put(f, IOLAT_FB_CGROUPS, buf, len, NULL, 0);
	free(buf);
	return err;
}

static int flush_batch(struct iolat_file *f)
{
	int err = 0;

	if (f->nr && f->cgroups)
		err = put_cgroups(f);
	if (f->nr && !err)
		err = put(f, IOLAT_FB_RECORDS, f->batch,
			  f->nr * sizeof(f->batch[0]), NULL, 0);
	f->nr = 0;
	return err;
}

static void file_dev(struct iolat_file_dev *fd, const struct iolat_dev_req *r)
{
	memset(fd, 0, sizeof(*fd));
	snprintf(fd->name, sizeof(fd->name), "%s", r->name);
	fd->major = r->major;
	fd->minor = r->minor;
	fd->nr_hwq = r->nr_hwq;
	fd->depth = r->depth;
	fd->nvme_ctrl = r->nvme_ctrl;
	fd->sectors = r->sectors;
}

/**
 * iolat_file_header_fill() - the header of a live session's file
 * @h: the header
 * @s: the session, set up
 * @info: the module's (from GET_INFO)
 * @t0_ns: CLOCK_MONOTONIC at the start
 * @t0_real_ns: CLOCK_REALTIME at the same moment
 */
void iolat_file_header_fill(struct iolat_file_header *h,
			    const struct iolat_session *s,
			    const struct iolat_info *info, uint64_t t0_ns,
			    uint64_t t0_real_ns)
{
	struct utsname u;
	unsigned int d;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, IOLAT_FILE_MAGIC, sizeof(h->magic));
	h->version = IOLAT_FILE_VERSION;
	h->endian = IOLAT_FILE_ENDIAN;
	h->abi_version = info->abi_version;
	h->record_size = sizeof(struct iolat_record);
	h->t0_ns = t0_ns;
	h->t0_real_ns = t0_real_ns;
	snprintf(h->cli_version, sizeof(h->cli_version), "%s", IOLAT_VERSION);
	snprintf(h->module_version, sizeof(h->module_version), "%s",
		 info->module_version);
	if (!uname(&u)) {
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	}
	h->nr_devs = s->nr_devs;
	h->flags = (s->nvme ? IOLAT_FILE_F_NVME : 0) |
		   (s->cgroups ? IOLAT_FILE_F_CGROUPS : 0);
	for (d = 0; d < s->nr_devs && d < IOLAT_FILE_HEADER_DEVS; d++)
		file_dev(&h->devs[d], &s->devs[d]);
}

struct iolat_file *iolat_file_create(const char *path,
				     const struct iolat_file_header *h)
{
	struct iolat_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->path = path;
	f->cgroups = h->flags & IOLAT_FILE_F_CGROUPS;
	f->f = fopen(path, "w");
	if (!f->f) {
		iolat_err("cannot write %s: %s", path, strerror(errno));
		free(f);
		return NULL;
	}
	setvbuf(f->f, NULL, _IOFBF, 1 << 20);
	if (fwrite(h, sizeof(*h), 1, f->f) != 1) {
		iolat_err("cannot write %s: %s", path, strerror(errno));
		fclose(f->f);
		free(f);
		return NULL;
	}
	return f;
}

/**
 * iolat_file_devices() - the devices the header has no room for, and
 *	the partitions of the session's whole disks
 * @f: the file, its header just written
 * @s: the session
 *
 * Return: 0 or a negative errno (none to write is 0).
 */
int iolat_file_devices(struct iolat_file *f, const struct iolat_session *s)
{
	unsigned int d, i, n = 0, more;
	struct iolat_file_part *p;
	struct iolat_file_dev *fd;
	int err = 0;

	if (s->nr_devs > IOLAT_FILE_HEADER_DEVS) {
		more = s->nr_devs - IOLAT_FILE_HEADER_DEVS;
		fd = calloc(more, sizeof(*fd));
		if (!fd)
			return -ENOMEM;
		for (d = 0; d < more; d++)
			file_dev(&fd[d], &s->devs[IOLAT_FILE_HEADER_DEVS + d]);
		err = put(f, IOLAT_FB_DEVS, fd, more * sizeof(*fd), NULL, 0);
		free(fd);
		if (err)
			return err;
	}
	for (d = 0; d < s->nr_devs; d++)
		n += s->devs[d].nr_parts;
	if (!n)
		return 0;
	p = calloc(n, sizeof(*p));
	if (!p)
		return -ENOMEM;
	n = 0;
	for (d = 0; d < s->nr_devs; d++) {
		for (i = 0; i < s->devs[d].nr_parts; i++, n++) {
			p[n].dev = d;
			p[n].start = s->devs[d].parts[i].start;
			p[n].sectors = s->devs[d].parts[i].sectors;
			memcpy(p[n].name, s->devs[d].parts[i].name,
			       sizeof(p[n].name));
		}
	}
	err = put(f, IOLAT_FB_PARTS, p, n * sizeof(p[0]), NULL, 0);
	free(p);
	return err;
}

int iolat_file_records(struct iolat_file *f, const struct iolat_record *r)
{
	f->batch[f->nr++] = *r;
	return f->nr == BATCH ? flush_batch(f) : f->err;
}

int iolat_file_mark(struct iolat_file *f, uint64_t now_ns)
{
	flush_batch(f);
	return put(f, IOLAT_FB_MARK, &now_ns, sizeof(now_ns), NULL, 0);
}

int iolat_file_event(struct iolat_file *f, uint64_t ns, uint32_t kind,
		     const char *module)
{
	struct iolat_file_event e = { .ns = ns, .kind = kind };

	snprintf(e.module, sizeof(e.module), "%s", module);
	flush_batch(f);
	return put(f, IOLAT_FB_EVENT, &e, sizeof(e), NULL, 0);
}

/* A dump's trigger and window (IOLAT_FB_WATCH), before its records. */
int iolat_file_watch(struct iolat_file *f, const struct iolat_file_watch *w)
{
	flush_batch(f);
	return put(f, IOLAT_FB_WATCH, w, sizeof(*w), NULL, 0);
}

int iolat_file_end(struct iolat_file *f, uint64_t end_ns,
		   const struct iolat_run *run, unsigned int nr_devs,
		   const struct iolat_dev_counters *c)
{
	struct iolat_file_counters *fc = calloc(nr_devs ?: 1, sizeof(*fc));
	struct iolat_file_end e = { 0 };
	unsigned int d;
	int err;
	struct {
		struct iolat_file_end e;
		__u64 stats[IOLAT_STAT_NR];
	} head;

	e.end_ns = end_ns;
	e.seconds_ns = (uint64_t)(run->seconds * 1e9 + 0.5);
	e.delivered = run->delivered;
	e.decode_errors = run->decode_errors;
	e.foreign = run->foreign;
	e.nr_stats = IOLAT_STAT_NR;
	e.incomplete = run->incomplete;
	e.kernel_valid = run->kernel_valid;
	e.nvme_detaches = run->nvme_detaches;
	e.nvme_attaches = run->nvme_attaches;
	e.nr_missing = run->nr_missing;
	memcpy(e.missing, run->missing, sizeof(e.missing));
	if (!fc)
		return -ENOMEM;
	for (d = 0; d < nr_devs; d++) {
		fc[d].start_ns = c[d].start_ns;
		fc[d].now_ns = c[d].now_ns;
		fc[d].busy_ns = c[d].busy_ns;
		fc[d].qbusy_ns = c[d].qbusy_ns;
		fc[d].inflight_ns = c[d].inflight_ns;
		fc[d].qinflight_ns = c[d].qinflight_ns;
		memcpy(fc[d].ios, c[d].ios, sizeof(fc[d].ios));
		memcpy(fc[d].bytes, c[d].bytes, sizeof(fc[d].bytes));
		memcpy(fc[d].wait_ns, c[d].wait_ns, sizeof(fc[d].wait_ns));
		fc[d].issues = c[d].issues;
		fc[d].qd_sum = c[d].qd_sum;
		/* a run without the kernel's counters leaves them 0 */
		if (run->kstart && run->kend) {
			memcpy(fc[d].kstart, run->kstart[d].f,
			       sizeof(fc[d].kstart));
			memcpy(fc[d].kend, run->kend[d].f, sizeof(fc[d].kend));
		}
	}
	_Static_assert(sizeof(head) == sizeof(e) + sizeof(head.stats),
		       "the counters follow the end block unpadded");
	head.e = e;
	memcpy(head.stats, run->stats.n, sizeof(head.stats));
	flush_batch(f);
	err = put(f, IOLAT_FB_END, &head, sizeof(head), fc,
		  nr_devs * sizeof(fc[0]));
	free(fc);
	return err;
}

/*
 * Whatever is buffered, to the file: called once a second while
 * recording, so that a recorder killed (SIGKILL, the OOM killer) leaves
 * a file whose blocks up to then are whole.
 */
int iolat_file_sync(struct iolat_file *f)
{
	flush_batch(f);
	if (!f->err && fflush(f->f))
		f->err = errno ? -errno : -EIO;
	return f->err;
}

int iolat_file_close(struct iolat_file *f)
{
	int err;

	flush_batch(f);
	err = f->err;
	if (fclose(f->f) && !err)
		err = -errno;
	if (err)
		iolat_err("cannot write %s: %s", f->path, strerror(-err));
	free(f->cg_ids);
	free(f);
	return err;
}
