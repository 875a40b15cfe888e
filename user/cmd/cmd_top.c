// SPDX-License-Identifier: GPL-2.0
/*
 * iolat top: a live table, refreshed each interval, of the devices (IOPS,
 * MB/s, p50 and p99 of the requests completed in the interval, exact
 * %util and aqu-sz from the module's counters) and, with --procs, of the
 * processes doing the most I/O (with --cgroups, of the cgroups).  Without
 * either the module keeps the histograms (an aggregating session, as
 * record -A) and top reads them each interval: no record is streamed.
 * --procs and --cgroups stream every request's record, for its
 * submitter or its cgroup.  Ends on q, Ctrl-C, -n frames or -t.
 * Without -d, every blk-mq disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "out/table.h"

#define TOP_PROCS 64		/* processes kept per interval */

struct top_dev {
	uint64_t ios, bytes;
	struct iolat_hist lat;
};

/* A process's requests on a device, or with --cgroups a cgroup's. */
struct top_proc {
	uint64_t cgroup;
	uint32_t pid;
	char comm[IOLAT_COMM_LEN];
	unsigned int dev;
	uint64_t ios, bytes;
	struct iolat_hist lat;
};

struct top_state {
	struct iolat_session *s;
	struct top_dev *devs;	/* [nr_devs] */
	unsigned int *order;	/* [nr_devs]: the busiest first */
	struct iolat_hist all;	/* every device's requests of the interval */
	long rows;		/* devices shown: the busiest; 0: all */
	struct top_proc procs[TOP_PROCS];
	unsigned int nr_procs;
	bool cgroups;		/* --cgroups: procs[] are cgroups */
	uint64_t others;	/* requests of processes beyond TOP_PROCS */
	struct iolat_dev_counters *c[2];	/* [nr_devs] each */
	struct iolat_agg_reader *agg;	/* without --procs */
	unsigned int cur;	/* c[cur]: the last reading */
	bool have_prev;
	double last;
	long frames, max_frames;
	bool tty, quit;
	struct iolat_table tab;	/* the one being printed */
};

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct top_state *t = arg;
	struct top_proc *p = NULL;
	uint64_t lat = iolat_record_latency(r);
	unsigned int i;

	t->devs[dev].ios++;
	t->devs[dev].bytes += r->bytes;
	iolat_hist_add(&t->devs[dev].lat, lat);
	for (i = 0; i < t->nr_procs && !p; i++)
		if (t->procs[i].dev == dev &&
		    (t->cgroups ? t->procs[i].cgroup == r->cgroup :
		     t->procs[i].pid == r->pid &&
		     !strncmp(t->procs[i].comm, r->comm, IOLAT_COMM_LEN)))
			p = &t->procs[i];
	if (!p && t->nr_procs < TOP_PROCS) {
		p = &t->procs[t->nr_procs++];
		p->cgroup = r->cgroup;
		p->pid = r->pid;
		memcpy(p->comm, r->comm, IOLAT_COMM_LEN);
		p->comm[IOLAT_COMM_LEN - 1] = '\0';
		p->dev = dev;
		p->ios = p->bytes = 0;
		iolat_hist_init(&p->lat);
	}
	if (!p) {
		t->others++;
		return;
	}
	p->ios++;
	p->bytes += r->bytes;
	iolat_hist_add(&p->lat, lat);
}

/* An op's requests since the last frame, from the module's histograms. */
static void agg_row(void *arg, unsigned int dev, unsigned int op,
		    const struct iolat_an_op *delta, const uint64_t *qd)
{
	struct top_dev *v = &((struct top_state *)arg)->devs[dev];

	(void)op;
	(void)qd;
	v->ios += delta->ios;
	v->bytes += delta->bytes;
	iolat_hist_merge(&v->lat, delta->hist[IOLAT_STAGE_Q2C]);
}

static int by_ios(const void *a, const void *b)
{
	const struct top_proc *x = a, *y = b;

	return x->ios < y->ios ? 1 : x->ios > y->ios ? -1 : 0;
}

/* The busiest device first: requests of the interval, then its place. */
static const struct top_state *by_ios_of;

static int by_dev_ios(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	uint64_t i = by_ios_of->devs[x].ios, j = by_ios_of->devs[y].ios;

	return i != j ? (i < j ? 1 : -1) : (x > y) - (x < y);
}

/* The devices' table and the processes' (text: top is a screen). */
enum { V_DEV, V_IOPS, V_MBS, V_P50, V_P99, V_UTIL, V_AQU, NR_DEV_COLS };

static const struct iolat_col dev_cols[NR_DEV_COLS] = {
	[V_DEV] = { "device", "device", -12 },
	[V_IOPS] = { "iops", "IOPS", 9, 1 },
	[V_MBS] = { "mb_s", "MB/s", 9, 2 },
	[V_P50] = { "p50_ns", "p50", 9 },
	[V_P99] = { "p99_ns", "p99", 9 },
	[V_UTIL] = { "util", "%util", 7, 2 },
	[V_AQU] = { "aqu_sz", "aqu-sz", 7, 2 },
};

enum { P_COMM, P_PID, P_DEV, P_IOPS, P_MBS, P_P50, P_P99, NR_PROC_COLS };

static const struct iolat_col proc_cols[NR_PROC_COLS] = {
	[P_COMM] = { "comm", "comm", -16 },
	[P_PID] = { "pid", "pid", 8 },
	[P_DEV] = { "device", "device", -12 },
	[P_IOPS] = { "iops", "IOPS", 9, 1 },
	[P_MBS] = { "mb_s", "MB/s", 9, 2 },
	[P_P50] = { "p50_ns", "p50", 9 },
	[P_P99] = { "p99_ns", "p99", 9 },
};

enum { G_CGROUP, G_DEV, G_IOPS, G_MBS, G_P50, G_P99, NR_CG_COLS };

static const struct iolat_col cg_cols[NR_CG_COLS] = {
	[G_CGROUP] = { "cgroup", "cgroup", -32 },
	[G_DEV] = { "device", "device", -12 },
	[G_IOPS] = { "iops", "IOPS", 9, 1 },
	[G_MBS] = { "mb_s", "MB/s", 9, 2 },
	[G_P50] = { "p50_ns", "p50", 9 },
	[G_P99] = { "p99_ns", "p99", 9 },
};

/* Rate, throughput and percentiles: columns @c.. of a row of @t. */
static void rate_cells(struct iolat_table *t, unsigned int c,
		       const struct iolat_hist *lat, uint64_t ios,
		       uint64_t bytes, double secs)
{
	iolat_cell_dbl(t, c, secs > 0 ? ios / secs : 0);
	iolat_cell_dbl(t, c + 1, secs > 0 ? bytes / secs / 1e6 : 0);
	if (!ios)
		return;
	iolat_cell_ns(t, c + 2, iolat_hist_percentile(lat, 500000));
	iolat_cell_ns(t, c + 3, iolat_hist_percentile(lat, 990000));
}

/* One device's line, or the total's (@name "total"); < 0: no figure. */
static void dev_line(struct iolat_table *t, const char *name,
		     const struct iolat_hist *lat, uint64_t ios,
		     uint64_t bytes, double secs, double util, double aqu)
{
	iolat_cell_str(t, V_DEV, name);
	rate_cells(t, V_IOPS, lat, ios, bytes, secs);
	if (util >= 0)
		iolat_cell_dbl(t, V_UTIL, util);
	if (aqu >= 0)
		iolat_cell_dbl(t, V_AQU, aqu);
	iolat_table_row(t, NULL);
}

/* A disk joined: its room, its last reading nothing at that time. */
static void on_added(void *arg, unsigned int dev)
{
	struct top_state *t = arg;
	unsigned int n = t->s->nr_devs;

	iolat_counters_grow(t->s, &t->c[0], dev);
	iolat_counters_grow(t->s, &t->c[1], dev);
	if (t->agg)
		iolat_agg_reader_grow(t->agg, dev);
	t->devs = iolat_grow_to(t->devs, dev, n, sizeof(*t->devs));
	iolat_hist_init(&t->devs[dev].lat);
	t->order = iolat_grow_to(t->order, dev, n, sizeof(*t->order));
}

static void frame(struct top_state *t, double elapsed)
{
	const struct iolat_dev_counters *now, *prev;
	double secs = elapsed - t->last, sum_aqu = 0;
	unsigned int d, i, busy = 0;
	uint64_t ios = 0, bytes = 0;
	bool counters;

	counters = !iolat_session_counters(t->s, t->c[t->cur ^ 1]);
	if (counters)
		t->cur ^= 1;
	now = t->c[t->cur];
	prev = t->c[t->cur ^ 1];
	/* the histograms read after the counters: record -A's Q2C */
	if (counters && t->s->aggregate &&
	    iolat_agg_each(t->agg, now, agg_row, t)) {
		iolat_err("cannot read the module's histograms");
		t->quit = true;
		return;
	}
	if (t->tty)
		printf("\033[H\033[2J");
	else if (t->frames)
		printf("\n");
	printf("iolat top: %.1f s, every %.1f s (q to quit)\n\n", elapsed,
	       t->s->tick_s);
	iolat_table_init(&t->tab, dev_cols, NR_DEV_COLS, IOLAT_FMT_TEXT,
			 stdout);
	iolat_table_header(&t->tab);
	for (d = 0; d < t->s->nr_devs; d++)
		t->order[d] = d;
	by_ios_of = t;
	qsort(t->order, t->s->nr_devs, sizeof(*t->order), by_dev_ios);
	iolat_hist_init(&t->all);
	for (i = 0; i < t->s->nr_devs; i++) {
		struct top_dev *v = &t->devs[t->order[i]];
		double util = -1, aqu = -1, el;

		d = t->order[i];
		if (counters && t->have_prev) {
			el = now[d].now_ns - prev[d].now_ns;
			if (el > 0) {
				util = 100.0 * (now[d].busy_ns - prev[d].busy_ns) / el;
				aqu = (now[d].qinflight_ns - prev[d].qinflight_ns) / el;
				sum_aqu += aqu;
			}
		}
		ios += v->ios;
		bytes += v->bytes;
		if (v->ios)
			busy++;
		iolat_hist_merge(&t->all, &v->lat);
		if (!t->rows || (long)i < t->rows)
			dev_line(&t->tab, t->s->devs[d].name, &v->lat, v->ios, v->bytes,
				 secs, util, aqu);
		v->ios = v->bytes = 0;
		iolat_hist_init(&v->lat);
	}
	if (t->rows && t->s->nr_devs > (unsigned long)t->rows)
		printf("(%lu more devices; %u of all %u had requests)\n",
		       t->s->nr_devs - (unsigned long)t->rows, busy,
		       t->s->nr_devs);
	if (t->s->nr_devs > 1)
		dev_line(&t->tab, "total", &t->all, ios, bytes, secs, -1,
			 counters && t->have_prev ? sum_aqu : -1);
	if (t->s->aggregate) {
		printf("\n(processes: iolat top --procs, which streams every request's record)\n");
		goto done;
	}
	qsort(t->procs, t->nr_procs, sizeof(t->procs[0]), by_ios);
	printf("\n");
	if (t->cgroups)
		iolat_table_init(&t->tab, cg_cols, NR_CG_COLS, IOLAT_FMT_TEXT,
				 stdout);
	else
		iolat_table_init(&t->tab, proc_cols, NR_PROC_COLS,
				 IOLAT_FMT_TEXT, stdout);
	iolat_table_header(&t->tab);
	for (i = 0; i < t->nr_procs && i < 20; i++) {
		struct top_proc *p = &t->procs[i];

		if (t->cgroups) {
			char name[128];

			iolat_cell_str(&t->tab, G_CGROUP,
				       iolat_cgroup_label(p->cgroup,
							  iolat_cgroup_path(p->cgroup),
							  true, name, sizeof(name)));
			iolat_cell_str(&t->tab, G_DEV, t->s->devs[p->dev].name);
			rate_cells(&t->tab, G_IOPS, &p->lat, p->ios, p->bytes,
				   secs);
			iolat_table_row(&t->tab, NULL);
			continue;
		}
		/* "-" (left empty): no submitter seen */
		if (p->pid || p->comm[0]) {
			iolat_cell_str(&t->tab, P_COMM,
				       p->comm[0] ? p->comm : "?");
			iolat_cell_u64(&t->tab, P_PID, p->pid);
		}
		iolat_cell_str(&t->tab, P_DEV, t->s->devs[p->dev].name);
		rate_cells(&t->tab, P_IOPS, &p->lat, p->ios, p->bytes, secs);
		iolat_table_row(&t->tab, NULL);
	}
	if (t->others)
		printf("(%llu requests of further %s)\n",
		       (unsigned long long)t->others,
		       t->cgroups ? "cgroups" : "processes");
done:
	fflush(stdout);
	t->nr_procs = 0;
	t->others = 0;
	t->have_prev = counters;
	t->last = elapsed;
	t->frames++;
	if (t->max_frames && t->frames >= t->max_frames)
		t->quit = true;
}

static void on_tick(void *arg, double elapsed)
{
	frame(arg, elapsed);
}

/* q on standard input ends it. */
static bool on_idle(void *arg)
{
	struct top_state *t = arg;
	char c;
	ssize_t n;

	while ((n = read(STDIN_FILENO, &c, 1)) > 0)
		if (c == 'q' || c == 'Q')
			t->quit = true;
	return t->quit;
}

int cmd_top(int argc, const char **argv)
{
	char *every = NULL;
	long frames = -1;	/* -n not given: until q, Ctrl-C or -t */
	long rows = 20;
	int procs = 0, cgroups = 0;
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices (default: all) and filters:", NULL },
		{ "interval", 'i', POPT_ARG_STRING, &every, 0,
		  "refresh each SECS seconds (default 1)", "SECS" },
		{ "frames", 'n', POPT_ARG_LONG, &frames, 0,
		  "quit after N refreshes", "N" },
		{ "rows", 0, POPT_ARG_LONG, &rows, 0,
		  "show the N busiest devices, then a line for the rest and the total (default 20; 0: all)",
		  "N" },
		{ "procs", 0, POPT_ARG_NONE, &procs, 0,
		  "also the processes doing the most I/O: streams every request's record for its submitter (costs as much as record), where the table of devices alone reads the module's histograms",
		  NULL },
		{ "cgroups", 0, POPT_ARG_NONE, &cgroups, 0,
		  "also the cgroups doing the most I/O, the ones the kernel charges it to: streams every request's record with its cgroup",
		  NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	struct iolat_session s = { .usage = "[-d DEV...] [-i SECS] [-n N] [--rows N] [--procs | --cgroups] [OPTION...]" };
	struct top_state *t = calloc(1, sizeof(*t));
	struct termios saved, raw;
	bool restore = false;
	int rc = EXIT_USAGE, nr, flags = -1;
	poptContext pc;

	pc = poptGetContext("iolat top", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	if (!t) {
		iolat_err("out of memory");
		rc = EXIT_FAIL;
		goto out;
	}
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	s.tick_s = 1;
	if (every && iolat_parse_secs("-i", every, IOLAT_MIN_INTERVAL_S,
					  &s.tick_s))
		goto out;
	if (frames == 0 || frames < -1 || s.cmd) {
		iolat_err(s.cmd ? "top takes no COMMAND" :
				  "-n takes a number of refreshes from 1");
		goto out;
	}
	if (procs && cgroups) {
		iolat_err("top shows the processes (--procs) or the cgroups (--cgroups), not both");
		goto out;
	}
	s.every_disk = true;
	s.aggregate = !procs && !cgroups;
	s.cgroups = cgroups;
	t->cgroups = cgroups;
	s.aggregate_or_stream = true;
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	t->s = &s;
	if (s.aggregate) {
		t->agg = iolat_agg_reader_new(&s);
		if (!t->agg) {
			iolat_err("out of memory");
			rc = EXIT_FAIL;
			goto out;
		}
	}
	t->max_frames = frames > 0 ? frames : 0;
	t->tty = isatty(STDOUT_FILENO);
	if (rows < 0) {
		iolat_err("--rows takes a number of devices from 0 (all)");
		rc = EXIT_USAGE;
		goto out;
	}
	t->rows = rows;
	t->order = calloc(s.nr_devs, sizeof(*t->order));
	t->devs = calloc(s.nr_devs, sizeof(*t->devs));
	for (nr = 0; t->devs && nr < (int)s.nr_devs; nr++)
		iolat_hist_init(&t->devs[nr].lat);
	t->c[0] = iolat_counters_new(&s);
	t->c[1] = iolat_counters_new(&s);
	if (!t->devs || !t->order || !t->c[0] || !t->c[1]) {
		iolat_err("out of memory");
		rc = EXIT_FAIL;
		goto out;
	}
	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &saved)) {
		raw = saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		restore = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		/* q at once (a file or pipe is read at each frame) */
		s.wake_fd = STDIN_FILENO;
	}
	flags = fcntl(STDIN_FILENO, F_GETFL);
	if (flags >= 0)
		fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK);
	s.record = on_record;	/* with --procs, or if the module cannot aggregate */
	s.tick = on_tick;
	s.idle = on_idle;
	s.added = on_added;
	s.arg = t;
	rc = iolat_session_run(&s);
	if (flags >= 0)
		fcntl(STDIN_FILENO, F_SETFL, flags);
	if (restore)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	if (!rc && s.run.stats.drop_full)
		iolat_warn("%llu records dropped because a buffer was full: the table undercounted (try a larger -b)",
			   (unsigned long long)s.run.stats.drop_full);
out:
	if (t) {
		iolat_counters_free(&s, t->c[0]);
		iolat_counters_free(&s, t->c[1]);
		free(t->devs);
		free(t->order);
		iolat_agg_reader_free(t->agg);
	}
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	free(every);
	free(t);
	poptFreeContext(pc);
	return rc;
}
