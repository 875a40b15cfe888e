// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder over the netlink socket (IOLAT_A_WATCH): START's
 * settings, its state (WATCH), freezing it for READ (WATCH_FREEZE),
 * arming it again (WATCH_ARM), and triggering every one (WATCH_TRIGGER).
 */
#include <errno.h>
#include <string.h>
#include "nl/nl.h"
#include "nl/nlsock.h"

/* The next START of @nl keeps a flight recorder of @w (NULL: none). */
void iolat_nl_set_watch(struct iolat_nl *nl, const struct iolat_watch_req *w)
{
	nl->watch = w;
}

static int watch_reply(struct iolat_req *req, struct nlattr **tb)
{
	struct iolat_watch_status *st = req->arg;
	struct nlattr *w[IOLAT_WATCH_A_MAX + 1];
	struct nlattr *rec;

	if (!tb[IOLAT_A_WATCH] ||
	    nla_parse_nested(w, IOLAT_WATCH_A_MAX, tb[IOLAT_A_WATCH], NULL) < 0)
		return -EPROTO;
	memset(st, 0, sizeof(*st));
	st->state = get_u32(w, IOLAT_WATCH_A_STATE);
	st->reason = get_u32(w, IOLAT_WATCH_A_REASON);
	st->trigger_ns = get_u64(w, IOLAT_WATCH_A_TRIGGER_NS);
	st->floor_ns = get_u64(w, IOLAT_WATCH_A_FLOOR_NS);
	st->armed_ns = get_u64(w, IOLAT_WATCH_A_ARMED_NS);
	st->lost_ns = get_u64(w, IOLAT_WATCH_A_LOST_NS);
	st->suppressed = get_u64(w, IOLAT_WATCH_A_SUPPRESSED);
	nl_get_stats(tb, &st->stats);
	rec = w[IOLAT_WATCH_A_RECORD];
	/* a module's record as far as both know it */
	if (rec) {
		st->has_rec = true;
		memcpy(&st->rec, nla_data(rec),
		       (size_t)nla_len(rec) < sizeof(st->rec) ?
		       (size_t)nla_len(rec) : sizeof(st->rec));
	}
	return 0;
}

/**
 * iolat_nl_watch() - a command of this socket's flight recorder
 * @nl: the session's socket
 * @cmd: IOLAT_CMD_WATCH (its state), _FREEZE or _ARM
 * @quiet_ns: _ARM: no trigger before this CLOCK_MONOTONIC time (0: none)
 * @st: set to its state after the command
 *
 * Return: 0 or a negative errno (iolat_nl_errmsg() says more).
 */
int iolat_nl_watch(struct iolat_nl *nl, uint8_t cmd, uint64_t quiet_ns,
		   struct iolat_watch_status *st)
{
	struct nl_msg *msg = nl_request(nl, cmd, 0);
	struct nlattr *nest;

	if (!msg)
		return -ENOMEM;
	if (quiet_ns) {
		nest = nla_nest_start(msg, IOLAT_A_WATCH);
		if (!nest || nla_put_u64(msg, IOLAT_WATCH_A_QUIET_NS, quiet_ns)) {
			nlmsg_free(msg);
			return -ENOMEM;
		}
		nla_nest_end(msg, nest);
	}
	return nl_transact(nl, msg, watch_reply, st);
}

/**
 * iolat_nl_watch_trigger() - trigger every running flight recorder
 * @nl: any socket allowed to trace
 * @reason: IOLAT_WATCH_USER or IOLAT_WATCH_PERCENTILE
 *
 * Return: 0, -ENOENT if no session keeps one, or another negative errno.
 */
int iolat_nl_watch_trigger(struct iolat_nl *nl, uint32_t reason)
{
	struct nl_msg *msg = nl_request(nl, IOLAT_CMD_WATCH_TRIGGER, 0);
	struct nlattr *nest;

	if (!msg)
		return -ENOMEM;
	nest = nla_nest_start(msg, IOLAT_A_WATCH);
	if (!nest || nla_put_u32(msg, IOLAT_WATCH_A_REASON, reason)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nla_nest_end(msg, nest);
	return nl_transact(nl, msg, NULL, NULL);
}
