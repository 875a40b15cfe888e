// SPDX-License-Identifier: GPL-2.0
/*
 * Text output of record and report: a line per device and op each
 * interval with the chosen percentiles, then per device a table of the
 * stages, biolatency-style bar histograms (latency, size, queue depth at
 * issue, offset), the processes, the NVMe queues, and the accounting.
 * Also the bar histograms `iolat stat` and `iolat nvme` print.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "out/output.h"
#include "out/trigger.h"

/* Counts are __u64 (unsigned long long) or uint64_t; print them as one. */
#define U(x) ((unsigned long long)(x))

/* log2 buckets of microseconds, as biolatency prints them. */
#define NR_LOG2 40

static void bar(char *buf, uint64_t n, uint64_t max)
{
	unsigned int stars = max ? n * 40 / max : 0;

	memset(buf, '*', stars);
	buf[stars] = '\0';
}

static unsigned int log2_bucket(uint64_t us)
{
	unsigned int k = 0;

	while (us > 1 && k < NR_LOG2 - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

/* A latency histogram as biolatency's log2 bars of microseconds. */
void iolat_text_hist(const struct iolat_hist *h)
{
	uint64_t buckets[NR_LOG2] = { 0 }, max = 0;
	unsigned int i, lo = NR_LOG2, hi = 0;
	char b[41];

	for (i = 0; i < IOLAT_HIST_NR_BINS; i++) {
		if (!h->bins[i])
			continue;
		/* power-of-two microsecond bounds fall on bin bounds */
		buckets[log2_bucket(iolat_hist_bin_lo(i) / 1000)] += h->bins[i];
	}
	for (i = 0; i < NR_LOG2; i++) {
		if (!buckets[i])
			continue;
		lo = i < lo ? i : lo;
		hi = i;
		max = buckets[i] > max ? buckets[i] : max;
	}
	if (lo == NR_LOG2)
		return;
	printf("%16s %-10s : %-9s %s\n", "usecs", "", "count", "distribution");
	for (i = lo; i <= hi; i++) {
		bar(b, buckets[i], max);
		printf("%16llu -> %-10llu: %-9llu |%-40s|\n",
		       U(i ? 1ULL << i : 0), U((2ULL << i) - 1), U(buckets[i]),
		       b);
	}
	if (h->overflow)
		printf("%16s %-10s : %llu\n", ">= 68.7 s", "", U(h->overflow));
}

/**
 * iolat_text_qd_hist() - queue depths as a bar histogram
 * @n: counts in the buckets of lib/busy.h, [IOLAT_QD_BUCKETS]
 */
void iolat_text_qd_hist(const uint64_t *n)
{
	uint64_t max = 0;
	unsigned int i, hi = 0;
	char b[41];

	for (i = 0; i < IOLAT_QD_BUCKETS; i++) {
		if (n[i] > max)
			max = n[i];
		if (n[i])
			hi = i;
	}
	if (!max)
		return;
	printf("%13s : %-10s %s\n", "depth", "count", "distribution");
	for (i = 0; i <= hi; i++) {
		uint32_t lo = iolat_qd_bucket_low(i);
		uint32_t up = i + 1 < IOLAT_QD_BUCKETS ?
			      iolat_qd_bucket_low(i + 1) - 1 : lo;

		bar(b, n[i], max);
		if (lo == up)
			printf("%13u : %-10llu |%-40s|\n", lo, U(n[i]), b);
		else
			printf("%6u -> %-4u : %-10llu |%-40s|\n", lo, up,
			       U(n[i]), b);
	}
}

/* Request sizes: <= 512 B, then a bucket per power of two. */
static void size_hist(const uint64_t *n)
{
	unsigned int i, lo = IOLAT_SIZE_BUCKETS, hi = 0;
	uint64_t max = 0;
	char b[41];

	for (i = 0; i < IOLAT_SIZE_BUCKETS; i++) {
		if (!n[i])
			continue;
		lo = i < lo ? i : lo;
		hi = i;
		max = n[i] > max ? n[i] : max;
	}
	if (!max)
		return;
	printf("%21s : %-10s %s\n", "bytes", "count", "distribution");
	for (i = lo; i <= hi; i++) {
		bar(b, n[i], max);
		if (!i)
			printf("%21s : %-10llu |%-40s|\n", "<= 512", U(n[i]), b);
		else if (i == IOLAT_SIZE_BUCKETS - 1)
			printf("%10s %-10llu : %-10llu |%-40s|\n", ">",
			       U(512ULL << (i - 1)), U(n[i]), b);
		else
			printf("%10llu -> %-7llu : %-10llu |%-40s|\n",
			       U((512ULL << (i - 1)) + 1), U(512ULL << i),
			       U(n[i]), b);
	}
}

/* Where on the device: twenty slices of its capacity. */
static void lba_hist(const uint64_t *n)
{
	uint64_t max = 0;
	unsigned int i;
	char b[41];

	for (i = 0; i < IOLAT_LBA_BUCKETS; i++)
		max = n[i] > max ? n[i] : max;
	if (!max)
		return;
	printf("%13s : %-10s %s\n", "offset %", "count", "distribution");
	for (i = 0; i < IOLAT_LBA_BUCKETS; i++) {
		bar(b, n[i], max);
		printf("%6u -> %-4u : %-10llu |%-40s|\n",
		       i * 100 / IOLAT_LBA_BUCKETS,
		       (i + 1) * 100 / IOLAT_LBA_BUCKETS, U(n[i]), b);
	}
}

static void fmt_wall(char *buf, size_t len, uint64_t real_ns)
{
	time_t t = real_ns / 1000000000ULL;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
}

static int text_begin(struct iolat_an *an)
{
	char when[32];

	fmt_wall(when, sizeof(when), an->meta.t0_real_ns);
	printf("iolat %s on %s, Linux %s, module %s; started %s\n",
	       an->meta.cli_version, an->meta.host, an->meta.kernel,
	       an->meta.module_version, when);
	return 0;
}

static void pct_header(const struct iolat_an *an)
{
	unsigned int p;

	for (p = 0; p < an->o.nr_pct; p++)
		printf(" %9s", an->o.pct_name[p]);
}

static void pct_values(const struct iolat_an *an, const struct iolat_hist *h)
{
	unsigned int p;
	char a[32];

	for (p = 0; p < an->o.nr_pct; p++) {
		iolat_fmt_ns(a, sizeof(a),
			     iolat_hist_percentile(h, an->o.pct_ppm[p]));
		printf(" %9s", a);
	}
}

static void text_interval(struct iolat_an *an, uint64_t from, uint64_t to)
{
	double secs = (to - from) / 1e9;
	const struct iolat_hist *h;
	unsigned int d, op, stage;
	bool any = false;
	char a[32];

	if (!from) {
		printf("\n%8s %-10s %-12s %8s %9s %8s %6s %5s", "time_s",
		       "device", "op", "I/Os", "IOPS", "MB/s", "merge", "stage");
		pct_header(an);
		printf(" %9s\n", "max");
	}
	for (d = 0; d < an->nr_devs; d++) {
		for (op = 0; op < IOLAT_AN_OPS; op++) {
			const struct iolat_an_op *o = &an->devs[d].ival[op];

			if (!o->ios)
				continue;
			any = true;
			h = iolat_an_total(o, &stage);
			printf("%8.1f %-10s %-12s %8llu %9.1f %8.2f %5.1f%% %5s",
			       to / 1e9, an->devs[d].name, iolat_an_op_name(op),
			       U(o->ios), secs > 0 ? o->ios / secs : 0,
			       secs > 0 ? o->bytes / secs / 1e6 : 0,
			       o->bios ? 100.0 * (o->bios - o->ios) / o->bios : 0,
			       iolat_an_stage_name(stage));
			if (!h) {
				printf("\n");
				continue;
			}
			pct_values(an, h);
			iolat_fmt_ns(a, sizeof(a), h->max);
			printf(" %9s\n", a);
		}
	}
	if (!any)
		printf("%8.1f %-10s\n", to / 1e9, "-");
	fflush(stdout);
}

static void stage_table(const struct iolat_an *an, const struct iolat_an_op *o)
{
	unsigned int stage;
	char a[32];

	printf("  %-5s %9s %9s", "stage", "count", "min");
	pct_header(an);
	printf(" %9s %9s %9s\n", "max", "mean", "stddev");
	for (stage = 0; stage < IOLAT_AN_STAGES; stage++) {
		const struct iolat_hist *s = o->hist[stage];

		if (!s || !s->count)
			continue;
		iolat_fmt_ns(a, sizeof(a), s->min);
		printf("  %-5s %9llu %9s", iolat_an_stage_name(stage),
		       U(s->count), a);
		pct_values(an, s);
		iolat_fmt_ns(a, sizeof(a), s->max);
		printf(" %9s", a);
		iolat_fmt_ns(a, sizeof(a), iolat_hist_mean(s));
		printf(" %9s", a);
		iolat_fmt_ns(a, sizeof(a), iolat_hist_stddev(s));
		printf(" %9s\n", a);
	}
}

static void device_summary(const struct iolat_an *an,
			   const struct iolat_an_dev *d, double secs)
{
	uint64_t ios = 0, bios = 0, rd = 0, wr = 0, pf = 0;
	const struct iolat_hist *h;
	unsigned int op, stage;

	for (op = 0; op < IOLAT_AN_OPS; op++) {
		ios += d->run[op].ios;
		bios += d->run[op].bios;
	}
	if (!ios)
		return;
	rd = d->run[IOLAT_OP_READ].ios;
	wr = d->run[IOLAT_OP_WRITE].ios;
	pf = d->run[IOLAT_AN_PREFLUSH].ios;
	printf("\n%s: %llu I/Os, %.1f IOPS; reads %.1f%%, writes %.1f%%, ",
	       d->name, U(ios), secs > 0 ? ios / secs : 0, 100.0 * rd / ios,
	       100.0 * wr / ios);
	if (pf)
		printf("preflush %.1f%%, ", 100.0 * pf / ios);
	printf("other %.1f%%; %llu bios merged into requests (%.1f%%)\n",
	       100.0 * (ios - rd - wr - pf) / ios,
	       U(bios - ios), bios ? 100.0 * (bios - ios) / bios : 0);
	for (op = 0; op < IOLAT_AN_OPS; op++) {
		const struct iolat_an_op *o = &d->run[op];

		if (!o->ios)
			continue;
		printf("\n%s %s: %llu I/Os, %llu bytes%s\n", d->name,
		       iolat_an_op_name(op), U(o->ios), U(o->bytes),
		       op == IOLAT_AN_PREFLUSH ?
		       " (writes without data, each waiting for a cache flush: the kernel counts them as writes)" :
		       "");
		stage_table(an, o);
		h = iolat_an_total(o, &stage);
		if (h) {
			printf("  %s distribution:\n", iolat_an_stage_name(stage));
			iolat_text_hist(h);
		}
	}
	if (!an->aggregated) {
		printf("\n%s request sizes:\n", d->name);
		size_hist(d->size);
	}
	printf("\n%s queue depth at issue:\n", d->name);
	iolat_text_qd_hist(d->qd);
	if (an->aggregated)
		printf("\n(aggregated in the kernel: no sizes, offsets or processes)\n");
	else if (d->sectors) {
		printf("\n%s offsets (%% of %llu sectors):\n", d->name,
		       U(d->sectors));
		lba_hist(d->lba);
	}
}

/*
 * A stack's bio-based devices: their I/Os split into the time below them
 * (the first request made from the I/O queued under the device, to the
 * last one completed there) and above (the rest of Q2C), per op.
 */
static void stacks(const struct iolat_an *an)
{
	const struct iolat_an_split *sp;
	const struct iolat_an_dev *d;
	unsigned int i, op;
	char a[32], b[32], c[32], e[32], f[32];

	for (i = 0; i < an->nr_devs; i++) {
		d = &an->devs[i];
		if (!iolat_stack_has(d))
			continue;
		printf("\n%-8s %9s %9s %9s %9s %9s %9s  (%s: above it, below it)\n",
		       "op", "I/Os", "requests", "above p50", "above p99",
		       "below p50", "below p99", d->name);
		for (op = 0; op < IOLAT_AN_OPS; op++) {
			sp = &d->split[op];
			if (!sp->ios || !sp->above)
				continue;
			iolat_fmt_ns(a, sizeof(a),
				     iolat_hist_percentile(sp->above, 500000));
			iolat_fmt_ns(b, sizeof(b),
				     iolat_hist_percentile(sp->above, 990000));
			/* aggregated: the lower devices' rows show below */
			strcpy(c, "-");
			strcpy(e, "-");
			if (sp->below) {
				iolat_fmt_ns(c, sizeof(c),
					     iolat_hist_percentile(sp->below, 500000));
				iolat_fmt_ns(e, sizeof(e),
					     iolat_hist_percentile(sp->below, 990000));
			}
			snprintf(f, sizeof(f), "%llu", U(sp->pieces));
			printf("%-8s %9llu %9s %9s %9s %9s %9s\n",
			       iolat_an_op_name(op), U(sp->ios),
			       sp->aggregated ? "-" : f, a, b, c, e);
		}
		if (d->split_alone || d->split_outside)
			printf("%s: %llu I/Os with no request seen below, %llu whose requests below fell outside them\n",
			       d->name, U(d->split_alone), U(d->split_outside));
	}
	if (an->split_orphans)
		printf("%llu requests below a stack whose I/O was not recorded\n",
		       U(an->split_orphans));
}

/*
 * A whole disk's requests by partition; "-" holds the disk's own
 * (flushes) and those outside every partition listed.
 */
static void partitions(const struct iolat_an *an)
{
	const struct iolat_an_part *p;
	unsigned int d, i;
	char a[32], b[32];

	for (d = 0; d < an->nr_devs; d++) {
		if (!an->devs[d].nr_parts)
			continue;
		printf("\n%-16s %9s %12s %9s %9s  (%s by partition)\n",
		       "partition", "I/Os", "bytes", "mean", "p99",
		       an->devs[d].name);
		for (i = 0; i <= an->devs[d].nr_parts; i++) {
			p = &an->devs[d].parts[i];
			if (i == an->devs[d].nr_parts && !p->ios)
				continue;
			iolat_fmt_ns(a, sizeof(a),
				     p->lat ? iolat_hist_mean(p->lat) : 0);
			iolat_fmt_ns(b, sizeof(b), p->lat ?
				     iolat_hist_percentile(p->lat, 990000) : 0);
			printf("%-16s %9llu %12llu %9s %9s\n", p->name,
			       U(p->ios), U(p->bytes), a, b);
		}
	}
}

/* --cgroups: a row per cgroup and device, the busiest first. */
static void cgroups(const struct iolat_an *an)
{
	const struct iolat_an_cg **sorted = iolat_an_cgroups_sorted(an);
	char v[4][32], name[128];
	unsigned int i;

	if (an->nr_cgs)
		printf("\n%-32s %-10s %9s %12s %9s %9s %9s %9s %6s\n", "cgroup",
		       "device", "I/Os", "bytes", "Q2C p50", "Q2C p99",
		       "D2C p50", "D2C p99", "queue%");
	for (i = 0; i < an->nr_cgs; i++) {
		const struct iolat_an_cg *g = sorted ? sorted[i] : &an->cgs[i];
		const struct iolat_hist *h[4] = { g->q2c, g->q2c, g->d2c, g->d2c };
		unsigned int k;

		for (k = 0; k < 4; k++)
			if (h[k])
				iolat_fmt_ns(v[k], sizeof(v[k]),
					     iolat_hist_percentile(h[k], k % 2 ? 990000 : 500000));
			else
				snprintf(v[k], sizeof(v[k]), "-");
		printf("%-32s %-10s %9llu %12llu %9s %9s %9s %9s %6.1f\n",
		       g->rest ? "other" :
		       iolat_cgroup_label(g->id, g->path, true, name, sizeof(name)),
		       an->devs[g->dev].name,
		       U(g->ios), U(g->bytes), v[0], v[1], v[2], v[3],
		       100 * iolat_an_cg_share(an, g));
	}
	free(sorted);
}

static void groups(const struct iolat_an *an)
{
	const struct iolat_an_group **sorted = iolat_an_procs_sorted(an);
	unsigned int i;
	char a[32], b[32];

	if (an->nr_procs)
		printf("\n%-16s %8s %8s %-10s %9s %12s %9s %9s\n", "comm", "pid",
		       "tgid", "device", "I/Os", "bytes", "mean", "p99");
	for (i = 0; i < an->nr_procs; i++) {
		const struct iolat_an_group *g = sorted ? sorted[i] :
							  &an->procs[i];

		iolat_fmt_ns(a, sizeof(a), g->lat ? iolat_hist_mean(g->lat) : 0);
		iolat_fmt_ns(b, sizeof(b),
			     g->lat ? iolat_hist_percentile(g->lat, 990000) : 0);
		/* "-": no submitter seen (a flush the kernel issued) */
		if (!g->pid && !g->comm[0])
			printf("%-16s %8s %8s", "-", "-", "-");
		else
			printf("%-16s %8u %8u", g->comm[0] ? g->comm : "?",
			       g->pid, g->tgid);
		printf(" %-10s %9llu %12llu %9s %9s\n", an->devs[g->dev].name,
		       U(g->ios), U(g->bytes), a, b);
	}
	free(sorted);
	cgroups(an);
	partitions(an);
	stacks(an);
	if (an->nr_qids)
		printf("\n%-10s %4s %9s %12s %9s %9s %9s  (NVMe command time)\n",
		       "device", "qid", "commands", "bytes", "mean", "p50",
		       "p99");
	for (i = 0; i < an->nr_qids; i++) {
		const struct iolat_an_group *g = &an->qids[i];
		char c[32];

		iolat_fmt_ns(a, sizeof(a), g->lat ? iolat_hist_mean(g->lat) : 0);
		iolat_fmt_ns(b, sizeof(b),
			     g->lat ? iolat_hist_percentile(g->lat, 500000) : 0);
		iolat_fmt_ns(c, sizeof(c),
			     g->lat ? iolat_hist_percentile(g->lat, 990000) : 0);
		printf("%-10s %4u %9llu %12llu %9s %9s %9s\n",
		       an->devs[g->dev].name, g->qid, U(g->ios), U(g->bytes), a,
		       b, c);
	}
}

static void text_summary(struct iolat_an *an, const struct iolat_run *run,
			 const struct iolat_dev_counters *c)
{
	const struct iolat_stats *st = &run->stats;
	unsigned int d;

	(void)c;
	for (d = 0; d < an->nr_devs; d++)
		device_summary(an, &an->devs[d],
			       iolat_an_dev_secs(&an->devs[d], run->seconds));
	groups(an);
	if (!an->records)
		printf("no requests completed on the traced devices\n");
	printf("\nrecords: %llu delivered, %llu dropped (", U(run->delivered),
	       U(iolat_run_dropped(run)));
	iolat_stats_text(stdout, st, IOLAT_SC_drop);
	printf("), %llu filtered, %llu copied to user space; %.2f s\nevents: ",
	       U(st->filtered), U(st->copied), run->seconds);
	iolat_stats_text(stdout, st, IOLAT_SC_event);
	printf("\n");
	iolat_stack_line(stdout, "", st);
	if (iolat_stats_sum(st, IOLAT_SC_watch)) {
		printf("watch: ");
		iolat_stats_text(stdout, st, IOLAT_SC_watch);
		printf("\n");
	}
	if (iolat_stats_sum(st, IOLAT_SC_nvme)) {
		printf("nvme: ");
		iolat_stats_text(stdout, st, IOLAT_SC_nvme);
		printf("\n");
	}
	if (an->late)
		printf("%llu records came after their interval was printed: in the totals only\n",
		       U(an->late));
	if (an->watch) {
		printf("trigger: ");
		iolat_trigger_text(stdout, an->watch, an->watch_dev);
		printf("\n");
		iolat_trigger_window_text(stdout, an->watch);
		printf("\n");
	}
}

const struct iolat_output iolat_out_text = {
	.name = "text",
	.begin = text_begin,
	.interval = text_interval,
	.summary = text_summary,
};
