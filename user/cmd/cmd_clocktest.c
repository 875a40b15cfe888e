// SPDX-License-Identifier: GPL-2.0
/*
 * iolat clocktest: the module's test of its candidate clocks across the
 * CPUs (kmod/clocktest.c): inversions per CPU pair and the cost of a
 * read, for each clock; fails if the clock iolat uses went back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "out/table.h"
#include "util/json.h"

#define MAX_CLOCKS 16
#define U(x) ((unsigned long long)(x))

enum { C_NAME, C_UNITS, C_USE, C_READ, C_SAMPLES, C_INV, C_BACK, C_MARK,
       C_PAIRS, NR_COLS };

static const struct iolat_col cols[NR_COLS] = {
	[C_NAME] = { "name", "clock", -24, .str = true },
	[C_UNITS] = { "units", "units", -6, .str = true },
	[C_USE] = { "in_use", .in = IOLAT_IN_DATA },
	[C_READ] = { "read_ns", "read ns", 10, 1, 3 },
	[C_SAMPLES] = { "samples", "samples", 12 },
	[C_INV] = { "inversions", "inversions", 10 },
	[C_BACK] = { "max_back", "max back", 12 },
	[C_MARK] = { "", NULL, 0, .in = IOLAT_IN_TEXT, .note = true },
	[C_PAIRS] = { "pairs", NULL, 0, .in = IOLAT_FMT_BIT(CSV) },	/* pairs() */
};

/*
 * The CPU pairs across which the clock went back: JSON, an array of
 * them; text, a line each; CSV, how many (the column "pairs").
 */
static void pairs(struct iolat_table *t, const struct iolat_clock_result *r,
		  struct json *j)
{
	unsigned int p;

	if (t->fmt == IOLAT_FMT_CSV) {
		iolat_cell_u64(t, C_PAIRS, r->nr_pairs);
		return;
	}
	if (t->fmt == IOLAT_FMT_JSON)
		json_arr(j, "pairs");
	for (p = 0; p < r->nr_pairs; p++) {
		if (t->fmt == IOLAT_FMT_TEXT) {
			printf("%26s CPU %u -> CPU %u: %llu\n", "",
			       r->pairs[p].from, r->pairs[p].to,
			       U(r->pairs[p].count));
			continue;
		}
		json_obj(j, NULL);
		json_u64(j, "from", r->pairs[p].from);
		json_u64(j, "to", r->pairs[p].to);
		json_u64(j, "count", r->pairs[p].count);
		json_end(j);
	}
	if (t->fmt == IOLAT_FMT_JSON)
		json_end(j);
}

/* A row per clock; JSON: {"clocks": [...]}. */
static void show(const struct iolat_clock_result *r, unsigned int nr,
		 enum iolat_fmt fmt)
{
	struct iolat_table t;
	struct json j;
	unsigned int i;

	iolat_table_init(&t, cols, NR_COLS, fmt, stdout);
	iolat_table_header(&t);
	json_init(&j, stdout, false);
	if (fmt == IOLAT_FMT_JSON) {
		json_obj(&j, NULL);
		json_arr(&j, "clocks");
	}
	for (i = 0; i < nr; i++) {
		iolat_cell_str(&t, C_NAME, r[i].name);
		iolat_cell_str(&t, C_UNITS, r[i].units);
		iolat_cell_dbl(&t, C_READ, r[i].read_ps / 1000.0);
		iolat_cell_u64(&t, C_SAMPLES, r[i].samples);
		iolat_cell_u64(&t, C_INV, r[i].inversions);
		iolat_cell_u64(&t, C_BACK, r[i].max_back);
		iolat_cell_str(&t, C_USE, r[i].in_use ? "true" : "false");
		iolat_cell_str(&t, C_MARK,
			       r[i].in_use ? " <- iolat's clock" : "");
		if (fmt == IOLAT_FMT_JSON) {
			json_obj(&j, NULL);
			iolat_table_row(&t, &j);
			pairs(&t, &r[i], &j);
			json_end(&j);
			continue;
		}
		if (fmt == IOLAT_FMT_CSV)
			pairs(&t, &r[i], NULL);
		iolat_table_row(&t, NULL);
		if (fmt == IOLAT_FMT_TEXT)
			pairs(&t, &r[i], NULL);
	}
	if (fmt == IOLAT_FMT_JSON) {
		json_end(&j);
		json_end(&j);
	}
}

int cmd_clocktest(int argc, const char **argv)
{
	static char *fmt;
	static int loops;
	struct poptOption options[] = {
		{ "loops", 'n', POPT_ARG_INT, &loops, 0,
		  "clock reads per CPU and clock (1000 to 1000000; default 20000)",
		  "N" },
		{ "output", 'o', POPT_ARG_STRING, &fmt, 0, "text, csv or json", "FMT" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_clock_result *res = calloc(MAX_CLOCKS, sizeof(*res));
	struct iolat_info info;
	struct iolat_nl *nl = NULL;
	unsigned int nr = 0, i;
	poptContext pc;
	int opt, err, ret = EXIT_USAGE;
	enum iolat_fmt ofmt;

	pc = poptGetContext("iolat clocktest", argc, argv, options, 0);
	opt = poptGetNextOpt(pc);
	if (opt < -1) {
		iolat_err("%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
			  poptStrerror(opt));
		goto out;
	}
	if (poptPeekArg(pc)) {
		iolat_err("clocktest takes no arguments");
		goto out;
	}
	if (iolat_fmt_parse(fmt, IOLAT_FMT_ALL, &ofmt))
		goto out;
	if (loops && (loops < 1000 || loops > 1000000)) {
		iolat_err("-n takes 1000 to 1000000 reads");
		goto out;
	}
	ret = EXIT_FAIL;
	if (!res) {
		iolat_err("out of memory");
		goto out;
	}
	nl = iolat_nl_connect(&info);
	if (!nl)
		goto out;
	err = iolat_nl_clocktest(nl, loops, res, MAX_CLOCKS, &nr);
	if (err) {
		if (err == -EPERM)
			iolat_err("permission denied: the clock test needs CAP_PERFMON or CAP_SYS_ADMIN (run as root)");
		else
			iolat_err("the clock test failed: %s%s%s", strerror(-err),
				  iolat_nl_errmsg(nl)[0] ? ": " : "",
				  iolat_nl_errmsg(nl));
		goto out;
	}
	show(res, nr, ofmt);
	ret = EXIT_OK;
	for (i = 0; i < nr; i++) {
		if (res[i].in_use && res[i].inversions) {
			iolat_warn("%s, the clock of every stage, went back %llu times across CPUs: latencies between CPUs are not exact",
				   res[i].name, U(res[i].inversions));
			ret = EXIT_FAIL;
		}
	}
out:
	iolat_nl_close(nl);
	poptFreeContext(pc);
	free(res);
	return ret;
}
