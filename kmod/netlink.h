/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the "iolat" generic netlink family share, from the
 * bottom up: its policies and access check (nl_policy.c), START's
 * parsing (nl_start.c), the dumps (nl_dump.c) and the cgroup slots'
 * (nl_cgroups.c), which netlink.c's
 * family and operations call.  Its handlers are named as the kernel's
 * generated families name theirs: iolat_nl_<command>_doit and _dumpit;
 * the dumps take the family to put their messages in, so that no file
 * below netlink.c refers to it.
 */
#ifndef _IOLAT_NETLINK_H
#define _IOLAT_NETLINK_H

#include <net/genetlink.h>
#include "iolat.h"

extern const struct nla_policy iolat_nl_policy[IOLAT_A_MAX + 1];
extern const struct nla_policy iolat_nl_dev_policy[IOLAT_DEV_A_MAX + 1];
extern const struct nla_policy iolat_nl_cgroup_policy[IOLAT_CGROUP_A_MAX + 1];
extern const struct nla_policy iolat_nl_watch_policy[IOLAT_WATCH_A_MAX + 1];

bool iolat_nl_capable(const struct sk_buff *skb,
		      struct netlink_ext_ack *extack);
int iolat_nl_validate(const struct nlattr *head, int len,
		      const struct nla_policy *policy, int maxtype,
		      struct netlink_ext_ack *extack);
int iolat_nl_validate_info(const struct genl_info *info);
int iolat_nl_admit(const struct sk_buff *skb, const struct genl_info *info);

int iolat_nl_start_doit(struct sk_buff *skb, struct genl_info *info);
int iolat_nl_dev_add_doit(struct sk_buff *skb, struct genl_info *info);
/* The dumps, each message put in @fam: netlink.c's dumpits call them. */
int iolat_nl_read_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct genl_family *fam);
int iolat_nl_counters_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct genl_family *fam);
int iolat_nl_hist_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct genl_family *fam);
int iolat_nl_hist_done(struct netlink_callback *cb);
int iolat_nl_cgroups_dump(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct genl_family *fam);
int iolat_nl_cgroups_free_doit(struct sk_buff *skb, struct genl_info *info);
struct iolat_session *iolat_nl_dump_session(struct netlink_callback *cb);
struct iolat_cpu_stats;
int iolat_nl_put_stats(struct sk_buff *msg, const struct iolat_cpu_stats *st);
/* nl_watch.c: WATCH, WATCH_FREEZE and WATCH_ARM (@cmd), WATCH_TRIGGER */
int iolat_nl_watch_parse(struct genl_info *info, struct nlattr **tb);
int iolat_nl_watch_reply(struct genl_info *info, const struct genl_family *fam,
			 u8 cmd);
int iolat_nl_watch_trigger_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _IOLAT_NETLINK_H */
