// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own counters of a disk or partition
 * (/sys/class/block/NAME/stat, the fields
 * of /proc/diskstats), shown beside iolat's, and the interval arithmetic
 * of `iolat stat` on both.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "dev/dev.h"

/**
 * iolat_diskstats_read() - read a disk's or partition's kernel counters
 * @sysfs: "/sys", or a test's tree
 * @name: the device, e.g. "nvme0n1" or "nvme0n1p2"
 * @ds: filled in; fields the kernel does not have stay 0
 *
 * Return: 0 or a negative errno.
 */
int iolat_diskstats_read(const char *sysfs, const char *name,
			 struct iolat_diskstats *ds)
{
	char path[512];
	unsigned int i;
	FILE *f;
	int n;

	memset(ds, 0, sizeof(*ds));
	snprintf(path, sizeof(path), "%s/class/block/%s/stat", sysfs, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	for (i = 0; i < IOLAT_DS_NR; i++) {
		n = fscanf(f, "%llu", &ds->f[i]);
		if (n != 1)
			break;
	}
	fclose(f);
	return i >= IOLAT_DS_TIME_IN_QUEUE + 1 ? 0 : -EIO;
}

/**
 * iolat_blk_mq_disks() - the blk-mq disks of this machine, less unbound loops
 * @sysfs: "/sys", or a test's tree
 * @names: filled with up to @max names
 * @max: room in @names
 *
 * Return: how many there are (possibly more than @max), or a negative
 * errno.
 */
int iolat_blk_mq_disks(const char *sysfs, char names[][32], unsigned int max)
{
	char path[512];
	struct dirent *de;
	struct stat st;
	unsigned int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/block", sysfs);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 32)
			continue;
		snprintf(path, sizeof(path), "%s/block/%s/mq", sysfs, de->d_name);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		/* a loop device with no file attached has no loop/ */
		snprintf(path, sizeof(path), "%s/block/%s/loop/backing_file",
			 sysfs, de->d_name);
		if (!strncmp(de->d_name, "loop", 4) && access(path, F_OK))
			continue;
		if (n < max)
			strcpy(names[n], de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static double per_s(uint64_t n, double secs)
{
	return secs > 0 ? n / secs : 0;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / den : 0;
}

/**
 * iolat_stat_compute() - one row of `iolat stat` between two readings
 * @a: iolat's counters at the start
 * @b: ... at the end
 * @ka: the kernel's counters at the start
 * @kb: ... at the end
 * @row: filled in
 */
void iolat_stat_compute(const struct iolat_dev_counters *a,
			const struct iolat_dev_counters *b,
			const struct iolat_diskstats *ka,
			const struct iolat_diskstats *kb,
			struct iolat_stat_row *row)
{
	const unsigned long long *k1 = ka->f, *k2 = kb->f;
	double secs = (b->now_ns - a->now_ns) / 1e9;
	uint64_t dt = b->now_ns - a->now_ns;
	unsigned int r = IOLAT_OP_READ, w = IOLAT_OP_WRITE;
	unsigned int d = IOLAT_OP_DISCARD, f = IOLAT_OP_FLUSH;

	memset(row, 0, sizeof(*row));
	row->secs = secs;
	row->r_s = per_s(b->ios[r] - a->ios[r], secs);
	row->w_s = per_s(b->ios[w] - a->ios[w], secs);
	row->rkb_s = per_s(b->bytes[r] - a->bytes[r], secs) / 1024;
	row->wkb_s = per_s(b->bytes[w] - a->bytes[w], secs) / 1024;
	row->r_await_ms = ratio(b->wait_ns[r] - a->wait_ns[r],
				b->ios[r] - a->ios[r]) / 1e6;
	row->w_await_ms = ratio(b->wait_ns[w] - a->wait_ns[w],
				b->ios[w] - a->ios[w]) / 1e6;
	row->rareq_kb = ratio(b->bytes[r] - a->bytes[r], b->ios[r] - a->ios[r]) / 1024;
	row->wareq_kb = ratio(b->bytes[w] - a->bytes[w], b->ios[w] - a->ios[w]) / 1024;
	row->d_s = per_s(b->ios[d] - a->ios[d], secs);
	row->dkb_s = per_s(b->bytes[d] - a->bytes[d], secs) / 1024;
	row->d_await_ms = ratio(b->wait_ns[d] - a->wait_ns[d],
				b->ios[d] - a->ios[d]) / 1e6;
	row->f_s = per_s(b->ios[f] - a->ios[f], secs);
	row->f_await_ms = ratio(b->wait_ns[f] - a->wait_ns[f],
				b->ios[f] - a->ios[f]) / 1e6;
	row->k_rrqm_s = per_s(k2[IOLAT_DS_R_MERGES] - k1[IOLAT_DS_R_MERGES], secs);
	row->k_wrqm_s = per_s(k2[IOLAT_DS_W_MERGES] - k1[IOLAT_DS_W_MERGES], secs);
	row->aqu_sz = ratio(b->qinflight_ns - a->qinflight_ns, dt);
	row->dev_qd = ratio(b->inflight_ns - a->inflight_ns, dt);
	row->util = 100 * ratio(b->busy_ns - a->busy_ns, dt);
	row->qutil = 100 * ratio(b->qbusy_ns - a->qbusy_ns, dt);
	row->qd_issue = ratio(b->qd_sum - a->qd_sum, b->issues - a->issues);
	/* the kernel's times are in ms */
	row->k_util = 100 * ratio((k2[IOLAT_DS_IO_TICKS] - k1[IOLAT_DS_IO_TICKS]) *
				  1000000ULL, dt);
	row->k_aqu_sz = ratio((k2[IOLAT_DS_TIME_IN_QUEUE] -
			       k1[IOLAT_DS_TIME_IN_QUEUE]) * 1000000ULL, dt);
	row->k_r_await_ms = ratio(k2[IOLAT_DS_R_TICKS] - k1[IOLAT_DS_R_TICKS],
				  k2[IOLAT_DS_R_IOS] - k1[IOLAT_DS_R_IOS]);
	row->k_w_await_ms = ratio(k2[IOLAT_DS_W_TICKS] - k1[IOLAT_DS_W_TICKS],
				  k2[IOLAT_DS_W_IOS] - k1[IOLAT_DS_W_IOS]);
	row->has_split = b->has_below;
	if (!b->has_below)
		return;
	/* per I/O, one with nothing below counting 0 below */
	row->r_below_ms = ratio(b->below_ns[r] - a->below_ns[r],
				b->ios[r] - a->ios[r]) / 1e6;
	row->w_below_ms = ratio(b->below_ns[w] - a->below_ns[w],
				b->ios[w] - a->ios[w]) / 1e6;
	row->r_above_ms = row->r_await_ms - row->r_below_ms;
	row->w_above_ms = row->w_await_ms - row->w_below_ms;
	row->r_joined = ratio(b->below_ios[r] - a->below_ios[r],
			      b->ios[r] - a->ios[r]);
	row->w_joined = ratio(b->below_ios[w] - a->below_ios[w],
			      b->ios[w] - a->ios[w]);
}
