/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record file of `iolat record -w`, read by report and plot: its
 * format (docs/abi.md) and its writer and reader (recfile.c, crc32c.c).
 */
#ifndef IOLAT_RECFILE_H
#define IOLAT_RECFILE_H

#include <stddef.h>
#include "session/session.h"

/* The record file (docs/abi.md). */
#define IOLAT_FILE_MAGIC	"IOLATREC"
#define IOLAT_FILE_VERSION	8	/* 2: block checksums; 3: partitions;
					 * 4: records of ABI 5 (link);
					 * 5: the counters counted;
					 * 6: devices beyond the header's;
					 * 7: records with their cgroup;
					 * 8: records of ABI 6 (the cgroup
					 * after the block part)
					 */
/* devices in the header; the rest in an IOLAT_FB_DEVS block after it */
#define IOLAT_FILE_HEADER_DEVS	16
/* the records of versions 2 and 3: ABI 4's, without the link */
#define IOLAT_FILE_V3_RECORD	176
/* those of versions 4 to 6: without the cgroup (7: at the end) */
#define IOLAT_FILE_V6_RECORD	184
#define IOLAT_FILE_ENDIAN	0x01020304U

enum iolat_file_block {
	IOLAT_FB_RECORDS = 1,	/* struct iolat_record[], the header's size */
	IOLAT_FB_MARK,		/* __u64: a drain began at this time */
	IOLAT_FB_EVENT,		/* struct iolat_file_event */
	IOLAT_FB_END,		/* struct iolat_file_end, then devices' */
	IOLAT_FB_PARTS,		/* struct iolat_file_part[]: whole disks' */
	IOLAT_FB_DEVS,		/* struct iolat_file_dev[]: the header's 17th on */
	IOLAT_FB_CGROUPS,	/* struct iolat_file_cgroup entries (version 8) */
	IOLAT_FB_WATCH,		/* struct iolat_file_watch (version 8, a dump) */
};

/*
 * A cgroup of the records (IOLAT_FILE_F_CGROUPS), written before the
 * first records block that has it: its id, then its path in the io
 * controller's hierarchy, NUL-terminated, in len bytes (a multiple of
 * 8); the next entry follows.
 */
struct iolat_file_cgroup {
	__u64 id;
	__u32 len;
	__u32 pad;
	char path[];
};

/* A partition of a whole disk of the file (version 3), after the header. */
struct iolat_file_part {
	__u32 dev;		/* the disk's index in the header */
	__u32 pad;
	__u64 start;
	__u64 sectors;
	char name[32];
};

struct iolat_file_dev {
	char name[32];
	__u32 major;
	__u32 minor;
	__u32 nr_hwq;
	__u32 depth;
	__s32 nvme_ctrl;
	__u32 pad;
	__u64 sectors;
};

struct iolat_file_header {
	char magic[8];
	__u32 version;
	__u32 endian;		/* IOLAT_FILE_ENDIAN as written */
	__u32 abi_version;	/* the module's */
	__u32 record_size;	/* of each record in the file */
	__u64 t0_ns;
	__u64 t0_real_ns;
	char cli_version[32];
	char module_version[64];
	char host[72];
	char kernel[72];
	__u32 nr_devs;
	__u32 flags;		/* IOLAT_FILE_F_* */
	struct iolat_file_dev devs[IOLAT_FILE_HEADER_DEVS];
};
#define IOLAT_FILE_F_NVME	1
#define IOLAT_FILE_F_CGROUPS	2	/* records with their cgroup (version 8) */
/* a flight recorder's dump (`iolat watch`): IOLAT_FB_WATCH after the devices */
#define IOLAT_FILE_F_WATCH	4

struct iolat_file_block_head {
	__u32 type;
	__u32 len;		/* of the payload that follows */
	__u32 crc;		/* CRC32C of type, len and the payload */
	__u32 reserved;		/* 0 */
};

struct iolat_file_event {
	__u64 ns;
	__u32 kind;
	__u32 pad;
	char module[56];
};

/*
 * A flight recorder's dump (iolat watch): what triggered it and the
 * window it holds, every time CLOCK_MONOTONIC as the records' are.  The
 * file's records are those completed from @whole_ns to @end_ns: the
 * window asked is @start_ns (the trigger less --before) to @end_ns (the
 * trigger plus --after); it is whole from @whole_ns, later than
 * @start_ns when the recorder was armed after it (@armed_ns) or when
 * its buffers overwrote records completed after it (@lost_ns: the
 * latest).  @window_full: completions of the window not recorded, its
 * records filling a CPU's buffer; @frozen: those not recorded after the
 * window's end, while the recorder was read (it is frozen only then,
 * and armed again before a next window begins): the session's counters'
 * growth from the arming to the reading.
 */
struct iolat_file_watch {
	__u64 trigger_ns;
	__u64 start_ns;
	__u64 end_ns;
	__u64 whole_ns;
	__u64 armed_ns;
	__u64 lost_ns;
	__u64 slower_ns;	/* --slower-than, or 0 */
	__u64 window_full;
	__u64 frozen;
	__u64 overwritten;	/* records overwritten, older than the window */
	__u64 suppressed;	/* triggers not taken: quiet, or one pending */
	__u64 reserved;		/* 0 (the block precedes the records) */
	__u32 reason;		/* enum iolat_watch_reason */
	__u32 stage;		/* --slower-than's, enum iolat_stage */
	__u32 dump;		/* its number in the run, from 1 */
	__u32 has_rec;		/* @rec is the request that triggered it */
	char detail[96];	/* the trigger in words, if more than @rec */
	struct iolat_record rec;
};

/*
 * The run's end (version 5): what `iolat record` printed its accounting
 * from.  Then nr_stats session counters, __u64, in their list's order
 * (linux/iolat_stats.h: a reader takes those it knows, zero for the
 * others); then per device, struct iolat_file_counters.
 */
struct iolat_file_end {
	__u64 end_ns;
	__u64 seconds_ns;
	__u64 delivered;
	__u64 decode_errors;
	__u64 foreign;
	__u32 incomplete;
	__u32 kernel_valid;
	__u32 nvme_detaches;
	__u32 nvme_attaches;
	__u32 nr_missing;
	__u32 nr_stats;
	char missing[IOLAT_MAX_MISSING][48];
};

/* The end of versions 2 to 4: the first 18 counters inside. */
struct iolat_file_end_v4 {
	__u64 end_ns;
	__u64 seconds_ns;
	__u64 delivered;
	__u64 decode_errors;
	__u64 foreign;
	__u64 stats[18];
	__u32 incomplete;
	__u32 kernel_valid;
	__u32 nvme_detaches;
	__u32 nvme_attaches;
	__u32 nr_missing;
	__u32 pad;
	char missing[IOLAT_MAX_MISSING][48];
	__u64 stack[4];		/* version 4: the next 4 (the stack's) */
};
/* the end block of versions 2 and 3: without the stack's counters */
#define IOLAT_FILE_V3_END	offsetof(struct iolat_file_end_v4, stack)

struct iolat_file_counters {
	__u64 start_ns;
	__u64 now_ns;
	__u64 busy_ns;
	__u64 qbusy_ns;
	__u64 inflight_ns;
	__u64 qinflight_ns;
	__u64 ios[IOLAT_OP_NR];
	__u64 bytes[IOLAT_OP_NR];
	__u64 wait_ns[IOLAT_OP_NR];
	__u64 issues;
	__u64 qd_sum;
	__u64 kstart[IOLAT_DS_NR];
	__u64 kend[IOLAT_DS_NR];
};

struct iolat_file;
uint32_t iolat_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t iolat_file_block_crc(const struct iolat_file_block_head *bh,
			      const void *a, uint32_t alen, const void *b,
			      uint32_t blen);
struct iolat_file *iolat_file_create(const char *path,
				     const struct iolat_file_header *h);
int iolat_file_devices(struct iolat_file *f, const struct iolat_session *s);
int iolat_file_records(struct iolat_file *f, const struct iolat_record *r);
int iolat_file_mark(struct iolat_file *f, uint64_t now_ns);
int iolat_file_event(struct iolat_file *f, uint64_t ns, uint32_t kind,
		     const char *module);
int iolat_file_watch(struct iolat_file *f, const struct iolat_file_watch *w);
int iolat_file_end(struct iolat_file *f, uint64_t end_ns,
		   const struct iolat_run *run, unsigned int nr_devs,
		   const struct iolat_dev_counters *c);
int iolat_file_close(struct iolat_file *f);

/* Reading: every block in order to the callbacks. */
struct iolat_file_reader {
	void *arg;
	/* @devs: [h->nr_devs], the header's and those after it */
	int (*header)(void *arg, const struct iolat_file_header *h,
		      const struct iolat_file_dev *devs);
	void (*record)(void *arg, const struct iolat_record *r);
	void (*mark)(void *arg, uint64_t now_ns);
	void (*event)(void *arg, uint64_t ns, uint32_t kind,
		      const char *module);
	void (*end)(void *arg, uint64_t end_ns, const struct iolat_run *run,
		    const struct iolat_dev_counters *c);
	void (*part)(void *arg, unsigned int dev, const struct iolat_part *p);
	void (*watch)(void *arg, const struct iolat_file_watch *w);
};
/* iolat_file_read(): it stopped at a truncated or corrupt block */
#define IOLAT_FILE_PARTIAL	1
int iolat_file_read(const char *path, const struct iolat_file_reader *rd);
int iolat_file_sync(struct iolat_file *f);
int iolat_file_peek(const char *path, struct iolat_file_header *h,
		    struct iolat_file_dev **devs);
void iolat_file_header_fill(struct iolat_file_header *h,
			    const struct iolat_session *s,
			    const struct iolat_info *info, uint64_t t0_ns,
			    uint64_t t0_real_ns);

#endif /* IOLAT_RECFILE_H */
