// SPDX-License-Identifier: GPL-2.0
/*
 * iolat: block I/O latency from the iolat kernel module.
 * The command table; each command parses its own options.
 */
#include <stdio.h>
#include <string.h>
#include "cmd/cmd.h"

struct iolat_command {
	const char *name;
	int (*run)(int argc, const char **argv);
	const char *help;
};

static const struct iolat_command commands[] = {
	{ "trace", cmd_trace,
	  "trace devices and print one line per request" },
	{ "record", cmd_record,
	  "trace devices and print latency histograms per stage" },
	{ "report", cmd_report,
	  "analyse records saved by record -w, as record does, or merge files" },
	{ "plot", cmd_plot,
	  "draw a saved run as SVG: latency heatmap, percentiles, IOPS, depth" },
	{ "export", cmd_export,
	  "keep a Prometheus exposition up to date: textfile or /metrics" },
	{ "watch", cmd_watch,
	  "flight recorder: keep the last seconds of records, dump them when an SLO breaks" },
	{ "top", cmd_top,
	  "live table of devices and processes: IOPS, MB/s, p50/p99, %util" },
	{ "stat", cmd_stat,
	  "exact %util, queue depth and rates per interval, beside the kernel's" },
	{ "nvme", cmd_nvme,
	  "NVMe commands per queue and opcode: driver time, queue depth, admin" },
	{ "clocktest", cmd_clocktest,
	  "test the clocks across CPUs: inversions and cost of a read" },
	{ "info", cmd_info, "show the CLI and module versions" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iolat COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'iolat help COMMAND' (or 'iolat COMMAND --help') for a command's options;\n'iolat --version'; see iolat(8).\n");
}

/* Command @i with @argv[0] its name; popt's usage lines say "iolat CMD". */
static int run(size_t i, int argc, const char **argv)
{
	static char name[32];

	snprintf(name, sizeof(name), "iolat %s", commands[i].name);
	argv[0] = name;
	return commands[i].run(argc, argv);
}

int main(int argc, const char **argv)
{
	const char *help[] = { NULL, "--help", NULL };
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* iolat help CMD: CMD's options */
	if (!strcmp(argv[1], "help") && argc == 3) {
		for (i = 0; i < NR_COMMANDS; i++)
			if (!strcmp(argv[2], commands[i].name))
				return run(i, 2, help);
		iolat_err("unknown command '%s' (try: iolat --help)", argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("iolat %s (ABI %d)\n", IOLAT_VERSION, IOLAT_ABI_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return run(i, argc - 1, argv + 1);
	iolat_err("unknown command '%s' (try: iolat --help)", argv[1]);
	return EXIT_USAGE;
}
