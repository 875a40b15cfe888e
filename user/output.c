// SPDX-License-Identifier: GPL-2.0
/*
 * Output hooks, chosen once from -o: commands hand results to the hooks
 * and never print results themselves.
 */
#include <stdio.h>
#include <string.h>
#include "iolat.h"

static const uint32_t pct_ppm[] = { 500000, 900000, 990000, 999000 };
static const char *const pct_name[] = { "p50", "p90", "p99", "p99.9" };

#define NR_PCT (sizeof(pct_ppm) / sizeof(pct_ppm[0]))

/* Counts are __u64 (unsigned long long) or uint64_t; print them as one. */
#define U(x) ((unsigned long long)(x))

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

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
}

static void text_begin(const struct iolat_run *run)
{
	(void)run;
}

static void text_device(const char *dev, const struct iolat_op_result *ops,
			unsigned int nr_ops, bool first)
{
	unsigned int i, p;
	char a[32], b[32];

	for (i = 0; i < nr_ops; i++) {
		const struct iolat_hist *h = ops[i].hist;

		printf("%s%s %s: %llu I/Os, issue to completion (D2C)\n",
		       first && !i ? "" : "\n", dev, ops[i].op, U(h->count));
		text_hist(h);
		if (h->overflow)
			printf("%16s %-10s : %llu\n", ">= 68.7 s", "",
			       U(h->overflow));
		fmt_ns(a, sizeof(a), h->min);
		printf("  min %s", a);
		for (p = 0; p < NR_PCT; p++) {
			fmt_ns(a, sizeof(a), iolat_hist_percentile(h, pct_ppm[p]));
			printf("  %s %s", pct_name[p], a);
		}
		fmt_ns(a, sizeof(a), h->max);
		fmt_ns(b, sizeof(b), (double)h->sum / h->count);
		printf("  max %s  mean %s\n", a, b);
	}
}

static uint64_t dropped(const struct iolat_stats *st)
{
	return st->drop_full + st->drop_unmatched + st->drop_range;
}

static void text_end(const struct iolat_run *run)
{
	const struct iolat_stats *st = &run->stats;

	if (!run->delivered)
		printf("no requests completed on the traced devices\n");
	printf("\nrecords: %llu delivered, %llu dropped (buffer full %llu, in flight at start %llu, outside queue geometry %llu); %llu partial completions; %.2f s\n",
	       U(run->delivered), U(dropped(st)), U(st->drop_full),
	       U(st->drop_unmatched), U(st->drop_range), U(st->partial),
	       run->seconds);
}

static void json_begin(const struct iolat_run *run)
{
	(void)run;
	printf("{\"devices\": [");
}

static void json_device(const char *dev, const struct iolat_op_result *ops,
			unsigned int nr_ops, bool first)
{
	unsigned int i, p;

	printf("%s{\"name\": \"%s\", \"ops\": [", first ? "" : ", ", dev);
	for (i = 0; i < nr_ops; i++) {
		const struct iolat_hist *h = ops[i].hist;

		printf("%s{\"op\": \"%s\", \"count\": %llu, \"min_ns\": %llu, \"max_ns\": %llu, \"mean_ns\": %.1f, \"overflow\": %llu",
		       i ? ", " : "", ops[i].op, U(h->count), U(h->min),
		       U(h->max), (double)h->sum / h->count, U(h->overflow));
		for (p = 0; p < NR_PCT; p++)
			printf(", \"%s_ns\": %llu", pct_name[p],
			       U(iolat_hist_percentile(h, pct_ppm[p])));
		printf("}");
	}
	printf("]}");
}

static void json_end(const struct iolat_run *run)
{
	const struct iolat_stats *st = &run->stats;

	printf("], \"seconds\": %.3f, \"records\": {\"delivered\": %llu, \"written\": %llu, \"dropped\": %llu, \"drop_full\": %llu, \"drop_unmatched\": %llu, \"drop_range\": %llu, \"partial\": %llu, \"decode_errors\": %llu}, \"incomplete\": %s}\n",
	       run->seconds, U(run->delivered), U(st->written), U(dropped(st)),
	       U(st->drop_full), U(st->drop_unmatched), U(st->drop_range),
	       U(st->partial), U(run->decode_errors),
	       run->incomplete ? "true" : "false");
}

static const struct iolat_output outputs[] = {
	{ "text", text_begin, text_device, text_end },
	{ "json", json_begin, json_device, json_end },
};

const struct iolat_output *iolat_output_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (!strcmp(outputs[i].name, name))
			return &outputs[i];
	return NULL;
}
