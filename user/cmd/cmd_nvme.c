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
#include "out/table.h"
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

/*
 * A queue's or an opcode's commands.  Text has a table per queue and
 * per opcode, its first column the queue or the opcode; JSON an array of
 * objects each, with the depth at setup as a histogram; CSV a line per
 * queue and per opcode, of the namespace or (admin) of its controller.
 */
enum {
	G_LABEL, G_DEV, G_CTRL, G_QID, G_OPC, G_ADMIN, G_CMDS, G_BYTES,
	G_ERRS, G_MIN, G_P50, G_P90, G_P99, G_MAX, G_MEAN, G_QD, NR_COLS
};

static struct iolat_col cols[NR_COLS] = {
	[G_LABEL] = { "", "", -16, .in = IOLAT_IN_TEXT },
	[G_DEV] = { "device", .in = IOLAT_FMT_BIT(CSV), .str = true },
	[G_CTRL] = { "ctrl", .in = IOLAT_FMT_BIT(CSV), .str = true },
	[G_QID] = { "qid", .in = IOLAT_IN_DATA },
	[G_OPC] = { "opcode", .in = IOLAT_IN_DATA, .str = true },
	[G_ADMIN] = { "admin", .in = IOLAT_FMT_BIT(CSV) },
	[G_CMDS] = { "commands", "commands", 9 },
	[G_BYTES] = { "bytes", "bytes", 12 },
	[G_ERRS] = { "errors", "errors", 7 },
	[G_MIN] = { "min_ns", .in = IOLAT_IN_DATA },
	[G_P50] = { "p50_ns", "p50", 10 },
	[G_P90] = { "p90_ns", .in = IOLAT_IN_DATA },
	[G_P99] = { "p99_ns", "p99", 10 },
	[G_MAX] = { "max_ns", "max", 10 },
	[G_MEAN] = { "mean_ns", .in = IOLAT_IN_DATA },
	[G_QD] = { "qd_mean", "qd", 7, 2, 3 },
};

static void op_label(char *buf, size_t len, int admin, unsigned int op)
{
	const char *name = iolat_nvme_opcode_name(admin, op);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "0x%02x", op);
}

/* A group's row: of queue @qid, or (-1) of opcode @op. */
static void group_row(struct iolat_table *t, struct json *j,
		      const struct nvme_state *st, unsigned int dev, int qid,
		      int admin, unsigned int op, const struct nvme_group *g)
{
	char label[32], ctrl[16];
	unsigned int i, hi = 0;

	snprintf(ctrl, sizeof(ctrl), "nvme%d", st->s->devs[dev].nvme_ctrl);
	if (qid >= 0) {
		snprintf(label, sizeof(label), "%d", qid);
		iolat_cell_u64(t, G_QID, qid);
	} else {
		op_label(label, sizeof(label), admin, op);
		iolat_cell_str(t, G_OPC, label);
	}
	iolat_cell_str(t, G_LABEL, label);
	iolat_cell_str(t, G_DEV, admin ? ctrl : st->s->devs[dev].name);
	iolat_cell_str(t, G_CTRL, ctrl);
	iolat_cell_u64(t, G_ADMIN, admin);
	iolat_cell_u64(t, G_CMDS, g->lat.count);
	iolat_cell_u64(t, G_BYTES, g->bytes);
	iolat_cell_u64(t, G_ERRS, g->errors);
	iolat_cell_u64(t, G_MIN, g->lat.min);
	iolat_cell_ns(t, G_P50, iolat_hist_percentile(&g->lat, 500000));
	iolat_cell_u64(t, G_P90, iolat_hist_percentile(&g->lat, 900000));
	iolat_cell_ns(t, G_P99, iolat_hist_percentile(&g->lat, 990000));
	iolat_cell_ns(t, G_MAX, g->lat.max);
	iolat_cell_dbl(t, G_MEAN, g->lat.count ?
				  (double)g->lat.sum / g->lat.count : 0.0);
	iolat_cell_dbl(t, G_QD, mean_qd(g));
	if (t->fmt != IOLAT_FMT_JSON) {
		iolat_table_row(t, NULL);
		return;
	}
	json_obj(j, NULL);
	iolat_table_row(t, j);
	for (i = 0; i < IOLAT_QD_BUCKETS; i++)
		if (g->qd[i])
			hi = i;
	json_arr(j, "qd_hist");
	for (i = 0; i <= hi; i++)
		json_u64(j, NULL, g->qd[i]);
	json_end(j);
	json_end(j);
}

/* Text: a table's title and header (column 1 @label); JSON: @key's array. */
static void group_table(struct iolat_table *t, struct json *j,
			const char *title, const char *label, const char *key)
{
	if (t->fmt == IOLAT_FMT_JSON) {
		json_arr(j, key);
		return;
	}
	if (t->fmt != IOLAT_FMT_TEXT)
		return;
	printf("%s\n", title);
	cols[G_LABEL].head = label;
	iolat_table_header(t);
}

static void group_table_end(struct iolat_table *t, struct json *j)
{
	if (t->fmt == IOLAT_FMT_JSON)
		json_end(j);
}

/* A namespace's queues and opcodes; its controller's admin commands. */
static void show_dev(struct iolat_table *t, const struct nvme_state *st,
		     unsigned int i)
{
	const struct nvme_dev *d = &st->devs[i];
	const char *name = st->s->devs[i].name;
	char title[128], ctrl[16];
	unsigned int q, op;
	struct json j;
	bool any = false;

	snprintf(ctrl, sizeof(ctrl), "nvme%d", st->s->devs[i].nvme_ctrl);
	json_init(&j, stdout, false);
	if (t->fmt == IOLAT_FMT_JSON) {
		json_obj(&j, NULL);
		json_string(&j, "device", name);
		json_string(&j, "ctrl", ctrl);
	}
	for (q = 1; q < d->nr_qids; q++)
		any |= d->qids[q] != NULL;
	snprintf(title, sizeof(title),
		 "%s: I/O commands per queue, driver time (setup to completion), queue depth at setup",
		 name);
	if (any || t->fmt == IOLAT_FMT_JSON) {
		group_table(t, &j, title, "qid", "qids");
		for (q = 1; q < d->nr_qids; q++)
			if (d->qids[q])
				group_row(t, &j, st, i, q, 0, 0, d->qids[q]);
		group_table_end(t, &j);
		snprintf(title, sizeof(title), "%s: I/O commands per opcode",
			 name);
		group_table(t, &j, title, "opcode", "opcodes");
		for (op = 0; op < NR_OPCODES; op++)
			if (d->ops[op])
				group_row(t, &j, st, i, -1, 0, op, d->ops[op]);
		group_table_end(t, &j);
	}
	for (q = 1; any && t->fmt == IOLAT_FMT_TEXT && q < d->nr_qids; q++) {
		if (!d->qids[q])
			continue;
		printf("\n%s qid %u: driver time\n", name, q);
		iolat_text_hist(&d->qids[q]->lat);
		printf("%s qid %u: commands already on the queue at setup\n",
		       name, q);
		iolat_text_qd_hist(d->qids[q]->qd);
	}
	if (any && t->fmt == IOLAT_FMT_TEXT)
		printf("\n");
	any = false;
	for (op = 0; op < NR_OPCODES; op++)
		any |= d->admin[op] != NULL;
	snprintf(title, sizeof(title), "%s: admin commands (qid 0)", ctrl);
	if (any || t->fmt == IOLAT_FMT_JSON) {
		group_table(t, &j, title, "opcode", "admin");
		for (op = 0; op < NR_OPCODES; op++)
			if (d->admin[op])
				group_row(t, &j, st, i, -1, 1, op,
					  d->admin[op]);
		group_table_end(t, &j);
	}
	if (t->fmt == IOLAT_FMT_JSON)
		json_end(&j);
	else if (any && t->fmt == IOLAT_FMT_TEXT)
		printf("\n");
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
		  "output format: text, csv, json", "FORMAT" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_session_opts o = { 0 };
	unsigned int i;
	struct iolat_table *tab = calloc(1, sizeof(*tab));
	enum iolat_fmt fmt;
	poptContext pc;
	int rc = EXIT_USAGE;

	pc = poptGetContext("iolat nvme", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	if (iolat_session_getopt(&s, &o, pc))
		goto out;
	if (iolat_fmt_parse(outname, IOLAT_FMT_ALL, &fmt))
		goto out;
	rc = iolat_session_setup(&s, &o);
	if (rc)
		goto out;
	st.devs = calloc(s.nr_devs, sizeof(*st.devs));
	if (!st.devs || !tab) {
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
	iolat_table_init(tab, cols, NR_COLS, fmt, stdout);
	tab->indent = "  ";
	if (fmt == IOLAT_FMT_CSV)
		iolat_table_header(tab);
	for (i = 0; i < s.nr_devs; i++)
		if (s.devs[i].nvme_ctrl >= 0)
			show_dev(tab, &st, i);
	fflush(stdout);
	fprintf(stderr, "iolat: NVMe: ");
	iolat_stats_text(stderr, &s.run.stats, IOLAT_SC_nvme);
	fprintf(stderr, "; %llu records, %llu records dropped\n",
		U(s.run.delivered), U(iolat_run_dropped(&s.run)));
	rc = iolat_session_accounted(&s) ? EXIT_OK : EXIT_FAIL;
out:
	free_state(&st);
	free(tab);
	iolat_session_free(&s);
	iolat_session_opts_free(&o);
	free(outname);
	poptFreeContext(pc);
	return rc;
}
