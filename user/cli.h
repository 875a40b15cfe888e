/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat CLI internals.  The data path, one file per step:
 *
 *   nlsock.c        netlink socket: family lookup, requests, errors
 *   nl_readings.c   the module's readings: counters, histograms, clock
 *   device.c        block device names -> dev_t and blk-mq geometry
 *   dev_lookup.c    a record -> its device, by number
 *   decode.c        IOLAT_CMD_READ messages -> struct iolat_record
 *   session_opts.c  a session's options and devices, checked
 *   session_run.c   a session: start, drain, stop, accounting
 *   summary.c       a session's --summary file and closing lines
 *   session_stats.c the session counters' names, texts and writers
 *   parse.c         option values: operations, durations, intervals
 *   json.c          JSON strings
 *   diskstats.c     the kernel's disk counters; `iolat stat` arithmetic
 *   cmd_*.c         the commands (trace, record, report, stat, top,
 *                   export, nvme, clocktest, info)
 *   nvme_fields.c   a record's NVMe fields, named
 *   analyze.h       the analysis of records (record, report, plot, top,
 *                   export), with an_setup.c (its names and setup),
 *                   agg_reader.c (the module's histograms), stack.c (a
 *                   stack's split) and output.c (the backends: out_*.c,
 *                   csv.c); the record file: recfile.h (its format),
 *                   recfile.c, crc32c.c
 *   main.c          command table and dispatch
 */
#ifndef IOLAT_CLI_H
#define IOLAT_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <popt.h>
#include <regex.h>
#include <linux/iolat.h>
#include "../lib/hist.h"
#include "../lib/record.h"
#include "../lib/busy.h"
#include "../lib/stats.h"

/*
 * The ABI this CLI speaks: the uapi header's.  The guest tests build the
 * CLI once more as if of the next ABI, to see a mismatch refused.
 */
#ifndef IOLAT_CLI_ABI
#define IOLAT_CLI_ABI IOLAT_ABI_VERSION
#endif

#define IOLAT_CLI_NAME "iolat"

/* devices a session takes: the module's limit */
#define IOLAT_CLI_MAX_DEVS IOLAT_MAX_DEVS

/* Exit statuses. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* runtime failure, incomplete results */
#define EXIT_USAGE	2	/* bad option or argument */

void iolat_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void iolat_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *iolat_grow(void *p, unsigned int *cap, unsigned int need, size_t size);
void *iolat_grow_to(void *p, unsigned int from, unsigned int to, size_t size);

/* nlsock.c */
struct iolat_nl;
#define IOLAT_MAX_MISSING 16
struct iolat_info {
	uint32_t abi_version;
	uint32_t record_size;
	uint32_t nr_cpus;
	uint64_t clock_inversions;	/* the module's clock, at its load */
	uint32_t nvme_available;	/* nvme-core's tracepoints are there */
	char module_version[64];
	unsigned int nr_missing;	/* tracepoints the kernel lacks */
	char missing[IOLAT_MAX_MISSING][48];
	uint64_t mem_bytes;		/* every session's memory */
	uint64_t session_mem_bytes;	/* the asking socket's session's */
	uint32_t nr_sessions;
};
/* The module's session counters (linux/iolat_stats.h), by name or place. */
struct iolat_stats {
	union {
		struct {
#define IOLAT_STAT(field, ...) uint64_t field;
#include <linux/iolat_stats.h>
		};
		uint64_t n[IOLAT_STAT_NR];
	};
};

/* How the outputs group the counters: their list's class column. */
enum iolat_stat_class {
	IOLAT_SC_record,	/* what became of a traced completion */
	IOLAT_SC_drop,		/* why one has no record */
	IOLAT_SC_event,
	IOLAT_SC_nvme,
	IOLAT_SC_stack,
};

/* A counter's name (in C and JSON), text, attribute and class. */
struct iolat_stat_info {
	const char *name;
	const char *text;
	int attr;
	enum iolat_stat_class class;
};
extern const struct iolat_stat_info iolat_stat_info[IOLAT_STAT_NR];

uint64_t iolat_stats_sum(const struct iolat_stats *st, enum iolat_stat_class c);
void iolat_stats_text(FILE *f, const struct iolat_stats *st,
		      enum iolat_stat_class c);
void iolat_stats_json(FILE *f, const struct iolat_stats *st,
		      enum iolat_stat_class c);
/* Did the session trace a stack (its counters say so)? */
static inline bool iolat_stats_stack(const struct iolat_stats *st)
{
	return iolat_stats_sum(st, IOLAT_SC_stack) != 0;
}

void iolat_stack_line(FILE *f, const char *prefix, const struct iolat_stats *st);

/* Which requests a session keeps (IOLAT_A_FILTER_*); 0 keeps all. */
struct iolat_filter {
	uint32_t ops;
	uint32_t pid;
	uint32_t tgid;
	char comm[IOLAT_COMM_LEN];
	uint64_t min_ns;
};
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
/* One clock of the clock test (enum iolat_clock_attr). */
#define IOLAT_MAX_CLOCK_PAIRS 64
struct iolat_clock_result {
	char name[32];
	char units[8];
	bool in_use;
	uint64_t read_ps;
	uint64_t samples;
	uint64_t inversions;
	uint64_t max_back;
	unsigned int nr_pairs;
	struct {
		uint32_t from;
		uint32_t to;
		uint64_t count;
	} pairs[IOLAT_MAX_CLOCK_PAIRS];
};
/*
 * An aggregating session's histograms of one device (IOLAT_CMD_HIST):
 * [op][0] Q2C, [op][1] D2C.
 */
#define IOLAT_AGG_STAGES 2
struct iolat_agg {
	struct iolat_hist h[IOLAT_OP_NR][IOLAT_AGG_STAGES];
};
static inline unsigned int iolat_agg_stage(unsigned int i)
{
	return i ? IOLAT_AGG_STAGE_D2C : IOLAT_AGG_STAGE_Q2C;
}
static inline struct iolat_hist *iolat_agg_hist(struct iolat_agg *a,
						unsigned int op,
						unsigned int stage)
{
	if (stage == IOLAT_AGG_STAGE_Q2C)
		return &a->h[op][0];
	/* a bio-based device's time above its stack (IOLAT_AGG_STAGE_ABOVE) */
	if (stage == IOLAT_AGG_STAGE_D2C || stage == IOLAT_AGG_STAGE_ABOVE)
		return &a->h[op][1];
	return NULL;
}
struct iolat_dev_req;
/* @rec_size: as the message says, or 0 for the module's (GET_INFO) */
typedef void (*iolat_records_fn)(void *arg, const void *buf, uint32_t len,
				 uint32_t rec_size);
/* A session event: enum iolat_event_kind, about a kernel module. */
typedef void (*iolat_event_fn)(void *arg, uint64_t ns, uint32_t kind,
			       const char *module);

struct iolat_nl *iolat_nl_open(void);
void iolat_nl_close(struct iolat_nl *nl);
int iolat_nl_info(struct iolat_nl *nl, struct iolat_info *info);
/* START's modes */
#define IOLAT_START_COUNTERS_ONLY	1U	/* IOLAT_A_COUNTERS_ONLY */
#define IOLAT_START_NVME		2U	/* IOLAT_A_NVME */
#define IOLAT_START_AGGREGATE		4U	/* IOLAT_A_AGGREGATE */
int iolat_nl_start(struct iolat_nl *nl, const struct iolat_dev_req *devs,
		   unsigned int nr_devs, uint32_t ring_records,
		   const struct iolat_filter *filter, uint32_t mode);
int iolat_nl_dev_add(struct iolat_nl *nl, const struct iolat_dev_req *dev);
int iolat_nl_counters(struct iolat_nl *nl, struct iolat_dev_counters *c,
		      unsigned int nr);
int iolat_nl_clocktest(struct iolat_nl *nl, uint32_t loops,
		       struct iolat_clock_result *res, unsigned int max,
		       unsigned int *nr);
int iolat_nl_stop(struct iolat_nl *nl, struct iolat_stats *stats);
struct iolat_agg;
int iolat_nl_hist(struct iolat_nl *nl, const struct iolat_dev_counters *c,
		  struct iolat_agg *agg, unsigned int nr);
int iolat_nl_read(struct iolat_nl *nl, iolat_records_fn fn,
		  iolat_event_fn event, void *arg);
const char *iolat_nl_errmsg(const struct iolat_nl *nl);
struct iolat_nl *iolat_nl_connect(struct iolat_info *info);

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
};
int iolat_dev_find(struct iolat_dev_lookup *l,
		   const struct iolat_dev_req *devs, unsigned int nr,
		   const struct iolat_record *r);
void iolat_dev_lookup_reset(struct iolat_dev_lookup *l);
void iolat_dev_lookup_free(struct iolat_dev_lookup *l);

/* decode.c */
struct iolat_decoder {
	uint32_t rec_size;	/* the module's, unless a message says */
	uint64_t decoded;
	uint64_t bad;		/* payloads whose length is not whole records */
	void (*record)(void *arg, const struct iolat_record *rec);
	void (*event)(void *arg, uint64_t ns, uint32_t kind,
		      const char *module);
	void *arg;
};
void iolat_decode(void *dec, const void *buf, uint32_t len,
		  uint32_t rec_size);
void iolat_decode_event(void *dec, uint64_t ns, uint32_t kind,
			const char *module);

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
/* session_opts.c, session.c, summary.c */
struct iolat_session_opts {
	char **devargs;		/* [nr_devargs], grown as given */
	unsigned int nr_devargs, cap_devargs;
	char *include, *exclude;	/* regular expressions on disks' names */
	double duration;
	int ring;
	char *ops, *comm, *min_lat;
	char *summary;
	int pid, tgid;
};
struct iolat_run {
	double seconds;
	uint64_t delivered;
	struct iolat_stats stats;
	uint64_t decode_errors;
	uint64_t foreign;	/* records of a device not asked for */
	bool incomplete;
	bool nomem;
	uint64_t module_mem_bytes;	/* the session's memory in the module */
	unsigned int nvme_detaches;	/* nvme-core went away while tracing */
	unsigned int nvme_attaches;	/* ... and came back */
	/*
	 * Per device, [nr_devs] from iolat_session_setup() (or a record
	 * file's reader): removed while traced, and its state now
	 */
	bool *removed;
	enum iolat_dev_state *dev_state;
	unsigned int nr_missing;
	char missing[IOLAT_MAX_MISSING][48];
	/*
	 * The kernel's counters of each device, read right after the
	 * module's START and its STOP (kstart, kend), and right before
	 * them (kpre, kprestop): the session's window is inside the
	 * outer span and holds the inner one, so the kernel's count over
	 * each brackets the module's (--summary).
	 */
	bool kernel_valid;
	struct iolat_diskstats *kstart;
	struct iolat_diskstats *kend;
	bool kernel_bracket;
	struct iolat_diskstats *kpre;
	struct iolat_diskstats *kprestop;
};
/* A disk that appeared, as one device check found it (disk_follow.c) */
struct iolat_seen {
	char name[32];
	uint32_t nr_hwq, depth;
};
/* --include and --exclude, compiled: which disks a session takes */
struct iolat_disk_filter {
	bool has_inc, has_exc;
	regex_t inc, exc;
};
struct iolat_session {
	unsigned int nr_devs;
	struct iolat_dev_req *devs;	/* [nr_devs], grown as resolved */
	struct iolat_dev_lookup lookup;	/* @devs by number, for records */
	unsigned int cap_devs;
	bool every_disk;	/* without -d: every blk-mq disk, not an error */
	/*
	 * Every disk was taken (no -d): a disk that appears joins the
	 * running session (disk_follow.c), if @filter passes it
	 */
	bool follow;
	double follow_s;	/* the longest wait for one, if under 0.5 s */
	struct iolat_disk_filter disks;
	char (*refused)[32];	/* disks the module would not add */
	unsigned int nr_refused, cap_refused;
	uint64_t *devts;	/* /sys/dev/block at the last look */
	size_t nr_devts;
	unsigned int scans;	/* looks since the last scan of /sys/block */
	struct iolat_seen *seen;	/* new disks at the last look */
	unsigned int nr_seen;
	struct iolat_filter filter;
	bool counters_only;	/* no records: `iolat stat` */
	bool aggregate;		/* histograms in the module, no records */
	bool aggregate_or_stream;	/* records if the module cannot aggregate */
	bool nvme;		/* NVMe commands too; no -d: every namespace */
	double duration;
	uint32_t ring;
	const char **cmd;
	const char *summary;	/* --summary FILE */
	const char *usage;	/* the command's, if not the usual */
	struct iolat_nl *nl;	/* while it runs */
	/* after the start, before the first drain */
	void (*started)(void *arg);
	/* called for every record, and about every tick_s seconds */
	void (*record)(void *arg, unsigned int dev, const struct iolat_record *r);
	void (*tick)(void *arg, double elapsed);
	double tick_s;
	/* a drain that began at @now_ns (CLOCK_MONOTONIC) is done */
	void (*drained)(void *arg, uint64_t now_ns);
	/* a session event, after the user was told */
	void (*event)(void *arg, uint64_t ns, uint32_t kind, const char *module);
	/* stopped, the last records and counters read, the socket open */
	void (*stopped)(void *arg);
	/* between drains: true ends the session */
	bool (*idle)(void *arg);
	/*
	 * input on it ends the wait between drains (export's listener,
	 * top's terminal); -1 (iolat_session_getopt()'s) for none
	 */
	int wake_fd;
	/* device @dev joined the running session (s->follow) */
	void (*added)(void *arg, unsigned int dev);
	void *arg;
	struct iolat_info info;	/* the module's */
	uint64_t t0_ns;		/* CLOCK_MONOTONIC just before the start */
	uint64_t t0_real_ns;	/* CLOCK_REALTIME at the same moment */
	uint64_t end_ns;	/* CLOCK_MONOTONIC when it began to stop */
	struct iolat_run run;
	/* each device's counters when the session stopped */
	struct iolat_dev_counters *counters;	/* [nr_devs] */
	int cmd_status;
};
extern struct poptOption iolat_session_options[];
extern struct poptOption iolat_counter_options[];
int iolat_session_getopt(struct iolat_session *s, struct iolat_session_opts *o,
			 poptContext pc);
int iolat_session_setup(struct iolat_session *s, struct iolat_session_opts *o);
void iolat_session_opts_free(struct iolat_session_opts *o);
int iolat_session_run(struct iolat_session *s);
bool iolat_session_accounted(const struct iolat_session *s);
int iolat_session_counters(struct iolat_session *s,
			   struct iolat_dev_counters *c);
struct iolat_dev_counters *iolat_counters_new(const struct iolat_session *s);
void iolat_counters_free(const struct iolat_session *s,
			 struct iolat_dev_counters *c);
int iolat_run_alloc(struct iolat_run *run, unsigned int nr_devs);
void iolat_run_grow(struct iolat_run *run, unsigned int from,
		    unsigned int to);
void iolat_counters_grow(const struct iolat_session *s,
			 struct iolat_dev_counters **c, unsigned int from);
/* session_opts.c */
int iolat_session_add_dev(struct iolat_session *s, const char *arg);
bool iolat_session_wants(const struct iolat_session *s, const char *name);
/* disk_follow.c */
void iolat_session_follow(struct iolat_session *s, const uint64_t *devts,
			  size_t nr_devts);
void iolat_run_free(struct iolat_run *run);
void iolat_session_free(struct iolat_session *s);
void iolat_counters_json(FILE *f, const struct iolat_dev_counters *c);
/* --summary FILE: the accounting and each device's counters, as JSON (summary.c) */
int iolat_summary_write(const struct iolat_session *s);
uint64_t iolat_run_dropped(const struct iolat_run *run);
/* how many disks iolat_session_all_disks() looks at */
#define IOLAT_ALL_DISKS_MAX	IOLAT_CLI_MAX_DEVS
/* --include and --exclude: which disks a session takes without -d */
#define IOLAT_DISK_FILTER_POPT \
	{ "include", 0, POPT_ARG_STRING, NULL, 'I', \
	  "without -d: only the disks whose name matches REGEX (POSIX extended)", \
	  "REGEX" }, \
	{ "exclude", 0, POPT_ARG_STRING, NULL, 'E', \
	  "without -d: not the disks whose name matches REGEX", "REGEX" }
int iolat_parse_ops(const char *arg, uint32_t *mask);
int iolat_parse_duration_ns(const char *arg, uint64_t *ns);
void iolat_fmt_ns(char *buf, size_t len, double ns);
/*
 * The shortest interval of every command (record/report -i, stat's
 * interval, top and export -i), and the longest -t.
 */
#define IOLAT_MIN_INTERVAL_S	0.01
#define IOLAT_MAX_DURATION_S	31622400	/* 366 days */
int iolat_parse_secs(const char *opt, const char *arg, double min,
		     double *secs);

int iolat_diskstats_read(const char *sysfs, const char *name,
			 struct iolat_diskstats *ds);
int iolat_blk_mq_disks(const char *sysfs, char names[][32], unsigned int max);
/* diskstats.c */
void iolat_stat_compute(const struct iolat_dev_counters *a,
			const struct iolat_dev_counters *b,
			const struct iolat_diskstats *ka,
			const struct iolat_diskstats *kb,
			struct iolat_stat_row *row);

/* out_text.c */
void iolat_text_hist(const struct iolat_hist *h);
void iolat_text_qd_hist(const uint64_t *n);

/* nvme_fields.c */
const char *iolat_nvme_device(const struct iolat_session *s, unsigned int dev,
			      const struct iolat_record *r, char *buf,
			      size_t len);
void iolat_nvme_opcode(char *buf, size_t len, const struct iolat_record *r);
void iolat_nvme_status(char *buf, size_t len, uint16_t status);
uint64_t iolat_nvme_lbas(const struct iolat_record *r);
uint64_t iolat_nvme_bytes(const struct iolat_record *r);

/* commands */
int cmd_record(int argc, const char **argv);
int cmd_trace(int argc, const char **argv);
int cmd_info(int argc, const char **argv);
int cmd_stat(int argc, const char **argv);
int cmd_clocktest(int argc, const char **argv);
int cmd_nvme(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_plot(int argc, const char **argv);
int cmd_top(int argc, const char **argv);
int cmd_export(int argc, const char **argv);

#endif /* IOLAT_CLI_H */
