/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analysis of a stream of records, the same whether the records come
 * from a live session (`iolat record`, `iolat top`, `iolat export`) or
 * from a file (`iolat report`, `iolat plot`):
 *
 *   analyze.c     records -> histograms per device, op and stage, per
 *                 interval and over the run; distributions; processes
 *   agg_reader.c  the same histograms, read from an aggregating module
 *   recfile.c     the record file: header, blocks of records, marks
 *   out_text.c    text: interval lines, tables, bar histograms
 *   out_json.c    one JSON document (docs/output.md)
 *   out_fio.c     fio's clat_hist log, for fiologparser_hist.py
 *   out_prom.c    Prometheus text exposition
 *   out_svg.c     `iolat plot`: heatmap and lines over time, as SVG
 *                 (svg_frame.c its axes, ticks, colours and legend)
 *   req_row.c     a request as a row of a table (trace, -o csv)
 *
 * Intervals are spans of completion time from the session's start: a
 * request belongs to the interval in which it completed.  An interval is
 * handed to the output once a drain that began after its end is done
 * (a mark); a record that arrives later still counts in the run and is
 * counted as late.  The record file keeps the marks, so a report on it
 * sees the same stream in the same order and prints the same numbers.
 */
#ifndef IOLAT_ANALYZE_H
#define IOLAT_ANALYZE_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "session/session.h"

/* The stages kept: the block stages, then the NVMe command's own time. */
#define IOLAT_AN_NVME		IOLAT_STAGE_NR	/* nvme_setup_cmd -> complete */
#define IOLAT_AN_STAGES		(IOLAT_STAGE_NR + 1)
#define IOLAT_MAX_PCT		16
#define IOLAT_SIZE_BUCKETS	24	/* log2 of bytes: <= 512, 1k, ... */
#define IOLAT_LBA_BUCKETS	20	/* 5% of the device each */
#define IOLAT_MAX_QIDS		256

/*
 * The ops of the analysis: the record's, and apart from the writes the
 * empty ones: a write without data is a preflush (fsync() on a disk with
 * a volatile write cache) whose time is the cache flush's.  The kernel
 * counts them as writes (diskstats, so iostat's w/s and w_await); mixed
 * into the write percentiles they hide both the data writes' latency
 * and the flushes'.
 */
#define IOLAT_AN_PREFLUSH	IOLAT_OP_NR
#define IOLAT_AN_OPS		(IOLAT_OP_NR + 1)

/* A record's op as the analysis counts it: preflush apart. */
static inline unsigned int iolat_an_op(const struct iolat_record *r)
{
	if (iolat_record_empty_write(r))
		return IOLAT_AN_PREFLUSH;
	return r->op < IOLAT_OP_NR ? r->op : IOLAT_OP_OTHER;
}

const char *iolat_an_op_name(unsigned int op);
const char *iolat_an_stage_name(unsigned int stage);
int iolat_an_stage_parse(const char *name);
int iolat_an_stage(const struct iolat_record *r, unsigned int stage,
		   uint64_t *ns);
unsigned int iolat_size_bucket(uint32_t bytes);

/* A device and op over a span: requests, bytes, bios, stage histograms. */
struct iolat_an_op {
	uint64_t ios;
	uint64_t bytes;
	uint64_t bios;		/* bios - ios were merged into requests */
	struct iolat_hist *hist[IOLAT_AN_STAGES];
	/*
	 * A stack's bio-based device, in an aggregating session: its I/Os'
	 * time above the requests below them (IOLAT_AGG_STAGE_ABOVE);
	 * iolat_an_add_op() only
	 */
	const struct iolat_hist *above;
};

/* Latency of one process's requests on one device, or of one NVMe qid. */
struct iolat_an_group {
	uint32_t pid;
	uint32_t tgid;
	char comm[IOLAT_COMM_LEN];
	unsigned int dev;
	unsigned int qid;
	uint64_t ios;
	uint64_t bytes;
	struct iolat_hist *lat;
};

/*
 * One cgroup's requests on one device (an_cgroups.c): records with
 * cgroups only.
 */
struct iolat_an_cg {
	uint64_t id;		/* struct iolat_record's cgroup; 0: none */
	char *path;		/* as its first request arrived; NULL unknown */
	unsigned int dev;
	uint64_t ios;
	uint64_t bytes;
	uint64_t q2c_ns;	/* summed: its share of the queue time */
	struct iolat_hist *q2c, *d2c;
	bool named;		/* exported by name (iolat_an_cgroups_name()) */
	bool rest;		/* the module's slot of the others: never named */
	bool gone;		/* removed, and named no more */
	uint64_t seen_ios;	/* @ios at the last iolat_an_cgroups_name() */
};

/*
 * One partition of a whole disk traced: its requests (by first sector),
 * bytes and latency; after the last, the disk's own: flushes, requests
 * outside every partition listed.
 */
struct iolat_an_part {
	char name[32];
	uint64_t start;
	uint64_t sectors;
	uint64_t ios;
	uint64_t bytes;
	struct iolat_hist *lat;
};

/*
 * A bio-based device's I/Os of one op, split by the requests below them
 * (stack.c): below, from the first request queued under the device to the
 * last one completed; above, the rest of the I/O's Q2C.
 */
struct iolat_an_split {
	uint64_t ios;
	uint64_t pieces;	/* the requests below them */
	bool aggregated;	/* the module's: above only, no pieces */
	struct iolat_hist *below;
	struct iolat_hist *above;
};

struct iolat_an_dev {
	char name[32];
	uint64_t sectors;	/* capacity in 512-byte sectors, 0: unknown */
	struct iolat_an_op run[IOLAT_AN_OPS];	/* over the run */
	struct iolat_an_op ival[IOLAT_AN_OPS];	/* the interval being built */
	uint64_t size[IOLAT_SIZE_BUCKETS];
	uint64_t qd[IOLAT_QD_BUCKETS];		/* queue depth at issue */
	uint64_t lba[IOLAT_LBA_BUCKETS];
	uint64_t lba_start[IOLAT_LBA_BUCKETS];	/* first sector of each */
	uint64_t lba_mul;	/* BUCKETS / sectors, 64.64 fixed point */
	uint64_t ival_qd[IOLAT_QD_BUCKETS];
	/* its requests' span: the first one's first stage, the last's end */
	uint64_t first_ns, last_ns;
	unsigned int nr_parts;	/* a whole disk's partitions, listed */
	unsigned int last_part;
	struct iolat_an_part parts[IOLAT_MAX_PARTS + 1];
	/* a stack's bio-based device: its I/Os split, and those not */
	struct iolat_an_split split[IOLAT_AN_OPS];
	uint64_t split_alone;	/* no request below was made from it */
	uint64_t split_outside;	/* its requests below outside its Q2C */
};

/* What the run was: from the session, or from a file's header. */
struct iolat_an_meta {
	char host[72];
	char kernel[72];
	char cli_version[32];
	char module_version[64];
	uint64_t t0_ns;		/* CLOCK_MONOTONIC at the start */
	uint64_t t0_real_ns;	/* the wall clock at the same moment */
};

struct iolat_output;

struct iolat_an_opts {
	uint64_t interval_ns;	/* 0: no intervals */
	unsigned int nr_pct;
	uint32_t pct_ppm[IOLAT_MAX_PCT];
	const char *pct_name[IOLAT_MAX_PCT];
	int stage;		/* the stage of fio and prom output, plots */
	unsigned int prom_step;	/* prom: every step-th of the finest bounds */
	bool cgroups;		/* records carry cgroups: a group each */
	unsigned int cgroups_top;	/* export: named a device, the rest other */
};

struct iolat_an {
	struct iolat_an_opts o;
	const struct iolat_output *out;
	void *out_state;	/* the output's own */
	struct iolat_an_meta meta;
	unsigned int nr_devs;
	struct iolat_an_dev *devs;	/* [nr_devs], grown as added */
	unsigned int cap_devs;
	struct iolat_an_group *procs;
	unsigned int nr_procs, cap_procs, last_proc;
	unsigned int *proc_idx;	/* hash index of procs: i + 1, 0 empty */
	unsigned int proc_mask;
	struct iolat_an_group *qids;
	unsigned int nr_qids;
	struct iolat_an_cg *cgs;	/* o.cgroups: per cgroup and device */
	unsigned int nr_cgs, cap_cgs, last_cg;
	uint64_t records;
	struct iolat_join *join;	/* a stack's I/Os being joined */
	uint64_t split_orphans;	/* requests below whose I/O was not seen */
	uint64_t late;		/* arrived after their interval was shown */
	uint64_t ival_index;	/* the interval being built */
	uint64_t ival_from_ns;	/* its start (meta.t0_ns on), or U64_MAX */
	uint64_t end_ns;	/* the session stopped (0: running) */
	bool nomem;
	bool begun;
	bool nvme;		/* NVMe records seen */
	bool aggregated;	/* histograms from the module, not records */
	/* a flight recorder's dump: its trigger (report of one) */
	struct iolat_file_watch *watch;
	char watch_dev[32];	/* the triggering request's device */
};

/* An output format: hooks the analysis calls; a NULL hook is skipped. */
struct iolat_output {
	const char *name;
	bool needs_intervals;	/* default -i 1 */
	int (*begin)(struct iolat_an *an);
	void (*record)(struct iolat_an *an, unsigned int dev,
		       const struct iolat_record *r);
	/* devs[].ival hold the interval [t0 + from, t0 + to) */
	void (*interval)(struct iolat_an *an, uint64_t from_ns, uint64_t to_ns);
	void (*summary)(struct iolat_an *an, const struct iolat_run *run,
			const struct iolat_dev_counters *c);
	/* a stack's I/O of device @dev, complete at @c_ns, split (stack.c) */
	void (*split)(struct iolat_an *an, unsigned int dev, uint64_t c_ns,
		      uint64_t above_ns, uint64_t below_ns);
};


int iolat_an_parse_pct(struct iolat_an_opts *o, const char *list);
void iolat_an_default_pct(struct iolat_an_opts *o);
int iolat_an_init(struct iolat_an *an, const struct iolat_an_opts *o,
		  const struct iolat_output *out);
void iolat_an_add_dev(struct iolat_an *an, const char *name, uint64_t sectors);
void iolat_an_add_part(struct iolat_an *an, unsigned int dev,
		       const struct iolat_part *p);
void iolat_an_add_req(struct iolat_an *an, const struct iolat_dev_req *req);
double iolat_an_dev_secs(const struct iolat_an_dev *d, double session_secs);
void iolat_an_record(struct iolat_an *an, unsigned int dev,
		     const struct iolat_record *r);
void iolat_an_records(struct iolat_an *an, unsigned int dev, const void *base,
		      unsigned int n, size_t stride, size_t size);
void iolat_an_mark(struct iolat_an *an, uint64_t now_ns);
void iolat_an_add_op(struct iolat_an *an, unsigned int dev, unsigned int op,
		     const struct iolat_an_op *delta, const uint64_t *qd);

/* agg_reader.c: an aggregating session's readings -> the analysis */
struct iolat_agg_reader;
struct iolat_agg_reader *iolat_agg_reader_new(struct iolat_session *s);
void iolat_agg_reader_grow(struct iolat_agg_reader *r, unsigned int from);
typedef void (*iolat_agg_fn)(void *arg, unsigned int dev, unsigned int op,
			     const struct iolat_an_op *delta,
			     const uint64_t *qd);
int iolat_agg_each(struct iolat_agg_reader *r,
		   const struct iolat_dev_counters *c, iolat_agg_fn fn,
		   void *arg);
int iolat_agg_take(struct iolat_agg_reader *r, struct iolat_an *an,
		   const struct iolat_dev_counters *c);
void iolat_agg_reader_free(struct iolat_agg_reader *r);
void iolat_an_finish(struct iolat_an *an, uint64_t end_ns,
		     const struct iolat_run *run,
		     const struct iolat_dev_counters *c);
void iolat_an_free(struct iolat_an *an);
const struct iolat_an_group **iolat_an_procs_sorted(const struct iolat_an *an);
struct iolat_file_header;
struct iolat_file_watch;
void iolat_an_meta_from(struct iolat_an *an, const struct iolat_file_header *h);
void iolat_an_op_reset(struct iolat_an_op *op);
const struct iolat_hist *iolat_an_total(const struct iolat_an_op *op,
					unsigned int *stage);

/* Add @v to *@h, made on first use (an->nomem if it cannot be). */
static inline void iolat_an_hist_add(struct iolat_an *an,
				     struct iolat_hist **h, uint64_t v)
{
	if (!*h) {
		*h = malloc(sizeof(**h));
		if (!*h) {
			an->nomem = true;
			return;
		}
		iolat_hist_init(*h);
	}
	iolat_hist_add(*h, v);
}

/* Add the @n values at @v to *@h, made on first use. */
static inline void iolat_an_hist_add_many(struct iolat_an *an,
					  struct iolat_hist **h,
					  const __u64 *v, unsigned int n)
{
	if (!*h) {
		*h = malloc(sizeof(**h));
		if (!*h) {
			an->nomem = true;
			return;
		}
		iolat_hist_init(*h);
	}
	iolat_hist_add_many(*h, v, n);
}

/* analyze.c, for an_runs.c: a record's parts */
void __iolat_an_begin(struct iolat_an *an);

/* The first record: the output's beginning, the first interval's. */
static inline void iolat_an_begin(struct iolat_an *an)
{
	if (!an->begun)
		__iolat_an_begin(an);
}

/*
 * floor(sector * BUCKETS / sectors), at most the last, without dividing:
 * a multiplication by BUCKETS / sectors in 64.64 fixed point, rounded
 * down (lba_mul), gives that bucket or the one below, never above, and
 * the exact starts of the next correct it (a device of BUCKETS sectors
 * or fewer has no such fraction: lba_mul 0, its few buckets walked).
 */
static inline unsigned int iolat_an_lba_bucket(const struct iolat_an_dev *d,
					       uint64_t sector)
{
	uint64_t b = (uint64_t)(((unsigned __int128)sector * d->lba_mul) >> 64);

	if (b >= IOLAT_LBA_BUCKETS - 1)
		return IOLAT_LBA_BUCKETS - 1;
	while (b < IOLAT_LBA_BUCKETS - 1 && sector >= d->lba_start[b + 1])
		b++;
	return b;
}

/* A record into its device's tables: size, queue depth, offset. */
static inline void iolat_an_dev_count(struct iolat_an_dev *d,
				      const struct iolat_record *r)
{
	d->size[iolat_size_bucket(r->bytes)]++;
	/* a bio-based device's I/O is at the device from its queue on */
	if (r->d_ns || (r->flags & IOLAT_F_BIO)) {
		unsigned int b = iolat_qd_bucket(r->qd_issue);

		d->qd[b]++;
		d->ival_qd[b]++;
	}
	if (d->sectors && r->bytes)
		d->lba[iolat_an_lba_bucket(d, r->sector)]++;
}

/* Same name: the same bytes (the usual case, two loads), or same string. */
static inline bool iolat_an_comm_eq(const char *a, const char *b)
{
	uint64_t x[2], y[2];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	if (x[0] == y[0] && x[1] == y[1])
		return true;
	return !strncmp(a, b, IOLAT_COMM_LEN);
}

struct iolat_an_group *iolat_an_group_find(struct iolat_an *an,
					   unsigned int dev,
					   const struct iolat_record *r);

/* an_cgroups.c */
void iolat_an_cgroup_record(struct iolat_an *an, unsigned int dev,
			    const struct iolat_record *r);
void iolat_an_cgroup_run(struct iolat_an *an, unsigned int dev, uint64_t id,
			 unsigned int n, uint64_t bytes, const __u64 *q2c,
			 const __u64 *d2c);
double iolat_an_cg_share(const struct iolat_an *an,
			 const struct iolat_an_cg *g);
const struct iolat_an_cg **iolat_an_cgroups_sorted(const struct iolat_an *an);
const char *iolat_an_cg_name(const struct iolat_an_cg *g, char *buf,
			     size_t len);
void iolat_an_cgroups_name(struct iolat_an *an, unsigned int n);
/* a module's cgroup slot to free: its device (the session's) and cgroup */
struct iolat_an_cg_slot {
	unsigned int dev;
	uint64_t id;
};
unsigned int iolat_an_cgroups_retire(struct iolat_an *an,
				     struct iolat_an_cg_slot **free);
struct iolat_cg_counts;
void iolat_an_cgroup_set(struct iolat_an *an, unsigned int dev,
			 const struct iolat_cg_counts *c);
struct iolat_hist *iolat_an_cgroup_hist(struct iolat_an *an, unsigned int dev,
					uint64_t id);
void iolat_an_cgroups_free(struct iolat_an *an);

/* stack.c */
struct iolat_join;
void iolat_stack_record(struct iolat_an *an, unsigned int dev,
			const struct iolat_record *r);
void iolat_stack_settle(struct iolat_an *an, bool last);
void iolat_stack_free(struct iolat_an *an);
bool iolat_stack_has(const struct iolat_an_dev *d);
void iolat_stack_above(struct iolat_an *an, unsigned int dev, unsigned int op,
		       const struct iolat_an_op *delta);


#endif /* IOLAT_ANALYZE_H */
