// SPDX-License-Identifier: GPL-2.0
/*
 * iolat watch's dumps: the frozen recorder read into a record file of
 * -w DIR whose first block after the devices names the trigger and the
 * window (IOLAT_FB_WATCH), then the dumps of DIR rotated (--keep,
 * --max-size), and a dump not written rather than the disk filled
 * (--min-free).  Then the recorder is armed again.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "cmd/watch.h"
#include "out/trigger.h"

#define PREFIX "iolat-watch-"

/* The window the dump holds, from the frozen recorder's state @st. */
static void window_of(struct watch *w, const struct iolat_watch_status *st)
{
	struct iolat_file_watch *fw = &w->fw;
	const struct iolat_stats *now = &st->stats;

	memset(fw, 0, sizeof(*fw));
	fw->trigger_ns = st->trigger_ns;
	fw->start_ns = st->trigger_ns > w->req.before_ns ?
		       st->trigger_ns - w->req.before_ns : 0;
	fw->end_ns = st->trigger_ns + w->after_ns;
	fw->armed_ns = st->armed_ns;
	fw->lost_ns = st->lost_ns;
	/* whole from the arming, and past the records overwritten */
	fw->whole_ns = fw->start_ns;
	if (st->armed_ns > fw->whole_ns)
		fw->whole_ns = st->armed_ns;
	if (st->lost_ns >= fw->whole_ns)
		fw->whole_ns = st->lost_ns + 1;
	fw->slower_ns = w->req.slower_ns;
	fw->stage = w->req.stage;
	fw->reason = st->reason;
	fw->has_rec = st->has_rec;
	fw->rec = st->rec;
	fw->dump = w->dumps + 1;
	fw->window_full = now->watch_window_full - w->armed.watch_window_full;
	fw->frozen = now->watch_frozen - w->armed.watch_frozen;
	fw->overwritten = now->watch_overwritten - w->armed.watch_overwritten;
	fw->suppressed = st->suppressed;
	if (st->reason == IOLAT_WATCH_USER || st->reason == IOLAT_WATCH_PERCENTILE)
		snprintf(fw->detail, sizeof(fw->detail), "%s",
			 w->detail[0] ? w->detail : "iolat watch --dump");
}

/* The name of the device of the request that triggered the dump. */
static const char *trigger_dev(const struct watch *w)
{
	const struct iolat_session *s = w->s;
	unsigned int d;

	for (d = 0; w->fw.has_rec && d < s->nr_devs; d++)
		if (s->devs[d].major == w->fw.rec.major &&
		    s->devs[d].minor == w->fw.rec.minor)
			return s->devs[d].name;
	return NULL;
}

/* DIR/iolat-watch-YYYYmmdd-HHMMSS.mmm-N.rec, the trigger's wall time */
static void dump_path(const struct watch *w, char *path, size_t len)
{
	uint64_t real = w->s->t0_real_ns + (w->fw.trigger_ns - w->s->t0_ns);
	time_t sec = real / 1000000000ULL;
	struct tm tm;
	char when[32];

	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(path, len, "%s/" PREFIX "%s.%03llu-%u.rec", w->dir, when,
		 (unsigned long long)(real / 1000000 % 1000), w->fw.dump);
}

/*
 * Is there room for a dump of at most @bytes, leaving --min-free of the
 * file system free?
 */
static bool room(const struct watch *w, uint64_t bytes)
{
	struct statvfs v;

	if (statvfs(w->dir, &v))
		return false;
	return (double)v.f_bavail * v.f_frsize - bytes >=
	       w->min_free * (double)v.f_blocks * v.f_frsize;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The dumps of DIR, oldest first, past --keep or --max-size: deleted. */
static void rotate(const struct watch *w)
{
	char **names = NULL, path[4096];
	unsigned int nr = 0, cap = 0, i;
	uint64_t total = 0;
	struct dirent *e;
	struct stat sb;
	DIR *dir = opendir(w->dir);

	while (dir && (e = readdir(dir))) {
		if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) ||
		    !strstr(e->d_name, ".rec"))
			continue;
		names = iolat_grow(names, &cap, nr + 1, sizeof(*names));
		names[nr] = strdup(e->d_name);
		if (!names[nr])
			break;
		snprintf(path, sizeof(path), "%s/%s", w->dir, e->d_name);
		if (!stat(path, &sb))
			total += sb.st_size;
		nr++;
	}
	if (dir)
		closedir(dir);
	qsort(names, nr, sizeof(*names), by_name);
	for (i = 0; i + 1 < nr && (nr - i > w->keep || total > w->max_bytes);
	     i++) {
		snprintf(path, sizeof(path), "%s/%s", w->dir, names[i]);
		if (!stat(path, &sb))
			total -= sb.st_size;
		if (unlink(path))
			iolat_warn("cannot remove the old dump %s: %s", path,
				   strerror(errno));
	}
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/* A record read from the frozen recorder: in the dump if in the window. */
static void dump_record(void *arg, const struct iolat_record *r)
{
	struct watch *w = arg;

	if (r->c_ns < w->fw.whole_ns || r->c_ns > w->fw.end_ns) {
		w->outside++;
		return;
	}
	if (iolat_file_records(w->file, r))
		w->failed = true;
	w->written++;
}

/* The dump's file: header, devices, trigger; then the records read. */
static int dump_write(struct watch *w, const char *path)
{
	struct iolat_session *s = w->s;
	struct iolat_decoder dec = { .rec_size = s->info.record_size,
				     .record = dump_record, .arg = w };
	struct iolat_dev_counters *c = iolat_counters_new(s);
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	struct iolat_run run = { 0 };
	int err = -ENOMEM;

	if (!c || !h)
		goto out;
	iolat_file_header_fill(h, s, &s->info, s->t0_ns, s->t0_real_ns);
	h->flags |= IOLAT_FILE_F_WATCH;
	w->file = iolat_file_create(path, h);
	err = -EIO;
	if (!w->file || iolat_file_devices(w->file, s) ||
	    iolat_file_watch(w->file, &w->fw))
		goto out;
	w->written = w->outside = 0;
	err = iolat_nl_read(s->nl, iolat_decode, iolat_decode_event, &dec);
	if (!err)
		err = iolat_session_counters(s, c);
	if (err)
		goto out;
	/* the session's counters: its drops since the start, and the devices' */
	run.seconds = (w->fw.end_ns - w->fw.whole_ns) / 1e9;
	run.delivered = w->written;
	run.decode_errors = dec.bad;
	run.stats = w->st.stats;
	run.nr_missing = s->run.nr_missing;
	memcpy(run.missing, s->run.missing, sizeof(run.missing));
	err = iolat_file_end(w->file, w->fw.end_ns, &run, s->nr_devs, c) ||
	      w->failed ? -EIO : 0;
out:
	if (w->file && iolat_file_close(w->file))
		err = -EIO;
	w->file = NULL;
	iolat_counters_free(s, c);
	free(h);
	return err;
}

/**
 * watch_dump() - the triggered window into a dump of -w DIR
 * @w: the watch, its recorder triggered (w->st)
 * @rearm: arm the recorder again after (not at the session's end)
 *
 * Return: 0, or -1 if the session cannot go on (said).
 */
int watch_dump(struct watch *w, bool rearm)
{
	struct iolat_session *s = w->s;
	uint64_t most;
	char path[4096];
	int err;

	err = iolat_nl_watch(s->nl, IOLAT_CMD_WATCH_FREEZE, 0, &w->st);
	if (err) {
		iolat_err("cannot stop the flight recorder to read it: %s%s%s",
			  strerror(-err), iolat_nl_errmsg(s->nl)[0] ? ": " : "",
			  iolat_nl_errmsg(s->nl));
		return -1;
	}
	window_of(w, &w->st);
	dump_path(w, path, sizeof(path));
	/* the buffers' whole, as the most a dump can take */
	most = (uint64_t)s->info.nr_cpus * (s->ring ? s->ring : IOLAT_RING_DEFAULT) *
	       s->info.record_size + (1 << 20);
	if (!room(w, most)) {
		w->skipped++;
		iolat_warn("dump %u not written: %s would have less than %.0f%% free (--min-free)",
			   w->fw.dump, w->dir, w->min_free * 100);
	} else if (dump_write(w, path)) {
		iolat_err("cannot write %s: %s", path, strerror(errno ?: EIO));
		unlink(path);
		return -1;
	} else {
		w->dumps++;
		fprintf(stderr, "iolat: dump %u: ", w->fw.dump);
		iolat_trigger_text(stderr, &w->fw, trigger_dev(w));
		fprintf(stderr, "\niolat: %llu records of the window to %s (%llu read outside it); ",
			(unsigned long long)w->written, path,
			(unsigned long long)w->outside);
		iolat_trigger_window_text(stderr, &w->fw);
		fprintf(stderr, "\n");
		rotate(w);
	}
	if (!rearm)
		return 0;
	if (w->max_dumps && w->dumps >= w->max_dumps) {
		w->off = true;
		iolat_warn("%u dumps written (--max-dumps): the recorder stays off; the histograms go on",
			   w->dumps);
		return 0;
	}
	return watch_arm(w);
}

/* Arm the recorder again, quiet for --min-gap after the last trigger. */
int watch_arm(struct watch *w)
{
	struct iolat_session *s = w->s;
	uint64_t quiet = w->st.trigger_ns ?
			 w->st.trigger_ns + (uint64_t)(w->min_gap_s * 1e9) : 0;
	int err = iolat_nl_watch(s->nl, IOLAT_CMD_WATCH_ARM, quiet, &w->st);

	if (err) {
		iolat_err("cannot arm the flight recorder: %s%s%s", strerror(-err),
			  iolat_nl_errmsg(s->nl)[0] ? ": " : "",
			  iolat_nl_errmsg(s->nl));
		return -1;
	}
	w->armed = w->st.stats;
	w->detail[0] = '\0';
	return 0;
}
