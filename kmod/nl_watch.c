// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's commands (watch.h): its state (WATCH), freezing
 * it for READ (WATCH_FREEZE) and arming it again (WATCH_ARM), each
 * answered with the state; and WATCH_TRIGGER, from any socket allowed to
 * trace (`iolat watch --dump` in another shell).
 */
#include <net/genetlink.h>
#include "netlink.h"
#include "watch.h"
#include "cpus.h"

/**
 * iolat_nl_watch_parse() - a request's IOLAT_A_WATCH into @tb
 * @info: the request (START, WATCH_TRIGGER, WATCH_ARM)
 * @tb: [IOLAT_WATCH_A_MAX + 1], zeroed if the request has none
 *
 * Return: 0, or a negative errno with the policy's message.
 */
int iolat_nl_watch_parse(struct genl_info *info, struct nlattr **tb)
{
	struct nlattr *a = info->attrs[IOLAT_A_WATCH];

	memset(tb, 0, (IOLAT_WATCH_A_MAX + 1) * sizeof(*tb));
	if (!a)
		return 0;
	return nla_parse_nested(tb, IOLAT_WATCH_A_MAX, a, iolat_nl_watch_policy,
				info->extack) ?:
	       iolat_nl_validate(nla_data(a), nla_len(a), iolat_nl_watch_policy,
				 IOLAT_WATCH_A_MAX, info->extack);
}

static int iolat_nl_put_watch(struct sk_buff *msg, const struct iolat_session *s)
{
	const struct iolat_watch *w = s->watch;
	/* the trigger's fields are there once the state says so (watch.c) */
	u32 state = atomic_read_acquire(&w->state);
	bool trig = state == IOLAT_WATCH_TRIGGERED ||
		    (state == IOLAT_WATCH_FROZEN && w->trigger_ns);
	struct nlattr *nest = nla_nest_start(msg, IOLAT_A_WATCH);

	if (!nest ||
	    nla_put_u32(msg, IOLAT_WATCH_A_STATE,
			state > IOLAT_WATCH_FROZEN ? IOLAT_WATCH_ARMED : state) ||
	    nla_put_u64_64bit(msg, IOLAT_WATCH_A_ARMED_NS, w->armed_ns,
			      IOLAT_WATCH_A_PAD) ||
	    nla_put_u64_64bit(msg, IOLAT_WATCH_A_LOST_NS,
			      iolat_watch_lost_ns(s), IOLAT_WATCH_A_PAD) ||
	    nla_put_u64_64bit(msg, IOLAT_WATCH_A_SUPPRESSED,
			      atomic64_read(&w->suppressed), IOLAT_WATCH_A_PAD))
		return -EMSGSIZE;
	if (trig &&
	    (nla_put_u32(msg, IOLAT_WATCH_A_REASON, w->reason) ||
	     nla_put_u64_64bit(msg, IOLAT_WATCH_A_TRIGGER_NS, w->trigger_ns,
			       IOLAT_WATCH_A_PAD) ||
	     nla_put_u64_64bit(msg, IOLAT_WATCH_A_FLOOR_NS, w->window_ns,
			       IOLAT_WATCH_A_PAD) ||
	     (w->has_rec &&
	      nla_put(msg, IOLAT_WATCH_A_RECORD, sizeof(w->rec), &w->rec))))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* WATCH_ARM's quiet time, if it gives one. */
static int iolat_nl_watch_quiet(struct genl_info *info, u64 *quiet)
{
	struct nlattr *tb[IOLAT_WATCH_A_MAX + 1];
	int err = iolat_nl_watch_parse(info, tb);

	*quiet = !err && tb[IOLAT_WATCH_A_QUIET_NS] ?
		 nla_get_u64(tb[IOLAT_WATCH_A_QUIET_NS]) : 0;
	return err;
}

/**
 * iolat_nl_watch_reply() - WATCH, WATCH_FREEZE or WATCH_ARM
 * @info: the request, of a socket admitted to trace
 * @fam: the family to answer in
 * @cmd: which
 *
 * Return: 0 once answered with the recorder's state, or a negative
 * errno (with a message).
 */
int iolat_nl_watch_reply(struct genl_info *info, const struct genl_family *fam,
			 u8 cmd)
{
	struct iolat_cpu_stats st;
	struct iolat_session *s;
	struct sk_buff *msg;
	u64 quiet = 0;
	void *hdr;
	int err;

	if (cmd == IOLAT_CMD_WATCH_ARM) {
		err = iolat_nl_watch_quiet(info, &quiet);
		if (err)
			return err;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	s = iolat_session_lock(info->snd_portid, info->extack);
	if (IS_ERR(s)) {
		nlmsg_free(msg);
		return PTR_ERR(s);
	}
	/* a stopped one can still be frozen and read */
	if (!s->watch || (!s->running && cmd == IOLAT_CMD_WATCH_ARM)) {
		if (s->watch)
			NL_SET_ERR_MSG(info->extack,
				       "the session has stopped: its flight recorder cannot be armed");
		else
			NL_SET_ERR_MSG(info->extack,
				       "the session keeps no flight recorder");
		iolat_session_unlock();
		nlmsg_free(msg);
		return -EINVAL;
	}
	if (cmd == IOLAT_CMD_WATCH_FREEZE)
		iolat_watch_freeze(s);
	else if (cmd == IOLAT_CMD_WATCH_ARM)
		iolat_watch_arm(s, quiet);
	iolat_session_stats(s, &st);
	hdr = genlmsg_put_reply(msg, info, fam, 0, cmd);
	err = hdr ? iolat_nl_put_watch(msg, s) ?: iolat_nl_put_stats(msg, &st) :
		    -EMSGSIZE;
	iolat_session_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* WATCH_TRIGGER: every running flight recorder, whoever keeps it. */
int iolat_nl_watch_trigger_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[IOLAT_WATCH_A_MAX + 1];
	int err;

	err = iolat_nl_admit(skb, info) ?: iolat_nl_watch_parse(info, tb);
	if (err)
		return err;
	if (!tb[IOLAT_WATCH_A_REASON]) {
		NL_SET_ERR_MSG(info->extack,
			       "WATCH_TRIGGER needs its reason (IOLAT_A_WATCH, IOLAT_WATCH_A_REASON)");
		return -EINVAL;
	}
	if (!iolat_session_watch_trigger(nla_get_u32(tb[IOLAT_WATCH_A_REASON]))) {
		NL_SET_ERR_MSG(info->extack, "no session keeps a flight recorder");
		return -ENOENT;
	}
	return 0;
}
