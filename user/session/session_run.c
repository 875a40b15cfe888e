// SPDX-License-Identifier: GPL-2.0
/*
 * A tracing session, shared by `iolat trace` and `iolat record`: start,
 * drain every 10 ms until the time is up, Ctrl-C or the command ends,
 * stop, drain the rest, and account for every request.  Its options and
 * devices: session_opts.c; its --summary: summary.c.
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <signal.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "session/session.h"

/* Counts are uint64_t; print them as one type. */
#define U(x) ((unsigned long long)(x))

#define DRAIN_INTERVAL_NS 10000000L	/* drain the buffers every 10 ms */
/*
 * Without records (counters only, aggregation), only events, read at
 * each device check, interval and at least once a second: an idle CLI
 * costs the machine its few wake-ups, not ten a second
 */
#define EVENT_INTERVAL_NS 1000000000L
/*
 * Every traced device is still there, and a disk that appeared joins a
 * session over every disk: looked at twice a second, or each interval
 * if shorter, down to DEVICE_CHECK_MIN_S
 */
#define DEVICE_CHECK_S 0.5
#define DEVICE_CHECK_MIN_S 0.1
/*
 * A session of at most this many devices that follows no new disk
 * looks each up by its number; others read every number at once
 */
#define DEVICE_CHECK_EACH_MAX 16
/* the session's memory in the module: at every tenth device check */
#define SESSION_MEM_CHECKS 10

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t hup_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* A session that reloads at SIGHUP (s->hup_reloads): the loop's wait ends. */
static void on_hup(int sig)
{
	(void)sig;
	hup_requested = 1;
}

/* The command ended: the loop's wait ends with it (EINTR). */
static void on_child(int sig)
{
	(void)sig;
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
	run->incomplete = true;
	run->module_gone = err == -EPROTONOSUPPORT || !iolat_nl_family_present();
	if (run->module_gone)
		iolat_err("the iolat module was unloaded during the session; results are incomplete");
	else
		iolat_err("%s failed: %s%s%s; results are incomplete", what,
			  strerror(-err), iolat_nl_errmsg(nl)[0] ? ": " : "",
			  iolat_nl_errmsg(nl));
}

/* Records -> the session's record hook, with the device's index. */
static void on_record(void *arg, const struct iolat_record *r)
{
	struct iolat_session *s = arg;
	int d = iolat_dev_find(&s->lookup, s->devs, s->nr_devs, r);

	if (d < 0 || !s->record) {
		s->run.foreign++;
		return;
	}
	s->record(s->arg, d, r);
}

/**
 * iolat_session_take() - records in place to the session's hooks
 * @arg: the session
 * @base: the first record
 * @n: how many
 * @stride: bytes from one to the next
 * @size: each one's bytes (struct iolat_decoder's records)
 *
 * A device's run of records to s->records at once; a run shorter than
 * IOLAT_SESSION_RUN_MIN, as on_record() takes them (a copy each, its
 * fields past @size zero), cheaper than a call per run.
 */
void iolat_session_take(void *arg, const void *base, uint32_t n,
			uint32_t stride, uint32_t size)
{
	struct iolat_session *s = arg;
	const unsigned char *p = base;
	struct iolat_record rec;
	bool zeroed = false;
	unsigned int k;
	int d;

	while (n) {
		k = iolat_dev_run(&s->lookup, s->devs, s->nr_devs, p, n, stride,
				  &d);
		if (d < 0) {
			s->run.foreign += k;
		} else if (k >= IOLAT_SESSION_RUN_MIN) {
			s->records(s->arg, d, p, k, stride, size);
		} else {
			if (!zeroed)
				memset(&rec, 0, sizeof(rec));
			zeroed = true;
			for (n -= k; k; k--, p += stride) {
				iolat_record_copy(&rec, p, size);
				s->record(s->arg, d, &rec);
			}
			continue;
		}
		p += (size_t)k * stride;
		n -= k;
	}
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
 * @dev is back with its numbers: traced again, with the queues the
 * session was given; requests on others are counted as dropped
 * (outside queue geometry), and the user is told which.
 */
static void back(const struct iolat_dev_req *dev)
{
	struct iolat_dev_req *now = calloc(1, sizeof(*now));

	iolat_warn("%s (%u:%u) is back: traced again", dev->name, dev->major,
		   dev->minor);
	if (now && !iolat_dev_resolve("/sys", dev->name, now) &&
	    (now->nr_hwq != dev->nr_hwq || now->depth != dev->depth))
		iolat_warn("%s has %u queues of %u tags now, %u of %u when the session began: requests beyond those are counted as dropped (outside queue geometry); start another session to trace them",
			   dev->name, now->nr_hwq, now->depth, dev->nr_hwq,
			   dev->depth);
	free(now);
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
	/*
	 * one directory read for all, or a few devices' numbers each (a
	 * directory of hundreds of disks is some 600 000 instructions); a
	 * device's own files only if gone
	 */
	bool all = s->follow || s->nr_devs > DEVICE_CHECK_EACH_MAX;
	size_t n = 0;
	uint64_t *devts = all ? iolat_devts_read("/sys", &n) : NULL;

	for (d = 0; d < s->nr_devs; d++) {
		const struct iolat_dev_req *dev = &s->devs[d];
		bool there = all ? iolat_devts_has(devts, n, dev->major,
						   dev->minor) :
				   iolat_devt_present("/sys", dev->major,
						      dev->minor);

		st = there ? IOLAT_DEV_PRESENT :
			     iolat_dev_state("/sys", dev, &now);
		was = run->dev_state[d];
		if (st == was)
			continue;
		run->dev_state[d] = st;
		if (st == IOLAT_DEV_PRESENT) {
			back(dev);
			continue;
		}
		if (was == IOLAT_DEV_PRESENT)
			iolat_warn("%s (%u:%u) was removed: its requests are no longer traced%s",
				   dev->name, dev->major, dev->minor,
				   s->nr_devs > 1 ? "; the other devices still are" : "");
		run->removed[d] = true;
		if (st == IOLAT_DEV_OTHER)
			iolat_warn("%s is back as %u:%u, which this session does not trace: start another one",
				   dev->name, now.major, now.minor);
	}
	iolat_session_follow(s, devts, n);
	free(devts);
}

/*
 * What this socket's session holds in the module, bytes (--summary), into
 * @run: read at the start, with the devices' check and after the stop,
 * as a CPU that comes online adds its parts; a reading that fails keeps
 * the one before.
 */
static void session_mem(struct iolat_nl *nl, struct iolat_run *run)
{
	struct iolat_info now;

	if (!iolat_nl_info(nl, &now) && now.session_mem_bytes)
		run->module_mem_bytes = now.session_mem_bytes;
}

/*
 * The kernel's counters of every device (/sys/class/block/NAME/stat) but
 * those removed during the session: theirs went with them, and one that
 * came back counts from zero (no bracket in --summary for them).
 */
static int kernel_counters(const struct iolat_session *s,
			   struct iolat_diskstats *k)
{
	unsigned int d;
	int err = 0;

	for (d = 0; !err && d < s->nr_devs; d++)
		if (!s->run.removed || !s->run.removed[d])
			err = iolat_diskstats_read("/sys", s->devs[d].name,
						   &k[d]);
	return err;
}

/*
 * The loop's wait: at most @wait_ns, and no later than the next device
 * check, interval or the end of -t; @wake_fd (a scrape, a key) and the
 * end of the command cut it short.
 */
static void loop_wait(const struct iolat_session *s, long wait_ns,
		      double until)
{
	double left = until - iolat_mono_s();
	struct pollfd pfd = { .fd = s->wake_fd, .events = POLLIN };
	struct timespec ts;

	if (left < wait_ns / 1e9)
		wait_ns = left > 0 ? left * 1e9 : 0;
	ts.tv_sec = wait_ns / 1000000000L;
	ts.tv_nsec = wait_ns % 1000000000L;
	if (s->wake_fd >= 0)
		ppoll(&pfd, 1, &ts, NULL);
	else
		nanosleep(&ts, NULL);
}

static void drain_loop(struct iolat_session *s, struct iolat_nl *nl,
		       struct iolat_decoder *dec)
{
	long sleep_ns = s->counters_only || s->aggregate ? EVENT_INTERVAL_NS :
							   DRAIN_INTERVAL_NS;
	struct iolat_run *run = &s->run;
	double start = iolat_mono_s(), next_tick = start + s->tick_s;
	double check_s = DEVICE_CHECK_S, next_check, until;
	struct sigaction sa = { .sa_handler = on_child,
				.sa_flags = SA_RESTART };
	unsigned int checks = 0;
	pid_t pid = -1;
	int err = 0;

	if (s->tick && s->tick_s > 0 && s->tick_s < check_s)
		check_s = s->tick_s;
	if (s->follow_s > 0 && s->follow_s < check_s)
		check_s = s->follow_s;
	if (check_s < DEVICE_CHECK_MIN_S)
		check_s = DEVICE_CHECK_MIN_S;
	next_check = start + check_s;
	if (s->cmd) {
		/* restarted reads and writes, an ended wait */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
		pid = spawn(s->cmd);
		if (pid < 0)
			iolat_err("cannot fork: %s", strerror(errno));
	}
	while (pid != -1 || !s->cmd) {
		uint64_t began = iolat_mono_ns();
		bool check = iolat_mono_s() >= next_check;

		/*
		 * The records from the rings mapped, READ for the events
		 * (and a CPU's not mapped yet) at each device check; or READ
		 * for all.
		 */
		if (s->rings)
			iolat_rings_drain(s->rings, dec);
		if (!s->rings || check)
			err = iolat_nl_read(nl, iolat_decode,
					    iolat_decode_event, dec);
		if (err) {
			session_lost(nl, "reading records", err, run);
			break;
		}
		if (s->drained)
			s->drained(s->arg, began);
		if (check) {
			check_devices(s);
			/* CPUs that came online: READ had their records */
			if (s->rings && iolat_rings_more(s->rings) &&
			    !s->rings_warned) {
				iolat_warn("cannot map the record buffer of a CPU that came online; its records come through netlink");
				s->rings_warned = true;
			}
			if (++checks % SESSION_MEM_CHECKS == 0)
				session_mem(nl, run);
			next_check += check_s;
			/* after a pause, the next in a while, not at once */
			if (next_check <= iolat_mono_s())
				next_check = iolat_mono_s() + check_s;
		}
		if (s->tick && s->tick_s > 0 && iolat_mono_s() >= next_tick) {
			s->tick(s->arg, next_tick - start);
			next_tick += s->tick_s;
		}
		if (stop_requested ||
		    (s->duration > 0 && iolat_mono_s() - start >= s->duration) ||
		    (s->idle && s->idle(s->arg)))
			break;
		if (pid > 0 && waitpid(pid, &s->cmd_status, WNOHANG) == pid) {
			pid = -1;
			break;
		}
		until = next_check;
		if (s->tick && s->tick_s > 0 && next_tick < until)
			until = next_tick;
		if (s->duration > 0 && start + s->duration < until)
			until = start + s->duration;
		loop_wait(s, sleep_ns, until);
	}
	run->seconds = iolat_mono_s() - start;
	s->end_ns = iolat_mono_ns();
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
		if (s->rings)
			iolat_rings_drain(s->rings, dec);
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

/* What iolat_session_setup() and iolat_session_run() allocated. */
void iolat_session_free(struct iolat_session *s)
{
	iolat_counters_free(s, s->counters);
	s->counters = NULL;
	iolat_run_free(&s->run);
	free(s->devs);
	s->devs = NULL;
	s->nr_devs = 0;
	iolat_dev_lookup_free(&s->lookup);
	if (s->disks.has_inc)
		regfree(&s->disks.inc);
	if (s->disks.has_exc)
		regfree(&s->disks.exc);
	s->disks.has_inc = s->disks.has_exc = false;
	free(s->refused);
	s->refused = NULL;
	free(s->devts);
	s->devts = NULL;
	free(s->seen);
	s->seen = NULL;
	s->nr_seen = 0;
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

/* On stderr, so that output stays clean: tracing has begun. */
static void announce(const struct iolat_session *s)
{
	unsigned int d;

	fprintf(stderr, "iolat: tracing");
	/* many disks: how many, the first and the last */
	if (s->nr_devs > 8)
		fprintf(stderr, " %u devices, %s to %s", s->nr_devs,
			s->devs[0].name, s->devs[s->nr_devs - 1].name);
	for (d = 0; s->nr_devs <= 8 && d < s->nr_devs; d++)
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

	if (s->records)
		dec.records = iolat_session_take;
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
	iolat_counters_free(s, s->counters);
	s->counters = iolat_counters_new(s);
	if (!s->counters) {
		iolat_err("out of memory");
		iolat_nl_close(nl);
		return EXIT_FAIL;
	}
	s->run.kernel_bracket = !kernel_counters(s, s->run.kpre);
	s->t0_ns = iolat_mono_ns();
	s->t0_real_ns = iolat_clock_ns(CLOCK_REALTIME);
	iolat_nl_set_watch(nl, s->watch);
	mode = (s->counters_only ? IOLAT_START_COUNTERS_ONLY : 0) |
	       (s->nvme ? IOLAT_START_NVME : 0) |
	       (s->cgroups ? IOLAT_START_CGROUPS : 0);
	err = iolat_nl_start(nl, s->devs, s->nr_devs, s->ring, &s->filter,
			     mode | (s->aggregate ? IOLAT_START_AGGREGATE : 0) |
			     IOLAT_START_CG_SLOTS(s->cg_slots));
	if (err == -E2BIG && s->aggregate && s->aggregate_or_stream) {
		/* too many devices on too many CPUs for the histograms */
		iolat_warn("the module cannot aggregate: %s; streaming records instead",
			   iolat_nl_errmsg(nl));
		s->aggregate = false;
		/* the cgroups come in the records then */
		s->cgroups |= s->cg_slots != 0;
		s->cg_slots = 0;
		err = iolat_nl_start(nl, s->devs, s->nr_devs, s->ring,
				     &s->filter,
				     mode | (s->cgroups ? IOLAT_START_CGROUPS : 0));
	}
	if (err) {
		if (err == -EPERM)
			iolat_err("permission denied: tracing needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace (run as root)");
		else if (err == -E2BIG && iolat_nl_errmsg(nl)[0])
			/* too large a session: the module says by how much */
			iolat_err("cannot start tracing: %s", iolat_nl_errmsg(nl));
		else
			iolat_err("cannot start tracing: %s%s%s", strerror(-err),
				  iolat_nl_errmsg(nl)[0] ? ": " : "",
				  iolat_nl_errmsg(nl));
		iolat_nl_close(nl);
		return EXIT_FAIL;
	}
	if (!s->counters_only && !s->aggregate && !s->watch && !s->copy) {
		/* the records where the module writes them (nl/ring_reader.c) */
		err = iolat_rings_map(nl, &s->rings);
		if (err && err != -ENOENT) {
			iolat_err("cannot map the record buffers (/dev/iolat): %s; --copy takes them through netlink",
				  strerror(-err));
			iolat_nl_close(nl);
			return EXIT_FAIL;
		}
	}
	s->run.kernel_valid = !kernel_counters(s, s->run.kstart);
	s->run.kernel_bracket &= s->run.kernel_valid;
	session_mem(nl, &s->run);
	/* what this kernel cannot trace, once tracing has begun */
	for (i = 0; i < info.nr_missing; i++)
		iolat_warn("this kernel has no tracepoint %s; its stage is not traced",
			   info.missing[i]);
	/*
	 * Each ends the run cleanly, with its summary and a whole record
	 * file: Ctrl-C, kill, an ssh session that drops (SIGHUP, unless
	 * the command reloads at it: export --config), and the reader of a
	 * pipe that goes away (`iolat trace | head`).
	 */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, s->hup_reloads ? on_hup : on_signal);
	signal(SIGPIPE, on_signal);
	announce(s);
	s->nl = nl;
	if (s->started)
		s->started(s->arg);
	drain_loop(s, nl, &dec);
	/* stopped, not freed: all it held, CPUs that came online included */
	session_mem(nl, &s->run);
	s->nl = NULL;
	iolat_rings_unmap(s->rings);
	s->rings = NULL;
	iolat_nl_close(nl);
	s->run.delivered = dec.decoded;
	/* an aggregating session's requests are in its histograms */
	for (i = 0; s->aggregate && !s->run.incomplete && i < s->nr_devs; i++)
		for (unsigned int op = 0; op < IOLAT_OP_NR; op++)
			s->run.delivered += s->counters[i].agg_ios[op];
	s->run.decode_errors = dec.bad;
	if (s->summary && iolat_summary_write(s))
		return EXIT_FAIL;
	return s->run.incomplete ? EXIT_FAIL : EXIT_OK;
}

/* Did a signal end the last run (Ctrl-C, kill, SIGHUP, SIGPIPE)? */
bool iolat_session_interrupted(void)
{
	return stop_requested;
}

/* Did SIGHUP come since the last call (s->hup_reloads)? */
bool iolat_session_take_hup(void)
{
	bool hup = hup_requested;

	hup_requested = 0;
	return hup;
}

/**
 * iolat_session_rerun() - make a run session ready to run again
 * @s: a session whose run ended
 *
 * For a new session of the module over the same devices, once it is
 * back after an unload: the run's figures start from zero, as the
 * module's do; the devices removed stay so.
 */
void iolat_session_rerun(struct iolat_session *s)
{
	struct iolat_run *run = &s->run;

	run->seconds = 0;
	run->delivered = 0;
	memset(&run->stats, 0, sizeof(run->stats));
	run->decode_errors = run->foreign = 0;
	run->incomplete = run->module_gone = run->nomem = false;
	run->nvme_detaches = run->nvme_attaches = 0;
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
		if (run->removed[d])
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
