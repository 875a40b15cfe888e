/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat CLI internals.  The data path, one file per step:
 *
 *   nlsock.c      netlink socket: family lookup, requests, errors
 *   device.c      block device names -> dev_t and blk-mq geometry
 *   decode.c      IOLAT_CMD_READ messages -> struct iolat_record
 *   session.c     a session: options, start, drain, stop, accounting
 *   cmd_trace.c   one line per request
 *   cmd_record.c  histograms per device, op and stage; per process
 *   output.c      text and json output hooks of record
 *   main.c        command table and dispatch
 */
#ifndef IOLAT_CLI_H
#define IOLAT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <popt.h>
#include <linux/iolat.h>
#include "../lib/hist.h"
#include "../lib/record.h"

#define IOLAT_CLI_NAME "iolat"

/* Exit statuses. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* runtime failure, incomplete results */
#define EXIT_USAGE	2	/* bad option or argument */

void iolat_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void iolat_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* nlsock.c */
struct iolat_nl;
#define IOLAT_MAX_MISSING 16
struct iolat_info {
	uint32_t abi_version;
	uint32_t record_size;
	uint32_t nr_cpus;
	char module_version[64];
	unsigned int nr_missing;	/* tracepoints the kernel lacks */
	char missing[IOLAT_MAX_MISSING][48];
};
/* The module's session counters (enum iolat_stat_attr). */
struct iolat_stats {
	uint64_t written;
	uint64_t drop_full;
	uint64_t drop_unmatched;
	uint64_t drop_range;
	uint64_t partial;
	uint64_t filtered;
	uint64_t errors;
	uint64_t requeues;
	uint64_t bio_merges;
	uint64_t rq_merges;
	uint64_t splits;
	uint64_t plugs;
	uint64_t unplugs;
};
/* Which requests a session keeps (IOLAT_A_FILTER_*); 0 keeps all. */
struct iolat_filter {
	uint32_t ops;
	uint32_t pid;
	uint32_t tgid;
	char comm[IOLAT_COMM_LEN];
	uint64_t min_ns;
};
struct iolat_dev_req;
typedef void (*iolat_records_fn)(void *arg, const void *buf, uint32_t len);

struct iolat_nl *iolat_nl_open(void);
void iolat_nl_close(struct iolat_nl *nl);
int iolat_nl_info(struct iolat_nl *nl, struct iolat_info *info);
int iolat_nl_start(struct iolat_nl *nl, const struct iolat_dev_req *devs,
		   unsigned int nr_devs, uint32_t ring_records,
		   const struct iolat_filter *filter);
int iolat_nl_stop(struct iolat_nl *nl, struct iolat_stats *stats);
int iolat_nl_read(struct iolat_nl *nl, iolat_records_fn fn, void *arg);
const char *iolat_nl_errmsg(const struct iolat_nl *nl);
struct iolat_nl *iolat_nl_connect(struct iolat_info *info);

/* device.c */
struct iolat_dev_req {
	char name[32];
	uint32_t major;
	uint32_t minor;
	uint32_t nr_hwq;
	uint32_t depth;
};
int iolat_dev_resolve(const char *sysfs, const char *arg,
		      struct iolat_dev_req *dev);
const char *iolat_dev_basename(const char *arg);

/* decode.c */
struct iolat_decoder {
	uint32_t rec_size;
	uint64_t decoded;
	uint64_t bad;		/* payloads whose length is not whole records */
	void (*record)(void *arg, const struct iolat_record *rec);
	void *arg;
};
void iolat_decode(void *dec, const void *buf, uint32_t len);

/* session.c */
struct iolat_session_opts {
	char *devargs[IOLAT_MAX_DEVS];
	unsigned int nr_devargs;
	double duration;
	int ring;
	char *ops, *comm, *min_lat;
	int pid, tgid;
};
struct iolat_run {
	double seconds;
	uint64_t delivered;
	struct iolat_stats stats;
	uint64_t decode_errors;
	uint64_t foreign;	/* records of a device not asked for */
	bool incomplete;
	bool nomem;
	unsigned int nr_missing;
	char missing[IOLAT_MAX_MISSING][48];
};
struct iolat_session {
	unsigned int nr_devs;
	struct iolat_dev_req devs[IOLAT_MAX_DEVS];
	struct iolat_filter filter;
	double duration;
	uint32_t ring;
	const char **cmd;
	/* called for every record, and about every tick_s seconds */
	void (*record)(void *arg, unsigned int dev, const struct iolat_record *r);
	void (*tick)(void *arg, double elapsed);
	double tick_s;
	void *arg;
	struct iolat_run run;
	int cmd_status;
};
extern struct poptOption iolat_session_options[];
int iolat_session_getopt(struct iolat_session *s, struct iolat_session_opts *o,
			 poptContext pc);
int iolat_session_setup(struct iolat_session *s, struct iolat_session_opts *o);
void iolat_session_opts_free(struct iolat_session_opts *o);
int iolat_session_run(struct iolat_session *s);
bool iolat_session_accounted(const struct iolat_session *s);
uint64_t iolat_run_dropped(const struct iolat_run *run);
int iolat_parse_ops(const char *arg, uint32_t *mask);
int iolat_parse_duration_ns(const char *arg, uint64_t *ns);
void iolat_fmt_ns(char *buf, size_t len, double ns);

/* output.c */
struct iolat_op_result {
	const char *op;
	const struct iolat_hist *hist[IOLAT_STAGE_NR];
};
struct iolat_proc_result {
	uint32_t pid;
	uint32_t tgid;
	const char *comm;
	const char *dev;
	uint64_t ios;
	uint64_t bytes;
	const struct iolat_hist *q2c;	/* or the latency as far as seen */
};
struct iolat_output {
	const char *name;
	void (*begin)(const struct iolat_run *run);
	void (*interval)(double t, const char *dev, const struct iolat_op_result *op,
			 bool first);
	void (*device)(const char *dev, const struct iolat_op_result *ops,
		       unsigned int nr_ops, bool first);
	void (*procs)(const struct iolat_proc_result *p, unsigned int nr);
	void (*end)(const struct iolat_run *run);
};
const struct iolat_output *iolat_output_find(const char *name);

/* commands */
int cmd_record(int argc, const char **argv);
int cmd_trace(int argc, const char **argv);
int cmd_info(int argc, const char **argv);

#endif /* IOLAT_CLI_H */
