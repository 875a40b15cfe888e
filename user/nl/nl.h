/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module, over its generic netlink family: the socket, requests and
 * errors (nlsock.c), its readings: counters, histograms, the clock test
 * (nl_readings.c), records out of READ's messages (decode.c), and the
 * session counters' names and writers (session_stats.c).
 */
#ifndef IOLAT_NL_H
#define IOLAT_NL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <linux/iolat.h>
#include "../../lib/hist.h"
#include "../../lib/record.h"
#include "../../lib/stats.h"
#include "dev/dev.h"

/*
 * The ABI this CLI speaks: the uapi header's.  The guest tests build the
 * CLI once more as if of the next ABI, to see a mismatch refused.
 */
#ifndef IOLAT_CLI_ABI
#define IOLAT_CLI_ABI IOLAT_ABI_VERSION
#endif

/* nlsock.c */
struct iolat_nl;
#define IOLAT_MAX_MISSING 16
struct iolat_info {
	uint32_t abi_version;
	uint32_t record_size;
	uint32_t nr_cpus;
	uint64_t clock_inversions;	/* the module's clock, at its load */
	uint32_t nvme_available;	/* nvme-core's tracepoints are there */
	char module_version[64];
	unsigned int nr_missing;	/* tracepoints the kernel lacks */
	char missing[IOLAT_MAX_MISSING][48];
	uint64_t mem_bytes;		/* every session's memory */
	uint64_t session_mem_bytes;	/* the asking socket's session's */
	uint32_t nr_sessions;
};
/* The module's session counters (linux/iolat_stats.h), by name or place. */
struct iolat_stats {
	union {
		struct {
#define IOLAT_STAT(field, ...) uint64_t field;
#include <linux/iolat_stats.h>
		};
		uint64_t n[IOLAT_STAT_NR];
	};
};

/* How the outputs group the counters: their list's class column. */
enum iolat_stat_class {
	IOLAT_SC_record,	/* what became of a traced completion */
	IOLAT_SC_drop,		/* why one has no record */
	IOLAT_SC_event,
	IOLAT_SC_nvme,
	IOLAT_SC_stack,
	IOLAT_SC_watch,		/* a flight recorder's records (iolat watch) */
};

/* A counter's name (in C and JSON), text, attribute and class. */
struct iolat_stat_info {
	const char *name;
	const char *text;
	int attr;
	enum iolat_stat_class class;
};
extern const struct iolat_stat_info iolat_stat_info[IOLAT_STAT_NR];

uint64_t iolat_stats_sum(const struct iolat_stats *st, enum iolat_stat_class c);
void iolat_stats_text(FILE *f, const struct iolat_stats *st,
		      enum iolat_stat_class c);
struct json;
void iolat_stats_json(struct json *j, const struct iolat_stats *st,
		      enum iolat_stat_class c);
/* Did the session trace a stack (its counters say so)? */
static inline bool iolat_stats_stack(const struct iolat_stats *st)
{
	return iolat_stats_sum(st, IOLAT_SC_stack) != 0;
}

/* Which requests a session keeps (IOLAT_A_FILTER_*); 0 keeps all. */
struct iolat_filter {
	uint32_t ops;
	uint32_t pid;
	uint32_t tgid;
	char comm[IOLAT_COMM_LEN];
	uint64_t min_ns;
	unsigned int nr_cgroups;	/* --cgroup: ids, iolat_cgroup_resolve() */
	uint64_t cgroups[IOLAT_FILTER_CGROUPS];
};
/* One clock of the clock test (enum iolat_clock_attr). */
#define IOLAT_MAX_CLOCK_PAIRS 64
struct iolat_clock_result {
	char name[32];
	char units[8];
	bool in_use;
	uint64_t read_ps;
	uint64_t samples;
	uint64_t inversions;
	uint64_t max_back;
	unsigned int nr_pairs;
	struct {
		uint32_t from;
		uint32_t to;
		uint64_t count;
	} pairs[IOLAT_MAX_CLOCK_PAIRS];
};
/*
 * An aggregating session's histograms of one device (IOLAT_CMD_HIST):
 * [op][0] Q2C, [op][1] D2C.
 */
#define IOLAT_AGG_STAGES 2
struct iolat_agg {
	struct iolat_hist h[IOLAT_OP_NR][IOLAT_AGG_STAGES];
};
static inline unsigned int iolat_agg_stage(unsigned int i)
{
	return i ? IOLAT_AGG_STAGE_D2C : IOLAT_AGG_STAGE_Q2C;
}
static inline struct iolat_hist *iolat_agg_hist(struct iolat_agg *a,
						unsigned int op,
						unsigned int stage)
{
	if (stage == IOLAT_AGG_STAGE_Q2C)
		return &a->h[op][0];
	/* a bio-based device's time above its stack (IOLAT_AGG_STAGE_ABOVE) */
	if (stage == IOLAT_AGG_STAGE_D2C || stage == IOLAT_AGG_STAGE_ABOVE)
		return &a->h[op][1];
	return NULL;
}
struct iolat_dev_req;
/* @rec_size: as the message says, or 0 for the module's (GET_INFO) */
typedef void (*iolat_records_fn)(void *arg, const void *buf, uint32_t len,
				 uint32_t rec_size);
/* A session event: enum iolat_event_kind, about a kernel module. */
typedef void (*iolat_event_fn)(void *arg, uint64_t ns, uint32_t kind,
			       const char *module);

struct iolat_nl *iolat_nl_open(void);
void iolat_nl_close(struct iolat_nl *nl);
bool iolat_nl_family_present(void);
int iolat_nl_info(struct iolat_nl *nl, struct iolat_info *info);
/* START's modes */
#define IOLAT_START_COUNTERS_ONLY	1U	/* IOLAT_A_COUNTERS_ONLY */
#define IOLAT_START_NVME		2U	/* IOLAT_A_NVME */
#define IOLAT_START_AGGREGATE		4U	/* IOLAT_A_AGGREGATE */
#define IOLAT_START_CGROUPS		8U	/* IOLAT_A_CGROUPS */
/* IOLAT_A_CGROUP_SLOTS: @n slots, 1 to IOLAT_CGROUP_SLOTS_MAX */
#define IOLAT_START_CG_SLOTS(n)		((uint32_t)(n) << 8)
int iolat_nl_start(struct iolat_nl *nl, const struct iolat_dev_req *devs,
		   unsigned int nr_devs, uint32_t ring_records,
		   const struct iolat_filter *filter, uint32_t mode);
int iolat_nl_dev_add(struct iolat_nl *nl, const struct iolat_dev_req *dev);
/* A flight recorder (IOLAT_A_WATCH): START's settings, nl_watch.c */
struct iolat_watch_req {
	uint64_t slower_ns;	/* 0: no bound */
	uint64_t before_ns;
	uint32_t stage;		/* enum iolat_stage */
	bool on_error;
};
/* ... and its state (WATCH, WATCH_FREEZE, WATCH_ARM's replies) */
struct iolat_watch_status {
	uint32_t state;		/* enum iolat_watch_state */
	uint32_t reason;	/* enum iolat_watch_reason, when triggered */
	uint64_t trigger_ns, floor_ns, armed_ns, lost_ns, suppressed;
	bool has_rec;
	struct iolat_record rec;	/* the request that triggered it */
	struct iolat_stats stats;	/* the session's counters */
};
void iolat_nl_set_watch(struct iolat_nl *nl, const struct iolat_watch_req *w);
int iolat_nl_watch(struct iolat_nl *nl, uint8_t cmd, uint64_t quiet_ns,
		   struct iolat_watch_status *st);
int iolat_nl_watch_trigger(struct iolat_nl *nl, uint32_t reason);
int iolat_nl_counters(struct iolat_nl *nl, struct iolat_dev_counters *c,
		      unsigned int nr);
int iolat_nl_clocktest(struct iolat_nl *nl, uint32_t loops,
		       struct iolat_clock_result *res, unsigned int max,
		       unsigned int *nr);
int iolat_nl_stop(struct iolat_nl *nl, struct iolat_stats *stats);
struct iolat_agg;
int iolat_nl_hist(struct iolat_nl *nl, const struct iolat_dev_counters *c,
		  struct iolat_agg *agg, unsigned int nr);
/*
 * A device's cgroup slot (IOLAT_CMD_CGROUPS): @id 0 for the others; its
 * counts per enum iolat_op, from the session's start
 */
struct iolat_cg_counts {
	uint32_t major, minor;
	uint64_t id;
	uint64_t ios[IOLAT_OP_NR];
	uint64_t bytes[IOLAT_OP_NR];
	uint64_t wait_ns[IOLAT_OP_NR];
};
typedef void (*iolat_cg_fn)(void *arg, const struct iolat_cg_counts *c);
int iolat_nl_cgroups(struct iolat_nl *nl, iolat_cg_fn fn, void *arg);
int iolat_nl_cgroups_free(struct iolat_nl *nl, const struct iolat_cg_counts *c,
			  unsigned int nr);
/* where a cgroup slot's histogram goes, or NULL to leave it */
typedef struct iolat_hist *(*iolat_cg_hist_fn)(void *arg, uint32_t major,
					       uint32_t minor, uint64_t id);
int iolat_nl_hist_cg(struct iolat_nl *nl, const struct iolat_dev_counters *c,
		     struct iolat_agg *agg, unsigned int nr,
		     iolat_cg_hist_fn cg, void *cg_arg);
int iolat_nl_read(struct iolat_nl *nl, iolat_records_fn fn,
		  iolat_event_fn event, void *arg);
const char *iolat_nl_errmsg(const struct iolat_nl *nl);
struct iolat_nl *iolat_nl_connect(struct iolat_info *info);

/* decode.c */
struct iolat_decoder {
	uint32_t rec_size;	/* the module's, unless a message says */
	uint64_t decoded;
	uint64_t bad;		/* payloads whose length is not whole records */
	void (*record)(void *arg, const struct iolat_record *rec);
	/*
	 * or, where set, @n records in place from @base, @stride bytes
	 * apart, each @size bytes (the module's record size): the mapped
	 * rings' (ring_reader.c), without a copy; a record's fields past
	 * @size are not its own
	 */
	void (*records)(void *arg, const void *base, uint32_t n,
			uint32_t stride, uint32_t size);
	void (*event)(void *arg, uint64_t ns, uint32_t kind,
		      const char *module);
	void *arg;
};
void iolat_decode(void *dec, const void *buf, uint32_t len,
		  uint32_t rec_size);

/*
 * A record of @size bytes at @p into *@rec, whose fields past them the
 * caller keeps zero; a block session's size, the usual one, as a
 * constant: a few moves inline, not libc's call.
 */
static inline void iolat_record_copy(struct iolat_record *rec, const void *p,
				     size_t size)
{
	if (size == IOLAT_RECORD_BLOCK_SIZE)
		memcpy(rec, p, IOLAT_RECORD_BLOCK_SIZE);
	else
		memcpy(rec, p, size);
}
void iolat_decode_event(void *dec, uint64_t ns, uint32_t kind,
			const char *module);

/*
 * ring_reader.c: a streaming session's per-CPU rings mapped (/dev/iolat),
 * their records taken in place; READ then carries only the events.
 */
struct iolat_rings;
int iolat_rings_map(struct iolat_nl *nl, struct iolat_rings **out);
int iolat_rings_more(struct iolat_rings *rs);
uint64_t iolat_rings_drain(struct iolat_rings *rs, struct iolat_decoder *dec);
void iolat_rings_unmap(struct iolat_rings *rs);

#endif /* IOLAT_NL_H */
