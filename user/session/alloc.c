// SPDX-License-Identifier: GPL-2.0
/*
 * The session's arrays of devices, sized by the session or the file:
 * a run's per-device arrays and the devices' counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "session/session.h"

/**
 * iolat_run_alloc() - a run's per-device arrays, zeroed
 * @run: the run
 * @nr_devs: its devices
 *
 * Return: 0 or -ENOMEM (with nothing left allocated).
 */
int iolat_run_alloc(struct iolat_run *run, unsigned int nr_devs)
{
	size_t n = nr_devs ?: 1;

	run->removed = calloc(n, sizeof(*run->removed));
	run->dev_state = calloc(n, sizeof(*run->dev_state));
	run->kstart = calloc(n, sizeof(*run->kstart));
	run->kend = calloc(n, sizeof(*run->kend));
	run->kpre = calloc(n, sizeof(*run->kpre));
	run->kprestop = calloc(n, sizeof(*run->kprestop));
	if (run->removed && run->dev_state && run->kstart && run->kend &&
	    run->kpre && run->kprestop)
		return 0;
	iolat_run_free(run);
	return -ENOMEM;
}

/* @run's per-device arrays from @from devices to @to, the new zeroed. */
void iolat_run_grow(struct iolat_run *run, unsigned int from, unsigned int to)
{
	run->removed = iolat_grow_to(run->removed, from, to,
				     sizeof(*run->removed));
	run->dev_state = iolat_grow_to(run->dev_state, from, to,
				       sizeof(*run->dev_state));
	run->kstart = iolat_grow_to(run->kstart, from, to, sizeof(*run->kstart));
	run->kend = iolat_grow_to(run->kend, from, to, sizeof(*run->kend));
	run->kpre = iolat_grow_to(run->kpre, from, to, sizeof(*run->kpre));
	run->kprestop = iolat_grow_to(run->kprestop, from, to,
				      sizeof(*run->kprestop));
}

void iolat_run_free(struct iolat_run *run)
{
	free(run->removed);
	free(run->dev_state);
	free(run->kstart);
	free(run->kend);
	free(run->kpre);
	free(run->kprestop);
	run->removed = NULL;
	run->dev_state = NULL;
	run->kstart = run->kend = run->kpre = run->kprestop = NULL;
}

/**
 * iolat_counters_new() - room for the counters of the session's devices
 * @s: the session, set up
 *
 * Return: [s->nr_devs], given each device's numbers and queues, for
 * iolat_counters_free(); NULL without memory.
 */
struct iolat_dev_counters *iolat_counters_new(const struct iolat_session *s)
{
	struct iolat_dev_counters *c = calloc(s->nr_devs ?: 1, sizeof(*c));
	unsigned int d;

	for (d = 0; c && d < s->nr_devs; d++) {
		c[d].major = s->devs[d].major;
		c[d].minor = s->devs[d].minor;
		c[d].nr_hwq = s->devs[d].nr_hwq;
		c[d].hwqs = calloc(c[d].nr_hwq, sizeof(*c[d].hwqs));
		if (!c[d].hwqs) {
			iolat_counters_free(s, c);
			return NULL;
		}
	}
	return c;
}

/**
 * iolat_counters_grow() - room for the devices that joined the session
 * @s: the session, with its new devices
 * @c: an array of iolat_counters_new(), for @from devices: grown to
 *	@s's, the new ones given their numbers and queues, and the
 *	reading of a disk that just joined: nothing counted, at this time
 * @from: how many devices @c has
 *
 * Out of memory, the CLI exits after one line (iolat_grow_to()).
 */
void iolat_counters_grow(const struct iolat_session *s,
			 struct iolat_dev_counters **c, unsigned int from)
{
	uint64_t now = iolat_mono_ns();
	unsigned int d;

	*c = iolat_grow_to(*c, from, s->nr_devs, sizeof(**c));
	for (d = from; d < s->nr_devs; d++) {
		(*c)[d].major = s->devs[d].major;
		(*c)[d].minor = s->devs[d].minor;
		(*c)[d].nr_hwq = s->devs[d].nr_hwq;
		(*c)[d].start_ns = (*c)[d].now_ns = now;
		(*c)[d].hwqs = calloc(s->devs[d].nr_hwq, sizeof(*(*c)[d].hwqs));
		if (!(*c)[d].hwqs) {
			iolat_err("out of memory for %u devices", s->nr_devs);
			exit(EXIT_FAIL);
		}
	}
}

/* @c from iolat_counters_new(), or NULL */
void iolat_counters_free(const struct iolat_session *s,
			 struct iolat_dev_counters *c)
{
	unsigned int d;

	for (d = 0; c && d < s->nr_devs; d++)
		free(c[d].hwqs);
	free(c);
}
