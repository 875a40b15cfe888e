// SPDX-License-Identifier: GPL-2.0
/*
 * What a session says of itself at the end: --summary's JSON file, the
 * stack's line, and the dropped records' sum.
 */
#include <errno.h>
#include <string.h>
#include "session/session.h"
#include "util/json.h"

/* Counts are uint64_t; print them as one type. */
#define U(x) ((unsigned long long)(x))

/* One device's counters as members of @j's open object. */
static void iolat_counters_json(struct json *j,
				const struct iolat_dev_counters *c)
{
	unsigned int i;

	json_u64(j, "start_ns", c->start_ns);
	json_u64(j, "now_ns", c->now_ns);
	json_u64(j, "elapsed_ns", c->now_ns - c->start_ns);
	json_u64(j, "busy_ns", c->busy_ns);
	json_u64(j, "qbusy_ns", c->qbusy_ns);
	json_u64(j, "inflight_ns", c->inflight_ns);
	json_u64(j, "qinflight_ns", c->qinflight_ns);
	json_u64(j, "queued", c->queued);
	json_u64(j, "issued", c->issued);
	json_u64(j, "issues", c->issues);
	json_u64(j, "qd_sum", c->qd_sum);
	json_obj(j, "ops");
	for (i = 0; i < IOLAT_OP_NR; i++) {
		json_obj(j, iolat_op_name(i));
		json_u64(j, "ios", c->ios[i]);
		json_u64(j, "bytes", c->bytes[i]);
		json_u64(j, "wait_ns", c->wait_ns[i]);
		json_end(j);
	}
	json_end(j);
	json_arr(j, "hwqs");
	for (i = 0; i < c->nr_hwq; i++) {
		json_obj(j, NULL);
		json_u64(j, "hwq", i);
		json_u64(j, "hwq_busy_ns", c->hwqs[i].busy_ns);
		json_u64(j, "hwq_qbusy_ns", c->hwqs[i].qbusy_ns);
		json_u64(j, "hwq_queued", c->hwqs[i].queued);
		json_u64(j, "hwq_issued", c->hwqs[i].issued);
		json_end(j);
	}
	json_end(j);
}

/* The requests a device completed, by its diskstats: every op. */
static unsigned long long ds_ios(const unsigned long long *k)
{
	return k[IOLAT_DS_R_IOS] + k[IOLAT_DS_W_IOS] + k[IOLAT_DS_D_IOS] +
	       k[IOLAT_DS_F_IOS];
}

/* A device's kernel counters over the session (a removed one has none). */
static void summary_kernel(struct json *j, const struct iolat_session *s,
			   unsigned int d)
{
	const unsigned long long *k1 = s->run.kstart[d].f;
	const unsigned long long *k2 = s->run.kend[d].f;

	json_obj(j, "kernel");
	json_u64(j, "ios", ds_ios(k2) - ds_ios(k1));
	json_u64(j, "io_ticks_ms", k2[IOLAT_DS_IO_TICKS] - k1[IOLAT_DS_IO_TICKS]);
	json_u64(j, "time_in_queue_ms",
		 k2[IOLAT_DS_TIME_IN_QUEUE] - k1[IOLAT_DS_TIME_IN_QUEUE]);
	/*
	 * The bracket: the kernel's completions between the readings just
	 * after START and just before STOP (inside the session's window),
	 * and between those just before START and just after STOP (around
	 * it).  Every completion the module saw, delivered, dropped or
	 * filtered, is in the outer span, and every one of the inner span
	 * is the module's: ios_inner <= all of the module's <= ios_outer.
	 */
	if (s->run.kernel_bracket) {
		json_u64(j, "ios_inner", ds_ios(s->run.kprestop[d].f) - ds_ios(k1));
		json_u64(j, "ios_outer", ds_ios(k2) - ds_ios(s->run.kpre[d].f));
	}
	json_end(j);
}

/* --summary FILE: drop counts and each device's counters, as JSON. */
int iolat_summary_write(const struct iolat_session *s)
{
	const struct iolat_stats *st = &s->run.stats;
	FILE *f = fopen(s->summary, "w");
	struct json j;
	unsigned int d;

	if (!f) {
		iolat_err("cannot write %s: %s", s->summary, strerror(errno));
		return -1;
	}
	/*
	 * A session the module's unloading (or a lost socket) cut short is
	 * written too, marked incomplete: its counts are up to the loss,
	 * its devices' counters those of the last reading, if any.
	 */
	json_init(&j, f, false);
	json_obj(&j, NULL);
	json_bool(&j, "incomplete", s->run.incomplete);
	json_double(&j, "seconds", "%.6f", s->run.seconds);
	json_u64(&j, "delivered", s->run.delivered);
	json_u64(&j, "dropped", iolat_run_dropped(&s->run));
	json_u64(&j, "module_memory_bytes", s->run.module_mem_bytes);
	iolat_stats_json(&j, st, IOLAT_SC_record);
	iolat_stats_json(&j, st, IOLAT_SC_drop);
	json_obj(&j, "events");
	iolat_stats_json(&j, st, IOLAT_SC_event);
	json_end(&j);
	if (iolat_stats_stack(st)) {
		json_obj(&j, "stack");
		iolat_stats_json(&j, st, IOLAT_SC_stack);
		json_end(&j);
	}
	if (iolat_stats_sum(st, IOLAT_SC_watch)) {
		json_obj(&j, "watch");
		iolat_stats_json(&j, st, IOLAT_SC_watch);
		json_end(&j);
	}
	if (s->nvme) {
		json_obj(&j, "nvme");
		iolat_stats_json(&j, st, IOLAT_SC_nvme);
		json_u64(&j, "detaches", s->run.nvme_detaches);
		json_u64(&j, "attaches", s->run.nvme_attaches);
		json_end(&j);
	}
	json_arr(&j, "devices");
	for (d = 0; d < s->nr_devs; d++) {
		json_obj(&j, NULL);
		json_string(&j, "name", s->devs[d].name);
		json_bool(&j, "removed", s->run.removed[d]);
		json_bool(&j, "counters_valid", s->counters[d].valid);
		iolat_counters_json(&j, &s->counters[d]);
		/* a removed disk's kernel counters went with it */
		if (s->run.kernel_valid && !s->run.removed[d])
			summary_kernel(&j, s, d);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	if (fclose(f)) {
		iolat_err("cannot write %s: %s", s->summary, strerror(errno));
		return -1;
	}
	return 0;
}

/**
 * iolat_stack_line() - a stack's join counters, on a line of their own
 * @f: where
 * @prefix: before the line
 * @st: the session's counters; nothing is printed without a stack
 */
void iolat_stack_line(FILE *f, const char *prefix, const struct iolat_stats *st)
{
	if (!iolat_stats_stack(st))
		return;
	fprintf(f, "%sstack: ", prefix);
	iolat_stats_text(f, st, IOLAT_SC_stack);
	fprintf(f, " (a lower request not joined: the stack's own, or not reported remapped)\n");
}

uint64_t iolat_run_dropped(const struct iolat_run *run)
{
	return iolat_stats_sum(&run->stats, IOLAT_SC_drop);
}
