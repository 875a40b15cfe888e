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

/* One device's counters as a JSON object's members. */
void iolat_counters_json(FILE *f, const struct iolat_dev_counters *c)
{
	unsigned int i;

	fprintf(f, "\"start_ns\":%llu,\"now_ns\":%llu,\"elapsed_ns\":%llu,"
		"\"busy_ns\":%llu,\"qbusy_ns\":%llu,\"inflight_ns\":%llu,"
		"\"qinflight_ns\":%llu,\"queued\":%u,\"issued\":%u,"
		"\"issues\":%llu,\"qd_sum\":%llu",
		U(c->start_ns), U(c->now_ns), U(c->now_ns - c->start_ns),
		U(c->busy_ns), U(c->qbusy_ns), U(c->inflight_ns),
		U(c->qinflight_ns), c->queued, c->issued, U(c->issues),
		U(c->qd_sum));
	fprintf(f, ",\"ops\":{");
	for (i = 0; i < IOLAT_OP_NR; i++)
		fprintf(f, "%s\"%s\":{\"ios\":%llu,\"bytes\":%llu,\"wait_ns\":%llu}",
			i ? "," : "", iolat_op_name(i), U(c->ios[i]),
			U(c->bytes[i]), U(c->wait_ns[i]));
	fprintf(f, "},\"hwqs\":[");
	for (i = 0; i < c->nr_hwq; i++)
		fprintf(f, "%s{\"hwq\":%u,\"hwq_busy_ns\":%llu,\"hwq_qbusy_ns\":%llu,\"hwq_queued\":%u,\"hwq_issued\":%u}",
			i ? "," : "", i, U(c->hwqs[i].busy_ns),
			U(c->hwqs[i].qbusy_ns), c->hwqs[i].queued,
			c->hwqs[i].issued);
	fprintf(f, "]");
}

/* The requests a device completed, by its diskstats: every op. */
static unsigned long long ds_ios(const unsigned long long *k)
{
	return k[IOLAT_DS_R_IOS] + k[IOLAT_DS_W_IOS] + k[IOLAT_DS_D_IOS] +
	       k[IOLAT_DS_F_IOS];
}

/* --summary FILE: drop counts and each device's counters, as JSON. */
int iolat_summary_write(const struct iolat_session *s)
{
	const struct iolat_stats *st = &s->run.stats;
	FILE *f = fopen(s->summary, "w");
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
	fprintf(f, "{\"incomplete\":%s,\"seconds\":%.6f,\"delivered\":%llu,\"dropped\":%llu,\"module_memory_bytes\":%llu,",
		s->run.incomplete ? "true" : "false",
		s->run.seconds, U(s->run.delivered),
		U(iolat_run_dropped(&s->run)),
		U(s->run.module_mem_bytes));
	iolat_stats_json(f, st, IOLAT_SC_record);
	fprintf(f, ", ");
	iolat_stats_json(f, st, IOLAT_SC_drop);
	fprintf(f, ", \"events\":{");
	iolat_stats_json(f, st, IOLAT_SC_event);
	fprintf(f, "},");
	if (iolat_stats_stack(st)) {
		fprintf(f, "\"stack\":{");
		iolat_stats_json(f, st, IOLAT_SC_stack);
		fprintf(f, "},");
	}
	if (s->nvme) {
		fprintf(f, "\"nvme\":{");
		iolat_stats_json(f, st, IOLAT_SC_nvme);
		fprintf(f, ", \"detaches\":%u,\"attaches\":%u},",
			s->run.nvme_detaches, s->run.nvme_attaches);
	}
	fprintf(f, "\"devices\":[");
	for (d = 0; d < s->nr_devs; d++) {
		const unsigned long long *k1 = s->run.kstart[d].f;
		const unsigned long long *k2 = s->run.kend[d].f;

		fprintf(f, "%s{\"name\":", d ? "," : "");
		json_str(f, s->devs[d].name);
		fprintf(f, ",\"removed\":%s,\"counters_valid\":%s,",
			s->run.removed[d] ? "true" : "false",
			s->counters[d].valid ? "true" : "false");
		iolat_counters_json(f, &s->counters[d]);
		/* a removed disk's kernel counters went with it */
		if (s->run.kernel_valid && !s->run.removed[d]) {
			fprintf(f, ",\"kernel\":{\"ios\":%llu,\"io_ticks_ms\":%llu,\"time_in_queue_ms\":%llu",
				ds_ios(k2) - ds_ios(k1),
				k2[IOLAT_DS_IO_TICKS] - k1[IOLAT_DS_IO_TICKS],
				k2[IOLAT_DS_TIME_IN_QUEUE] -
				k1[IOLAT_DS_TIME_IN_QUEUE]);
			/*
			 * The bracket: the kernel's completions between the
			 * readings just after START and just before STOP
			 * (inside the session's window), and between those
			 * just before START and just after STOP (around it).
			 * Every completion the module saw, delivered, dropped
			 * or filtered, is in the outer span, and every one of
			 * the inner span is the module's: ios_inner <= all of
			 * the module's <= ios_outer.
			 */
			if (s->run.kernel_bracket)
				fprintf(f, ",\"ios_inner\":%llu,\"ios_outer\":%llu",
					ds_ios(s->run.kprestop[d].f) - ds_ios(k1),
					ds_ios(k2) - ds_ios(s->run.kpre[d].f));
			fprintf(f, "}");
		}
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
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
