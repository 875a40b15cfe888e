// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition (format 0.0.4) of a run: classic histograms
 * of request latency per device, op and stage (Q2C, D2C, NVMe), with the
 * same fixed bounds on every host so that sums across hosts are exact,
 * and counters from the module's exact accounting, so that rate() of
 * iolat_busy_seconds_total is %util and of iolat_inflight_seconds_total
 * is aqu-sz.
 *
 * Bounds: four per power of two from 2^10 ns (1 us) to 2^36 ns (68.7 s):
 * b = 2^e + j * 2^(e-2), j = 0..3.  Each is an edge of iolat's bins, and
 * le is b - 1 ns, so "<= le" counts exactly the bins below b (latencies
 * are whole nanoseconds).  Latencies from 2^36 ns on count only in +Inf.
 * --buckets takes every 2nd, 4th or 8th of them (2, 1 or 0.5 per power
 * of two) for a fleet that cannot keep 105 series per histogram: still
 * the same on every host that chose the same, and a subset of the finer.
 *
 * Every device's read and write series (Q2C and D2C; NVMe once an NVMe
 * command is seen) are there from the start, at zero, so that rate()
 * and increase() see the first requests; other ops once they are seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"

#define U(x) ((unsigned long long)(x))

#define PROM_FIRST_EXP	10
#define PROM_LAST_EXP	36
#define PROM_NR_BOUNDS	((PROM_LAST_EXP - PROM_FIRST_EXP) * 4 + 1)

/* The k-th bound, an edge of iolat's bins. */
uint64_t iolat_prom_bound(unsigned int k)
{
	unsigned int e = PROM_FIRST_EXP + k / 4;

	return (1ULL << e) + (k % 4) * (1ULL << (e - 2));
}

/* "4", "2", "1", "0.5" (or NULL: 4) -> 1, 2, 4, 8. */
int iolat_prom_parse_step(const char *per, unsigned int *step)
{
	static const char *const pers[] = { "4", "2", "1", "0.5" };
	unsigned int i;

	*step = 1;
	if (!per)
		return 0;
	for (i = 0; i < sizeof(pers) / sizeof(pers[0]); i++) {
		if (!strcmp(per, pers[i])) {
			*step = 1U << i;
			return 0;
		}
	}
	iolat_err("--buckets takes 4, 2, 1 or 0.5 bounds per power of two, not '%s'",
		  per);
	return -1;
}

static const unsigned int prom_stages[] = {
	IOLAT_STAGE_Q2C, IOLAT_STAGE_D2C, IOLAT_AN_NVME,
};

static void hist_series(FILE *f, const char *dev, unsigned int op,
			const char *stage, const struct iolat_hist *h,
			unsigned int step)
{
	uint64_t below = 0;
	unsigned int bin = 0, k;

	for (k = 0; k < PROM_NR_BOUNDS; k += step ? step : 1) {
		uint64_t b = iolat_prom_bound(k);

		while (bin < IOLAT_HIST_NR_BINS && iolat_hist_bin_lo(bin) < b)
			below += h->bins[bin++];
		fprintf(f, "iolat_request_duration_seconds_bucket{device=\"%s\",op=\"%s\",stage=\"%s\",le=\"%llu.%09llu\"} %llu\n",
			dev, iolat_an_op_name(op), stage,
			U((b - 1) / 1000000000ULL), U((b - 1) % 1000000000ULL),
			U(below));
	}
	fprintf(f, "iolat_request_duration_seconds_bucket{device=\"%s\",op=\"%s\",stage=\"%s\",le=\"+Inf\"} %llu\n",
		dev, iolat_an_op_name(op), stage, U(h->count));
	fprintf(f, "iolat_request_duration_seconds_sum{device=\"%s\",op=\"%s\",stage=\"%s\"} %llu.%09llu\n",
		dev, iolat_an_op_name(op), stage,
		U(h->sum / 1000000000ULL), U(h->sum % 1000000000ULL));
	fprintf(f, "iolat_request_duration_seconds_count{device=\"%s\",op=\"%s\",stage=\"%s\"} %llu\n",
		dev, iolat_an_op_name(op), stage, U(h->count));
}

/*
 * A stack's bio-based device: its I/Os' time above and below the requests
 * made from them, as stages "above" and "below" ("below" only from
 * records: the module keeps no histogram of it).
 */
static void split_series(FILE *f, const struct iolat_an *an,
			 const struct iolat_an_dev *d)
{
	const struct iolat_an_split *sp;
	unsigned int op;

	for (op = 0; op < IOLAT_AN_OPS; op++) {
		sp = &d->split[op];
		if (sp->above && sp->above->count)
			hist_series(f, d->name, op, "above", sp->above,
				    an->o.prom_step);
		if (sp->below && sp->below->count)
			hist_series(f, d->name, op, "below", sp->below,
				    an->o.prom_step);
	}
}

/*
 * Is this op's (and stage's: -1 for any) series written before its first
 * request?  Reads and writes, Q2C and D2C; NVMe once NVMe commands are.
 */
static bool prom_always(const struct iolat_an *an, unsigned int op, int stage)
{
	if (op != IOLAT_OP_READ && op != IOLAT_OP_WRITE)
		return false;
	return stage != IOLAT_AN_NVME || an->nvme;
}

static void counter_head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

static void ns_counter(FILE *f, const char *name, const char *dev,
		       uint64_t ns)
{
	fprintf(f, "%s{device=\"%s\"} %llu.%09llu\n", name, dev,
		U(ns / 1000000000ULL), U(ns % 1000000000ULL));
}

/* A stack's bio-based devices: their I/Os' time below, from the counters. */
static void below_counters(FILE *f, const struct iolat_an *an,
			   const struct iolat_dev_counters *c)
{
	unsigned int d, op;
	bool any = false;

	for (d = 0; d < an->nr_devs; d++)
		any |= c[d].valid && c[d].has_below;
	if (!any)
		return;
	counter_head(f, "iolat_stack_below_seconds_total", "A stack's device: its I/Os' time below it, from the first request made from each to the last one's completion, exact; the rest of their time was above, in the stack's own layers.");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; c[d].valid && c[d].has_below && op < IOLAT_OP_NR; op++)
			if (c[d].ios[op])
				fprintf(f, "iolat_stack_below_seconds_total{device=\"%s\",op=\"%s\"} %llu.%09llu\n",
					an->devs[d].name, iolat_an_op_name(op),
					U(c[d].below_ns[op] / 1000000000ULL),
					U(c[d].below_ns[op] % 1000000000ULL));
	counter_head(f, "iolat_stack_joined_total", "A stack's device: its I/Os with requests below it, exact.");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; c[d].valid && c[d].has_below && op < IOLAT_OP_NR; op++)
			if (c[d].ios[op])
				fprintf(f, "iolat_stack_joined_total{device=\"%s\",op=\"%s\"} %llu\n",
					an->devs[d].name, iolat_an_op_name(op),
					U(c[d].below_ios[op]));
}

/**
 * iolat_prom_write() - the exposition of a run so far
 * @f: where to
 * @an: the analysis (histograms over the run)
 * @run: the session's accounting
 * @c: each device's counters, or NULL
 */
void iolat_prom_write(FILE *f, const struct iolat_an *an,
		      const struct iolat_run *run,
		      const struct iolat_dev_counters *c)
{
	static struct iolat_hist zero;	/* a series before its first request */
	const struct iolat_stats *st = &run->stats;
	unsigned int d, op, s, i;

	fprintf(f, "# HELP iolat_build_info The versions of iolat's CLI and module, and the kernel.\n# TYPE iolat_build_info gauge\n");
	fprintf(f, "iolat_build_info{version=\"%s\",module=\"%s\",kernel=\"%s\"} 1\n",
		an->meta.cli_version[0] ? an->meta.cli_version : IOLAT_VERSION,
		an->meta.module_version, an->meta.kernel);
	fprintf(f, "# HELP iolat_request_duration_seconds Block request latency per stage (Q2C queued to completed, D2C issued to completed, NVMe command), from iolat's per-request records; a stack's device also its I/Os' time above and below it.\n# TYPE iolat_request_duration_seconds histogram\n");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; op < IOLAT_AN_OPS; op++)
			for (s = 0; s < sizeof(prom_stages) / sizeof(prom_stages[0]); s++) {
				const struct iolat_hist *h =
					an->devs[d].run[op].hist[prom_stages[s]];

				if (h && h->count)
					hist_series(f, an->devs[d].name, op,
						    iolat_an_stage_name(prom_stages[s]),
						    h, an->o.prom_step);
				else if (prom_always(an, op, prom_stages[s]))
					hist_series(f, an->devs[d].name, op,
						    iolat_an_stage_name(prom_stages[s]),
						    &zero, an->o.prom_step);
			}
	for (d = 0; d < an->nr_devs; d++)
		split_series(f, an, &an->devs[d]);
	counter_head(f, "iolat_requests_total", "Requests completed, from the records.");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; op < IOLAT_AN_OPS; op++)
			if (an->devs[d].run[op].ios || prom_always(an, op, -1))
				fprintf(f, "iolat_requests_total{device=\"%s\",op=\"%s\"} %llu\n",
					an->devs[d].name, iolat_an_op_name(op),
					U(an->devs[d].run[op].ios));
	counter_head(f, "iolat_bytes_total", "Bytes of the requests completed, from the records.");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; op < IOLAT_AN_OPS; op++)
			if (an->devs[d].run[op].ios || prom_always(an, op, -1))
				fprintf(f, "iolat_bytes_total{device=\"%s\",op=\"%s\"} %llu\n",
					an->devs[d].name, iolat_an_op_name(op),
					U(an->devs[d].run[op].bytes));
	if (c) {
		counter_head(f, "iolat_busy_seconds_total", "Time with a request at the driver (issue to completion), exact: rate() is %util.");
		for (d = 0; d < an->nr_devs; d++)
			if (c[d].valid)
				ns_counter(f, "iolat_busy_seconds_total",
					   an->devs[d].name, c[d].busy_ns);
		counter_head(f, "iolat_queue_busy_seconds_total", "Time with a request in the queue (first stage to completion), exact.");
		for (d = 0; d < an->nr_devs; d++)
			if (c[d].valid)
				ns_counter(f, "iolat_queue_busy_seconds_total",
					   an->devs[d].name, c[d].qbusy_ns);
		counter_head(f, "iolat_inflight_seconds_total", "Sum of the requests' times in the queue (first stage to completion): rate() is aqu-sz.");
		for (d = 0; d < an->nr_devs; d++)
			if (c[d].valid)
				ns_counter(f, "iolat_inflight_seconds_total",
					   an->devs[d].name, c[d].qinflight_ns);
		counter_head(f, "iolat_device_inflight_seconds_total", "Sum of the requests' times at the driver (issue to completion): rate() is the device's queue depth.");
		for (d = 0; d < an->nr_devs; d++)
			if (c[d].valid)
				ns_counter(f, "iolat_device_inflight_seconds_total",
					   an->devs[d].name, c[d].inflight_ns);
		below_counters(f, an, c);
	}
	counter_head(f, "iolat_records_total", "Records delivered to iolat.");
	fprintf(f, "iolat_records_total %llu\n", U(run->delivered));
	counter_head(f, "iolat_records_dropped_total", "Completions not recorded, per reason.");
	/* a reason's label: its text, words joined by '_' */
	for (i = 0; i < IOLAT_STAT_NR; i++) {
		const char *t = iolat_stat_info[i].text;

		if (iolat_stat_info[i].class != IOLAT_SC_drop)
			continue;
		fprintf(f, "iolat_records_dropped_total{reason=\"");
		for (; *t; t++)
			fputc(*t == ' ' ? '_' : *t, f);
		fprintf(f, "\"} %llu\n", U(st->n[i]));
	}
}

static void prom_summary(struct iolat_an *an, const struct iolat_run *run,
			 const struct iolat_dev_counters *c)
{
	iolat_prom_write(stdout, an, run, c);
}

const struct iolat_output iolat_out_prom = {
	.name = "prom",
	.summary = prom_summary,
};
