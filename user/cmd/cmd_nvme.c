// SPDX-License-Identifier: GPL-2.0
/*
 * iolat nvme: the NVMe commands of a run, per submission queue and per
 * opcode: how many, the driver's time for them (nvme_setup_cmd to
 * nvme_complete_rq) as a latency histogram, and how deep their queue was
 * when each was set up.  Admin commands (qid 0) are shown per controller,
 * apart from the namespaces' I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "../../lib/nvme_names.h"
#include "util/json.h"

#define U(x) ((unsigned long long)(x))
#define NR_OPCODES 256

/* Commands of one qid, or of one opcode. */
struct nvme_group {
	struct iolat_hist lat;		/* setup -> complete */
	uint64_t qd[IOLAT_QD_BUCKETS];	/* qid's depth at setup */
	uint64_t bytes;
	uint64_t errors;		/* status other than success */
};

struct nvme_dev {
	unsigned int nr_qids;
	struct nvme_group **qids;		/* [nr_qids], 0 is admin */
	struct nvme_group *ops[NR_OPCODES];	/* I/O commands */
	struct nvme_group *admin[NR_OPCODES];	/* admin, per controller */
};

struct nvme_state {
	struct iolat_session *s;
	struct nvme_dev *devs;	/* [nr_devs] */
	unsigned int nr_devs;
	bool nomem;
};

static struct nvme_group *group(struct nvme_state *st, struct nvme_group **g)
{
	if (!*g) {
		*g = calloc(1, sizeof(**g));
		if (!*g) {
			st->nomem = true;
			return NULL;
		}
		iolat_hist_init(&(*g)->lat);
	}
	return *g;
}

static void group_add(struct nvme_group *g, const struct iolat_record *r)
{
	iolat_hist_add(&g->lat, r->nvme_done_ns - r->nvme_setup_ns);
	g->qd[iolat_qd_bucket(r->qd_setup)]++;
	g->bytes += iolat_nvme_bytes(r);
	if (r->status & 0x7ff)
		g->errors++;
}

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct nvme_state *st = arg;
	struct nvme_dev *d = &st->devs[dev];
	struct nvme_group *g;

	if (!(r->flags & IOLAT_F_NVME))
		return;
	if (r->flags & IOLAT_F_NVME_ADMIN) {
		g = group(st, &d->admin[r->opcode]);
		if (g)
			group_add(g, r);
		return;
	}
	if (r->qid < d->nr_qids) {
		g = group(st, &d->qids[r->qid]);
		if (g)
			group_add(g, r);
	}
	g = group(st, &d->ops[r->opcode]);
	if (g)
		group_add(g, r);
}

static void fmt_pct(char *buf, size_t len, const struct iolat_hist *h,
		    uint32_t ppm)
{
	iolat_fmt_ns(buf, len, iolat_hist_percentile(h, ppm));
}

static double mean_qd(const struct nvme_group *g)
{
	uint64_t n = 0;
	double sum = 0;
	unsigned int i;

	/* exact below 16, the bucket's low bound above */
	for (i = 0; i < IOLAT_QD_BUCKETS; i++) {
		n += g->qd[i];
		sum += (double)g->qd[i] * iolat_qd_bucket_low(i);
	}
	return n ? sum / n : 0;
}

static void text_row(const char *label, const struct nvme_group *g)
{
	char p50[32], p99[32], max[32];

	fmt_pct(p50, sizeof(p50), &g->lat, 500000);
	fmt_pct(p99, sizeof(p99), &g->lat, 990000);
	iolat_fmt_ns(max, sizeof(max), g->lat.max);
	printf("  %-16s %9llu %12llu %7llu %10s %10s %10s %7.2f\n", label,
	       U(g->lat.count), U(g->bytes), U(g->errors), p50, p99, max,
	       mean_qd(g));
}

static void text_table_header(const char *what)
{
	printf("  %-16s %9s %12s %7s %10s %10s %10s %7s\n", what, "commands",
	       "bytes", "errors", "p50", "p99", "max", "qd");
}

static void op_label(char *buf, size_t len, int admin, unsigned int op)
{
	const char *name = iolat_nvme_opcode_name(admin, op);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "0x%02x", op);
}

static void text_dev(const struct nvme_state *st, unsigned int i)
{
	const struct nvme_dev *d = &st->devs[i];
	const char *name = st->s->devs[i].name;
	char label[32];
	unsigned int q, op;
	bool any = false;

	for (q = 1; q < d->nr_qids; q++)
		any |= d->qids[q] != NULL;
	if (any) {
		printf("%s: I/O commands per queue, driver time (setup to completion), queue depth at setup\n",
		       name);
		text_table_header("qid");
		for (q = 1; q < d->nr_qids; q++) {
			if (!d->qids[q])
				continue;
			snprintf(label, sizeof(label), "%u", q);
			text_row(label, d->qids[q]);
		}
		printf("%s: I/O commands per opcode\n", name);
		text_table_header("opcode");
		for (op = 0; op < NR_OPCODES; op++) {
			if (!d->ops[op])
				continue;
			op_label(label, sizeof(label), 0, op);
			text_row(label, d->ops[op]);
		}
		for (q = 1; q < d->nr_qids; q++) {
			if (!d->qids[q])
				continue;
			printf("\n%s qid %u: driver time\n", name, q);
			iolat_text_hist(&d->qids[q]->lat);
			printf("%s qid %u: commands already on the queue at setup\n",
			       name, q);
			iolat_text_qd_hist(d->qids[q]->qd);
		}
		printf("\n");
	}
	any = false;
	for (op = 0; op < NR_OPCODES; op++)
		any |= d->admin[op] != NULL;
	if (!any)
		return;
	printf("nvme%d: admin commands (qid 0)\n", st->s->devs[i].nvme_ctrl);
	text_table_header("opcode");
	for (op = 0; op < NR_OPCODES; op++) {
		if (!d->admin[op])
			continue;
		op_label(label, sizeof(label), 1, op);
		text_row(label, d->admin[op]);
	}
	printf("\n");
}

/* A queue's or an opcode's commands: @key's value @val, or @num. */
static void json_group(struct json *j, const char *key, const char *val,
		       unsigned int num, const struct nvme_group *g)
{
	unsigned int i, hi = 0;

	json_obj(j, NULL);
	if (val)
		json_string(j, key, val);
	else
		json_u64(j, key, num);
	json_u64(j, "commands", g->lat.count);
	json_u64(j, "bytes", g->bytes);
	json_u64(j, "errors", g->errors);
	json_u64(j, "min_ns", g->lat.min);
	json_u64(j, "p50_ns", iolat_hist_percentile(&g->lat, 500000));
	json_u64(j, "p90_ns", iolat_hist_percentile(&g->lat, 900000));
	json_u64(j, "p99_ns", iolat_hist_percentile(&g->lat, 990000));
	json_u64(j, "max_ns", g->lat.max);
	json_double(j, "mean_ns", "%.0f",
		    g->lat.count ? (double)g->lat.sum / g->lat.count : 0.0);
	for (i = 0; i < IOLAT_QD_BUCKETS; i++)
		if (g->qd[i])
			hi = i;
	json_arr(j, "qd_hist");
	for (i = 0; i <= hi; i++)
		json_u64(j, NULL, g->qd[i]);
	json_end(j);
	json_end(j);
}

/* The opcodes of @ops (admin's or I/O's) with commands, by name. */
static void json_opcodes(struct json *j, const char *key,
			 struct nvme_group *const *ops, int admin)
{
	unsigned int op;
	char label[32];

	json_arr(j, key);
	for (op = 0; op < NR_OPCODES; op++) {
		if (!ops[op])
			continue;
		op_label(label, sizeof(label), admin, op);
		json_group(j, "opcode", label, 0, ops[op]);
	}
	json_end(j);
}

/* One JSON object per namespace, admin commands with their controller. */
static void json_dev(const struct nvme_state *st, unsigned int i)
{
	const struct nvme_dev *d = &st->devs[i];
	char ctrl[16];
	struct json j;
	unsigned int q;

	snprintf(ctrl, sizeof(ctrl), "nvme%d", st->s->devs[i].nvme_ctrl);
	json_init(&j, stdout, false);
	json_obj(&j, NULL);
	json_string(&j, "device", st->s->devs[i].name);
	json_string(&j, "ctrl", ctrl);
	json_arr(&j, "qids");
	for (q = 1; q < d->nr_qids; q++)
		if (d->qids[q])
			json_group(&j, "qid", NULL, q, d->qids[q]);
	json_end(&j);
	json_opcodes(&j, "opcodes", d->ops, 0);
	json_opcodes(&j, "admin", d->admin, 1);
	json_end(&j);
}

static void free_state(struct nvme_state *st)
{
	unsigned int i, j;

	for (i = 0; st->devs && i < st->nr_devs; i++) {
		for (j = 0; j < st->devs[i].nr_qids; j++)
			free(st->devs[i].qids[j]);
		free(st->devs[i].qids);
		for (j = 0; j < NR_OPCODES; j++) {
			free(st->devs[i].ops[j]);
			free(st->devs[i].admin[j]);
		}
	}
	free(st->devs);
}

int cmd_nvme(int argc, const char **argv)
{
	struct iolat_session s = { .nvme = true, .usage = "[-d NVMEnN]... [-t SECS | -- COMMAND...]" };
	struct nvme_state st = { .s = &s };
	char *outname = NULL;
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices (default: every NVMe namespace) and filters:",
		  NULL },
		{ "output", 'o', POPT_ARG_STRING, &outname, 0,
		  "output format: text, json", "FORMAT" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	unsigned int i;
	poptContext pc;
	bool json = false;
	int rc = EXIT_USAGE;

	pc = poptGetContext("iolat nvme", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	if (outname && !strcmp(outname, "json")) {
		json = true;
	} else if (outname && strcmp(outname, "text")) {
		iolat_err("unknown output format '%s' (text, json)", outname);
		goto out;
	}
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	st.devs = calloc(s.nr_devs, sizeof(*st.devs));
	if (!st.devs) {
		iolat_err("out of memory");
		rc = EXIT_FAIL;
		goto out;
	}
	st.nr_devs = s.nr_devs;
	for (i = 0; i < s.nr_devs; i++) {
		st.devs[i].nr_qids = s.devs[i].nr_hwq + 1;
		st.devs[i].qids = calloc(st.devs[i].nr_qids,
					 sizeof(*st.devs[i].qids));
		if (!st.devs[i].qids) {
			iolat_err("out of memory");
			rc = EXIT_FAIL;
			goto out;
		}
	}
	s.record = on_record;
	s.arg = &st;
	rc = iolat_session_run(&s);
	if (rc && !s.run.incomplete)
		goto out;
	if (st.nomem)
		s.run.nomem = true;
	for (i = 0; i < s.nr_devs; i++) {
		if (s.devs[i].nvme_ctrl < 0)
			continue;
		if (json)
			json_dev(&st, i);
		else
			text_dev(&st, i);
	}
	fflush(stdout);
	fprintf(stderr, "iolat: NVMe: ");
	iolat_stats_text(stderr, &s.run.stats, IOLAT_SC_nvme);
	fprintf(stderr, "; %llu records, %llu records dropped\n",
		U(s.run.delivered), U(iolat_run_dropped(&s.run)));
	rc = iolat_session_accounted(&s) ? EXIT_OK : EXIT_FAIL;
out:
	free_state(&st);
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	free(outname);
	poptFreeContext(pc);
	return rc;
}
