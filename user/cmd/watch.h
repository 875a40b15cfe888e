/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat watch: the flight recorder's command (cmd_watch.c) and its dumps
 * (watch_dump.c).
 */
#ifndef IOLAT_CMD_WATCH_H
#define IOLAT_CMD_WATCH_H

#include "cmd/cmd.h"
#include "file/recfile.h"

struct watch {
	struct iolat_session *s;
	struct iolat_watch_req req;
	uint64_t after_ns;
	const char *dir;
	unsigned int max_dumps, dumps, keep;
	uint64_t max_bytes;	/* of the dumps kept in @dir */
	double min_gap_s;
	double min_free;	/* a fraction of @dir's file system */
	/* --p99-over: the module's histograms every --window */
	uint64_t p99_ns;
	double window_s, next_window;
	struct iolat_dev_counters *hc;	/* the devices, by number */
	struct iolat_agg *prev, *cur;
	unsigned int nr_hist;
	bool have_prev;
	char detail[96];	/* a trigger from here in words */
	struct iolat_watch_status st;	/* as last read */
	struct iolat_stats armed;	/* the counters at the last arming */
	unsigned int skipped;	/* dumps not written: no room */
	bool off;		/* --max-dumps reached: not armed again */
	bool armed_once;	/* the session ran: its closing line */
	bool failed;
	/* the dump being read */
	struct iolat_file *file;
	struct iolat_file_watch fw;
	uint64_t written, outside;
};

int watch_dump(struct watch *w, bool rearm);
int watch_arm(struct watch *w);

#endif /* IOLAT_CMD_WATCH_H */
