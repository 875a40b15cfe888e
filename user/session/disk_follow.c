// SPDX-License-Identifier: GPL-2.0
/*
 * Disks that appear while a session over every disk runs (stat, top,
 * export, record -A without -d): each blk-mq disk that --include and
 * --exclude pass joins the module's session (DEV_ADD) once two device
 * checks in a row found it with the same queues (the kernel makes a
 * disk's number, then its queues' directories: one look could count
 * them half made), and is traced from then on; the command is told, to
 * make room for it.  A disk that goes is reported by the device check
 * (session_run.c) and keeps its figures.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "session/session.h"

/* A full look at /sys/block each this many device checks, at least. */
#define SCAN_EVERY	10

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * The traced devices' names, sorted, for traced(): a look at thousands of
 * disks compares each name with a few others, not with every device.
 */
static char (*traced_names(const struct iolat_session *s))[32]
{
	char (*names)[32] = malloc((s->nr_devs ?: 1) * sizeof(*names));
	unsigned int d;

	if (!names)
		return NULL;
	for (d = 0; d < s->nr_devs; d++)
		snprintf(names[d], sizeof(*names), "%s", s->devs[d].name);
	qsort(names, s->nr_devs, sizeof(*names), name_cmp);
	return names;
}

static bool traced(char (*sorted)[32], unsigned int nr, const char *name)
{
	return bsearch(name, sorted, nr, sizeof(*sorted), name_cmp);
}

static bool refused(const struct iolat_session *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->nr_refused; i++)
		if (!strcmp(s->refused[i], name))
			return true;
	return false;
}

/* Not to be tried again this session: said once, with the reason. */
static void refuse(struct iolat_session *s, const char *name, const char *why)
{
	iolat_warn("%s appeared but is not traced: %s", name, why);
	s->refused = iolat_grow(s->refused, &s->cap_refused,
				s->nr_refused + 1, sizeof(*s->refused));
	snprintf(s->refused[s->nr_refused++], sizeof(*s->refused), "%s", name);
}

/*
 * Disk @name joins the session: resolved, given to the module, and its
 * room made in the session and in the command.  The kernel's counters
 * of it are read just before and after the module's, as at a start,
 * for --summary's bracket.
 */
static void join(struct iolat_session *s, const char *name)
{
	unsigned int d = s->nr_devs;
	struct iolat_dev_req *dev;
	int err;

	err = iolat_session_add_dev(s, name);
	if (err || s->nr_devs == d) {
		/* gone again, or not a disk: the resolver said why */
		refuse(s, name, "it cannot be resolved as a blk-mq disk");
		return;
	}
	dev = &s->devs[d];
	iolat_run_grow(&s->run, d, s->nr_devs);
	if (iolat_diskstats_read("/sys", name, &s->run.kpre[d]))
		s->run.kernel_bracket = false;
	err = iolat_nl_dev_add(s->nl, dev);
	if (err) {
		s->nr_devs--;
		refuse(s, name, err == -EOPNOTSUPP ?
		       "the iolat module is too old to add a disk to a running session" :
		       iolat_nl_errmsg(s->nl)[0] ? iolat_nl_errmsg(s->nl) :
		       strerror(-err));
		return;
	}
	if (iolat_diskstats_read("/sys", name, &s->run.kstart[d]))
		s->run.kernel_valid = s->run.kernel_bracket = false;
	s->run.dev_state[d] = IOLAT_DEV_PRESENT;
	iolat_counters_grow(s, &s->counters, d);
	iolat_dev_lookup_reset(&s->lookup);
	iolat_warn("%s (%u:%u) appeared: traced from now on", dev->name,
		   dev->major, dev->minor);
	s->added(s->arg, d);
}

/*
 * Was disk @dev seen with the same queues at the last look?  Either way
 * it is in @next for the next one.
 */
static bool settled(const struct iolat_session *s, const struct iolat_dev_req *dev,
		    struct iolat_seen *next, unsigned int *nr_next)
{
	unsigned int i;

	for (i = 0; i < s->nr_seen; i++)
		if (!strcmp(s->seen[i].name, dev->name) &&
		    s->seen[i].nr_hwq == dev->nr_hwq &&
		    s->seen[i].depth == dev->depth)
			return true;
	snprintf(next[*nr_next].name, sizeof(next->name), "%s", dev->name);
	next[*nr_next].nr_hwq = dev->nr_hwq;
	next[(*nr_next)++].depth = dev->depth;
	return false;
}

/* Has /sys/dev/block changed since the last look?  Keeps @devts if so. */
static bool devts_changed(struct iolat_session *s, const uint64_t *devts,
			  size_t n)
{
	uint64_t *copy;

	if (n == s->nr_devts && s->devts &&
	    !memcmp(devts, s->devts, n * sizeof(*devts)))
		return false;
	copy = malloc((n ?: 1) * sizeof(*copy));
	if (copy) {
		memcpy(copy, devts, n * sizeof(*copy));
		free(s->devts);
		s->devts = copy;
		s->nr_devts = n;
	}
	return true;
}

/**
 * iolat_session_follow() - the disks that appeared join the session
 * @s: the running session
 * @devts: the block devices' numbers now (iolat_devts_read()), or NULL
 * @nr_devts: how many
 *
 * /sys/block is read when a device came or went, while a disk waits for
 * its second look, or every SCAN_EVERY calls (a loop device that gets a
 * file keeps its number).
 */
void iolat_session_follow(struct iolat_session *s, const uint64_t *devts,
			  size_t nr_devts)
{
	unsigned int nr_next = 0, nr_traced = s->nr_devs;
	char (*names)[32], (*sorted)[32];
	struct iolat_dev_req *dev;
	struct iolat_seen *next;
	int n, i;

	if (!s->follow || !s->added || !s->nl)
		return;
	if (devts && !devts_changed(s, devts, nr_devts) && !s->nr_seen &&
	    ++s->scans < SCAN_EVERY)
		return;
	s->scans = 0;
	names = calloc(IOLAT_ALL_DISKS_MAX, sizeof(*names));
	next = calloc(IOLAT_ALL_DISKS_MAX, sizeof(*next));
	dev = calloc(1, sizeof(*dev));
	sorted = traced_names(s);
	n = names && next && dev && sorted ?
	    iolat_blk_mq_disks("/sys", names, IOLAT_ALL_DISKS_MAX) : 0;
	for (i = 0; i < n && i < IOLAT_ALL_DISKS_MAX; i++) {
		if (s->nr_devs >= IOLAT_CLI_MAX_DEVS)
			break;
		if (traced(sorted, nr_traced, names[i]) ||
		    refused(s, names[i]) || !iolat_session_wants(s, names[i]))
			continue;
		memset(dev, 0, sizeof(*dev));
		snprintf(dev->name, sizeof(dev->name), "%s", names[i]);
		/* not whole yet (no queues: looked at again), or not a disk */
		if (iolat_dev_resolve("/sys", names[i], dev))
			dev->nr_hwq = dev->depth = 0;
		if (!settled(s, dev, next, &nr_next))
			continue;
		if (dev->nr_hwq)
			join(s, names[i]);
		else
			refuse(s, names[i], "it cannot be resolved as a blk-mq disk");
	}
	free(s->seen);
	s->seen = next;
	s->nr_seen = nr_next;
	free(sorted);
	free(names);
	free(dev);
}
