/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat export's options, from its command line and --config FILE
 * (export_conf.c), for cmd_export.c.
 */
#ifndef IOLAT_CMD_EXPORT_H
#define IOLAT_CMD_EXPORT_H

#include <popt.h>
#include "cmd/cmd.h"

struct export_args {
	char *config;		/* --config FILE */
	char *dir;		/* --textfile DIR */
	char *listen;		/* --listen ADDR:PORT */
	char *every, *buckets;
	char *output;		/* -o json: the run, at its end */
	int records;
	int cgroups;		/* --cgroups (with --records) */
	char *top;		/* --cgroups-top N */
	unsigned int cgroups_top;	/* parsed; default 10 */
	double every_s;		/* -i, parsed */
	unsigned int prom_step;	/* --buckets, parsed */
	struct iolat_session_opts o;
	/* what the strings above and the session's COMMAND point into */
	poptContext pc;
	const char **argv;	/* the file's options, then the command line's */
	const char **fargv;	/* the file's, one allocation */
};

int export_args_parse(struct export_args *a, struct iolat_session *s,
		      int argc, const char **argv);
void export_args_free(struct export_args *a);
bool export_same(const char *x, const char *y);
void export_args_fixed(const struct export_args *a, const struct export_args *b,
		       char *buf, size_t len);

#endif /* IOLAT_CMD_EXPORT_H */
