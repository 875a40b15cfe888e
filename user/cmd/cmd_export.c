// SPDX-License-Identifier: GPL-2.0
/*
 * iolat export: trace devices and keep their Prometheus exposition
 * (out_prom.c) up to date, for a fleet's dashboards: --textfile DIR
 * rewrites DIR/iolat.prom each interval for node_exporter's textfile
 * collector (written beside it, then renamed: never half a file; removed
 * when the exporter ends, so that no stale numbers are served as
 * current), and --listen ADDR:PORT serves GET /metrics itself.  Histograms are
 * cumulative from the start, counters are the module's exact ones read
 * when the exposition is made.
 *
 * An exporter is left running, so it is the cheap kind of session: the
 * module keeps the histograms (record -A's aggregation, agg_reader.c),
 * read when an exposition is made, and no record crosses to user space
 * (streaming every record cost as much as record itself).
 * --records streams and analyses them instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "cmd/export.h"
#include "file/recfile.h"

struct export_state {
	struct iolat_session *s;
	struct iolat_an an;
	struct iolat_dev_counters *c;	/* [nr_devs] */
	const char *dir;
	int listen_fd;
	double every_s;
	double next_s;		/* the text file's next rewrite */
	uint64_t written, served;
	uint64_t made;		/* expositions made: files and scrapes */
	bool failed;
	bool ready;		/* told the service manager (notify.c) */
	bool have_c;		/* @c holds a reading */
	struct export_args *args;	/* the options in use (export_conf.c) */
	struct export_args *first;	/* those of the start */
	int argc;			/* the command line, for a reload */
	const char **argv;
	struct iolat_agg_reader *agg;	/* unless --records */
};

static void on_record(void *arg, unsigned int dev, const struct iolat_record *r)
{
	struct export_state *ex = arg;

	iolat_an_record(&ex->an, dev, r);
}

/*
 * The module's histograms into the analysis; a failure ends the session,
 * but for the module going away, which the session's loop sees and the
 * exporter waits out (wait_module()).
 */
static void agg_take(struct export_state *ex, const struct iolat_dev_counters *c)
{
	int err = iolat_agg_take(ex->agg, &ex->an, c);

	if (!err || !iolat_nl_family_present())
		return;
	iolat_err("cannot read the module's histograms: %s", strerror(-err));
	ex->failed = true;
}

static void on_stopped(void *arg)
{
	struct export_state *ex = arg;

	if (ex->agg)
		agg_take(ex, ex->s->counters);
}

/* A disk joined: its room here, and its series from the next exposition. */
static void on_added(void *arg, unsigned int dev)
{
	struct export_state *ex = arg;

	iolat_counters_grow(ex->s, &ex->c, dev);
	if (ex->agg)
		iolat_agg_reader_grow(ex->agg, dev);
	iolat_an_add_req(&ex->an, &ex->s->devs[dev]);
}

/* The versions and the kernel, for iolat_build_info. */
static void on_started(void *arg)
{
	struct export_state *ex = arg;
	struct iolat_session *s = ex->s;
	struct iolat_file_header *h = calloc(1, sizeof(*h));

	if (!h)
		return;
	iolat_file_header_fill(h, s, &s->info, s->t0_ns, s->t0_real_ns);
	iolat_an_meta_from(&ex->an, h);
	free(h);
}

/*
 * After an exposition from the module's cgroup slots: those of the
 * cgroups not named are freed for the next ones (iolat_an_cgroups_retire()).
 */
static void cgroups_retire(struct export_state *ex)
{
	struct iolat_session *s = ex->s;
	struct iolat_an_cg_slot *slot;
	struct iolat_cg_counts *c;
	unsigned int i, nr;
	int err = 0;

	nr = iolat_an_cgroups_retire(&ex->an, &slot);
	c = nr ? calloc(nr, sizeof(*c)) : NULL;
	for (i = 0; c && i < nr; i++) {
		c[i].major = s->devs[slot[i].dev].major;
		c[i].minor = s->devs[slot[i].dev].minor;
		c[i].id = slot[i].id;
	}
	if (nr)
		err = c ? iolat_nl_cgroups_free(s->nl, c, nr) : -ENOMEM;
	if (err && iolat_nl_family_present()) {
		iolat_err("cannot free the module's cgroup slots: %s%s%s",
			  strerror(-err), s->nl && iolat_nl_errmsg(s->nl)[0] ? ": " : "",
			  s->nl ? iolat_nl_errmsg(s->nl) : "");
		ex->failed = true;
	}
	free(c);
	free(slot);
}

/* The exposition now, in @fmt, into a memory buffer. */
static char *exposition(struct export_state *ex, enum iolat_expo_format fmt,
			size_t *len)
{
	struct iolat_run run = ex->s->run;
	unsigned int d, gone = 0;
	struct iolat_expo x;
	char *buf = NULL;
	int err;
	FILE *f;

	const struct iolat_dev_counters *c = ex->s->counters;
	const struct iolat_expo_label traced = { "state", "traced" },
				      removed = { "state", "removed" };

	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	/*
	 * while tracing, the counters now; after, those of the stop, or the
	 * last read if the module went away
	 */
	if (ex->s->nl) {
		c = iolat_session_counters(ex->s, ex->c) ? NULL : ex->c;
		ex->have_c = c;
	} else if (ex->s->run.module_gone) {
		c = ex->have_c ? ex->c : NULL;
	}
	/* the module's histograms up to the same reading */
	if (ex->agg && ex->s->nl && c)
		agg_take(ex, c);
	run.delivered = ex->an.records;
	iolat_an_cgroups_name(&ex->an, ex->an.o.cgroups_top);
	iolat_expo_init(&x, fmt, f, ex->an.o.prom_step,
			ex->agg ? &iolat_native_module : &iolat_native_records);
	iolat_prom_write(&x, &ex->an, &run, c);
	if (ex->agg && ex->s->cg_slots && ex->s->nl)
		cgroups_retire(ex);
	/* the session's memory in the module (GET_INFO at its start) */
	iolat_expo_family(&x, "iolat_module_memory_bytes", IOLAT_EXPO_GAUGE,
			  "Kernel memory that this exporter's session holds in the iolat module.");
	iolat_expo_value(&x, NULL, 0, run.module_mem_bytes, false);
	for (d = 0; d < ex->s->nr_devs; d++)
		gone += run.dev_state[d] != IOLAT_DEV_PRESENT;
	iolat_expo_family(&x, "iolat_devices", IOLAT_EXPO_GAUGE,
			  "Disks of this exporter's session: traced, or removed while it runs (their series keep what they counted while there).");
	iolat_expo_value(&x, &traced, 1, ex->s->nr_devs - gone, false);
	iolat_expo_value(&x, &removed, 1, gone, false);
	iolat_expo_family(&x, "iolat_exporter_session_start_time_seconds",
			  IOLAT_EXPO_GAUGE,
			  "When this exporter's session of the module began, in seconds since the epoch: a new one (the module was loaded again) starts its counters from zero.");
	iolat_expo_value(&x, NULL, 0, ex->s->t0_real_ns, true);
	iolat_expo_family(&x, "iolat_exporter_expositions_total",
			  IOLAT_EXPO_COUNTER,
			  "Expositions made: this one, the text files written and the scrapes served before it.");
	iolat_expo_value(&x, NULL, 0, ++ex->made, false);
	err = iolat_expo_end(&x);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void remove_textfile(struct export_state *ex)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/iolat.prom", ex->dir);
	if (unlink(path) && errno != ENOENT) {
		iolat_err("cannot remove %s: %s", path, strerror(errno));
		ex->failed = true;
	}
}

static int write_textfile(struct export_state *ex)
{
	char tmp[4096], path[4096];
	size_t len;
	char *buf = exposition(ex, IOLAT_EXPO_TEXT, &len);
	FILE *f;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/iolat.prom", ex->dir);
	snprintf(tmp, sizeof(tmp), "%s/.iolat.prom.%d", ex->dir, getpid());
	f = fopen(tmp, "w");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		err = -errno;
		iolat_err("cannot write %s: %s", tmp, strerror(errno));
		if (f)
			unlink(tmp);
	} else if (rename(tmp, path)) {
		err = -errno;
		iolat_err("cannot rename %s to %s: %s", tmp, path,
			  strerror(errno));
		unlink(tmp);
	}
	free(buf);
	ex->written += !err;
	return err;
}

/* A client's whole time to send its request, or take its answer. */
#define CLIENT_S	2.0

/*
 * Wait until @fd is ready for @events, but not past @deadline.
 * Return: whether it is.
 */
static bool client_wait(int fd, short events, double deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	double left = deadline - iolat_mono_s();

	return left > 0 && poll(&p, 1, (int)(left * 1000) + 1) == 1;
}

/* All of @buf to @fd by @deadline. */
static bool client_write(int fd, const char *buf, size_t len, double deadline)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n > 0) {
			buf += n;
			len -= n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			return false;
		} else if (!client_wait(fd, POLLOUT, deadline)) {
			errno = ETIMEDOUT;
			return false;
		}
	}
	return true;
}

/*
 * The value of header @name in HTTP request @req (its first line, if
 * more than one), into @buf; NULL if it has none.
 */
static const char *header(const char *req, const char *name, char *buf,
			  size_t size)
{
	size_t n = strlen(name), len;
	const char *p = req;

	while ((p = strchr(p, '\n'))) {
		p++;
		if (strncasecmp(p, name, n) || p[n] != ':')
			continue;
		p += n + 1;
		p += strspn(p, " \t");
		len = strcspn(p, "\r\n");
		snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), p);
		return buf;
	}
	return NULL;
}

/*
 * One client of --listen, from its accept: its request read and its
 * answer written each within CLIENT_S, non-blocking, so that a client
 * that stalls or trickles holds the exporter back at most that long,
 * and clients that come together are each answered in turn (the
 * listening socket queues them).  The exposition is in the format its
 * Accept header asks for: protobuf, with native histograms, or text.
 */
static void serve(struct export_state *ex, int fd)
{
	static const char not_found[] =
		"HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 24\r\nConnection: close\r\n\r\niolat serves /metrics.\r\n";
	double deadline = iolat_mono_s() + CLIENT_S;
	char req[4096], head[256], accept[1024];
	enum iolat_expo_format fmt;
	size_t len, off = 0;
	ssize_t n;
	char *buf;
	int h;

	while (off < sizeof(req) - 1) {
		n = read(fd, req + off, sizeof(req) - 1 - off);
		if (n > 0) {
			off += n;
			req[off] = '\0';
			if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
				break;
		} else if (!n || (errno != EAGAIN && errno != EINTR) ||
			   !client_wait(fd, POLLIN, deadline)) {
			break;
		}
	}
	req[off] = '\0';
	deadline = iolat_mono_s() + CLIENT_S;
	if (strncmp(req, "GET /metrics ", 13) && strncmp(req, "GET /metrics?", 13)) {
		if (!client_write(fd, not_found, sizeof(not_found) - 1, deadline))
			iolat_warn("a /metrics client went away: %s",
				   strerror(errno));
		close(fd);
		return;
	}
	fmt = iolat_expo_negotiate(header(req, "Accept", accept, sizeof(accept)));
	buf = exposition(ex, fmt, &len);
	if (buf) {
		h = snprintf(head, sizeof(head),
			     "HTTP/1.0 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			     fmt == IOLAT_EXPO_PROTOBUF ? IOLAT_EXPO_PB_TYPE :
			     IOLAT_EXPO_TEXT_TYPE, len);
		if (!client_write(fd, head, h, deadline) ||
		    !client_write(fd, buf, len, deadline))
			iolat_warn("a /metrics client went away: %s",
				   strerror(errno));
		else
			ex->served++;
	}
	free(buf);
	close(fd);
}

static void export_reload(struct export_state *ex);

static bool on_idle(void *arg)
{
	struct export_state *ex = arg;
	int fd;

	if (iolat_session_take_hup())
		export_reload(ex);
	if (ex->dir && iolat_mono_s() >= ex->next_s) {
		if (write_textfile(ex))
			ex->failed = true;
		ex->next_s = iolat_mono_s() + ex->every_s;
	}
	while (ex->listen_fd >= 0 &&
	       (fd = accept4(ex->listen_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0)
		serve(ex, fd);
	/*
	 * Ready once tracing, with the first text file in place and the
	 * socket taking scrapes: a unit of Type=notify starts then.
	 */
	if (!ex->ready && !ex->failed) {
		ex->ready = true;
		if (iolat_notify("READY=1\nSTATUS=exporting %u disks",
				 ex->s->nr_devs))
			iolat_warn("cannot tell the service manager that the exporter is ready (NOTIFY_SOCKET)");
	}
	return ex->failed;
}

/* The analysis keeps the histograms; the exposition is made on demand. */
static const struct iolat_output histograms_only = { .name = "export" };

/* The analysis of @o over the session's devices, empty. */
static void an_start(struct export_state *ex, const struct iolat_an_opts *o)
{
	unsigned int d;

	iolat_an_init(&ex->an, o, &histograms_only);
	for (d = 0; d < ex->s->nr_devs; d++)
		iolat_an_add_req(&ex->an, &ex->s->devs[d]);
}

/* Up to @secs, or until a scrape comes. */
static void wait_scrape(const struct export_state *ex, double secs)
{
	struct pollfd p = { .fd = ex->listen_fd, .events = POLLIN };

	poll(&p, ex->listen_fd >= 0, (int)(secs * 1000));
}

/*
 * The module was unloaded: until it is loaded again, the text file and
 * the scrapes go on with the counts it left.  Looked for each second.
 * Return: 0 once it is back, nonzero if a signal or a failure ends the
 * exporter first.
 */
static int wait_module(struct export_state *ex)
{
	iolat_warn("waiting for the iolat module to be loaded again; meanwhile the exposition holds what it counted");
	for (;;) {
		if (on_idle(ex) || iolat_session_interrupted())
			return 1;
		if (iolat_nl_family_present())
			return 0;
		wait_scrape(ex, 1.0);
	}
}

/*
 * A new session of the module, after it came back: the analysis and the
 * histograms' reader start from zero as the module's counters do, which
 * Prometheus takes for a counter reset.
 */
static int export_again(struct export_state *ex)
{
	struct iolat_an_opts o = ex->an.o;	/* as the last reload left it */
	struct iolat_session *s = ex->s;

	iolat_an_free(&ex->an);
	an_start(ex, &o);
	if (ex->agg) {
		iolat_agg_reader_free(ex->agg);
		ex->agg = iolat_agg_reader_new(s);
		if (!ex->agg)
			return -ENOMEM;
	}
	iolat_session_rerun(s);
	ex->have_c = false;
	iolat_warn("the iolat module is back: tracing again, its counters from zero (a counter reset for Prometheus)");
	return 0;
}

/* "127.0.0.1:9301", ":9301" or "[::1]:9301" -> a listening socket. */
static int listen_on(const char *arg)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	const char *colon = strrchr(arg, ':');
	char host[64];
	int fd, one = 1, port;
	char *end;

	if (!colon || colon - arg >= (long)sizeof(host))
		return -EINVAL;
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port <= 0 || port > 65535)
		return -EINVAL;
	memcpy(host, arg, colon - arg);
	host[colon - arg] = '\0';
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	if (!host[0] || inet_pton(AF_INET, host, &a4.sin_addr) == 1) {
		if (!host[0])
			a4.sin_addr.s_addr = htonl(INADDR_ANY);
		a4.sin_port = htons(port);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (void *)&a4, sizeof(a4)) || listen(fd, 16))
			goto fail;
		return fd;
	}
	if (inet_pton(AF_INET6, host, &a6.sin6_addr) != 1)
		return -EINVAL;
	a6.sin6_port = htons(port);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (void *)&a6, sizeof(a6)) || listen(fd, 16))
		goto fail;
	return fd;
fail:
	one = -errno;
	close(fd);
	return one;
}

static void listen_err(const char *arg, int err)
{
	iolat_err("--listen %s: %s", arg, err == -EINVAL ?
		  "give ADDR:PORT, such as 127.0.0.1:9301 or :9301" :
		  strerror(-err));
}

/*
 * SIGHUP with --config: the file read again, and what changed applied
 * without a new session of the module, so that no count is lost: the
 * listening address, the text file's directory, -i and --buckets.  What
 * needs another session (devices, filters, --records, -t) is said, and
 * waits for a restart; a file that does not parse changes nothing.
 */
static void export_reload(struct export_state *ex)
{
	struct export_args *old = ex->args, *a = calloc(1, sizeof(*a));
	struct iolat_session scratch = { 0 };
	char fixed[160];
	int fd = -1;

	if (!a || export_args_parse(a, &scratch, ex->argc, ex->argv) ||
	    (a->dir && !export_same(a->dir, old->dir) && access(a->dir, W_OK) &&
	     (iolat_err("--textfile: cannot write in %s: %s", a->dir,
			strerror(errno)), 1)) ||
	    (a->listen && !export_same(a->listen, old->listen) &&
	     (fd = listen_on(a->listen)) < 0 && (listen_err(a->listen, fd), 1))) {
		iolat_warn("%s not reloaded: the exporter goes on as it was",
			   old->config);
		goto drop;
	}
	if (!export_same(a->listen, old->listen)) {
		if (ex->listen_fd >= 0)
			close(ex->listen_fd);
		ex->listen_fd = a->listen ? fd : -1;
		ex->s->wake_fd = ex->listen_fd;
	}
	if (!export_same(a->dir, old->dir)) {
		if (ex->dir && ex->written)
			remove_textfile(ex);
		ex->next_s = 0;		/* the new file at once */
	}
	ex->dir = a->dir;
	ex->every_s = a->every_s;
	if (ex->next_s > iolat_mono_s() + ex->every_s)
		ex->next_s = iolat_mono_s() + ex->every_s;
	ex->an.o.prom_step = a->prom_step;
	export_args_fixed(old, a, fixed, sizeof(fixed));
	if (fixed[0])
		iolat_warn("%s: a change of%s takes effect at a restart (systemctl restart iolat-exporter)",
			   old->config, fixed);
	iolat_warn("%s reloaded: %s%s%s%s, every %g s", a->config,
		   a->listen ? "serving " : "", a->listen ?: "",
		   a->listen && a->dir ? ", " : "",
		   a->dir ? "writing its text file" : "", ex->every_s);
	ex->args = a;
	a = old;
	if (a == ex->first)
		return;		/* the session's COMMAND points into it */
drop:
	if (a) {
		export_args_free(a);
		free(a);
	}
}

int cmd_export(int argc, const char **argv)
{
	struct iolat_session s = { 0 };
	struct export_args args = { 0 };
	struct export_state ex = { .s = &s, .listen_fd = -1, .args = &args,
				   .first = &args, .argc = argc, .argv = argv };
	struct iolat_an_opts ao = { .stage = IOLAT_STAGE_Q2C };
	int rc = EXIT_USAGE;

	if (export_args_parse(&args, &s, argc, argv))
		goto out;
	ex.every_s = args.every_s;
	ao.prom_step = args.prom_step;
	ao.cgroups = args.cgroups;
	ao.cgroups_top = args.cgroups ? args.cgroups_top : 0;
	/* records carry cgroups; without, the module counts them */
	s.cgroups = args.cgroups && args.records;
	s.cg_slots = args.cgroups && !args.records ? args.cgroups_top : 0;
	iolat_an_default_pct(&ao);
	if (args.dir && access(args.dir, W_OK)) {
		iolat_err("--textfile: cannot write in %s: %s", args.dir,
			  strerror(errno));
		goto out;
	}
	s.every_disk = true;
	rc = iolat_session_setup(&s, &args.o);
	if (rc)
		goto out;
	s.aggregate = !args.records;
	if (s.aggregate) {
		ex.agg = iolat_agg_reader_new(&s);
		if (!ex.agg) {
			iolat_err("out of memory");
			rc = EXIT_FAIL;
			goto out;
		}
	}
	if (args.listen) {
		ex.listen_fd = listen_on(args.listen);
		if (ex.listen_fd < 0) {
			listen_err(args.listen, ex.listen_fd);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	an_start(&ex, &ao);
	ex.dir = args.dir;
	/* with --config, SIGHUP reads it again (export_reload()) */
	s.hup_reloads = args.config;
	s.record = on_record;
	s.started = on_started;
	s.stopped = on_stopped;
	s.idle = on_idle;
	s.wake_fd = ex.listen_fd;
	s.added = on_added;
	/*
	 * a disk that appears joins at the second device check that sees
	 * it, within half an interval: it is in the next exposition
	 */
	s.follow_s = ex.every_s / 4;
	s.arg = &ex;
	ex.c = iolat_counters_new(&s);
	if (!ex.c) {
		iolat_err("out of memory");
		rc = EXIT_FAIL;
		goto out;
	}
	/*
	 * Left on: a module unloaded (an upgrade) is waited for, and traced
	 * again once it is back.
	 */
	for (;;) {
		rc = iolat_session_run(&s);
		if (!s.run.module_gone || iolat_session_interrupted() ||
		    wait_module(&ex) || export_again(&ex))
			break;
	}
	if (ex.ready)
		iolat_notify("STOPPING=1");
	/* -o json: what the exposition held at the end, with percentiles */
	if (args.output && !iolat_out_json.begin(&ex.an)) {
		struct iolat_run run = s.run;

		run.delivered = ex.an.records;
		iolat_out_json.summary(&ex.an, &run, ex.have_c ? ex.c : NULL);
	}
	/*
	 * No stale numbers left for node_exporter to serve as if current:
	 * the text file goes with the exporter.
	 */
	if (ex.dir && ex.written)
		remove_textfile(&ex);
	fprintf(stderr, "iolat: %llu text files written (removed at the end), %llu scrapes served\n",
		(unsigned long long)ex.written, (unsigned long long)ex.served);
	if (!rc)
		rc = iolat_session_accounted(&s) && !ex.failed ? EXIT_OK :
		     EXIT_FAIL;
out:
	iolat_counters_free(&s, ex.c);
	iolat_agg_reader_free(ex.agg);
	if (ex.listen_fd >= 0)
		close(ex.listen_fd);
	iolat_an_free(&ex.an);
	iolat_session_free(&s);
	if (ex.args != &args) {
		export_args_free(ex.args);
		free(ex.args);
	}
	export_args_free(&args);
	return rc;
}
