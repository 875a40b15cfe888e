// SPDX-License-Identifier: GPL-2.0
/*
 * iolat export's options: its command line, and with --config FILE the
 * options the file gives in IOLAT_EXPORT_OPTS (a shell assignment, as
 * /etc/iolat/exporter.conf holds for iolat-exporter.service), taken
 * before the command line's.  Parsed once at the start and again at each
 * SIGHUP, into a struct of their own (cmd_export.c compares the two).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/export.h"

#define CONF_VAR "IOLAT_EXPORT_OPTS="

/* @s without the spaces around it and one pair of quotes, in place. */
static char *conf_value(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s[n - 1] = '\0';
		s++;
	}
	return s;
}

/*
 * The options of @path's IOLAT_EXPORT_OPTS into *@argc and *@argv (one
 * allocation, for free()), none if it has no such line.
 * Return: 0, or -1 after one clear message.
 */
static int conf_read(const char *path, int *argc, const char ***argv)
{
	char *line = NULL, *v = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	int err;

	*argc = 0;
	*argv = NULL;
	if (!f) {
		iolat_err("--config %s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		char *p = line + strspn(line, " \t");

		if (!strncmp(p, CONF_VAR, strlen(CONF_VAR))) {
			free(v);
			v = strdup(conf_value(p + strlen(CONF_VAR)));
		}
	}
	free(line);
	fclose(f);
	if (!v || !*v) {
		free(v);
		return 0;
	}
	err = poptParseArgvString(v, argc, argv);
	free(v);
	if (err) {
		iolat_err("--config %s: %s: %s", path, CONF_VAR "...",
			  poptStrerror(err));
		return -1;
	}
	return 0;
}

/* The file of --config in @argv, or NULL. */
static const char *conf_arg(int argc, const char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			return argv[i + 1];
		if (!strncmp(argv[i], "--config=", 9))
			return argv[i] + 9;
	}
	return NULL;
}

/**
 * export_args_parse() - export's options, from @argv and its --config file
 * @a: zeroed; for export_args_free()
 * @s: the session, whose options iolat_session_getopt() sets (a scratch
 *	one at a reload)
 * @argc: the command line's
 * @argv: the command line's
 *
 * Return: 0, or -1 after one clear message.
 */
int export_args_parse(struct export_args *a, struct iolat_session *s,
		      int argc, const char **argv)
{
	struct poptOption opts[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, iolat_session_options, 0,
		  "Devices and filters:", NULL },
		{ "config", 0, POPT_ARG_STRING, &a->config, 0,
		  "take the options in FILE's IOLAT_EXPORT_OPTS first (the service's /etc/iolat/exporter.conf); read again at SIGHUP",
		  "FILE" },
		{ "textfile", 0, POPT_ARG_STRING, &a->dir, 0,
		  "keep DIR/iolat.prom up to date (node_exporter's textfile collector)",
		  "DIR" },
		{ "listen", 0, POPT_ARG_STRING, &a->listen, 0,
		  "serve GET /metrics on ADDR:PORT (e.g. :9301)", "ADDR:PORT" },
		{ "interval", 'i', POPT_ARG_STRING, &a->every, 0,
		  "rewrite the text file each SECS seconds (default 15)", "SECS" },
		IOLAT_PROM_POPT(a->buckets),
		{ "records", 0, POPT_ARG_NONE, &a->records, 0,
		  "stream every request's record and analyse it here, rather than read the module's histograms (costs as much as record)",
		  NULL },
		{ "cgroups", 0, POPT_ARG_NONE, &a->cgroups, 0,
		  "latency, requests and bytes per cgroup by path, at most --cgroups-top a device and the rest as cgroup=\"other\": from the module's slots, the busiest of those doing I/O as places free up; with --records, the busiest of the run",
		  NULL },
		{ "cgroups-top", 0, POPT_ARG_STRING, &a->top, 0,
		  "cgroups named per device by --cgroups (default 10; named while they are there)",
		  "N" },
		{ "output", 'o', POPT_ARG_STRING, &a->output, 0,
		  "json: at the end, the run's histograms and percentiles (those the exposition holds) as record -A -o json prints them",
		  "json" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	const char *path = conf_arg(argc, argv);
	int fargc = 0, i;

	if (path && conf_read(path, &fargc, &a->fargv))
		return -1;
	a->argv = calloc(argc + fargc + 1, sizeof(*a->argv));
	if (!a->argv) {
		iolat_err("out of memory");
		return -1;
	}
	a->argv[0] = argv[0];
	for (i = 0; i < fargc; i++)
		a->argv[1 + i] = a->fargv[i];
	for (i = 1; i < argc; i++)
		a->argv[fargc + i] = argv[i];
	a->pc = poptGetContext("iolat export", argc + fargc, a->argv, opts,
			       POPT_CONTEXT_POSIXMEHARDER);
	if (iolat_session_getopt(s, &a->o, a->pc))
		return -1;
	if (!a->dir && !a->listen) {
		iolat_err("export needs --textfile DIR or --listen ADDR:PORT");
		return -1;
	}
	if (a->output && strcmp(a->output, "json")) {
		iolat_err("export -o takes json (the run at its end), not '%s'",
			  a->output);
		return -1;
	}
	a->cgroups_top = 10;
	if (a->top) {
		char *end;
		unsigned long n = strtoul(a->top, &end, 10);

		a->cgroups_top = *end || end == a->top || n > 10000 ? 0 : n;
	}
	if (a->top && (!a->cgroups || !a->cgroups_top)) {
		iolat_err("--cgroups-top takes a number of cgroups from 1 to 10000, with --cgroups, not '%s'",
			  a->top);
		return -1;
	}
	if (a->cgroups && !a->records &&
	    a->cgroups_top > IOLAT_CGROUP_SLOTS_MAX) {
		iolat_err("--cgroups-top %u: the module keeps at most %u cgroups a device; more need --records",
			  a->cgroups_top, IOLAT_CGROUP_SLOTS_MAX);
		return -1;
	}
	a->every_s = 15;
	if (a->every && iolat_parse_secs("-i", a->every, IOLAT_MIN_INTERVAL_S,
					 &a->every_s))
		return -1;
	return iolat_prom_parse_step(a->buckets, &a->prom_step) ? -1 : 0;
}

void export_args_free(struct export_args *a)
{
	iolat_session_opts_free(&a->o);
	free(a->config);
	free(a->dir);
	free(a->listen);
	free(a->every);
	free(a->buckets);
	free(a->output);
	free(a->top);
	if (a->pc)
		poptFreeContext(a->pc);
	free(a->argv);
	free(a->fargv);
	memset(a, 0, sizeof(*a));
}

/* Are @x and @y the same option's value, or both unset? */
bool export_same(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

/*
 * The options that a reload cannot change, in @buf: those that make
 * another session of the module (devices, filters, streaming), or end
 * it (-t, --summary).  Empty if none differ.
 */
void export_args_fixed(const struct export_args *a, const struct export_args *b,
		       char *buf, size_t len)
{
	const struct iolat_session_opts *x = &a->o, *y = &b->o;
	bool devs = x->nr_devargs != y->nr_devargs;
	unsigned int i;

	for (i = 0; !devs && i < x->nr_devargs; i++)
		devs = strcmp(x->devargs[i], y->devargs[i]);
	snprintf(buf, len, "%s%s%s%s%s%s%s%s%s%s%s%s%s",
		 devs ? " -d" : "",
		 !export_same(x->include, y->include) ? " --include" : "",
		 !export_same(x->exclude, y->exclude) ? " --exclude" : "",
		 !export_same(x->ops, y->ops) ? " --op" : "",
		 !export_same(x->comm, y->comm) ? " -c" : "",
		 !export_same(x->min_lat, y->min_lat) ? " -m" : "",
		 x->pid != y->pid || x->tgid != y->tgid ? " -p/--tid" : "",
		 x->nr_cgroups != y->nr_cgroups ||
		 memcmp(x->cgroups, y->cgroups, sizeof(x->cgroups)) ?
		 " --cgroup" : "",
		 x->duration != y->duration || x->ring != y->ring ? " -t/-b" : "",
		 !export_same(x->summary, y->summary) ? " --summary" : "",
		 a->records != b->records ? " --records" : "",
		 a->cgroups != b->cgroups ? " --cgroups" : "",
		 !export_same(a->output, b->output) ? " -o" : "");
}
