// SPDX-License-Identifier: GPL-2.0
/*
 * A tracing session, shared by `iolat trace` and `iolat record`: the
 * options that choose devices and filters, then start, drain every 10 ms
 * until the time is up, Ctrl-C or the command ends, stop, drain the rest,
 * and account for every request.
 */
#define _GNU_SOURCE	/* strverscmp */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "iolat.h"
#include "json.h"

/* Counts are uint64_t; print them as one type. */
#define U(x) ((unsigned long long)(x))

#define DRAIN_INTERVAL_NS 10000000L	/* drain the buffers every 10 ms */
/* without records (counters only, aggregation), only events: 100 ms */
#define EVENT_INTERVAL_NS 100000000L
/* every traced device is still there: looked at twice a second */
#define DEVICE_CHECK_S 0.5

/* Options every session command takes (popt table; 'd' is collected). */
struct poptOption iolat_session_options[] = {
	{ "device", 'd', POPT_ARG_STRING, NULL, 'd',
	  "block device to trace (repeat for more)", "DEV" },
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
	{ "min-latency", 'm', POPT_ARG_STRING, NULL, 'm',
	  "keep only requests slower than this (e.g. 500us, 10ms)", "TIME" },
	{ "summary", 0, POPT_ARG_STRING, NULL, 'S',
	  "write the session's drop counts and device counters to FILE as JSON",
	  "FILE" },
	POPT_TABLEEND
};

/* `iolat stat`'s: it counts every request, so no filters and no buffer */
struct poptOption iolat_counter_options[] = {
	{ "device", 'd', POPT_ARG_STRING, NULL, 'd',
	  "block device (repeat for more; default: the blk-mq disks)", "DEV" },
	{ "duration", 't', POPT_ARG_STRING, NULL, 't',
	  "count for SECS seconds (default: until Ctrl-C, or while COMMAND runs)",
	  "SECS" },
	{ "summary", 0, POPT_ARG_STRING, NULL, 'S',
	  "write the session's device counters to FILE as JSON", "FILE" },
	POPT_TABLEEND
};

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
		if (o->nr_devargs == IOLAT_MAX_DEVS) {
			iolat_err("at most %d devices", IOLAT_MAX_DEVS);
			free((void *)arg);
			return -1;
		}
		o->devargs[o->nr_devargs++] = (char *)arg;
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

/**
 * iolat_session_all_disks() - without -d: every blk-mq disk
 * @o: the session options, whose devargs get the disks' names
 *
 * At most IOLAT_MAX_DEVS, the first in version order (nullb2 before
 * nullb10), not readdir's; a warning says which were taken.  (top copied
 * every disk into its 16 slots and crashed with more.)
 *
 * Return: 0, or -1 after one clear message.
 */
int iolat_session_all_disks(struct iolat_session_opts *o)
{
	char (*names)[32] = calloc(IOLAT_ALL_DISKS_MAX, sizeof(*names));
	int n, i;

	if (!names) {
		iolat_err("out of memory");
		return -1;
	}
	n = iolat_blk_mq_disks("/sys", names, IOLAT_ALL_DISKS_MAX);
	if (n <= 0) {
		iolat_err("no blk-mq disk found in /sys/block");
		free(names);
		return -1;
	}
	if (n > IOLAT_ALL_DISKS_MAX)
		n = IOLAT_ALL_DISKS_MAX;
	qsort(names, n, sizeof(*names), cmp_name);
	if (n > IOLAT_MAX_DEVS)
		iolat_warn("%d blk-mq disks; a session takes %d: showing %s to %s (choose with -d)",
			   n, IOLAT_MAX_DEVS, names[0], names[IOLAT_MAX_DEVS - 1]);
	for (i = 0; i < n && i < IOLAT_MAX_DEVS; i++)
		o->devargs[o->nr_devargs++] = strdup(names[i]);
	free(names);
	return 0;
}

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
static int add_device(struct iolat_session *s, const char *arg)
{
	struct iolat_dev_req *dev = &s->devs[s->nr_devs];
	unsigned int d;
	int err;

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
	char names[IOLAT_MAX_DEVS][32];
	unsigned int d, e, n = 0;
	int nr;

	if (!s->nr_devs) {
		nr = iolat_blk_mq_disks("/sys", names, IOLAT_MAX_DEVS);
		for (d = 0; nr > 0 && d < (unsigned int)nr && d < IOLAT_MAX_DEVS;
		     d++)
			if (!strncmp(names[d], "nvme", 4) &&
			    add_device(s, names[d]))
				return EXIT_FAIL;
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

	if (!o->nr_devargs && !s->nvme) {
		iolat_err("no device given (-d DEV)");
		return EXIT_USAGE;
	}
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
	s->summary = o->summary;
	s->duration = o->duration;
	s->ring = o->ring;
	for (i = 0; i < o->nr_devargs; i++)
		if (add_device(s, o->devargs[i]))
			return EXIT_FAIL;
	iolat_dev_mark_lower(s->devs, s->nr_devs);
	return s->nvme ? nvme_devices(s) : EXIT_OK;
}

void iolat_session_opts_free(struct iolat_session_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_devargs; i++)
		free(o->devargs[i]);
	free(o->ops);
	free(o->comm);
	free(o->min_lat);
	free(o->summary);
}

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC, the module's clock (ktime_get_ns()). */
static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static pid_t spawn(const char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "iolat: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

/*
 * Why the session ended early, in one line; marks the run incomplete.
 * The module is gone if its family is, or if a dump was refused with
 * EPROTONOSUPPORT: netlink's dump start cannot take a reference on a
 * module that is already unloading, though its family is still listed.
 */
static void session_lost(struct iolat_nl *nl, const char *what, int err,
			 struct iolat_run *run)
{
	struct iolat_nl *probe = err == -EPROTONOSUPPORT ? NULL : iolat_nl_open();

	run->incomplete = true;
	if (!probe)
		iolat_err("the iolat module was unloaded during the session; results are incomplete");
	else
		iolat_err("%s failed: %s%s%s; results are incomplete", what,
			  strerror(-err), iolat_nl_errmsg(nl)[0] ? ": " : "",
			  iolat_nl_errmsg(nl));
	iolat_nl_close(probe);
}

/* Records -> the session's record hook, with the device's index. */
static void on_record(void *arg, const struct iolat_record *r)
{
	struct iolat_session *s = arg;
	int d = iolat_dev_index(s->devs, s->nr_devs, r);

	if (d < 0 || !s->record) {
		s->run.foreign++;
		return;
	}
	s->record(s->arg, d, r);
}

/* Something happened to the session: the user hears of it at once. */
static void on_event(void *arg, uint64_t ns, uint32_t kind, const char *module)
{
	struct iolat_session *s = arg;

	switch (kind) {
	case IOLAT_EVENT_NVME_DETACHED:
		s->run.nvme_detaches++;
		iolat_warn("%s was unloaded: NVMe commands are not traced until it is back (block requests still are)",
			   module);
		break;
	case IOLAT_EVENT_NVME_ATTACHED:
		s->run.nvme_attaches++;
		iolat_warn("%s is back: NVMe commands are traced again",
			   module);
		break;
	default:
		iolat_warn("the module reported event %u about %s", kind,
			   module);
	}
	if (s->event)
		s->event(s->arg, ns, kind, module);
}

/*
 * A traced device that was removed: the user hears of it at once, and
 * of its return.  The module keeps tracing the others; it knows devices
 * by their numbers, so a device that comes back with the same numbers
 * (a null_blk or NVMe namespace re-created at the same index) is traced
 * again, and one that comes back with others is not.
 */
static void check_devices(struct iolat_session *s)
{
	struct iolat_run *run = &s->run;
	struct iolat_dev_req now;
	enum iolat_dev_state st, was;
	unsigned int d;

	for (d = 0; d < s->nr_devs; d++) {
		const struct iolat_dev_req *dev = &s->devs[d];

		st = iolat_dev_state("/sys", dev, &now);
		was = run->dev_state[d];
		if (st == was)
			continue;
		run->dev_state[d] = st;
		if (st == IOLAT_DEV_PRESENT) {
			iolat_warn("%s (%u:%u) is back: traced again", dev->name,
				   dev->major, dev->minor);
			continue;
		}
		if (was == IOLAT_DEV_PRESENT)
			iolat_warn("%s (%u:%u) was removed: its requests are no longer traced%s",
				   dev->name, dev->major, dev->minor,
				   s->nr_devs > 1 ? "; the other devices still are" : "");
		run->devs_removed |= 1U << d;
		if (st == IOLAT_DEV_OTHER)
			iolat_warn("%s is back as %u:%u, which this session does not trace: start another one",
				   dev->name, now.major, now.minor);
	}
}

/* The kernel's counters of every device (/sys/class/block/NAME/stat). */
static int kernel_counters(const struct iolat_session *s,
			   struct iolat_diskstats *k)
{
	unsigned int d;
	int err = 0;

	for (d = 0; !err && d < s->nr_devs; d++)
		err = iolat_diskstats_read("/sys", s->devs[d].name, &k[d]);
	return err;
}

static void drain_loop(struct iolat_session *s, struct iolat_nl *nl,
		       struct iolat_decoder *dec)
{
	const struct timespec tick = {
		0, s->counters_only || s->aggregate ? EVENT_INTERVAL_NS :
						      DRAIN_INTERVAL_NS
	};
	struct iolat_run *run = &s->run;
	double start = now_s(), next_tick = start + s->tick_s;
	double next_check = start + DEVICE_CHECK_S;
	pid_t pid = -1;
	int err = 0;

	if (s->cmd) {
		pid = spawn(s->cmd);
		if (pid < 0)
			iolat_err("cannot fork: %s", strerror(errno));
	}
	while (pid != -1 || !s->cmd) {
		uint64_t began = mono_ns();

		err = iolat_nl_read(nl, iolat_decode, iolat_decode_event, dec);
		if (err) {
			session_lost(nl, "reading records", err, run);
			break;
		}
		if (s->drained)
			s->drained(s->arg, began);
		if (now_s() >= next_check) {
			check_devices(s);
			next_check += DEVICE_CHECK_S;
		}
		if (s->tick && s->tick_s > 0 && now_s() >= next_tick) {
			s->tick(s->arg, next_tick - start);
			next_tick += s->tick_s;
		}
		if (stop_requested ||
		    (s->duration > 0 && now_s() - start >= s->duration) ||
		    (s->idle && s->idle(s->arg)))
			break;
		if (pid > 0 && waitpid(pid, &s->cmd_status, WNOHANG) == pid) {
			pid = -1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	run->seconds = now_s() - start;
	s->end_ns = mono_ns();
	if (!err && run->kernel_bracket)
		run->kernel_bracket = !kernel_counters(s, run->kprestop);
	if (!err) {
		err = iolat_nl_stop(nl, &run->stats);
		if (err)
			session_lost(nl, "stopping the session", err, run);
	}
	/* the kernel's window ends with the session's, before the drain */
	if (!err && run->kernel_valid)
		run->kernel_valid = !kernel_counters(s, run->kend);
	if (!err) {
		err = iolat_nl_read(nl, iolat_decode, iolat_decode_event, dec);
		if (err)
			session_lost(nl, "draining the last records", err, run);
	}
	if (!err) {
		err = iolat_session_counters(s, s->counters);
		if (err)
			session_lost(nl, "reading the counters", err, run);
	}
	if (!err && s->stopped)
		s->stopped(s->arg);
	if (pid > 0)
		waitpid(pid, &s->cmd_status, 0);
}

/**
 * iolat_counters_alloc() - room for the counters of the session's devices
 * @s: the session, set up
 * @c: [IOLAT_MAX_DEVS], given each device's numbers and queues
 *
 * Return: 0 or -ENOMEM.
 */
int iolat_counters_alloc(const struct iolat_session *s,
			 struct iolat_dev_counters *c)
{
	unsigned int d;

	for (d = 0; d < s->nr_devs; d++) {
		memset(&c[d], 0, sizeof(c[d]));
		c[d].major = s->devs[d].major;
		c[d].minor = s->devs[d].minor;
		c[d].nr_hwq = s->devs[d].nr_hwq;
		c[d].hwqs = calloc(c[d].nr_hwq, sizeof(*c[d].hwqs));
		if (!c[d].hwqs)
			return -ENOMEM;
	}
	return 0;
}

void iolat_counters_free(const struct iolat_session *s,
			 struct iolat_dev_counters *c)
{
	unsigned int d;

	for (d = 0; d < s->nr_devs; d++) {
		free(c[d].hwqs);
		c[d].hwqs = NULL;
	}
}

/**
 * iolat_session_counters() - every device's counters, now
 * @s: the running (or just stopped) session
 * @c: from iolat_counters_alloc()
 *
 * Return: 0, or a negative errno (-ENODATA if a device is missing).
 */
int iolat_session_counters(struct iolat_session *s,
			   struct iolat_dev_counters *c)
{
	unsigned int d;
	int err;

	err = iolat_nl_counters(s->nl, c, s->nr_devs);
	for (d = 0; !err && d < s->nr_devs; d++)
		if (!c[d].valid)
			err = -ENODATA;
	return err;
}

/* One device's counters as a JSON object's members. */
void iolat_counters_json(FILE *f, const struct iolat_dev_counters *c)
{
	unsigned int i;

	fprintf(f, "\"start_ns\":%llu,\"now_ns\":%llu,\"elapsed_ns\":%llu,"
		"\"busy_ns\":%llu,\"qbusy_ns\":%llu,\"inflight_ns\":%llu,"
		"\"qinflight_ns\":%llu,\"queued\":%u,\"issued\":%u,"
		"\"issues\":%llu,\"qd_sum\":%llu",
		U(c->start_ns), U(c->now_ns), U(c->now_ns - c->start_ns),
		U(c->busy_ns), U(c->qbusy_ns), U(c->inflight_ns),
		U(c->qinflight_ns), c->queued, c->issued, U(c->issues),
		U(c->qd_sum));
	fprintf(f, ",\"ops\":{");
	for (i = 0; i < IOLAT_OP_NR; i++)
		fprintf(f, "%s\"%s\":{\"ios\":%llu,\"bytes\":%llu,\"wait_ns\":%llu}",
			i ? "," : "", iolat_op_name(i), U(c->ios[i]),
			U(c->bytes[i]), U(c->wait_ns[i]));
	fprintf(f, "},\"hwqs\":[");
	for (i = 0; i < c->nr_hwq; i++)
		fprintf(f, "%s{\"hwq\":%u,\"hwq_busy_ns\":%llu,\"hwq_qbusy_ns\":%llu,\"hwq_queued\":%u,\"hwq_issued\":%u}",
			i ? "," : "", i, U(c->hwqs[i].busy_ns),
			U(c->hwqs[i].qbusy_ns), c->hwqs[i].queued,
			c->hwqs[i].issued);
	fprintf(f, "]");
}

/* The requests a device completed, by its diskstats: every op. */
static unsigned long long ds_ios(const unsigned long long *k)
{
	return k[IOLAT_DS_R_IOS] + k[IOLAT_DS_W_IOS] + k[IOLAT_DS_D_IOS] +
	       k[IOLAT_DS_F_IOS];
}

/* --summary FILE: drop counts and each device's counters, as JSON. */
static int write_summary(const struct iolat_session *s)
{
	const struct iolat_stats *st = &s->run.stats;
	FILE *f = fopen(s->summary, "w");
	unsigned int d;

	if (!f) {
		iolat_err("cannot write %s: %s", s->summary, strerror(errno));
		return -1;
	}
	/*
	 * A session the module's unloading (or a lost socket) cut short is
	 * written too, marked incomplete: its counts are up to the loss,
	 * its devices' counters those of the last reading, if any.
	 */
	fprintf(f, "{\"incomplete\":%s,\"seconds\":%.6f,\"delivered\":%llu,\"dropped\":%llu,",
		s->run.incomplete ? "true" : "false",
		s->run.seconds, U(s->run.delivered),
		U(iolat_run_dropped(&s->run)));
	iolat_stats_json(f, st, IOLAT_SC_record);
	fprintf(f, ", ");
	iolat_stats_json(f, st, IOLAT_SC_drop);
	fprintf(f, ", \"events\":{");
	iolat_stats_json(f, st, IOLAT_SC_event);
	fprintf(f, "},");
	if (iolat_stats_stack(st)) {
		fprintf(f, "\"stack\":{");
		iolat_stats_json(f, st, IOLAT_SC_stack);
		fprintf(f, "},");
	}
	if (s->nvme) {
		fprintf(f, "\"nvme\":{");
		iolat_stats_json(f, st, IOLAT_SC_nvme);
		fprintf(f, ", \"detaches\":%u,\"attaches\":%u},",
			s->run.nvme_detaches, s->run.nvme_attaches);
	}
	fprintf(f, "\"devices\":[");
	for (d = 0; d < s->nr_devs; d++) {
		const unsigned long long *k1 = s->run.kstart[d].f;
		const unsigned long long *k2 = s->run.kend[d].f;

		fprintf(f, "%s{\"name\":", d ? "," : "");
		json_str(f, s->devs[d].name);
		fprintf(f, ",\"removed\":%s,\"counters_valid\":%s,",
			s->run.devs_removed & (1U << d) ? "true" : "false",
			s->counters[d].valid ? "true" : "false");
		iolat_counters_json(f, &s->counters[d]);
		if (s->run.kernel_valid) {
			fprintf(f, ",\"kernel\":{\"ios\":%llu,\"io_ticks_ms\":%llu,\"time_in_queue_ms\":%llu",
				ds_ios(k2) - ds_ios(k1),
				k2[IOLAT_DS_IO_TICKS] - k1[IOLAT_DS_IO_TICKS],
				k2[IOLAT_DS_TIME_IN_QUEUE] -
				k1[IOLAT_DS_TIME_IN_QUEUE]);
			/*
			 * The bracket: the kernel's completions between the
			 * readings just after START and just before STOP
			 * (inside the session's window), and between those
			 * just before START and just after STOP (around it).
			 * Every completion the module saw, delivered, dropped
			 * or filtered, is in the outer span, and every one of
			 * the inner span is the module's: ios_inner <= all of
			 * the module's <= ios_outer.
			 */
			if (s->run.kernel_bracket)
				fprintf(f, ",\"ios_inner\":%llu,\"ios_outer\":%llu",
					ds_ios(s->run.kprestop[d].f) - ds_ios(k1),
					ds_ios(k2) - ds_ios(s->run.kpre[d].f));
			fprintf(f, "}");
		}
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
	if (fclose(f)) {
		iolat_err("cannot write %s: %s", s->summary, strerror(errno));
		return -1;
	}
	return 0;
}

/* On stderr, so that output stays clean: tracing has begun. */
static void announce(const struct iolat_session *s)
{
	unsigned int d;

	fprintf(stderr, "iolat: tracing");
	for (d = 0; d < s->nr_devs; d++)
		fprintf(stderr, " %s", s->devs[d].name);
	if (s->cmd)
		fprintf(stderr, " while %s runs\n", s->cmd[0]);
	else if (s->duration > 0)
		fprintf(stderr, " for %g s\n", s->duration);
	else
		fprintf(stderr, " until Ctrl-C\n");
}

/**
 * iolat_session_run() - trace, handing every record to s->record
 * @s: the session, set up
 *
 * Return: EXIT_OK if it ran to its end, else EXIT_FAIL (reported).
 */
int iolat_session_run(struct iolat_session *s)
{
	struct iolat_decoder dec = { .record = on_record, .event = on_event,
				     .arg = s };
	struct iolat_info info;
	struct iolat_nl *nl;
	unsigned int i;
	uint32_t mode;
	int err;

	nl = iolat_nl_connect(&info);
	if (!nl)
		return EXIT_FAIL;
	s->run.nr_missing = info.nr_missing;
	memcpy(s->run.missing, info.missing, sizeof(info.missing));
	dec.rec_size = info.record_size;
	if (info.clock_inversions)
		iolat_warn("the module's clock went back across CPUs %llu times in its test at load: latencies between CPUs are not exact (see iolat clocktest)",
			   (unsigned long long)info.clock_inversions);
	if (s->nvme && !info.nvme_available) {
		iolat_err("nvme-core's tracepoints are not there: load the nvme driver (modprobe nvme)");
		iolat_nl_close(nl);
		return EXIT_FAIL;
	}
	s->info = info;
	if (iolat_counters_alloc(s, s->counters)) {
		iolat_err("out of memory");
		iolat_nl_close(nl);
		return EXIT_FAIL;
	}
	s->run.kernel_bracket = !kernel_counters(s, s->run.kpre);
	s->t0_ns = mono_ns();
	s->t0_real_ns = clock_ns(CLOCK_REALTIME);
	mode = (s->counters_only ? IOLAT_START_COUNTERS_ONLY : 0) |
	       (s->nvme ? IOLAT_START_NVME : 0);
	err = iolat_nl_start(nl, s->devs, s->nr_devs, s->ring, &s->filter,
			     mode | (s->aggregate ? IOLAT_START_AGGREGATE : 0));
	if (err == -E2BIG && s->aggregate && s->aggregate_or_stream) {
		/* too many devices on too many CPUs for the histograms */
		iolat_warn("the module cannot aggregate: %s; streaming records instead",
			   iolat_nl_errmsg(nl));
		s->aggregate = false;
		err = iolat_nl_start(nl, s->devs, s->nr_devs, s->ring,
				     &s->filter, mode);
	}
	if (err) {
		if (err == -EPERM)
			iolat_err("permission denied: tracing needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace (run as root)");
		else
			iolat_err("cannot start tracing: %s%s%s", strerror(-err),
				  iolat_nl_errmsg(nl)[0] ? ": " : "",
				  iolat_nl_errmsg(nl));
		iolat_nl_close(nl);
		return EXIT_FAIL;
	}
	s->run.kernel_valid = !kernel_counters(s, s->run.kstart);
	s->run.kernel_bracket &= s->run.kernel_valid;
	/* what this kernel cannot trace, once tracing has begun */
	for (i = 0; i < info.nr_missing; i++)
		iolat_warn("this kernel has no tracepoint %s; its stage is not traced",
			   info.missing[i]);
	/*
	 * Each ends the run cleanly, with its summary and a whole record
	 * file: Ctrl-C, kill, an ssh session that drops (SIGHUP), and the
	 * reader of a pipe that goes away (`iolat trace | head`).
	 */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, on_signal);
	announce(s);
	s->nl = nl;
	if (s->started)
		s->started(s->arg);
	drain_loop(s, nl, &dec);
	s->nl = NULL;
	iolat_nl_close(nl);
	s->run.delivered = dec.decoded;
	/* an aggregating session's requests are in its histograms */
	for (i = 0; s->aggregate && !s->run.incomplete && i < s->nr_devs; i++)
		for (unsigned int op = 0; op < IOLAT_OP_NR; op++)
			s->run.delivered += s->counters[i].agg_ios[op];
	s->run.decode_errors = dec.bad;
	if (s->summary && write_summary(s))
		return EXIT_FAIL;
	return s->run.incomplete ? EXIT_FAIL : EXIT_OK;
}

/**
 * iolat_stack_line() - a stack's join counters, on a line of their own
 * @f: where
 * @prefix: before the line
 * @st: the session's counters; nothing is printed without a stack
 */
void iolat_stack_line(FILE *f, const char *prefix, const struct iolat_stats *st)
{
	if (!iolat_stats_stack(st))
		return;
	fprintf(f, "%sstack: ", prefix);
	iolat_stats_text(f, st, IOLAT_SC_stack);
	fprintf(f, " (a lower request not joined: the stack's own, or not reported remapped)\n");
}

uint64_t iolat_run_dropped(const struct iolat_run *run)
{
	return iolat_stats_sum(&run->stats, IOLAT_SC_drop);
}

/**
 * iolat_session_accounted() - was every record delivered, none dropped?
 * @s: the session, run
 *
 * Warns on stderr about each way records were lost; a command that did
 * not exit 0 counts as a failure too.
 *
 * Return: true if nothing needs the user's attention.
 */
bool iolat_session_accounted(const struct iolat_session *s)
{
	const struct iolat_run *run = &s->run;
	const struct iolat_stats *st = &run->stats;
	bool ok = !run->incomplete;

	if (!run->incomplete && run->delivered != st->written) {
		iolat_warn("the module wrote %llu records but %llu were delivered",
			   (unsigned long long)st->written,
			   (unsigned long long)run->delivered);
		ok = false;
	}
	if (st->drop_full) {
		iolat_warn("%llu records dropped because a buffer was full (try a larger -b)",
			   (unsigned long long)st->drop_full);
		ok = false;
	}
	for (unsigned int d = 0; d < s->nr_devs; d++)
		if (run->devs_removed & (1U << d))
			iolat_warn("%s was removed during the session: its figures cover the time it was there",
				   s->devs[d].name);
	if (run->decode_errors || run->foreign || run->nomem) {
		iolat_warn("%llu malformed messages, %llu records of other devices, %s",
			   (unsigned long long)run->decode_errors,
			   (unsigned long long)run->foreign,
			   run->nomem ? "out of memory" : "memory ok");
		ok = false;
	}
	if (s->cmd && (!WIFEXITED(s->cmd_status) || WEXITSTATUS(s->cmd_status))) {
		iolat_warn("the command %s did not exit with status 0", s->cmd[0]);
		ok = false;
	}
	return ok;
}
