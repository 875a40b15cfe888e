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
#include "util/json.h"

#define MAX_CLOCKS 16
#define U(x) ((unsigned long long)(x))

static void text(const struct iolat_clock_result *r, unsigned int nr)
{
	unsigned int i, p;

	printf("%-24s %-6s %10s %12s %10s %12s\n", "clock", "units",
	       "read ns", "samples", "inversions", "max back");
	for (i = 0; i < nr; i++) {
		printf("%-24s %-6s %10.1f %12llu %10llu %12llu%s\n", r[i].name,
		       r[i].units, r[i].read_ps / 1000.0, U(r[i].samples),
		       U(r[i].inversions), U(r[i].max_back),
		       r[i].in_use ? "  <- iolat's clock" : "");
		for (p = 0; p < r[i].nr_pairs; p++)
			printf("%26s CPU %u -> CPU %u: %llu\n", "",
			       r[i].pairs[p].from, r[i].pairs[p].to,
			       U(r[i].pairs[p].count));
	}
}

static void json(const struct iolat_clock_result *r, unsigned int nr)
{
	struct json j;
	unsigned int i, p;

	json_init(&j, stdout, false);
	json_obj(&j, NULL);
	json_arr(&j, "clocks");
	for (i = 0; i < nr; i++) {
		json_obj(&j, NULL);
		json_string(&j, "name", r[i].name);
		json_string(&j, "units", r[i].units);
		json_bool(&j, "in_use", r[i].in_use);
		json_double(&j, "read_ns", "%.3f", r[i].read_ps / 1000.0);
		json_u64(&j, "samples", r[i].samples);
		json_u64(&j, "inversions", r[i].inversions);
		json_u64(&j, "max_back", r[i].max_back);
		json_arr(&j, "pairs");
		for (p = 0; p < r[i].nr_pairs; p++) {
			json_obj(&j, NULL);
			json_u64(&j, "from", r[i].pairs[p].from);
			json_u64(&j, "to", r[i].pairs[p].to);
			json_u64(&j, "count", r[i].pairs[p].count);
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
}

int cmd_clocktest(int argc, const char **argv)
{
	static char *fmt;
	static int loops;
	struct poptOption options[] = {
		{ "loops", 'n', POPT_ARG_INT, &loops, 0,
		  "clock reads per CPU and clock (1000 to 1000000; default 20000)",
		  "N" },
		{ "output", 'o', POPT_ARG_STRING, &fmt, 0, "text or json", "FMT" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct iolat_clock_result *res = calloc(MAX_CLOCKS, sizeof(*res));
	struct iolat_info info;
	struct iolat_nl *nl = NULL;
	unsigned int nr = 0, i;
	poptContext pc;
	int opt, err, ret = EXIT_USAGE;

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
	if (fmt && strcmp(fmt, "text") && strcmp(fmt, "json")) {
		iolat_err("-o takes text or json, not '%s'", fmt);
		goto out;
	}
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
	if (fmt && !strcmp(fmt, "json"))
		json(res, nr);
	else
		text(res, nr);
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
