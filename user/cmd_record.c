// SPDX-License-Identifier: GPL-2.0
/*
 * iolat record: trace devices for a time, until Ctrl-C, or while a
 * command runs; then print issue-to-completion latency histograms per
 * device and operation, and account for every record.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <popt.h>
#include "iolat.h"

#define DRAIN_INTERVAL_NS 10000000L	/* drain the buffers every 10 ms */

struct rec_state {
	unsigned int nr_devs;
	struct iolat_dev_req devs[IOLAT_MAX_DEVS];
	struct iolat_hist *hist[IOLAT_MAX_DEVS][IOLAT_OP_NR];
	uint64_t foreign;	/* records of a device not asked for */
	bool nomem;
};

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

static void on_record(void *arg, const struct iolat_record *r)
{
	struct rec_state *st = arg;
	unsigned int d, op = r->op < IOLAT_OP_NR ? r->op : IOLAT_OP_OTHER;
	struct iolat_hist **h;

	for (d = 0; d < st->nr_devs; d++)
		if (st->devs[d].major == r->major && st->devs[d].minor == r->minor)
			break;
	if (d == st->nr_devs) {
		st->foreign++;
		return;
	}
	h = &st->hist[d][op];
	if (!*h) {
		*h = malloc(sizeof(**h));
		if (!*h) {
			st->nomem = true;
			return;
		}
		iolat_hist_init(*h);
	}
	iolat_hist_add(*h, iolat_record_latency(r));
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
	struct iolat_nl *probe = iolat_nl_open();

	run->incomplete = true;
	if (!probe || err == -EPROTONOSUPPORT)
		iolat_err("the iolat module was unloaded during the session; results are incomplete");
	else
		iolat_err("%s failed: %s%s%s; results are incomplete", what,
			  strerror(-err), iolat_nl_errmsg(nl)[0] ? ": " : "",
			  iolat_nl_errmsg(nl));
	iolat_nl_close(probe);
}

static int trace(struct iolat_nl *nl, struct iolat_decoder *dec, double duration,
		 const char **cmd, struct iolat_run *run, int *cmd_status)
{
	const struct timespec tick = { 0, DRAIN_INTERVAL_NS };
	pid_t pid = -1;
	double start = now_s();
	int err = 0;

	if (cmd) {
		pid = spawn(cmd);
		if (pid < 0)
			iolat_err("cannot fork: %s", strerror(errno));
	}
	while (pid != -1 || !cmd) {
		err = iolat_nl_read(nl, iolat_decode, dec);
		if (err) {
			session_lost(nl, "reading records", err, run);
			break;
		}
		if (stop_requested || (duration > 0 && now_s() - start >= duration))
			break;
		if (pid > 0 && waitpid(pid, cmd_status, WNOHANG) == pid) {
			pid = -1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	run->seconds = now_s() - start;
	if (!err) {
		err = iolat_nl_stop(nl, &run->stats);
		if (err)
			session_lost(nl, "stopping the session", err, run);
	}
	if (!err) {
		err = iolat_nl_read(nl, iolat_decode, dec);
		if (err)
			session_lost(nl, "draining the last records", err, run);
	}
	if (pid > 0)
		waitpid(pid, cmd_status, 0);
	return err;
}

/* Resolve a -d argument; a device given twice is traced once. */
static int add_device(struct rec_state *st, const char *arg)
{
	struct iolat_dev_req *dev = &st->devs[st->nr_devs];
	unsigned int d;
	int err;

	err = iolat_dev_resolve("/sys", arg, dev);
	if (err == -ENOENT || err == -EINVAL) {
		iolat_err("unknown block device '%s'", arg);
		return err;
	}
	if (err) {
		iolat_err("'%s' is not a blk-mq device; iolat traces blk-mq devices",
			  arg);
		return err;
	}
	for (d = 0; d < st->nr_devs; d++)
		if (!strcmp(st->devs[d].name, dev->name))
			return 0;
	st->nr_devs++;
	return 0;
}

/* On stderr, so that output stays clean: tracing has begun. */
static void announce(const struct rec_state *st, double duration,
		     const char **cmd)
{
	unsigned int d;

	fprintf(stderr, "iolat: tracing");
	for (d = 0; d < st->nr_devs; d++)
		fprintf(stderr, " %s", st->devs[d].name);
	if (cmd)
		fprintf(stderr, " while %s runs\n", cmd[0]);
	else if (duration > 0)
		fprintf(stderr, " for %g s\n", duration);
	else
		fprintf(stderr, " until Ctrl-C\n");
}

static void report(const struct iolat_output *out, struct rec_state *st,
		   struct iolat_run *run)
{
	struct iolat_op_result ops[IOLAT_OP_NR];
	unsigned int d, op, n;
	bool first = true;

	out->begin(run);
	for (d = 0; d < st->nr_devs; d++) {
		for (n = 0, op = 0; op < IOLAT_OP_NR; op++) {
			if (!st->hist[d][op])
				continue;
			ops[n].op = iolat_op_name(op);
			ops[n].hist = st->hist[d][op];
			n++;
		}
		if (!n)
			continue;
		out->device(st->devs[d].name, ops, n, first);
		first = false;
	}
	out->end(run);
}

/* Everything the module wrote was delivered, and nothing was dropped? */
static bool accounted(const struct rec_state *st, const struct iolat_run *run)
{
	const struct iolat_stats *s = &run->stats;
	bool ok = true;

	if (!run->incomplete && run->delivered != s->written) {
		iolat_warn("the module wrote %llu records but %llu were delivered",
			   (unsigned long long)s->written,
			   (unsigned long long)run->delivered);
		ok = false;
	}
	if (s->drop_full) {
		iolat_warn("%llu records dropped because a buffer was full (try a larger -b)",
			   (unsigned long long)s->drop_full);
		ok = false;
	}
	if (run->decode_errors || st->foreign || st->nomem) {
		iolat_warn("%llu malformed messages, %llu records of other devices, %s",
			   (unsigned long long)run->decode_errors,
			   (unsigned long long)st->foreign,
			   st->nomem ? "out of memory" : "memory ok");
		ok = false;
	}
	return ok;
}

int cmd_record(int argc, const char **argv)
{
	char *devarg = NULL, *outname = "text";
	double duration = 0;
	int ring = 0, rc, err, cmd_status = 0;
	struct poptOption opts[] = {
		{ "device", 'd', POPT_ARG_STRING, &devarg, 'd',
		  "block device to trace (repeat for more)", "DEV" },
		{ "duration", 't', POPT_ARG_DOUBLE, &duration, 0,
		  "trace for SECS seconds (default: until Ctrl-C, or while COMMAND runs)",
		  "SECS" },
		{ "buffer", 'b', POPT_ARG_INT, &ring, 0,
		  "records per CPU buffer, a power of two (default 8192)",
		  "RECORDS" },
		{ "output", 'o', POPT_ARG_STRING, &outname, 0,
		  "output format: text, json", "FORMAT" },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct rec_state *st = calloc(1, sizeof(*st));
	struct iolat_decoder dec = { .record = on_record };
	struct iolat_run run = { 0 };
	const struct iolat_output *out;
	struct iolat_info info;
	struct iolat_nl *nl;
	const char *devargs[IOLAT_MAX_DEVS];
	unsigned int d, op, i, nr_args = 0;
	const char **cmd;
	poptContext pc;

	if (!st)
		return EXIT_FAIL;
	pc = poptGetContext("iolat record", argc, argv, opts,
			    POPT_CONTEXT_POSIXMEHARDER);
	poptSetOtherOptionHelp(pc, "-d DEV [-d DEV...] [-t SECS] [-b RECORDS] [-o FORMAT] [-- COMMAND...]");
	rc = EXIT_USAGE;
	while ((err = poptGetNextOpt(pc)) > 0) {
		if (err != 'd')
			continue;
		if (nr_args == IOLAT_MAX_DEVS) {
			iolat_err("at most %d devices", IOLAT_MAX_DEVS);
			goto out;
		}
		devargs[nr_args++] = devarg;
	}
	if (err < -1) {
		iolat_err("%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
			  poptStrerror(err));
		goto out;
	}
	cmd = poptGetArgs(pc);
	out = iolat_output_find(outname);
	if (!out) {
		iolat_err("unknown output format '%s' (text, json)", outname);
		goto out;
	}
	if (!nr_args) {
		iolat_err("no device given (-d DEV)");
		goto out;
	}
	if (duration < 0 || (duration > 0 && cmd)) {
		iolat_err("-t takes a positive number of seconds, and not with a COMMAND");
		goto out;
	}
	if (ring && (ring < IOLAT_RING_MIN || ring > (int)IOLAT_RING_MAX ||
		     (ring & (ring - 1)))) {
		iolat_err("-b takes a power of two from %d to %u", IOLAT_RING_MIN,
			  IOLAT_RING_MAX);
		goto out;
	}
	rc = EXIT_FAIL;
	for (i = 0; i < nr_args; i++)
		if (add_device(st, devargs[i]))
			goto out;

	nl = iolat_nl_connect(&info);
	if (!nl)
		goto out;
	dec.rec_size = info.record_size;
	dec.arg = st;
	err = iolat_nl_start(nl, st->devs, st->nr_devs, ring);
	if (err) {
		if (err == -EPERM)
			iolat_err("permission denied: tracing needs CAP_PERFMON or CAP_SYS_ADMIN (run as root)");
		else
			iolat_err("cannot start tracing: %s%s%s", strerror(-err),
				  iolat_nl_errmsg(nl)[0] ? ": " : "",
				  iolat_nl_errmsg(nl));
		iolat_nl_close(nl);
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	announce(st, duration, cmd);
	trace(nl, &dec, duration, cmd, &run, &cmd_status);
	iolat_nl_close(nl);
	run.delivered = dec.decoded;
	run.decode_errors = dec.bad;
	report(out, st, &run);
	rc = accounted(st, &run) && !run.incomplete ? EXIT_OK : EXIT_FAIL;
	if (cmd && (!WIFEXITED(cmd_status) || WEXITSTATUS(cmd_status))) {
		iolat_warn("the command %s did not exit with status 0", cmd[0]);
		rc = EXIT_FAIL;
	}
out:
	for (i = 0; i < nr_args; i++)
		free((char *)devargs[i]);	/* popt's copies are ours */
	for (d = 0; d < IOLAT_MAX_DEVS; d++)
		for (op = 0; op < IOLAT_OP_NR; op++)
			free(st->hist[d][op]);
	free(st);
	poptFreeContext(pc);
	return rc;
}
