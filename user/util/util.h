/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's utilities, below every other layer: its messages and exit
 * statuses (msg.c), growing arrays (grow.c), option values (parse.c),
 * the service manager's notifications (notify.c), clocks (clock.c); JSON
 * strings are json.h's.
 */
#ifndef IOLAT_UTIL_H
#define IOLAT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define IOLAT_CLI_NAME "iolat"

/* Exit statuses. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* runtime failure, incomplete results */
#define EXIT_USAGE	2	/* bad option or argument */

void iolat_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void iolat_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *iolat_grow(void *p, unsigned int *cap, unsigned int need, size_t size);
void *iolat_grow_to(void *p, unsigned int from, unsigned int to, size_t size);

int iolat_parse_ops(const char *arg, uint32_t *mask);
int iolat_parse_duration_ns(const char *arg, uint64_t *ns);
void iolat_fmt_ns(char *buf, size_t len, double ns);
/*
 * The shortest interval of every command (record/report -i, stat's
 * interval, top and export -i), and the longest -t.
 */
#define IOLAT_MIN_INTERVAL_S	0.01
#define IOLAT_MAX_DURATION_S	31622400	/* 366 days */
int iolat_parse_secs(const char *opt, const char *arg, double min,
		     double *secs);

/* CLOCK_MONOTONIC (the module's clock) and others (clock.c). */
uint64_t iolat_clock_ns(clockid_t id);
uint64_t iolat_mono_ns(void);
double iolat_mono_s(void);

/* A state for the service manager (notify.c), if it asked for them. */
int iolat_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* IOLAT_UTIL_H */
