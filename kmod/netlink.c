// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "iolat": the CLI's door to sessions and the
 * drain of the per-CPU record buffers.  Attributes are validated by
 * strict policies (nl_policy.c); every error carries an extended-ack
 * message.  Here: the family, its operations, the commands answered at
 * once (GET_INFO, STOP, CLOCKTEST) and the sockets' release; START's
 * parsing is nl_start.c's, the dumps (READ, COUNTERS, HIST) nl_dump.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/notifier.h>
#include <linux/cpumask.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include "acct.h"
#include "clocktest.h"
#include "netlink.h"

static struct genl_family iolat_family;

static int iolat_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info)
{
	unsigned int i, nr_sessions;
	u64 all, mine;
	struct sk_buff *msg;
	const char *tp;
	void *hdr;
	int err;

	err = iolat_nl_validate_info(info);
	if (err)
		return err;
	all = iolat_session_mem(info->snd_portid, &mine, &nr_sessions);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &iolat_family, 0, IOLAT_CMD_GET_INFO);
	if (!hdr ||
	    nla_put_u32(msg, IOLAT_A_ABI_VERSION, IOLAT_ABI_VERSION) ||
	    nla_put_string(msg, IOLAT_A_MODULE_VERSION, IOLAT_VERSION) ||
	    nla_put_u32(msg, IOLAT_A_RECORD_SIZE, sizeof(struct iolat_record)) ||
	    nla_put_u32(msg, IOLAT_A_NR_CPUS, num_online_cpus()) ||
	    nla_put_u64_64bit(msg, IOLAT_A_CLOCK_INVERSIONS,
			      iolat_clock_inversions(), IOLAT_A_PAD) ||
	    nla_put_u32(msg, IOLAT_A_NVME_AVAILABLE,
			iolat_attach_nvme_available()) ||
	    nla_put_u64_64bit(msg, IOLAT_A_MEM_BYTES, all, IOLAT_A_PAD) ||
	    (mine && nla_put_u64_64bit(msg, IOLAT_A_SESSION_MEM_BYTES, mine,
				       IOLAT_A_PAD)) ||
	    nla_put_u32(msg, IOLAT_A_NR_SESSIONS, nr_sessions)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	for (i = 0; (tp = iolat_attach_missing(i)); i++) {
		if (nla_put_string(msg, IOLAT_A_MISSING_TP, tp)) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* Each counter's attribute, by its place: the list's order (lib/stats.h). */
static int iolat_nl_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct iolat_cpu_stats st;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = iolat_nl_admit(skb, info);
	if (err)
		return err;
	err = iolat_session_stop(info->snd_portid, &st, info->extack);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &iolat_family, 0, IOLAT_CMD_STOP);
	if (!hdr || iolat_nl_put_stats(msg, &st)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int iolat_nl_clocktest_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 loops = IOLAT_CLOCK_LOOPS_DEFAULT;
	int err;

	err = iolat_nl_admit(skb, info);
	if (err)
		return err;
	if (info->attrs[IOLAT_A_CLOCK_LOOPS])
		loops = nla_get_u32(info->attrs[IOLAT_A_CLOCK_LOOPS]);
	return iolat_clocktest_reply(info, &iolat_family, loops);
}

/* The dumps (nl_dump.c), each message of them put in this family. */
static int iolat_nl_read_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return iolat_nl_read_dump(skb, cb, &iolat_family);
}

static int iolat_nl_counters_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	return iolat_nl_counters_dump(skb, cb, &iolat_family);
}

static int iolat_nl_hist_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return iolat_nl_hist_dump(skb, cb, &iolat_family);
}

static int iolat_nl_cgroups_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return iolat_nl_cgroups_dump(skb, cb, &iolat_family);
}

/* The flight recorder's commands but WATCH_TRIGGER (nl_watch.c). */
static int iolat_nl_watch_doit(struct sk_buff *skb, struct genl_info *info)
{
	int err = iolat_nl_admit(skb, info);

	return err ?: iolat_nl_watch_reply(info, &iolat_family,
					   info->genlhdr->cmd);
}

static const struct genl_ops iolat_ops[] = {
	{
		.cmd = IOLAT_CMD_GET_INFO,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_get_info_doit,
	},
	{
		.cmd = IOLAT_CMD_START,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_start_doit,
	},
	{
		.cmd = IOLAT_CMD_STOP,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_stop_doit,
	},
	{
		.cmd = IOLAT_CMD_READ,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.dumpit = iolat_nl_read_dumpit,
	},
	{
		.cmd = IOLAT_CMD_COUNTERS,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.dumpit = iolat_nl_counters_dumpit,
	},
	{
		.cmd = IOLAT_CMD_CLOCKTEST,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_clocktest_doit,
	},
	{
		.cmd = IOLAT_CMD_HIST,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.dumpit = iolat_nl_hist_dumpit,
		.done = iolat_nl_hist_done,
	},
	{
		.cmd = IOLAT_CMD_DEV_ADD,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_dev_add_doit,
	},
	{
		.cmd = IOLAT_CMD_CGROUPS,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.dumpit = iolat_nl_cgroups_dumpit,
	},
	{
		.cmd = IOLAT_CMD_CGROUPS_FREE,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_cgroups_free_doit,
	},
	{
		.cmd = IOLAT_CMD_WATCH,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_watch_doit,
	},
	{
		.cmd = IOLAT_CMD_WATCH_TRIGGER,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_watch_trigger_doit,
	},
	{
		.cmd = IOLAT_CMD_WATCH_FREEZE,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_watch_doit,
	},
	{
		.cmd = IOLAT_CMD_WATCH_ARM,
		IOLAT_GENL_OP_POLICY(iolat_nl_policy)
		.doit = iolat_nl_watch_doit,
	},
};

static struct genl_family iolat_family __ro_after_init = {
	.name = IOLAT_GENL_NAME,
	.version = IOLAT_GENL_VERSION,
	.maxattr = IOLAT_A_MAX,
	IOLAT_GENL_FAMILY_POLICY(iolat_nl_policy)
	.module = THIS_MODULE,
	.ops = iolat_ops,
	.n_ops = ARRAY_SIZE(iolat_ops),
};

/* A socket of the init namespace closed: its session, if any, goes too. */
static int iolat_nl_notify(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net) && n->portid)
		iolat_session_release(n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block iolat_nl_notifier = {
	.notifier_call = iolat_nl_notify,
};

int iolat_netlink_init(void)
{
	int err;

	err = netlink_register_notifier(&iolat_nl_notifier);
	if (err)
		return err;
	err = genl_register_family(&iolat_family);
	if (err)
		netlink_unregister_notifier(&iolat_nl_notifier);
	return err;
}

void iolat_netlink_exit(void)
{
	genl_unregister_family(&iolat_family);
	netlink_unregister_notifier(&iolat_nl_notifier);
}
