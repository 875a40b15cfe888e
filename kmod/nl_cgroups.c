// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup slots of a session (IOLAT_A_CGROUP_SLOTS, cgstat.h): their
 * counts (the CGROUPS dump) and the freeing of slots (CGROUPS_FREE).
 */
#include <linux/tracepoint.h>
#include <net/genetlink.h>
#include "netlink.h"
#include "cgstat.h"
#include "compat.h"

/* One message of slot @slot of device @d's cgroup counts, if it has any. */
static int iolat_nl_cgroup_msg(struct sk_buff *skb, struct netlink_callback *cb,
			       const struct genl_family *fam,
			       const struct iolat_dev *d, unsigned int slot)
{
	struct iolat_cg_count c;
	struct nlattr *nest;
	unsigned int op;
	u64 n = 0;
	void *hdr;

	iolat_cgstat_read(d, slot, &c);
	for (op = 0; op < IOLAT_OP_NR; op++)
		n += c.ios[op];
	if (!n)
		return 0;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  fam, NLM_F_MULTI, IOLAT_CMD_CGROUPS);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, IOLAT_A_CGROUP);
	if (!nest ||
	    nla_put_u32(skb, IOLAT_CGROUP_A_MAJOR, MAJOR(d->id)) ||
	    nla_put_u32(skb, IOLAT_CGROUP_A_MINOR, MINOR(d->id)) ||
	    nla_put_u64_64bit(skb, IOLAT_CGROUP_A_ID, iolat_cgstat_id(d->cg, slot),
			      IOLAT_CGROUP_A_PAD) ||
	    nla_put(skb, IOLAT_CGROUP_A_IOS, sizeof(c.ios), c.ios) ||
	    nla_put(skb, IOLAT_CGROUP_A_BYTES, sizeof(c.bytes), c.bytes) ||
	    nla_put(skb, IOLAT_CGROUP_A_WAIT_NS, sizeof(c.wait_ns), c.wait_ns)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * CGROUPS dump state: args[0] the device, args[1] its next slot (the
 * others' last).
 */
int iolat_nl_cgroups_dump(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct genl_family *fam)
{
	struct iolat_session *s;
	struct iolat_dev *d;
	int err = 0;

	s = iolat_nl_dump_session(cb);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (!s->cg_slots) {
		iolat_session_unlock();
		NL_SET_ERR_MSG(iolat_cb_extack(cb),
			       "the session keeps no cgroup slots");
		return -EINVAL;
	}
	for (; cb->args[0] < s->nr_devs; cb->args[0]++, cb->args[1] = 0) {
		d = s->devs[cb->args[0]];
		for (; cb->args[1] <= d->cg->nr; cb->args[1]++) {
			err = iolat_nl_cgroup_msg(skb, cb, fam, d, cb->args[1]);
			if (err)
				goto out;
		}
	}
out:
	iolat_session_unlock();
	if (err == -EMSGSIZE && skb->len)
		return skb->len;	/* more in the next message */
	return err ?: skb->len;
}

/* @s's device @major:@minor, or NULL. */
static struct iolat_dev *iolat_nl_cgroup_dev(struct iolat_session *s,
					     u32 major, u32 minor)
{
	unsigned int i;

	for (i = 0; i < s->nr_devs; i++)
		if (s->devs[i]->id == MKDEV(major, minor))
			return s->devs[i];
	return NULL;
}

/*
 * Retire the slot nest @nla names, counted in *@retired; an id in no slot
 * is left (freed).
 */
static int iolat_nl_cgroup_retire(struct iolat_session *s,
				  const struct nlattr *nla, unsigned int *retired,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IOLAT_CGROUP_A_MAX + 1];
	struct iolat_dev *d;
	int err;

	err = nla_parse_nested(tb, IOLAT_CGROUP_A_MAX, nla,
			       iolat_nl_cgroup_policy, extack) ?:
	      iolat_nl_validate(nla_data(nla), nla_len(nla),
				iolat_nl_cgroup_policy, IOLAT_CGROUP_A_MAX,
				extack);
	if (err)
		return err;
	if (!tb[IOLAT_CGROUP_A_MAJOR] || !tb[IOLAT_CGROUP_A_MINOR] ||
	    !tb[IOLAT_CGROUP_A_ID]) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a slot to free needs major, minor and id");
		return -EINVAL;
	}
	d = iolat_nl_cgroup_dev(s, nla_get_u32(tb[IOLAT_CGROUP_A_MAJOR]),
				nla_get_u32(tb[IOLAT_CGROUP_A_MINOR]));
	if (!d) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "no such device in the session");
		return -ENODEV;
	}
	*retired += iolat_cgstat_retire(d, nla_get_u64(tb[IOLAT_CGROUP_A_ID]));
	return 0;
}

/*
 * CGROUPS_FREE: the slots of the cgroups named, in the socket's session,
 * free for the next cgroups seen; their counts and histograms go to the
 * others' slot.  The slots are retired (no completion takes or counts in
 * them), the probes that may still count in them are waited for, and
 * then they are folded and freed.
 */
int iolat_nl_cgroups_free_doit(struct sk_buff *skb, struct genl_info *info)
{
	unsigned int i, retired = 0;
	struct iolat_session *s;
	const struct nlattr *nla;
	int rem, err;

	err = iolat_nl_admit(skb, info);
	if (err)
		return err;
	s = iolat_session_lock(info->snd_portid, info->extack);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (!s->cg_slots) {
		NL_SET_ERR_MSG(info->extack, "the session keeps no cgroup slots");
		err = -EINVAL;
		goto out;
	}
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nla) != IOLAT_A_CGROUP)
			continue;
		err = iolat_nl_cgroup_retire(s, nla, &retired, info->extack);
		if (err)
			break;
	}
	/*
	 * those retired before an error are freed all the same; a wait for
	 * the probes only if there are (an RCU grace period: tens of ms)
	 */
	if (retired) {
		tracepoint_synchronize_unregister();
		for (i = 0; i < s->nr_devs; i++)
			iolat_cgstat_release(s->devs[i]);
	}
out:
	iolat_session_unlock();
	return err;
}
