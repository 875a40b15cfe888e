// SPDX-License-Identifier: GPL-2.0
/*
 * Output hooks of `iolat record`, chosen once from -o: the command hands
 * results to the hooks and never prints results itself.
 */
#include <stdio.h>
#include <string.h>
#include "iolat.h"

static const uint32_t pct_ppm[] = { 500000, 900000, 990000, 999000 };
static const char *const pct_name[] = { "p50", "p90", "p99", "p99.9" };

#define NR_PCT (sizeof(pct_ppm) / sizeof(pct_ppm[0]))

/* Counts are __u64 (unsigned long long) or uint64_t; print them as one. */
#define U(x) ((unsigned long long)(x))

/* log2 buckets of microseconds, as biolatency prints them. */
#define NR_LOG2 40

static unsigned int log2_bucket(uint64_t us)
{
	unsigned int k = 0;

	while (us > 1 && k < NR_LOG2 - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

static void text_hist(const struct iolat_hist *h)
{
	uint64_t buckets[NR_LOG2] = { 0 }, max = 0;
	unsigned int i, lo = NR_LOG2, hi = 0;

	for (i = 0; i < IOLAT_HIST_NR_BINS; i++) {
		unsigned int k;

		if (!h->bins[i])
			continue;
		/* power-of-two microsecond bounds fall on bin bounds */
		k = log2_bucket(iolat_hist_bin_lo(i) / 1000);
		buckets[k] += h->bins[i];
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
		uint64_t from = i ? 1ULL << i : 0, to = (2ULL << i) - 1;
		unsigned int stars = max ? buckets[i] * 40 / max : 0;
		char bar[41];

		memset(bar, '*', stars);
		bar[stars] = '\0';
		printf("%16llu -> %-10llu: %-9llu |%-40s|\n", U(from), U(to),
		       U(buckets[i]), bar);
	}
	if (h->overflow)
		printf("%16s %-10s : %llu\n", ">= 68.7 s", "", U(h->overflow));
}

/* The histogram a request's total is shown as: Q2C, else D2C. */
static const struct iolat_hist *total_hist(const struct iolat_op_result *op,
					   const char **name)
{
	*name = "Q2C";
	if (op->hist[IOLAT_STAGE_Q2C])
		return op->hist[IOLAT_STAGE_Q2C];
	*name = "D2C";
	return op->hist[IOLAT_STAGE_D2C];
}

static void text_begin(const struct iolat_run *run)
{
	(void)run;
}

static void text_interval(double t, const char *dev,
			  const struct iolat_op_result *op, bool first)
{
	const struct iolat_hist *h;
	const char *name;
	char p50[32], p99[32], max[32];

	if (first)
		printf("%8s %-10s %-13s %9s %5s %10s %10s %10s\n", "time_s",
		       "device", "op", "I/Os", "stage", "p50", "p99", "max");
	if (!dev) {
		printf("%8.1f %-10s\n", t, "-");
		return;
	}
	h = total_hist(op, &name);
	if (!h)
		return;
	iolat_fmt_ns(p50, sizeof(p50), iolat_hist_percentile(h, 500000));
	iolat_fmt_ns(p99, sizeof(p99), iolat_hist_percentile(h, 990000));
	iolat_fmt_ns(max, sizeof(max), h->max);
	printf("%8.1f %-10s %-13s %9llu %5s %10s %10s %10s\n", t, dev, op->op,
	       U(h->count), name, p50, p99, max);
}

static void text_device(const char *dev, const struct iolat_op_result *ops,
			unsigned int nr_ops, bool first)
{
	unsigned int i, p, stage;
	const struct iolat_hist *h;
	const char *name;
	char a[32];

	for (i = 0; i < nr_ops; i++) {
		h = total_hist(&ops[i], &name);
		printf("%s%s %s: %llu I/Os\n", first && !i ? "" : "\n", dev,
		       ops[i].op, U(h ? h->count : 0));
		printf("  %-5s %9s %10s", "stage", "count", "min");
		for (p = 0; p < NR_PCT; p++)
			printf(" %10s", pct_name[p]);
		printf(" %10s %10s\n", "max", "mean");
		for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
			const struct iolat_hist *s = ops[i].hist[stage];

			if (!s)
				continue;
			iolat_fmt_ns(a, sizeof(a), s->min);
			printf("  %-5s %9llu %10s", iolat_stage_name(stage),
			       U(s->count), a);
			for (p = 0; p < NR_PCT; p++) {
				iolat_fmt_ns(a, sizeof(a),
					     iolat_hist_percentile(s, pct_ppm[p]));
				printf(" %10s", a);
			}
			iolat_fmt_ns(a, sizeof(a), s->max);
			printf(" %10s", a);
			iolat_fmt_ns(a, sizeof(a), (double)s->sum / s->count);
			printf(" %10s\n", a);
		}
		if (h) {
			printf("  %s distribution:\n", name);
			text_hist(h);
		}
	}
}

static void text_procs(const struct iolat_proc_result *p, unsigned int nr)
{
	unsigned int i;
	char a[32], b[32];

	if (!nr)
		return;
	printf("\n%-16s %8s %8s %-10s %9s %12s %10s %10s\n", "comm", "pid",
	       "tgid", "device", "I/Os", "bytes", "mean", "p99");
	for (i = 0; i < nr; i++) {
		const struct iolat_hist *h = p[i].q2c;

		iolat_fmt_ns(a, sizeof(a), h && h->count ?
			     (double)h->sum / h->count : 0);
		iolat_fmt_ns(b, sizeof(b), h ? iolat_hist_percentile(h, 990000) : 0);
		printf("%-16s %8u %8u %-10s %9llu %12llu %10s %10s\n",
		       p[i].comm[0] ? p[i].comm : "?", p[i].pid, p[i].tgid,
		       p[i].dev, U(p[i].ios), U(p[i].bytes), a, b);
	}
}

static void text_end(const struct iolat_run *run)
{
	const struct iolat_stats *st = &run->stats;

	if (!run->delivered)
		printf("no requests completed on the traced devices\n");
	printf("\nrecords: %llu delivered, %llu dropped (buffer full %llu, in flight at start or issued while stopping %llu, outside queue geometry %llu), %llu filtered; %.2f s\n",
	       U(run->delivered), U(iolat_run_dropped(run)), U(st->drop_full),
	       U(st->drop_unmatched), U(st->drop_range), U(st->filtered),
	       run->seconds);
	printf("events: %llu bio merges, %llu request merges, %llu splits, %llu requeues, %llu errors, %llu partial completions, %llu plugs, %llu unplugs\n",
	       U(st->bio_merges), U(st->rq_merges), U(st->splits),
	       U(st->requeues), U(st->errors), U(st->partial), U(st->plugs),
	       U(st->unplugs));
}

/* JSON: {"intervals": [...], "devices": [...], "processes": [...], ...} */
static void json_hist(const char *name, const struct iolat_hist *h, bool first)
{
	unsigned int p;

	printf("%s\"%s\": {\"count\": %llu, \"min_ns\": %llu, \"max_ns\": %llu, \"mean_ns\": %.1f, \"overflow\": %llu",
	       first ? "" : ", ", name, U(h->count), U(h->min), U(h->max),
	       h->count ? (double)h->sum / h->count : 0.0, U(h->overflow));
	for (p = 0; p < NR_PCT; p++)
		printf(", \"%s_ns\": %llu", pct_name[p],
		       U(iolat_hist_percentile(h, pct_ppm[p])));
	printf("}");
}

static void json_stages(const struct iolat_op_result *op)
{
	unsigned int stage;
	bool first = true;

	printf("\"stages\": {");
	for (stage = 0; stage < IOLAT_STAGE_NR; stage++) {
		if (!op->hist[stage])
			continue;
		json_hist(iolat_stage_name(stage), op->hist[stage], first);
		first = false;
	}
	printf("}");
}

static bool json_first_item;	/* no interval printed yet */
static bool json_devices_open;	/* the "devices" array was started */

static void json_begin(const struct iolat_run *run)
{
	(void)run;
	printf("{\"intervals\": [");
	json_first_item = true;
	json_devices_open = false;
}

static void json_interval(double t, const char *dev,
			  const struct iolat_op_result *op, bool first)
{
	(void)first;
	if (!dev)
		return;
	printf("%s{\"time_s\": %.3f, \"device\": \"%s\", \"op\": \"%s\", ",
	       json_first_item ? "" : ", ", t, dev, op->op);
	json_stages(op);
	printf("}");
	json_first_item = false;
}

static void json_device(const char *dev, const struct iolat_op_result *ops,
			unsigned int nr_ops, bool first)
{
	const struct iolat_hist *h;
	const char *name;
	unsigned int i;

	printf("%s{\"name\": \"%s\", \"ops\": [", first ? "], \"devices\": [" : ", ",
	       dev);
	json_devices_open = true;
	for (i = 0; i < nr_ops; i++) {
		h = total_hist(&ops[i], &name);
		printf("%s{\"op\": \"%s\", \"count\": %llu, ", i ? ", " : "",
		       ops[i].op, U(h ? h->count : 0));
		json_stages(&ops[i]);
		printf("}");
	}
	printf("]}");
}

static void json_procs(const struct iolat_proc_result *p, unsigned int nr)
{
	unsigned int i;

	/* no device had records: an empty device list */
	if (!json_devices_open)
		printf("], \"devices\": [");
	printf("], \"processes\": [");
	for (i = 0; i < nr; i++) {
		printf("%s{\"comm\": \"", i ? ", " : "");
		for (const char *c = p[i].comm; *c; c++)
			printf(*c == '"' || *c == '\\' ? "\\%c" :
			       (unsigned char)*c < 0x20 ? "?" : "%c", *c);
		printf("\", \"pid\": %u, \"tgid\": %u, \"device\": \"%s\", \"ios\": %llu, \"bytes\": %llu",
		       p[i].pid, p[i].tgid, p[i].dev, U(p[i].ios), U(p[i].bytes));
		if (p[i].q2c)
			json_hist("latency", p[i].q2c, false);
		printf("}");
	}
	printf("]");
}

static void json_end(const struct iolat_run *run)
{
	const struct iolat_stats *st = &run->stats;
	unsigned int i;

	printf(", \"seconds\": %.3f, \"records\": {\"delivered\": %llu, \"written\": %llu, \"dropped\": %llu, \"drop_full\": %llu, \"drop_unmatched\": %llu, \"drop_range\": %llu, \"filtered\": %llu, \"decode_errors\": %llu}",
	       run->seconds, U(run->delivered), U(st->written),
	       U(iolat_run_dropped(run)), U(st->drop_full),
	       U(st->drop_unmatched), U(st->drop_range), U(st->filtered),
	       U(run->decode_errors));
	printf(", \"events\": {\"bio_merges\": %llu, \"rq_merges\": %llu, \"splits\": %llu, \"requeues\": %llu, \"errors\": %llu, \"partial\": %llu, \"plugs\": %llu, \"unplugs\": %llu}",
	       U(st->bio_merges), U(st->rq_merges), U(st->splits),
	       U(st->requeues), U(st->errors), U(st->partial), U(st->plugs),
	       U(st->unplugs));
	printf(", \"missing_tracepoints\": [");
	for (i = 0; i < run->nr_missing; i++)
		printf("%s\"%s\"", i ? ", " : "", run->missing[i]);
	printf("], \"incomplete\": %s}\n", run->incomplete ? "true" : "false");
}

static const struct iolat_output outputs[] = {
	{ "text", text_begin, text_interval, text_device, text_procs, text_end },
	{ "json", json_begin, json_interval, json_device, json_procs, json_end },
};

const struct iolat_output *iolat_output_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (!strcmp(outputs[i].name, name))
			return &outputs[i];
	return NULL;
}
