/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat CLI internals.  The data path, one file per step:
 *
 *   nlsock.c      netlink socket: family lookup, requests, errors
 *   device.c      block device names -> dev_t and blk-mq geometry
 *   decode.c      IOLAT_CMD_READ messages -> struct iolat_record
 *   cmd_record.c  a session: start, drain, stop; histograms per device/op
 *   output.c      text and json output hooks
 *   main.c        command table and dispatch
 */
#ifndef IOLAT_CLI_H
#define IOLAT_CLI_H

#include <stdbool.h>
#include <stdint.h>
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
struct iolat_info {
	uint32_t abi_version;
	uint32_t record_size;
	uint32_t nr_cpus;
	char module_version[64];
};
struct iolat_stats {
	uint64_t written;
	uint64_t drop_full;
	uint64_t drop_unmatched;
	uint64_t drop_range;
	uint64_t partial;
};
struct iolat_dev_req;
typedef void (*iolat_records_fn)(void *arg, const void *buf, uint32_t len);

struct iolat_nl *iolat_nl_open(void);
void iolat_nl_close(struct iolat_nl *nl);
int iolat_nl_info(struct iolat_nl *nl, struct iolat_info *info);
int iolat_nl_start(struct iolat_nl *nl, const struct iolat_dev_req *devs,
		   unsigned int nr_devs, uint32_t ring_records);
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

/* output.c */
struct iolat_op_result {
	const char *op;
	const struct iolat_hist *hist;
};
struct iolat_run {
	double seconds;
	uint64_t delivered;
	struct iolat_stats stats;
	uint64_t decode_errors;
	bool incomplete;
};
struct iolat_output {
	const char *name;
	void (*begin)(const struct iolat_run *run);
	void (*device)(const char *dev, const struct iolat_op_result *ops,
		       unsigned int nr_ops, bool first);
	void (*end)(const struct iolat_run *run);
};
const struct iolat_output *iolat_output_find(const char *name);

/* commands */
int cmd_record(int argc, const char **argv);
int cmd_info(int argc, const char **argv);

#endif /* IOLAT_CLI_H */
