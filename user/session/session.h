/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session of the module: its options and devices (session_opts.c),
 * the run loop: start, drain, stop, accounting (session_run.c), disks
 * that appear (disk_follow.c), its arrays (alloc.c), its --summary and
 * closing lines (summary.c).
 */
#ifndef IOLAT_SESSION_H
#define IOLAT_SESSION_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <popt.h>
#include <regex.h>
#include "nl/nl.h"

/* devices a session takes: the module's limit */
#define IOLAT_CLI_MAX_DEVS IOLAT_MAX_DEVS

struct iolat_session_opts {
	char **devargs;		/* [nr_devargs], grown as given */
	unsigned int nr_devargs, cap_devargs;
	char *include, *exclude;	/* regular expressions on disks' names */
	double duration;
	int ring;
	bool copy;		/* --copy */
	char *ops, *comm, *min_lat;
	char *summary;
	int pid, tgid;
	unsigned int nr_cgroups;	/* --cgroup */
	uint64_t cgroups[IOLAT_FILTER_CGROUPS];
};
struct iolat_run {
	double seconds;
	uint64_t delivered;
	struct iolat_stats stats;
	uint64_t decode_errors;
	uint64_t foreign;	/* records of a device not asked for */
	bool incomplete;
	bool module_gone;	/* the module was unloaded during the run */
	bool nomem;
	uint64_t module_mem_bytes;	/* the session's memory in the module */
	unsigned int nvme_detaches;	/* nvme-core went away while tracing */
	unsigned int nvme_attaches;	/* ... and came back */
	/*
	 * Per device, [nr_devs] from iolat_session_setup() (or a record
	 * file's reader): removed while traced, and its state now
	 */
	bool *removed;
	enum iolat_dev_state *dev_state;
	unsigned int nr_missing;
	char missing[IOLAT_MAX_MISSING][48];
	/*
	 * The kernel's counters of each device, read right after the
	 * module's START and its STOP (kstart, kend), and right before
	 * them (kpre, kprestop): the session's window is inside the
	 * outer span and holds the inner one, so the kernel's count over
	 * each brackets the module's (--summary).
	 */
	bool kernel_valid;
	struct iolat_diskstats *kstart;
	struct iolat_diskstats *kend;
	bool kernel_bracket;
	struct iolat_diskstats *kpre;
	struct iolat_diskstats *kprestop;
};
/* A disk that appeared, as one device check found it (disk_follow.c) */
struct iolat_seen {
	char name[32];
	uint32_t nr_hwq, depth;
};
/* --include and --exclude, compiled: which disks a session takes */
struct iolat_disk_filter {
	bool has_inc, has_exc;
	regex_t inc, exc;
};
struct iolat_session {
	unsigned int nr_devs;
	struct iolat_dev_req *devs;	/* [nr_devs], grown as resolved */
	struct iolat_dev_lookup lookup;	/* @devs by number, for records */
	unsigned int cap_devs;
	bool every_disk;	/* without -d: every blk-mq disk, not an error */
	/*
	 * Every disk was taken (no -d): a disk that appears joins the
	 * running session (disk_follow.c), if @filter passes it
	 */
	bool follow;
	double follow_s;	/* the longest wait for one, if under 0.5 s */
	struct iolat_disk_filter disks;
	char (*refused)[32];	/* disks the module would not add */
	unsigned int nr_refused, cap_refused;
	uint64_t *devts;	/* /sys/dev/block at the last look */
	size_t nr_devts;
	unsigned int scans;	/* looks since the last scan of /sys/block */
	struct iolat_seen *seen;	/* new disks at the last look */
	unsigned int nr_seen;
	struct iolat_filter filter;
	bool counters_only;	/* no records: `iolat stat` */
	bool aggregate;		/* histograms in the module, no records */
	bool aggregate_or_stream;	/* records if the module cannot aggregate */
	bool nvme;		/* NVMe commands too; no -d: every namespace */
	bool cgroups;		/* each record's cgroup (IOLAT_A_CGROUPS) */
	/* without records, counts per cgroup in the module (IOLAT_A_CGROUP_SLOTS) */
	unsigned int cg_slots;
	/* a flight recorder beside the histograms (iolat watch), or NULL */
	const struct iolat_watch_req *watch;
	double duration;
	uint32_t ring;
	bool copy;		/* the records through READ, the rings not mapped */
	const char **cmd;
	const char *summary;	/* --summary FILE */
	const char *usage;	/* the command's, if not the usual */
	struct iolat_nl *nl;	/* while it runs */
	struct iolat_rings *rings;	/* its rings mapped, or NULL: READ */
	bool rings_warned;	/* a CPU's ring could not be mapped */
	/* after the start, before the first drain */
	void (*started)(void *arg);
	/* called for every record, and about every tick_s seconds */
	void (*record)(void *arg, unsigned int dev, const struct iolat_record *r);
	/*
	 * or, where set, @n records of device @dev in place from @base,
	 * @stride bytes apart, each @size bytes (struct iolat_decoder's
	 * records): a streaming session's mapped rings
	 */
	void (*records)(void *arg, unsigned int dev, const void *base,
			unsigned int n, size_t stride, size_t size);
#define IOLAT_SESSION_RUN_MIN	4	/* records, else to record() */
	void (*tick)(void *arg, double elapsed);
	double tick_s;
	/* a drain that began at @now_ns (CLOCK_MONOTONIC) is done */
	void (*drained)(void *arg, uint64_t now_ns);
	/* a session event, after the user was told */
	void (*event)(void *arg, uint64_t ns, uint32_t kind, const char *module);
	/* stopped, the last records and counters read, the socket open */
	void (*stopped)(void *arg);
	/* between drains: true ends the session */
	bool (*idle)(void *arg);
	/*
	 * input on it ends the wait between drains (export's listener,
	 * top's terminal); -1 (iolat_session_getopt()'s) for none
	 */
	int wake_fd;
	/* SIGHUP asks for a reload (iolat_session_take_hup()), not the end */
	bool hup_reloads;
	/* device @dev joined the running session (s->follow) */
	void (*added)(void *arg, unsigned int dev);
	void *arg;
	struct iolat_info info;	/* the module's */
	uint64_t t0_ns;		/* CLOCK_MONOTONIC just before the start */
	uint64_t t0_real_ns;	/* CLOCK_REALTIME at the same moment */
	uint64_t end_ns;	/* CLOCK_MONOTONIC when it began to stop */
	struct iolat_run run;
	/* each device's counters when the session stopped */
	struct iolat_dev_counters *counters;	/* [nr_devs] */
	int cmd_status;
};
extern struct poptOption iolat_session_options[];
extern struct poptOption iolat_counter_options[];
int iolat_session_getopt(struct iolat_session *s, struct iolat_session_opts *o,
			 poptContext pc);
int iolat_session_setup(struct iolat_session *s, struct iolat_session_opts *o);
void iolat_session_opts_free(struct iolat_session_opts *o);
int iolat_session_run(struct iolat_session *s);
void iolat_session_take(void *arg, const void *base, uint32_t n,
			uint32_t stride, uint32_t size);
bool iolat_session_interrupted(void);
bool iolat_session_take_hup(void);
void iolat_session_rerun(struct iolat_session *s);
bool iolat_session_accounted(const struct iolat_session *s);
int iolat_session_counters(struct iolat_session *s,
			   struct iolat_dev_counters *c);
struct iolat_dev_counters *iolat_counters_new(const struct iolat_session *s);
void iolat_counters_free(const struct iolat_session *s,
			 struct iolat_dev_counters *c);
int iolat_run_alloc(struct iolat_run *run, unsigned int nr_devs);
void iolat_run_grow(struct iolat_run *run, unsigned int from,
		    unsigned int to);
void iolat_counters_grow(const struct iolat_session *s,
			 struct iolat_dev_counters **c, unsigned int from);
/* session_opts.c */
int iolat_session_add_dev(struct iolat_session *s, const char *arg);
bool iolat_session_wants(const struct iolat_session *s, const char *name);
/* disk_follow.c */
void iolat_session_follow(struct iolat_session *s, const uint64_t *devts,
			  size_t nr_devts);
void iolat_run_free(struct iolat_run *run);
void iolat_session_free(struct iolat_session *s);
/* --summary FILE: the accounting and each device's counters, as JSON (summary.c) */
int iolat_summary_write(const struct iolat_session *s);
uint64_t iolat_run_dropped(const struct iolat_run *run);
/* how many disks iolat_session_all_disks() looks at */
#define IOLAT_ALL_DISKS_MAX	IOLAT_CLI_MAX_DEVS
/* --include and --exclude: which disks a session takes without -d */
#define IOLAT_DISK_FILTER_POPT \
	{ "include", 0, POPT_ARG_STRING, NULL, 'I', \
	  "without -d: only the disks whose name matches REGEX (POSIX extended)", \
	  "REGEX" }, \
	{ "exclude", 0, POPT_ARG_STRING, NULL, 'E', \
	  "without -d: not the disks whose name matches REGEX", "REGEX" }
void iolat_stack_line(FILE *f, const char *prefix, const struct iolat_stats *st);

#endif /* IOLAT_SESSION_H */
