// SPDX-License-Identifier: GPL-2.0
/*
 * Option values every command parses and prints alike: operations,
 * durations, intervals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/iolat.h>
#include "util/util.h"

/* Counts are uint64_t; print them as one type. */
#define U(x) ((unsigned long long)(x))

static const char *const op_names[IOLAT_OP_NR] = {
	"read", "write", "flush", "discard", "write-zeroes", "other",
};

/* "read,write" -> (1 << IOLAT_OP_READ) | (1 << IOLAT_OP_WRITE). */
int iolat_parse_ops(const char *arg, uint32_t *mask)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	unsigned int op;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	*mask = 0;
	/* "read,,write" and "read," name nothing between the commas */
	if (arg[0] == ',' || strstr(arg, ",,") ||
	    (arg[0] && arg[strlen(arg) - 1] == ',')) {
		free(copy);
		return -EINVAL;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (op = 0; op < IOLAT_OP_NR; op++)
			if (!strcmp(tok, op_names[op]))
				break;
		if (op == IOLAT_OP_NR) {
			err = -EINVAL;
			break;
		}
		*mask |= 1U << op;
	}
	free(copy);
	return err || !*mask ? -EINVAL : 0;
}

/* "250us", "10ms", "1.5s", "800ns" or a bare number of ns. */
int iolat_parse_duration_ns(const char *arg, uint64_t *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(arg, &end);
	size_t i;

	if (end == arg || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			if (v * units[i].mult > 1.8e19)
				return -ERANGE;
			*ns = (uint64_t)(v * units[i].mult + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * iolat_parse_secs() - an interval option's seconds
 * @opt: the option, for the message ("-i")
 * @arg: its value
 * @min: the least allowed
 * @secs: the value
 *
 * Return: 0, or -1 after one clear message.
 */
int iolat_parse_secs(const char *opt, const char *arg, double min,
		     double *secs)
{
	char *end;

	*secs = strtod(arg, &end);
	/* (written so that NaN fails too) */
	if (*end || end == arg || !(*secs >= min && *secs <= 86400)) {
		iolat_err("%s takes a number of seconds from %g to 86400, not '%s'",
			  opt, min, arg);
		return -1;
	}
	return 0;
}

void iolat_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}
