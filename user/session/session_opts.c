// SPDX-License-Identifier: GPL-2.0
/*
 * A session command's options (popt tables and their parsing) and the
 * devices they choose, resolved and checked (iolat_session_setup()).
 */
#define _GNU_SOURCE	/* strverscmp */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <regex.h>
#include <sys/wait.h>
#include "session/session.h"

/* Counts are uint64_t; print them as one type. */
#define U(x) ((unsigned long long)(x))

/* Options every session command takes (popt table; 'd' is collected). */
struct poptOption iolat_session_options[] = {
	{ "device", 'd', POPT_ARG_STRING, NULL, 'd',
	  "block device to trace (repeat for more)", "DEV" },
	IOLAT_DISK_FILTER_POPT,
	{ "duration", 't', POPT_ARG_STRING, NULL, 't',
	  "trace for SECS seconds (default: until Ctrl-C, or while COMMAND runs)",
	  "SECS" },
	{ "buffer", 'b', POPT_ARG_STRING, NULL, 'b',
	  "records per CPU buffer, a power of two (default 8192)", "RECORDS" },
	{ "op", 0, POPT_ARG_STRING, NULL, 'O',
	  "keep only these operations: read,write,flush,discard,write-zeroes,other",
	  "OPS" },
	{ "pid", 'p', POPT_ARG_STRING, NULL, 'p',
	  "keep only requests submitted by process PID (any of its threads)",
	  "PID" },
	{ "tid", 0, POPT_ARG_STRING, NULL, 'T',
	  "keep only requests submitted by thread TID", "TID" },
	{ "comm", 'c', POPT_ARG_STRING, NULL, 'c',
	  "keep only requests submitted by tasks named COMM", "COMM" },
	{ "cgroup", 0, POPT_ARG_STRING, NULL, 'G',
	  "keep only requests charged to this cgroup or one under it (repeat for more)",
	  "CGROUP" },
	{ "min-latency", 'm', POPT_ARG_STRING, NULL, 'm',
	  "keep only requests slower than this (e.g. 500us, 10ms)", "TIME" },
	{ "summary", 0, POPT_ARG_STRING, NULL, 'S',
	  "write the session's drop counts and device counters to FILE as JSON",
	  "FILE" },
	{ "copy", 0, POPT_ARG_NONE, NULL, 'K',
	  "take the records in netlink messages, not from the buffers mapped (/dev/iolat), which hold the module while the command runs",
	  NULL },
	POPT_TABLEEND
};

/* `iolat stat`'s: it counts every request, so no filters and no buffer */
struct poptOption iolat_counter_options[] = {
	{ "device", 'd', POPT_ARG_STRING, NULL, 'd',
	  "block device (repeat for more; default: the blk-mq disks)", "DEV" },
	IOLAT_DISK_FILTER_POPT,
	{ "duration", 't', POPT_ARG_STRING, NULL, 't',
	  "count for SECS seconds (default: until Ctrl-C, or while COMMAND runs)",
	  "SECS" },
	{ "summary", 0, POPT_ARG_STRING, NULL, 'S',
	  "write the session's device counters to FILE as JSON", "FILE" },
	POPT_TABLEEND
};

/* devargs: one more */
static void devargs_push(struct iolat_session_opts *o, char *arg)
{
	o->devargs = iolat_grow(o->devargs, &o->cap_devargs,
				o->nr_devargs + 1, sizeof(*o->devargs));
	o->devargs[o->nr_devargs++] = arg;
}

/* nullb2 before nullb10, as ls -v sorts */
static int cmp_name(const void *a, const void *b)
{
	return strverscmp(a, b);
}

static bool iolat_task_exists(long id)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%ld", id);
	return !access(path, F_OK);
}

/**
 * iolat_session_parse() - take one option of iolat_session_options
 * @o: where the option's value goes
 * @pc: the popt context
 * @opt: poptGetNextOpt()'s value
 *
 * Return: 1 if @opt was a session option, 0 if not, -1 on a bad value
 * (reported).
 */
static int iolat_session_parse(struct iolat_session_opts *o, poptContext pc,
			       int opt)
{
	const char *arg = poptGetOptArg(pc);
	char *end;
	long v;

	switch (opt) {
	case 'd':
		if (o->nr_devargs == IOLAT_CLI_MAX_DEVS) {
			iolat_err("at most %d devices a session", IOLAT_CLI_MAX_DEVS);
			free((void *)arg);
			return -1;
		}
		devargs_push(o, (char *)arg);
		return 1;
	case 'I':
	case 'E':
		free(opt == 'I' ? o->include : o->exclude);
		*(opt == 'I' ? &o->include : &o->exclude) = (char *)arg;
		return 1;
	case 't':
		o->duration = strtod(arg, &end);
		if (*end || end == arg)
			break;
		/* 0 ran forever; NaN and inf were taken */
		if (!(o->duration > 0 && o->duration <= IOLAT_MAX_DURATION_S)) {
			iolat_err("-t takes a number of seconds above 0 and up to %d, not '%s'",
				  IOLAT_MAX_DURATION_S, arg);
			free((void *)arg);
			return -1;
		}
		free((void *)arg);
		return 1;
	case 'b':
		o->ring = strtol(arg, &end, 10);
		break;
	case 'K':
		o->copy = true;
		return 1;
	case 'O':
		free(o->ops);
		o->ops = (char *)arg;
		return 1;
	case 'c':
		free(o->comm);
		o->comm = (char *)arg;
		return 1;
	case 'm':
		free(o->min_lat);
		o->min_lat = (char *)arg;
		return 1;
	case 'G':
		if (o->nr_cgroups == IOLAT_FILTER_CGROUPS) {
			iolat_err("at most %d --cgroup a session",
				  IOLAT_FILTER_CGROUPS);
			free((void *)arg);
			return -1;
		}
		v = iolat_cgroup_resolve(arg, &o->cgroups[o->nr_cgroups]);
		free((void *)arg);
		if (v)
			return -1;
		o->nr_cgroups++;
		return 1;
	case 'S':
		free(o->summary);
		o->summary = (char *)arg;
		return 1;
	case 'p':
	case 'T':
		v = strtol(arg, &end, 10);
		if (*end || v <= 0 || v > 4194304) {
			iolat_err("--%s takes a process or thread id, not '%s'",
				  opt == 'p' ? "pid" : "tid", arg);
			free((void *)arg);
			return -1;
		}
		/* /proc/ID is there for a thread id too, though not listed */
		if (!iolat_task_exists(v)) {
			iolat_err("--%s %ld: no such %s", opt == 'p' ? "pid" : "tid",
				  v, opt == 'p' ? "process" : "thread");
			free((void *)arg);
			return -1;
		}
		if (opt == 'p')
			o->tgid = v;
		else
			o->pid = v;
		free((void *)arg);
		return 1;
	default:
		free((void *)arg);
		return 0;
	}
	if (*end || end == arg) {
		iolat_err("-%c takes a number, not '%s'", opt, arg);
		free((void *)arg);
		return -1;
	}
	free((void *)arg);
	return 1;
}

/**
 * iolat_session_getopt() - parse a session command's options
 * @s: the session; s->cmd is set to the COMMAND after "--", if any
 * @o: where the session options go
 * @pc: the command's popt context, whose table includes
 *	iolat_session_options
 *
 * Return: 0, or -1 after one clear message.
 */
int iolat_session_getopt(struct iolat_session *s, struct iolat_session_opts *o,
			 poptContext pc)
{
	int opt;

	s->wake_fd = -1;
	poptSetOtherOptionHelp(pc, s->usage ? s->usage :
			       "-d DEV [-d DEV...] [OPTION...] [-- COMMAND...]");
	while ((opt = poptGetNextOpt(pc)) > 0)
		if (iolat_session_parse(o, pc, opt) < 0)
			return -1;
	if (opt < -1) {
		iolat_err("%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
			  poptStrerror(opt));
		return -1;
	}
	s->cmd = poptGetArgs(pc);
	return 0;
}

/* @re compiled from --OPT's @arg, or one clear line */
static int disk_regex(regex_t *re, const char *opt, const char *arg)
{
	char msg[128];
	int err = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);

	if (!err)
		return 0;
	regerror(err, re, msg, sizeof(msg));
	iolat_err("--%s '%s': %s", opt, arg, msg);
	return -1;
}

/* Does disk @name pass --include and --exclude? */
bool iolat_session_wants(const struct iolat_session *s, const char *name)
{
	const struct iolat_disk_filter *f = &s->disks;

	return (!f->has_inc || !regexec(&f->inc, name, 0, NULL, 0)) &&
	       (!f->has_exc || regexec(&f->exc, name, 0, NULL, 0));
}

/**
 * iolat_session_all_disks() - without -d: every blk-mq disk
 * @s: the session, whose disk filter is compiled here, for the disks
 *	that appear while it runs too
 * @o: the session options, whose devargs get the disks' names
 *
 * Every blk-mq disk but loop devices with nothing attached, those
 * --include matches (all without it) and --exclude does not, in version
 * order (nullb2 before nullb10), not readdir's.
 *
 * Return: 0, or -1 after one clear message.
 */
static int iolat_session_all_disks(struct iolat_session *s,
				   struct iolat_session_opts *o)
{
	char (*names)[32];
	int n, i, taken = 0;

	if (o->include && disk_regex(&s->disks.inc, "include", o->include))
		return -1;
	s->disks.has_inc = o->include;
	if (o->exclude && disk_regex(&s->disks.exc, "exclude", o->exclude))
		return -1;
	s->disks.has_exc = o->exclude;
	names = calloc(IOLAT_ALL_DISKS_MAX, sizeof(*names));
	if (!names) {
		iolat_err("out of memory");
		return -1;
	}
	n = iolat_blk_mq_disks("/sys", names, IOLAT_ALL_DISKS_MAX);
	if (n > IOLAT_ALL_DISKS_MAX) {
		iolat_warn("%d blk-mq disks; a session takes %d: the first %d in /sys/block",
			   n, IOLAT_ALL_DISKS_MAX, IOLAT_ALL_DISKS_MAX);
		n = IOLAT_ALL_DISKS_MAX;
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		if (!iolat_session_wants(s, names[i]))
			continue;
		devargs_push(o, strdup(names[i]));
		taken++;
	}
	free(names);
	if (!taken)
		iolat_err(n > 0 ? "no blk-mq disk's name passes --include and --exclude" :
				  "no blk-mq disk found in /sys/block");
	s->follow = taken;
	return taken ? 0 : -1;
}

/* Do two devices share requests: a disk and its partition, or the same? */
static bool devs_overlap(const struct iolat_dev_req *a,
			 const struct iolat_dev_req *b)
{
	uint64_t a_end = a->part_start + a->part_sectors;
	uint64_t b_end = b->part_start + b->part_sectors;

	return !strcmp(a->disk, b->disk) &&
	       (!a->part_sectors || !b->part_sectors ||
		(a->part_start < b_end && b->part_start < a_end));
}

/*
 * Resolve a -d argument; a device given twice is traced once, a disk and
 * its partition not together.
 */
int iolat_session_add_dev(struct iolat_session *s, const char *arg)
{
	struct iolat_dev_req *dev;
	unsigned int d;
	int err;

	s->devs = iolat_grow(s->devs, &s->cap_devs, s->nr_devs + 1,
			     sizeof(*s->devs));
	dev = &s->devs[s->nr_devs];
	memset(dev, 0, sizeof(*dev));

	err = iolat_dev_resolve("/sys", arg, dev);
	if (err == -ENOENT || err == -EINVAL) {
		iolat_err("unknown block device '%s'", arg);
		return err;
	}
	if (err == -ENOTBLK) {
		iolat_err("'%s' is not a block device", arg);
		return err;
	}
	if (err == -ENOSPC) {
		iolat_err("'%s' (%s) is an empty partition: it has no I/O of its own",
			  arg, dev->name);
		return err;
	}
	if (err && dev->kind[0]) {
		iolat_err("'%s' (%s) is a partition of a %s device, which iolat traces whole: -d %s",
			  arg, dev->name, dev->kind, dev->disk);
		return err;
	}
	if (err) {
		iolat_err("'%s' is not a blk-mq device; iolat traces blk-mq devices",
			  arg);
		return err;
	}
	for (d = 0; d < s->nr_devs; d++) {
		if (!strcmp(s->devs[d].name, dev->name))
			return 0;
		if (devs_overlap(&s->devs[d], dev)) {
			iolat_err("%s and %s are on the same disk: a disk and its partition are traced one or the other",
				  s->devs[d].name, dev->name);
			return -EINVAL;
		}
	}
	s->nr_devs++;
	return 0;
}

/*
 * An NVMe session: without -d, every NVMe namespace; with it, at least one
 * of them.  A controller's namespaces share its tag set, which the module
 * sizes from the largest depth among them.
 */
static int nvme_devices(struct iolat_session *s)
{
	char (*names)[32];
	unsigned int d, e, n = 0;
	int nr;

	if (!s->nr_devs) {
		names = calloc(IOLAT_ALL_DISKS_MAX, sizeof(*names));
		if (!names) {
			iolat_err("out of memory");
			return EXIT_FAIL;
		}
		nr = iolat_blk_mq_disks("/sys", names, IOLAT_ALL_DISKS_MAX);
		for (d = 0; nr > 0 && d < (unsigned int)nr &&
			    d < IOLAT_ALL_DISKS_MAX; d++)
			if (!strncmp(names[d], "nvme", 4) &&
			    iolat_session_add_dev(s, names[d])) {
				free(names);
				return EXIT_FAIL;
			}
		free(names);
	}
	for (d = 0; d < s->nr_devs; d++) {
		if (s->devs[d].nvme_ctrl < 0)
			continue;
		n++;
		for (e = 0; e < s->nr_devs; e++)
			if (s->devs[e].nvme_ctrl == s->devs[d].nvme_ctrl &&
			    s->devs[e].depth > s->devs[d].depth)
				s->devs[d].depth = s->devs[e].depth;
	}
	if (!n) {
		iolat_err(s->nr_devs ? "none of the devices is an NVMe namespace" :
				       "no NVMe namespace on this machine");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/**
 * iolat_session_setup() - check the options and resolve the devices
 * @s: the session to fill in
 * @o: the options parsed
 *
 * Return: EXIT_OK, or the exit status after one clear message.
 */
int iolat_session_setup(struct iolat_session *s, struct iolat_session_opts *o)
{
	unsigned int i;
	int rc;

	if ((o->include || o->exclude) && (o->nr_devargs || s->nvme)) {
		iolat_err("--include and --exclude choose among every disk: not with -d%s",
			  s->nvme ? " or --nvme" : "");
		return EXIT_USAGE;
	}
	if ((o->include || o->exclude) && !s->every_disk) {
		iolat_err("--include and --exclude choose the disks taken without -d, which this command needs");
		return EXIT_USAGE;
	}
	if (!o->nr_devargs && !s->nvme && !s->every_disk) {
		iolat_err("no device given (-d DEV)");
		return EXIT_USAGE;
	}
	if (!o->nr_devargs && !s->nvme && iolat_session_all_disks(s, o))
		return EXIT_FAIL;
	/* (-t is above 0 once parsed: iolat_session_parse) */
	if (o->duration > 0 && s->cmd) {
		iolat_err("-t takes a positive number of seconds, and not with a COMMAND");
		return EXIT_USAGE;
	}
	if (o->ring && (o->ring < IOLAT_RING_MIN || o->ring > (int)IOLAT_RING_MAX ||
			(o->ring & (o->ring - 1)))) {
		iolat_err("-b takes a power of two from %d to %u", IOLAT_RING_MIN,
			  IOLAT_RING_MAX);
		return EXIT_USAGE;
	}
	if (o->ops && iolat_parse_ops(o->ops, &s->filter.ops)) {
		iolat_err("--op takes a list of read,write,flush,discard,write-zeroes,other, not '%s'",
			  o->ops);
		return EXIT_USAGE;
	}
	if (o->comm && (!*o->comm || strlen(o->comm) >= IOLAT_COMM_LEN)) {
		iolat_err("-c takes a task name of 1 to %d characters",
			  IOLAT_COMM_LEN - 1);
		return EXIT_USAGE;
	}
	if (o->comm)
		strcpy(s->filter.comm, o->comm);
	if (o->min_lat && (iolat_parse_duration_ns(o->min_lat, &s->filter.min_ns) ||
			   !s->filter.min_ns)) {
		iolat_err("-m takes a latency such as 500us or 10ms, not '%s'",
			  o->min_lat);
		return EXIT_USAGE;
	}
	s->filter.pid = o->pid;
	s->filter.tgid = o->tgid;
	s->filter.nr_cgroups = o->nr_cgroups;
	memcpy(s->filter.cgroups, o->cgroups, sizeof(o->cgroups));
	s->summary = o->summary;
	s->duration = o->duration;
	s->ring = o->ring;
	s->copy = o->copy;
	for (i = 0; i < o->nr_devargs; i++)
		if (iolat_session_add_dev(s, o->devargs[i]))
			return EXIT_FAIL;
	iolat_dev_mark_lower(s->devs, s->nr_devs);
	rc = s->nvme ? nvme_devices(s) : EXIT_OK;
	if (!rc && iolat_run_alloc(&s->run, s->nr_devs)) {
		iolat_err("out of memory");
		rc = EXIT_FAIL;
	}
	return rc;
}

void iolat_session_opts_free(struct iolat_session_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_devargs; i++)
		free(o->devargs[i]);
	free(o->devargs);
	free(o->include);
	free(o->exclude);
	free(o->ops);
	free(o->comm);
	free(o->min_lat);
	free(o->summary);
}
