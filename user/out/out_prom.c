// SPDX-License-Identifier: GPL-2.0
/*
 * iolat's Prometheus exposition of a run, in the text format (0.0.4) or
 * the protobuf one (expo.h): classic histograms of request latency per
 * device, op and stage (Q2C, D2C, NVMe), with the same fixed bounds on
 * every host so that sums across hosts are exact, and counters from the
 * module's exact accounting, so that rate() of iolat_busy_seconds_total
 * is %util and of iolat_inflight_seconds_total is aqu-sz.
 *
 * Bounds: four per power of two from 2^10 ns (1 us) to 2^36 ns (68.7 s):
 * b = 2^e + j * 2^(e-2), j = 0..3.  Each is an edge of iolat's bins, and
 * le is b - 1 ns, so "<= le" counts exactly the bins below b (latencies
 * are whole nanoseconds).  Latencies from 2^36 ns on count only in +Inf.
 * --buckets takes every 2nd, 4th or 8th of them (2, 1 or 0.5 per power
 * of two) for a fleet that cannot keep 105 series per histogram: still
 * the same on every host that chose the same, and a subset of the finer.
 * The protobuf exposition's histograms are also native ones, one series
 * each, as fine as the histograms they are made from (prom_buckets.c).
 *
 * Every device's read and write series (Q2C and D2C; NVMe once an NVMe
 * command is seen) are there from the start, at zero, so that rate()
 * and increase() see the first requests; other ops once they are seen.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"

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

static void hist_series(struct iolat_expo *x, const char *dev,
			unsigned int op, const char *stage,
			const struct iolat_hist *h)
{
	const struct iolat_expo_label l[] = {
		{ "device", dev }, { "op", iolat_an_op_name(op) },
		{ "stage", stage },
	};

	iolat_expo_hist(x, l, 3, h);
}

/*
 * export --cgroups: per device, its named cgroups (iolat_an_cgroups_name())
 * by path and the rest summed as cgroup "other": their Q2C, requests and
 * bytes, each family written by one pass of @what (0, 1, 2).
 */
static void cgroup_family(struct iolat_expo *x, const struct iolat_an *an,
			  unsigned int what, struct iolat_hist *other)
{
	unsigned int d, i;
	char buf[32];

	for (d = 0; d < an->nr_devs; d++) {
		struct iolat_expo_label l[] = {
			{ "device", an->devs[d].name }, { "cgroup", "other" },
		};
		uint64_t n = 0;
		bool rest = false;

		iolat_hist_init(other);
		for (i = 0; i < an->nr_cgs; i++) {
			const struct iolat_an_cg *g = &an->cgs[i];
			uint64_t v = what == 1 ? g->ios : g->bytes;

			if (g->dev != d)
				continue;
			if (!g->named) {
				rest = true;
				n += v;
				if (!what && g->q2c)
					iolat_hist_merge(other, g->q2c);
				continue;
			}
			l[1].value = iolat_an_cg_name(g, buf, sizeof(buf));
			if (what)
				iolat_expo_value(x, l, 2, v, false);
			else if (g->q2c)
				iolat_expo_hist(x, l, 2, g->q2c);
		}
		l[1].value = "other";
		if (rest && what)
			iolat_expo_value(x, l, 2, n, false);
		else if (rest && other->count)
			iolat_expo_hist(x, l, 2, other);
	}
}

static void cgroup_series(struct iolat_expo *x, const struct iolat_an *an)
{
	struct iolat_hist *other;

	if (!an->o.cgroups_top)
		return;
	other = malloc(sizeof(*other));
	if (!other)
		return;
	iolat_expo_family(x, "iolat_cgroup_request_duration_seconds", IOLAT_EXPO_HISTOGRAM, "Block request latency (Q2C) per cgroup the kernel charged the requests to: at most --cgroups-top cgroups of each device by path (the busiest of the run, from the records; without them, the busiest of those doing I/O as the module's slots free up), named while they are there, the rest summed as cgroup=\"other\".");
	cgroup_family(x, an, 0, other);
	iolat_expo_family(x, "iolat_cgroup_requests_total", IOLAT_EXPO_COUNTER, "Requests completed per cgroup, as iolat_cgroup_request_duration_seconds names them.");
	cgroup_family(x, an, 1, other);
	iolat_expo_family(x, "iolat_cgroup_bytes_total", IOLAT_EXPO_COUNTER, "Bytes of the requests completed per cgroup, as iolat_cgroup_request_duration_seconds names them.");
	cgroup_family(x, an, 2, other);
	free(other);
}

/*
 * A stack's bio-based device: its I/Os' time above and below the requests
 * made from them, as stages "above" and "below" ("below" only from
 * records: the module keeps no histogram of it).
 */
static void split_series(struct iolat_expo *x, const struct iolat_an_dev *d)
{
	const struct iolat_an_split *sp;
	unsigned int op;

	for (op = 0; op < IOLAT_AN_OPS; op++) {
		sp = &d->split[op];
		if (sp->above && sp->above->count)
			hist_series(x, d->name, op, "above", sp->above);
		if (sp->below && sp->below->count)
			hist_series(x, d->name, op, "below", sp->below);
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

/* A device's and op's count. */
static void dev_op_value(struct iolat_expo *x, const char *dev,
			 unsigned int op, uint64_t v, bool ns)
{
	const struct iolat_expo_label l[] = {
		{ "device", dev }, { "op", iolat_an_op_name(op) },
	};

	iolat_expo_value(x, l, 2, v, ns);
}

/* The requests or bytes of each device and op, from the records. */
static void run_counts(struct iolat_expo *x, const struct iolat_an *an,
		       bool bytes)
{
	unsigned int d, op;

	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; op < IOLAT_AN_OPS; op++)
			if (an->devs[d].run[op].ios || prom_always(an, op, -1))
				dev_op_value(x, an->devs[d].name, op,
					     bytes ? an->devs[d].run[op].bytes :
					     an->devs[d].run[op].ios, false);
}

/* A stack's bio-based devices: their I/Os' time below, from the counters. */
static void below_counters(struct iolat_expo *x, const struct iolat_an *an,
			   const struct iolat_dev_counters *c)
{
	unsigned int d, op;
	bool any = false;

	for (d = 0; d < an->nr_devs; d++)
		any |= c[d].valid && c[d].has_below;
	if (!any)
		return;
	iolat_expo_family(x, "iolat_stack_below_seconds_total", IOLAT_EXPO_COUNTER, "A stack's device: its I/Os' time below it, from the first request made from each to the last one's completion, exact; the rest of their time was above, in the stack's own layers.");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; c[d].valid && c[d].has_below && op < IOLAT_OP_NR; op++)
			if (c[d].ios[op])
				dev_op_value(x, an->devs[d].name, op,
					     c[d].below_ns[op], true);
	iolat_expo_family(x, "iolat_stack_joined_total", IOLAT_EXPO_COUNTER, "A stack's device: its I/Os with requests below it, exact.");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; c[d].valid && c[d].has_below && op < IOLAT_OP_NR; op++)
			if (c[d].ios[op])
				dev_op_value(x, an->devs[d].name, op,
					     c[d].below_ios[op], false);
}

/* The module's exact time counters of each device, in seconds. */
static const struct {
	const char *name, *help;
	size_t off;	/* of the uint64_t in struct iolat_dev_counters */
} time_counters[] = {
	{ "iolat_busy_seconds_total",
	  "Time with a request at the driver (issue to completion), exact: rate() is %util.",
	  offsetof(struct iolat_dev_counters, busy_ns) },
	{ "iolat_queue_busy_seconds_total",
	  "Time with a request in the queue (first stage to completion), exact.",
	  offsetof(struct iolat_dev_counters, qbusy_ns) },
	{ "iolat_inflight_seconds_total",
	  "Sum of the requests' times in the queue (first stage to completion): rate() is aqu-sz.",
	  offsetof(struct iolat_dev_counters, qinflight_ns) },
	{ "iolat_device_inflight_seconds_total",
	  "Sum of the requests' times at the driver (issue to completion): rate() is the device's queue depth.",
	  offsetof(struct iolat_dev_counters, inflight_ns) },
};

/**
 * iolat_prom_write() - the exposition of a run so far
 * @x: where to, and in which format
 * @an: the analysis (histograms over the run)
 * @run: the session's accounting
 * @c: each device's counters, or NULL
 */
void iolat_prom_write(struct iolat_expo *x, const struct iolat_an *an,
		      const struct iolat_run *run,
		      const struct iolat_dev_counters *c)
{
	static struct iolat_hist zero;	/* a series before its first request */
	const struct iolat_stats *st = &run->stats;
	unsigned int d, op, s, i;
	const struct iolat_expo_label build[] = {
		{ "version", an->meta.cli_version[0] ? an->meta.cli_version :
			     IOLAT_VERSION },
		{ "module", an->meta.module_version },
		{ "kernel", an->meta.kernel },
	};

	iolat_expo_family(x, "iolat_build_info", IOLAT_EXPO_GAUGE, "The versions of iolat's CLI and module, and the kernel.");
	iolat_expo_value(x, build, 3, 1, false);
	iolat_expo_family(x, "iolat_request_duration_seconds", IOLAT_EXPO_HISTOGRAM, "Block request latency per stage (Q2C queued to completed, D2C issued to completed, NVMe command), from iolat's per-request records; a stack's device also its I/Os' time above and below it.");
	for (d = 0; d < an->nr_devs; d++)
		for (op = 0; op < IOLAT_AN_OPS; op++)
			for (s = 0; s < sizeof(prom_stages) / sizeof(prom_stages[0]); s++) {
				const struct iolat_hist *h =
					an->devs[d].run[op].hist[prom_stages[s]];

				if (h && h->count)
					hist_series(x, an->devs[d].name, op,
						    iolat_an_stage_name(prom_stages[s]),
						    h);
				else if (prom_always(an, op, prom_stages[s]))
					hist_series(x, an->devs[d].name, op,
						    iolat_an_stage_name(prom_stages[s]),
						    &zero);
			}
	for (d = 0; d < an->nr_devs; d++)
		split_series(x, &an->devs[d]);
	cgroup_series(x, an);
	iolat_expo_family(x, "iolat_requests_total", IOLAT_EXPO_COUNTER, "Requests completed, from the records.");
	run_counts(x, an, false);
	iolat_expo_family(x, "iolat_bytes_total", IOLAT_EXPO_COUNTER, "Bytes of the requests completed, from the records.");
	run_counts(x, an, true);
	for (i = 0; c && i < sizeof(time_counters) / sizeof(time_counters[0]); i++) {
		iolat_expo_family(x, time_counters[i].name, IOLAT_EXPO_COUNTER,
				  time_counters[i].help);
		for (d = 0; d < an->nr_devs; d++) {
			const struct iolat_expo_label l = {
				"device", an->devs[d].name
			};

			if (c[d].valid)
				iolat_expo_value(x, &l, 1,
						 *(const uint64_t *)((const char *)&c[d] +
								     time_counters[i].off),
						 true);
		}
	}
	if (c)
		below_counters(x, an, c);
	iolat_expo_family(x, "iolat_records_total", IOLAT_EXPO_COUNTER, "Records delivered to iolat.");
	iolat_expo_value(x, NULL, 0, run->delivered, false);
	iolat_expo_family(x, "iolat_records_dropped_total", IOLAT_EXPO_COUNTER, "Completions not recorded, per reason.");
	/* a reason's label: its text, words joined by '_' */
	for (i = 0; i < IOLAT_STAT_NR; i++) {
		struct iolat_expo_label l = { "reason", NULL };
		char reason[64], *p;

		if (iolat_stat_info[i].class != IOLAT_SC_drop)
			continue;
		snprintf(reason, sizeof(reason), "%s", iolat_stat_info[i].text);
		for (p = reason; *p; p++)
			if (*p == ' ')
				*p = '_';
		l.value = reason;
		iolat_expo_value(x, &l, 1, st->n[i], false);
	}
}

static void prom_summary(struct iolat_an *an, const struct iolat_run *run,
			 const struct iolat_dev_counters *c)
{
	struct iolat_expo x;

	iolat_expo_init(&x, IOLAT_EXPO_TEXT, stdout, an->o.prom_step,
			&iolat_native_records);
	iolat_prom_write(&x, an, run, c);
	iolat_expo_end(&x);
}

const struct iolat_output iolat_out_prom = {
	.name = "prom",
	.summary = prom_summary,
};
