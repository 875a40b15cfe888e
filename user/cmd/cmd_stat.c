// SPDX-License-Identifier: GPL-2.0
/*
 * iolat stat: an iostat-like table per interval from iolat's exact
 * counters (busy time and in-flight integrals in nanoseconds, kept by
 * the module without records), with the kernel's own %util and aqu-sz
 * from /proc/diskstats beside them and the difference; then the whole
 * run and the queue depth at issue as a histogram.  The difference is
 * the kernel's %util less iolat's queue-busy %util, its counterpart: the
 * kernel counts a request busy from its allocation to its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "cmd/stat_cgroups.h"
#include "out/table.h"
#include "util/json.h"

#define U(x) ((unsigned long long)(x))

struct stat_state {
	struct iolat_session *s;
	struct iolat_table tab;
	double interval;
	/* [nr_devs] each: at the start, at the last row, now */
	struct iolat_dev_counters *first, *prev, *cur;
	struct iolat_diskstats *kfirst, *kprev, *kcur;
	bool failed;
	bool active;		/* -z: only the devices with requests */
	unsigned int rows;
	struct stat_cgroups *cg;	/* --cgroups: its rows instead */
};

/* Did the device complete or hold a request between @a and @b? */
static bool had_io(const struct iolat_dev_counters *a,
		   const struct iolat_dev_counters *b)
{
	unsigned int op;

	for (op = 0; op < IOLAT_OP_NR; op++)
		if (b->ios[op] != a->ios[op])
			return true;
	return b->queued || b->qbusy_ns != a->qbusy_ns;
}

/*
 * iostat -x's columns where iolat counts them (kB is 1024 bytes, as
 * there; rrqm/s and wrqm/s are the kernel's own merge counts), then
 * iolat's exact busy and depth figures, then the kernel's beside them;
 * CSV and JSON have more digits, the kernel's figures in "kernel", the
 * integrals in ns and a stack's split in "stack".
 */
enum {
	C_TOTAL, C_TIME, C_DEV, C_SECS, C_RS, C_RKB, C_RRQM, C_RAWAIT, C_RSZ,
	C_WS, C_WKB, C_WRQM, C_WAWAIT, C_WSZ, C_DS, C_DKB, C_DAWAIT, C_FS,
	C_FAWAIT, C_AQU, C_DEVQD, C_QDD, C_UTIL, C_QUTIL, C_BAR, C_KUTIL,
	C_KAQU, C_KRAWAIT, C_KWAWAIT, C_KRRQM, C_KWRQM, C_DIFF, C_BUSY,
	C_QBUSY, C_INFL, C_QINFL, C_ELAPSED, C_KTICKS, C_KTIQ, C_SRA, C_SRB,
	C_SWA, C_SWB, C_SRJ, C_SWJ, C_SIOS, C_SNS, NR_COLS
};

static const struct iolat_col cols[NR_COLS] = {
	[C_TOTAL] = { "total", NULL, 0, .in = IOLAT_IN_DATA },
	[C_TIME] = { "time", "time", 9 },
	[C_DEV] = { "device", "device", -10, .str = true },
	[C_SECS] = { "seconds", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_RS] = { "r_s", "r/s", 8, 1, 3 },
	[C_RKB] = { "rkB_s", "rkB/s", 9, 1, 3 },
	[C_RRQM] = { "rrqm_s", "rrqm/s", 7, 1, 3, IOLAT_IN_TEXT },
	[C_RAWAIT] = { "r_await_ms", "r_await", 7, 3, 6 },
	[C_RSZ] = { "rareq_sz", "rareq-sz", 8, 1, 3 },
	[C_WS] = { "w_s", "w/s", 8, 1, 3 },
	[C_WKB] = { "wkB_s", "wkB/s", 9, 1, 3 },
	[C_WRQM] = { "wrqm_s", "wrqm/s", 7, 1, 3, IOLAT_IN_TEXT },
	[C_WAWAIT] = { "w_await_ms", "w_await", 7, 3, 6 },
	[C_WSZ] = { "wareq_sz", "wareq-sz", 8, 1, 3 },
	[C_DS] = { "d_s", "d/s", 7, 1, 3 },
	[C_DKB] = { "dkB_s", "dkB/s", 8, 1, 3 },
	[C_DAWAIT] = { "d_await_ms", "d_await", 7, 3, 6 },
	[C_FS] = { "f_s", "f/s", 7, 1, 3 },
	[C_FAWAIT] = { "f_await_ms", "f_await", 7, 3, 6 },
	[C_AQU] = { "aqu_sz", "aqu-sz", 7, 3, 6 },
	[C_DEVQD] = { "dev_qd", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_QDD] = { "qd_issue", "qd@D", 6, 2, 6 },
	[C_UTIL] = { "util", "%util", 6, 2, 6 },
	[C_QUTIL] = { "qutil", "%qutil", 6, 2, 6 },
	[C_BAR] = { "", "|", 1, .in = IOLAT_IN_TEXT },
	[C_KUTIL] = { "kernel.util", "k:%util", 7, 2, 6 },
	[C_KAQU] = { "kernel.aqu_sz", "k:aqu-sz", 8, 3, 6 },
	[C_KRAWAIT] = { "kernel.r_await_ms", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_KWAWAIT] = { "kernel.w_await_ms", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_KRRQM] = { "kernel.rrqm_s", NULL, 0, 0, 3, IOLAT_IN_DATA },
	[C_KWRQM] = { "kernel.wrqm_s", NULL, 0, 0, 3, IOLAT_IN_DATA },
	[C_DIFF] = { "util_diff", "k-q:%util", 9, 2, 6 },
	[C_BUSY] = { "busy_ns", .in = IOLAT_IN_DATA },
	[C_QBUSY] = { "qbusy_ns", .in = IOLAT_IN_DATA },
	[C_INFL] = { "inflight_ns", .in = IOLAT_IN_DATA },
	[C_QINFL] = { "qinflight_ns", .in = IOLAT_IN_DATA },
	[C_ELAPSED] = { "elapsed_ns", .in = IOLAT_IN_DATA },
	[C_KTICKS] = { "kernel_io_ticks_ms", .in = IOLAT_IN_DATA },
	[C_KTIQ] = { "kernel_time_in_queue_ms", .in = IOLAT_IN_DATA },
	[C_SRA] = { "stack.r_above_ms", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_SRB] = { "stack.r_below_ms", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_SWA] = { "stack.w_above_ms", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_SWB] = { "stack.w_below_ms", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_SRJ] = { "stack.r_joined", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_SWJ] = { "stack.w_joined", NULL, 0, 0, 6, IOLAT_IN_DATA },
	[C_SIOS] = { "stack.below_ios", .in = IOLAT_IN_DATA },
	[C_SNS] = { "stack.below_ns", .in = IOLAT_IN_DATA },
};

/* The non-empty queue-depth buckets between two readings: [low, n]. */
static void json_qd_hist(struct json *j, const struct iolat_dev_counters *a,
			 const struct iolat_dev_counters *b)
{
	unsigned int i;

	json_arr(j, "qd_hist");
	for (i = 0; i < IOLAT_QD_BUCKETS; i++) {
		uint64_t n = b->qd_hist[i] - a->qd_hist[i];

		if (!n)
			continue;
		json_arr(j, NULL);
		json_u64(j, NULL, iolat_qd_bucket_low(i));
		json_u64(j, NULL, n);
		json_end(j);
	}
	json_end(j);
}

/*
 * A stack's bio-based device: its await split above and below, and the
 * I/Os with requests below and their time there, all ops.
 */
static void split_cells(struct iolat_table *t, const struct iolat_stat_row *r,
			const struct iolat_dev_counters *a,
			const struct iolat_dev_counters *b)
{
	uint64_t ios = 0, ns = 0;
	unsigned int op;

	for (op = 0; op < IOLAT_OP_NR; op++) {
		ios += b->below_ios[op] - a->below_ios[op];
		ns += b->below_ns[op] - a->below_ns[op];
	}
	iolat_cell_dbl(t, C_SRA, r->r_above_ms);
	iolat_cell_dbl(t, C_SRB, r->r_below_ms);
	iolat_cell_dbl(t, C_SWA, r->w_above_ms);
	iolat_cell_dbl(t, C_SWB, r->w_below_ms);
	iolat_cell_dbl(t, C_SRJ, r->r_joined);
	iolat_cell_dbl(t, C_SWJ, r->w_joined);
	iolat_cell_u64(t, C_SIOS, ios);
	iolat_cell_u64(t, C_SNS, ns);
}

/* One device's figures between two readings, a row of the table. */
static void cells(struct iolat_table *t, const struct iolat_stat_row *r,
		  const struct iolat_dev_counters *a,
		  const struct iolat_dev_counters *b,
		  const struct iolat_diskstats *ka,
		  const struct iolat_diskstats *kb)
{
	const struct { unsigned int col; double v; } nums[] = {
		{ C_SECS, r->secs }, { C_RS, r->r_s }, { C_RKB, r->rkb_s },
		{ C_RRQM, r->k_rrqm_s }, { C_RAWAIT, r->r_await_ms },
		{ C_RSZ, r->rareq_kb }, { C_WS, r->w_s }, { C_WKB, r->wkb_s },
		{ C_WRQM, r->k_wrqm_s }, { C_WAWAIT, r->w_await_ms },
		{ C_WSZ, r->wareq_kb }, { C_DS, r->d_s }, { C_DKB, r->dkb_s },
		{ C_DAWAIT, r->d_await_ms }, { C_FS, r->f_s },
		{ C_FAWAIT, r->f_await_ms }, { C_AQU, r->aqu_sz },
		{ C_DEVQD, r->dev_qd }, { C_QDD, r->qd_issue },
		{ C_UTIL, r->util }, { C_QUTIL, r->qutil },
		{ C_KUTIL, r->k_util }, { C_KAQU, r->k_aqu_sz },
		{ C_KRAWAIT, r->k_r_await_ms }, { C_KWAWAIT, r->k_w_await_ms },
		{ C_KRRQM, r->k_rrqm_s }, { C_KWRQM, r->k_wrqm_s },
	};
	char diff[16], ddiff[24];
	unsigned int i;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		iolat_cell_dbl(t, nums[i].col, nums[i].v);
	snprintf(diff, sizeof(diff), "%+.2f", r->k_util - r->qutil);
	snprintf(ddiff, sizeof(ddiff), "%.6f", r->k_util - r->qutil);
	iolat_cell_two(t, C_DIFF, diff, ddiff);
	iolat_cell_str(t, C_BAR, "|");
	iolat_cell_u64(t, C_BUSY, b->busy_ns - a->busy_ns);
	iolat_cell_u64(t, C_QBUSY, b->qbusy_ns - a->qbusy_ns);
	iolat_cell_u64(t, C_INFL, b->inflight_ns - a->inflight_ns);
	iolat_cell_u64(t, C_QINFL, b->qinflight_ns - a->qinflight_ns);
	iolat_cell_u64(t, C_ELAPSED, b->now_ns - a->now_ns);
	iolat_cell_u64(t, C_KTICKS,
		       kb->f[IOLAT_DS_IO_TICKS] - ka->f[IOLAT_DS_IO_TICKS]);
	iolat_cell_u64(t, C_KTIQ, kb->f[IOLAT_DS_TIME_IN_QUEUE] -
				  ka->f[IOLAT_DS_TIME_IN_QUEUE]);
	if (r->has_split)
		split_cells(t, r, a, b);
}

static void print_row(struct stat_state *st, unsigned int d, double t,
		      const struct iolat_dev_counters *a,
		      const struct iolat_dev_counters *b,
		      const struct iolat_diskstats *ka,
		      const struct iolat_diskstats *kb, bool total)
{
	const char *name = st->s->devs[d].name;
	struct iolat_table *tab = &st->tab;
	struct iolat_stat_row r;
	char time[16], dtime[24];
	struct json j;

	iolat_stat_compute(a, b, ka, kb, &r);
	snprintf(time, sizeof(time), "%.2f", t);
	snprintf(dtime, sizeof(dtime), "%.3f", t);
	iolat_cell_two(tab, C_TOTAL, "", total ? "true" : "");
	iolat_cell_two(tab, C_TIME, total ? "total" : time, dtime);
	iolat_cell_str(tab, C_DEV, name);
	cells(tab, &r, a, b, ka, kb);
	if (tab->fmt != IOLAT_FMT_JSON) {
		iolat_table_row(tab, NULL);
	} else {
		json_init(&j, stdout, false);
		json_obj(&j, NULL);
		iolat_table_row(tab, &j);
		json_qd_hist(&j, a, b);
		json_end(&j);
	}
	if (tab->fmt == IOLAT_FMT_TEXT && r.has_split)
		printf("%9s %-10s stack: r_await %.3f = %.3f above + %.3f below, w_await %.3f = %.3f above + %.3f below (ms; I/Os with requests below: %.0f%% of reads, %.0f%% of writes)\n",
		       total ? "total" : time, name, r.r_await_ms,
		       r.r_above_ms, r.r_below_ms, r.w_await_ms, r.w_above_ms,
		       r.w_below_ms, 100 * r.r_joined, 100 * r.w_joined);
}

/* iolat's counters and the kernel's of every device, now, into cur. */
static bool sample(struct stat_state *st, struct iolat_dev_counters *c,
		   struct iolat_diskstats *k)
{
	struct iolat_session *s = st->s;
	unsigned int d;
	int err;

	err = iolat_session_counters(s, c);
	if (!err && st->cg)
		err = stat_cgroups_sample(st->cg, s);
	for (d = 0; !err && d < s->nr_devs; d++) {
		if (!s->run.removed[d])
			err = iolat_diskstats_read("/sys", s->devs[d].name,
						   &k[d]);
		/*
		 * A removed disk's kernel counters went with it (or count
		 * from zero, if it came back): its last reading stays; so
		 * does that of a disk gone since the last device check,
		 * which will name it.
		 */
		if (s->run.removed[d] || err == -ENOENT) {
			k[d] = st->kprev[d];
			err = 0;
		}
	}
	if (err && !st->failed) {
		iolat_err("cannot read the counters: %s", strerror(-err));
		st->failed = true;
	}
	return !err;
}

/* Copy @src's values, keeping @dst's own queue array. */
static void counters_copy(struct iolat_dev_counters *dst,
			  const struct iolat_dev_counters *src)
{
	struct iolat_hwq_counters *h = dst->hwqs;

	memcpy(h, src->hwqs, src->nr_hwq * sizeof(*h));
	*dst = *src;
	dst->hwqs = h;
}

static void on_started(void *arg)
{
	struct stat_state *st = arg;
	unsigned int d;

	if (!sample(st, st->first, st->kfirst))
		return;
	for (d = 0; d < st->s->nr_devs; d++) {
		counters_copy(&st->prev[d], &st->first[d]);
		st->kprev[d] = st->kfirst[d];
	}
	if (st->cg) {
		stat_cgroups_mark(st->cg);
		stat_cgroups_header(st->cg);
	} else {
		iolat_table_header(&st->tab);
	}
}

/* Stopped: the cgroup slots' last counts, for the run's rows. */
static void on_stopped(void *arg)
{
	struct stat_state *st = arg;

	if (st->cg && !st->failed && stat_cgroups_sample(st->cg, st->s)) {
		iolat_err("cannot read the counts per cgroup");
		st->failed = true;
	}
}

/*
 * A disk joined: its room, its first and last readings nothing at the
 * time it joined, the kernel's as read then (disk_follow.c).
 */
static void on_added(void *arg, unsigned int dev)
{
	struct stat_state *st = arg;
	struct iolat_session *s = st->s;
	unsigned int n = s->nr_devs;

	iolat_counters_grow(s, &st->first, dev);
	iolat_counters_grow(s, &st->prev, dev);
	iolat_counters_grow(s, &st->cur, dev);
	st->kfirst = iolat_grow_to(st->kfirst, dev, n, sizeof(*st->kfirst));
	st->kprev = iolat_grow_to(st->kprev, dev, n, sizeof(*st->kprev));
	st->kcur = iolat_grow_to(st->kcur, dev, n, sizeof(*st->kcur));
	st->kfirst[dev] = st->kprev[dev] = s->run.kstart[dev];
}

static void rows(struct stat_state *st, double t,
		 struct iolat_dev_counters *cur, struct iolat_diskstats *kcur)
{
	unsigned int d;

	/* as iostat, a blank line between the intervals of several devices */
	if (st->tab.fmt == IOLAT_FMT_TEXT && st->rows && st->s->nr_devs > 1 &&
	    !st->cg)
		printf("\n");
	if (st->cg)
		stat_cgroups_rows(st->cg, st->s, t, false, st->prev, cur);
	for (d = 0; d < st->s->nr_devs; d++) {
		if (!st->cg && (!st->active || had_io(&st->prev[d], &cur[d])))
			print_row(st, d, t, &st->prev[d], &cur[d],
				  &st->kprev[d], &kcur[d], false);
		counters_copy(&st->prev[d], &cur[d]);
		st->kprev[d] = kcur[d];
	}
	st->rows++;
	fflush(stdout);
}

static void on_tick(void *arg, double elapsed)
{
	struct stat_state *st = arg;

	if (st->failed || !sample(st, st->cur, st->kcur))
		return;
	if (st->tab.fmt == IOLAT_FMT_TEXT && st->rows && !(st->rows % 20))
		st->cg ? stat_cgroups_header(st->cg) :
			 iolat_table_header(&st->tab);
	rows(st, elapsed, st->cur, st->kcur);
	if (st->cg && stat_cgroups_recycle(st->cg, st->s)) {
		iolat_err("cannot free the module's cgroup slots: %s",
			  iolat_nl_errmsg(st->s->nl));
		st->failed = true;
	}
}

/* The whole run's queue depth at issue, as a bar histogram. */
static void text_qd_hist(const char *name, const struct iolat_dev_counters *a,
			 const struct iolat_dev_counters *b)
{
	uint64_t n[IOLAT_QD_BUCKETS], any = 0;
	unsigned int i;

	for (i = 0; i < IOLAT_QD_BUCKETS; i++) {
		n[i] = b->qd_hist[i] - a->qd_hist[i];
		any |= n[i];
	}
	if (!any)
		return;
	printf("\n%s: queue depth at issue (requests already at the driver)\n",
	       name);
	iolat_text_qd_hist(n);
}

static void finish(struct stat_state *st)
{
	struct iolat_session *s = st->s;
	struct iolat_dev_counters *last = s->counters;
	unsigned int d;

	if (st->failed || !s->run.kernel_valid)
		return;
	/* the kernel's counters when the session stopped */
	memcpy(st->kcur, s->run.kend, s->nr_devs * sizeof(*st->kcur));
	for (d = 0; d < s->nr_devs; d++)
		if (s->run.removed[d])	/* its last reading before it went */
			st->kcur[d] = st->kprev[d];
	/* the time since the last row, unless it is a sliver */
	if ((last[0].now_ns - st->prev[0].now_ns) / 1e9 > 0.1 * st->interval)
		rows(st, s->run.seconds, last, st->kcur);
	if (st->tab.fmt == IOLAT_FMT_TEXT)
		printf("\n");
	if (st->cg)
		stat_cgroups_rows(st->cg, s, s->run.seconds, true, st->first,
				  last);
	for (d = 0; !st->cg && d < s->nr_devs; d++)
		if (!st->active || had_io(&st->first[d], &last[d]))
			print_row(st, d, s->run.seconds, &st->first[d],
				  &last[d], &st->kfirst[d], &st->kcur[d], true);
	if (st->tab.fmt == IOLAT_FMT_TEXT)
		for (d = 0; d < s->nr_devs; d++)
			if (!st->active || had_io(&st->first[d], &last[d]))
				text_qd_hist(s->devs[d].name, &st->first[d],
					     &last[d]);
}

/*
 * The arguments before "--" are interval and count; those after it, the
 * COMMAND.  (`stat abc` ran "abc".)  @after: how many followed "--".
 */
static int positional(struct iolat_session *s, double *interval,
		      unsigned long *count, int after)
{
	const char **a = s->cmd;
	char *end;
	int n = 0, nr = 0;

	while (a && a[nr])
		nr++;
	for (; n < nr - after; n++) {
		double v = strtod(a[n], &end);

		if (n == 2 || *end || end == a[n] ||
		    !(v >= (n ? 1 : IOLAT_MIN_INTERVAL_S) && v <= 86400 * 366) ||
		    (n == 1 && v != (unsigned long)v)) {
			iolat_err("stat takes [interval [count]]: seconds from %g and a whole count (a COMMAND goes after --), not '%s'",
				  IOLAT_MIN_INTERVAL_S, a[n]);
			return -1;
		}
		if (n == 0)
			*interval = v;
		else
			*count = v;
	}
	s->cmd = n < nr ? a + n : NULL;
	return 0;
}

int cmd_stat(int argc, const char **argv)
{
	static char *fmt;
	static int active, cgroups, top;
	struct poptOption options[] = {
		{ "output", 'o', POPT_ARG_STRING, &fmt, 0,
		  "text (default), csv or json (a line per device and interval)",
		  "FMT" },
		{ "active", 'z', POPT_ARG_NONE, &active, 0,
		  "leave out the devices without requests in the interval (as iostat -z)",
		  NULL },
		{ "cgroups", 0, POPT_ARG_NONE, &cgroups, 0,
		  "a row per cgroup and device instead, from the module's counts per cgroup (--cgroups-top at a time; a cgroup idle for an interval gives its place up; the rest as \"other\")",
		  NULL },
		{ "cgroups-top", 0, POPT_ARG_INT, &top, 0,
		  "cgroups the module counts at a time per device, 1 to 32 (default 16)",
		  "N" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_counter_options, 0,
		  "Devices:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	struct iolat_session s = { 0 };
	struct stat_state *st = calloc(1, sizeof(*st));
	unsigned long count = 0;
	double interval = 1;
	poptContext pc;
	int ret = EXIT_USAGE, i;
	enum iolat_fmt ofmt;

	if (!st) {
		iolat_err("out of memory");
		return EXIT_FAIL;
	}
	pc = poptGetContext("iolat stat", argc, argv, options, 0);
	s.usage = "[-d DEV...] [OPTION...] [interval [count]] [-- COMMAND...]";
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (iolat_session_getopt(&s, &o, pc) ||
	    positional(&s, &interval, &count, i < argc ? argc - i - 1 : 0))
		goto out;
	if (iolat_fmt_parse(fmt, IOLAT_FMT_ALL, &ofmt))
		goto out;
	if (count && (o.duration || s.cmd)) {
		iolat_err("a count of intervals, -t and a COMMAND exclude each other");
		goto out;
	}
	if (top && (!cgroups || top < 1 || top > IOLAT_CGROUP_SLOTS_MAX)) {
		iolat_err("--cgroups-top takes a number of cgroups from 1 to %u, with --cgroups",
			  IOLAT_CGROUP_SLOTS_MAX);
		goto out;
	}
	s.every_disk = true;
	ret = iolat_session_setup(&s, &o);
	if (ret)
		goto out;
	st->s = &s;
	iolat_table_init(&st->tab, cols, NR_COLS, ofmt, stdout);
	st->active = active;
	st->interval = interval;
	if (count)
		s.duration = interval * count;
	s.counters_only = true;
	if (cgroups) {
		st->cg = stat_cgroups_new(ofmt);
		s.cg_slots = top ? top : STAT_CG_SLOTS;
	}
	s.ring = IOLAT_RING_MIN;
	s.record = NULL;
	s.tick = on_tick;
	s.tick_s = interval;
	s.started = on_started;
	s.added = on_added;
	s.stopped = on_stopped;
	s.arg = st;
	st->first = iolat_counters_new(&s);
	st->prev = iolat_counters_new(&s);
	st->cur = iolat_counters_new(&s);
	st->kfirst = calloc(s.nr_devs, sizeof(*st->kfirst));
	st->kprev = calloc(s.nr_devs, sizeof(*st->kprev));
	st->kcur = calloc(s.nr_devs, sizeof(*st->kcur));
	if (!st->first || !st->prev || !st->cur || !st->kfirst ||
	    !st->kprev || !st->kcur || (cgroups && !st->cg)) {
		iolat_err("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	ret = iolat_session_run(&s);
	if (ret == EXIT_OK)
		finish(st);
	if (st->failed || !iolat_session_accounted(&s))
		ret = EXIT_FAIL;
out:
	iolat_counters_free(&s, st->first);
	iolat_counters_free(&s, st->prev);
	iolat_counters_free(&s, st->cur);
	free(st->kfirst);
	free(st->kprev);
	free(st->kcur);
	stat_cgroups_free(st->cg);
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	poptFreeContext(pc);
	free(st);
	return ret;
}
