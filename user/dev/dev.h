/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block devices as the CLI sees them: names to numbers and blk-mq
 * geometry (device.c), a record to its device (dev_lookup.c), the
 * module's and the kernel's counters of a device and `iolat stat`'s
 * arithmetic over them (diskstats.c).
 */
#ifndef IOLAT_DEV_H
#define IOLAT_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/iolat.h>
#include "../../lib/busy.h"
#include "../../lib/record.h"
#include "util/util.h"

/* A device's counters (enum iolat_cnt_attr). */
struct iolat_hwq_counters {
	uint64_t busy_ns;
	uint64_t qbusy_ns;
	uint32_t queued;
	uint32_t issued;
};
struct iolat_dev_counters {
	uint32_t major;
	uint32_t minor;
	bool valid;
	uint64_t start_ns;
	uint64_t now_ns;
	uint64_t busy_ns;
	uint64_t qbusy_ns;
	uint64_t inflight_ns;
	uint64_t qinflight_ns;
	uint32_t queued;
	uint32_t issued;
	uint64_t ios[IOLAT_OP_NR];
	uint64_t bytes[IOLAT_OP_NR];
	uint64_t wait_ns[IOLAT_OP_NR];
	uint64_t issues;
	uint64_t qd_sum;
	uint64_t qd_hist[IOLAT_QD_BUCKETS];
	uint64_t agg_ios[IOLAT_OP_NR];	/* in an aggregating session's */
	uint64_t agg_bytes[IOLAT_OP_NR];	/* histograms */
	/* a stack's bio-based device: I/Os with requests below, time below */
	bool has_below;
	uint64_t below_ios[IOLAT_OP_NR];
	uint64_t below_ns[IOLAT_OP_NR];
	uint32_t nr_hwq;
	struct iolat_hwq_counters *hwqs;	/* [nr_hwq] */
};

/* device.c */
#define IOLAT_MAX_PARTS		16	/* partitions of a disk, listed */
/* a bio-based device's bios in flight at most (the module's table) */
#define IOLAT_UPPER_SLOTS	8192
struct iolat_part {
	char name[32];
	uint64_t start;		/* first sector on the disk */
	uint64_t sectors;
};

struct iolat_dev_req {
	char name[32];		/* the kernel's: nvme0n1, nvme0n1p2, dm-0 */
	uint32_t major;
	uint32_t minor;
	/* the whole disk: a partition's, else the device itself */
	char disk[32];
	uint32_t disk_major;
	uint32_t disk_minor;
	uint64_t part_start;	/* a partition's first sector on its disk */
	uint64_t part_sectors;	/* its size; 0: a whole disk */
	/*
	 * A bio-based device (no requests: device-mapper, md): its bios
	 * are traced, in a table of depth slots; what it is, and under it.
	 */
	bool bio_based;
	char kind[48];
	char lower[96];
	/* under a bio-based device of the session: its requests joined */
	bool stack_lower;
	/* a whole disk's partitions, by start; more_parts: not listed */
	unsigned int nr_parts;
	unsigned int more_parts;
	struct iolat_part parts[IOLAT_MAX_PARTS];
	uint32_t nr_hwq;
	uint32_t depth;
	int nvme_ctrl;		/* nvme<N> of an NVMe namespace, else -1 */
	uint64_t sectors;	/* capacity in 512-byte sectors, 0: unknown */
};
int iolat_dev_resolve(const char *sysfs, const char *arg,
		      struct iolat_dev_req *dev);
int iolat_dev_name(const char *sysfs, const char *arg, char *name,
		   size_t len);
const char *iolat_dev_basename(const char *arg);
enum iolat_dev_state {
	IOLAT_DEV_PRESENT,
	IOLAT_DEV_GONE,		/* removed */
	IOLAT_DEV_OTHER,	/* its name is another device's now */
};
enum iolat_dev_state iolat_dev_state(const char *sysfs,
				     const struct iolat_dev_req *dev,
				     struct iolat_dev_req *now);

uint64_t *iolat_devts_read(const char *sysfs, size_t *n);
bool iolat_devt_present(const char *sysfs, unsigned int major,
			unsigned int minor);
bool iolat_devts_has(const uint64_t *v, size_t n, unsigned int major,
		     unsigned int minor);
void iolat_dev_mark_lower(struct iolat_dev_req *devs, unsigned int nr);

/* dev_lookup.c */
int iolat_dev_index(const struct iolat_dev_req *devs, unsigned int nr,
		    const struct iolat_record *r);

/*
 * The devices of a session or a file by number, for each record: their
 * keys sorted, found by bisection, built at the first record after the
 * devices changed (iolat_dev_lookup_reset()).
 */
struct iolat_dev_key {
	uint64_t devt;			/* major << 32 | minor */
	unsigned int index;
};
struct iolat_dev_lookup {
	struct iolat_dev_key *keys;
	unsigned int nr;		/* devices indexed; 0: to build */
	size_t cap;
	/* the last device found: a stream's records come in runs of one */
	uint64_t last_devt;
	int last_index;
};
/* @devt's index if it was the last device found among these @nr, else -1 */
static inline int iolat_dev_last(const struct iolat_dev_lookup *l,
				 unsigned int nr, uint64_t devt)
{
	return l->nr == nr && nr && devt == l->last_devt ? l->last_index : -1;
}

int iolat_dev_find_slow(struct iolat_dev_lookup *l,
			const struct iolat_dev_req *devs, unsigned int nr,
			const struct iolat_record *r);

/* iolat_dev_find_slow(), the last hit inline: the stream's every record */
static inline int iolat_dev_find(struct iolat_dev_lookup *l,
				 const struct iolat_dev_req *devs,
				 unsigned int nr, const struct iolat_record *r)
{
	int d = -1;

	if (!(r->flags & IOLAT_F_NVME_ADMIN))
		d = iolat_dev_last(l, nr, (uint64_t)r->major << 32 | r->minor);
	return d >= 0 ? d : iolat_dev_find_slow(l, devs, nr, r);
}
int iolat_dev_find_num(struct iolat_dev_lookup *l,
		       const struct iolat_dev_req *devs, unsigned int nr,
		       uint32_t major, uint32_t minor);
unsigned int iolat_dev_run(struct iolat_dev_lookup *l,
			   const struct iolat_dev_req *devs, unsigned int nr,
			   const unsigned char *p, unsigned int n, size_t stride,
			   int *dev);
void iolat_dev_lookup_reset(struct iolat_dev_lookup *l);
void iolat_dev_lookup_free(struct iolat_dev_lookup *l);

/* diskstats.c (types): the kernel's counters of a disk, `iolat stat` rows */
enum iolat_ds_field {		/* /sys/class/block/NAME/stat, from 0 */
	IOLAT_DS_R_IOS = 0,
	IOLAT_DS_R_MERGES = 1,
	IOLAT_DS_R_TICKS = 3,	/* ms */
	IOLAT_DS_W_IOS = 4,
	IOLAT_DS_W_MERGES = 5,
	IOLAT_DS_W_TICKS = 7,
	IOLAT_DS_IN_FLIGHT = 8,
	IOLAT_DS_IO_TICKS = 9,	/* ms busy: what iostat's %util is made of */
	IOLAT_DS_TIME_IN_QUEUE = 10,	/* ms, sum of request times: aqu-sz */
	IOLAT_DS_D_IOS = 11,	/* discards, from 4.19; 0 before */
	IOLAT_DS_F_IOS = 15,	/* flushes, from 5.5; 0 before */
	IOLAT_DS_NR = 17
};
struct iolat_diskstats {
	unsigned long long f[IOLAT_DS_NR];
};
struct iolat_stat_row {
	double secs;
	double r_s, w_s, rkb_s, wkb_s;	/* kB: 1024 bytes, as iostat's */
	double r_await_ms, w_await_ms;
	double rareq_kb, wareq_kb;	/* mean request size */
	double d_s, dkb_s, d_await_ms;	/* discards */
	double f_s, f_await_ms;		/* flushes */
	double k_rrqm_s, k_wrqm_s;	/* the kernel's merges (diskstats) */
	double aqu_sz;		/* in the queue, first stage to completion */
	double dev_qd;		/* at the driver, issue to completion */
	double util;		/* device busy (issue to completion), % */
	double qutil;		/* queue busy (insert to completion), % */
	double qd_issue;	/* mean queue depth at issue */
	double k_util, k_aqu_sz, k_r_await_ms, k_w_await_ms;	/* the kernel's */
	/*
	 * A stack's bio-based device (has_split): r_await and w_await split
	 * into the time below it (from the first request made from an I/O
	 * to the last one's completion) and the rest, above, per I/O
	 */
	bool has_split;
	double r_above_ms, r_below_ms, w_above_ms, w_below_ms;
	double r_joined, w_joined;	/* the share of I/Os with requests below */
};
int iolat_diskstats_read(const char *sysfs, const char *name,
			 struct iolat_diskstats *ds);
int iolat_blk_mq_disks(const char *sysfs, char names[][32], unsigned int max);
/* diskstats.c */
void iolat_stat_compute(const struct iolat_dev_counters *a,
			const struct iolat_dev_counters *b,
			const struct iolat_diskstats *ka,
			const struct iolat_diskstats *kb,
			struct iolat_stat_row *row);
/* cgroup.c: a record's cgroup, by its id */
const char *iolat_cgroup_path(uint64_t id);
const char *iolat_cgroup_root(void);
void iolat_cgroup_learn(uint64_t id, const char *path);
int iolat_cgroup_resolve(const char *arg, uint64_t *id);
const char *iolat_cgroup_name(const char *path, char *buf, size_t len);
const char *iolat_cgroup_label(uint64_t id, const char *path, bool text,
			       char *buf, size_t len);
bool iolat_cgroup_gone(uint64_t id, const char *path);

#endif /* IOLAT_DEV_H */
