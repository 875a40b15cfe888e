// SPDX-License-Identifier: GPL-2.0
/*
 * A flight recorder's dump (iolat watch): its trigger and window in
 * words, for watch's own line, report's text and its JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "out/trigger.h"
#include "dev/dev.h"
#include "out/output.h"
#include "../lib/record.h"

static const char *const reasons[] = {
	[IOLAT_WATCH_NONE] = "none",
	[IOLAT_WATCH_SLOWER] = "slower",
	[IOLAT_WATCH_ERROR] = "error",
	[IOLAT_WATCH_USER] = "asked",
	[IOLAT_WATCH_PERCENTILE] = "percentile",
};

/* enum iolat_watch_reason's name in outputs */
const char *iolat_trigger_reason(uint32_t reason)
{
	return reason < sizeof(reasons) / sizeof(reasons[0]) && reasons[reason] ?
	       reasons[reason] : "unknown";
}

/*
 * A completion's errno as the block layer's status that gives it
 * (blk_errors[] of block/blk-core.c), or NULL.
 */
const char *iolat_blk_status_name(int error)
{
	switch (-error) {
	case EOPNOTSUPP: return "BLK_STS_NOTSUPP";
	case ETIMEDOUT: return "BLK_STS_TIMEOUT";
	case ENOSPC: return "BLK_STS_NOSPC";
	case ENOLINK: return "BLK_STS_TRANSPORT";
	case EREMOTEIO: return "BLK_STS_TARGET";
	case EBADE: return "BLK_STS_RESV_CONFLICT";
	case ENODATA: return "BLK_STS_MEDIUM";
	case EILSEQ: return "BLK_STS_PROTECTION";
	case ENOMEM: return "BLK_STS_RESOURCE";
	case EBUSY: return "BLK_STS_DEV_RESOURCE";
	case EAGAIN: return "BLK_STS_AGAIN";
	case ENODEV: return "BLK_STS_OFFLINE";
	case EIO: return "BLK_STS_IOERR";
	}
	return NULL;
}

/* The trigger's latency: its stage's, if the request was seen there. */
static bool trigger_ns(const struct iolat_file_watch *w, uint64_t *ns)
{
	const struct iolat_record *r = &w->rec;
	__u64 v = 0;
	bool known;

	known = iolat_stage_ns(r->q_ns, r->g_ns, r->i_ns, r->d_ns, r->c_ns,
			      w->reason == IOLAT_WATCH_SLOWER ? w->stage :
			      IOLAT_STAGE_Q2C, &v);
	*ns = v;
	return known;
}

static const char *cgroup_of(const struct iolat_record *r, char *buf,
			     size_t len)
{
	return r->cgroup ? iolat_cgroup_label(r->cgroup,
					      iolat_cgroup_path(r->cgroup),
					      true, buf, len) : NULL;
}

/**
 * iolat_trigger_text() - a dump's trigger in one line, no newline
 * @f: where
 * @w: the dump's
 * @dev: the name of the triggering request's device, or NULL
 */
void iolat_trigger_text(FILE *f, const struct iolat_file_watch *w,
			const char *dev)
{
	const struct iolat_record *r = &w->rec;
	const char *st, *cg;
	char buf[96];
	uint64_t ns = 0;

	fprintf(f, "%s", iolat_trigger_reason(w->reason));
	if (w->reason == IOLAT_WATCH_SLOWER)
		fprintf(f, " than %.3f ms (%s)", w->slower_ns / 1e6,
			iolat_stage_name(w->stage));
	if (w->detail[0])
		fprintf(f, ": %s", w->detail);
	if (!w->has_rec)
		return;
	fprintf(f, ": %s %s of %u bytes", dev ? dev : "?", iolat_op_name(r->op),
		r->bytes);
	/* all ones: a request of no sector (a flush, a passthrough command) */
	if (r->sector != ~0ULL)
		fprintf(f, " at sector %llu", (unsigned long long)r->sector);
	if (trigger_ns(w, &ns))
		fprintf(f, ", %s %.3f ms",
			iolat_stage_name(w->reason == IOLAT_WATCH_SLOWER ?
					 w->stage : IOLAT_STAGE_Q2C), ns / 1e6);
	if (r->error) {
		st = iolat_blk_status_name(r->error);
		fprintf(f, ", error %d (%s%s%s)", r->error, strerror(-r->error),
			st ? ", " : "", st ? st : "");
	}
	if ((r->flags & IOLAT_F_NVME) && r->status) {
		iolat_nvme_status(buf, sizeof(buf), r->status);
		fprintf(f, ", NVMe status %s", buf);
	}
	if (r->pid)
		fprintf(f, ", %.*s[%u]", IOLAT_COMM_LEN, r->comm, r->tgid);
	cg = cgroup_of(r, buf, sizeof(buf));
	if (cg)
		fprintf(f, ", cgroup %s", cg);
}

/* The window of a dump: asked, whole from, and what it lost. */
void iolat_trigger_window_text(FILE *f, const struct iolat_file_watch *w)
{
	fprintf(f, "window: %.3f s before the trigger to %.3f s after",
		(w->trigger_ns - w->start_ns) / 1e9,
		(w->end_ns - w->trigger_ns) / 1e9);
	if (w->whole_ns > w->start_ns)
		fprintf(f, "; whole from %.3f s before only (%s)",
			(w->trigger_ns - w->whole_ns) / 1e9,
			w->lost_ns >= w->start_ns ?
			"records overwritten: a larger --ring holds more" :
			"the recorder was armed then");
	fprintf(f, "; not recorded in it: %llu (the window filled a buffer); after it, while it was read: %llu",
		(unsigned long long)w->window_full,
		(unsigned long long)w->frozen);
}

/* The same, as members of @j's open object "trigger". */
void iolat_trigger_json(struct json *j, const struct iolat_file_watch *w,
			const char *dev)
{
	const struct iolat_record *r = &w->rec;
	const char *st, *cg;
	char buf[96];
	uint64_t ns = 0;

	json_obj(j, "trigger");
	json_string(j, "reason", iolat_trigger_reason(w->reason));
	json_u64(j, "dump", w->dump);
	json_u64(j, "trigger_ns", w->trigger_ns);
	if (w->reason == IOLAT_WATCH_SLOWER) {
		json_u64(j, "slower_than_ns", w->slower_ns);
		json_string(j, "stage", iolat_stage_name(w->stage));
	}
	if (w->detail[0])
		json_string(j, "detail", w->detail);
	if (w->has_rec) {
		json_string(j, "device", dev ? dev : "?");
		json_string(j, "op", iolat_op_name(r->op));
		json_u64(j, "sector", r->sector);
		json_u64(j, "bytes", r->bytes);
		if (trigger_ns(w, &ns))
			json_u64(j, "latency_ns", ns);
		json_int(j, "error", r->error);
		st = r->error ? iolat_blk_status_name(r->error) : NULL;
		if (st)
			json_string(j, "status", st);
		if ((r->flags & IOLAT_F_NVME) && r->status) {
			iolat_nvme_status(buf, sizeof(buf), r->status);
			json_string(j, "nvme_status", buf);
		}
		json_u64(j, "pid", r->pid);
		json_u64(j, "tgid", r->tgid);
		snprintf(buf, sizeof(buf), "%.*s", IOLAT_COMM_LEN, r->comm);
		json_string(j, "comm", buf);
		cg = cgroup_of(r, buf, sizeof(buf));
		if (cg)
			json_string(j, "cgroup", cg);
	}
	json_end(j);
	json_obj(j, "window");
	json_u64(j, "start_ns", w->start_ns);
	json_u64(j, "end_ns", w->end_ns);
	json_u64(j, "whole_from_ns", w->whole_ns);
	json_u64(j, "armed_ns", w->armed_ns);
	json_u64(j, "lost_ns", w->lost_ns);
	json_u64(j, "window_full", w->window_full);
	json_u64(j, "frozen", w->frozen);
	json_u64(j, "overwritten", w->overwritten);
	json_u64(j, "suppressed", w->suppressed);
	json_end(j);
}
