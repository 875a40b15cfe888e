// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile netlink: 30 000 messages (IOLAT_FUZZ_MSGS) to the "iolat"
 * generic netlink family, as root in a guest of tests/guest/run
 * (IOLAT_KO as for records_test).  Random commands and flags; attributes
 * missing, repeated, unknown, oversized, truncated, of the wrong type or
 * length, nested garbage, out-of-range values and devices that do not
 * exist, mixed with well-formed ones for a real null_blk device so that
 * sessions start, stop, dump and restart under the barrage (a flight
 * recorder's START every 400 messages, followed by its WATCH,
 * WATCH_TRIGGER, WATCH_FREEZE and WATCH_ARM).  Every
 * message is answered: accepted (an ACK of 0, or a dump that ends), or
 * an error carrying an extended-ack message.  The only errors allowed
 * without a message are generic netlink's own, given before the family
 * sees the message: an unknown command, or a dump asked of a command
 * that has none (and the reverse); they are counted apart.  The kernel
 * log stays clean.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "kselftest_harness.h"
#include "helpers.h"

#define NOTE(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)
#define MSG_MAX 8192

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

struct fuzz {
	int fd;
	uint16_t family;
	uint32_t seq;
	uint64_t rng;
	uint32_t major, minor, nr_hwq, depth;
	bool blkcg;		/* the kernel has block cgroups: cgroup slots */
	/* outcomes */
	long accepted, err_msg, err_genl, err_bare, dumps, lost;
	long dump_msg, dump_bare;	/* a dump's errors, with and without */
	long by_cmd[16][2];	/* [cmd][0: accepted, 1: error] */
	int bare_cmd, bare_err;
	uint32_t bare_flags;
	long bare[16][2][160];	/* [cmd][dump][-error] without a message */
};

static uint32_t rnd(struct fuzz *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return (uint32_t)(f->rng >> 11);
}

static int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1;
	struct timeval tv = { .tv_sec = 30 };

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Append an attribute to @buf at *@len; @alen is the claimed length. */
static void put_attr(char *buf, size_t *len, uint16_t type, const void *data,
		     uint16_t alen, uint16_t claimed)
{
	struct nlattr *a = (struct nlattr *)(buf + *len);

	if (*len + NLA_HDRLEN + NLA_ALIGN(alen) > MSG_MAX)
		return;
	a->nla_type = type;
	a->nla_len = claimed;
	memcpy(buf + *len + NLA_HDRLEN, data, alen);
	memset(buf + *len + NLA_HDRLEN + alen, 0, NLA_ALIGN(alen) - alen);
	*len += NLA_HDRLEN + NLA_ALIGN(alen);
}

static void put_u32(char *buf, size_t *len, uint16_t type, uint32_t v)
{
	put_attr(buf, len, type, &v, 4, NLA_HDRLEN + 4);
}

/* A u32 for attribute @type: mostly plausible, sometimes anything. */
static uint32_t some_u32(struct fuzz *f, int type)
{
	switch (rnd(f) % 4) {
	case 0:
		return rnd(f);
	case 1:
		return rnd(f) % 4;
	default:
		break;
	}
	switch (type) {
	case IOLAT_A_RING_RECORDS:
		return 1U << (rnd(f) % 24);
	case IOLAT_A_FILTER_OPS:
		return rnd(f) % 256;
	case IOLAT_A_FILTER_PID:
	case IOLAT_A_FILTER_TGID:
		return rnd(f) % 2 ? (uint32_t)getpid() : rnd(f) % 5000000;
	case IOLAT_A_CLOCK_LOOPS:
		return rnd(f) % 2000;
	case IOLAT_A_CGROUP_SLOTS:
		return rnd(f) % 40;
	default:
		return rnd(f) % 100000;
	}
}

/*
 * A device nest: the real null_blk device (always with @real), or one
 * that is not there.
 */
/* A whole disk of the real one's major and geometry, of another minor. */
static void put_disk(struct fuzz *f, char *buf, size_t *len)
{
	char nest[64];
	size_t n = 0;

	put_u32(nest, &n, IOLAT_DEV_A_MAJOR, f->major);
	put_u32(nest, &n, IOLAT_DEV_A_MINOR, f->minor + 1 + rnd(f) % 4096);
	put_u32(nest, &n, IOLAT_DEV_A_NR_HWQ, f->nr_hwq);
	put_u32(nest, &n, IOLAT_DEV_A_DEPTH, f->depth);
	put_attr(buf, len, IOLAT_A_DEV | NLA_F_NESTED, nest, n, NLA_HDRLEN + n);
}

static void put_dev(struct fuzz *f, char *buf, size_t *len, bool real)
{
	char nest[256];
	size_t n = 0;
	int k, good = real || rnd(f) % 3 == 0;

	if (good) {
		put_u32(nest, &n, IOLAT_DEV_A_MAJOR, f->major);
		put_u32(nest, &n, IOLAT_DEV_A_MINOR, f->minor);
		put_u32(nest, &n, IOLAT_DEV_A_NR_HWQ, f->nr_hwq);
		put_u32(nest, &n, IOLAT_DEV_A_DEPTH, f->depth);
		/* a partition of it, of any range, sometimes one at the end */
		for (k = 0; k < 4 && rnd(f) % 2; k++) {
			static const int part[] = {
				IOLAT_DEV_A_DISK_MAJOR, IOLAT_DEV_A_DISK_MINOR,
				IOLAT_DEV_A_START, IOLAT_DEV_A_SECTORS,
			};
			uint64_t w = rnd(f) % 3 ? rnd(f) % 300000 :
				     ~(uint64_t)(rnd(f) % 4);

			if (part[k] == IOLAT_DEV_A_DISK_MAJOR)
				put_u32(nest, &n, part[k], f->major);
			else if (part[k] == IOLAT_DEV_A_DISK_MINOR)
				put_u32(nest, &n, part[k], rnd(f) % 2 ? f->minor :
							   f->minor + 1);
			else
				put_attr(nest, &n, part[k], &w, 8, NLA_HDRLEN + 8);
		}
	} else {
		for (k = rnd(f) % 7; k; k--) {
			uint16_t t = rnd(f) % (IOLAT_DEV_A_MAX + 3);
			uint32_t v = rnd(f) % 2 ? rnd(f) % 70000 : rnd(f);

			if (rnd(f) % 5 == 0) {
				uint64_t w = rnd(f);

				put_attr(nest, &n, t, &w, rnd(f) % 9,
					 NLA_HDRLEN + rnd(f) % 9);
			} else {
				put_u32(nest, &n, t, v);
			}
		}
	}
	put_attr(buf, len, IOLAT_A_DEV | (rnd(f) % 8 ? NLA_F_NESTED : 0),
		 nest, n, NLA_HDRLEN + n);
}

/*
 * A flight recorder's nest (IOLAT_A_WATCH): START's settings, now and
 * then (unless @valid) out of range or without its window;
 * WATCH_TRIGGER's reason (of any value), WATCH_ARM's quiet time.
 */
static void put_watch(struct fuzz *f, char *buf, size_t *len, int cmd,
		      bool valid)
{
	char nest[128];
	size_t n = 0;
	uint64_t v;

	if (cmd == IOLAT_CMD_START) {
		v = rnd(f) % 8 || valid ? 1000000000ULL * (1 + rnd(f) % 10) :
					  rnd(f);
		if (rnd(f) % 8 || valid)
			put_attr(nest, &n, IOLAT_WATCH_A_BEFORE_NS, &v, 8,
				 NLA_HDRLEN + 8);
		v = rnd(f) % 2 ? 1000ULL * rnd(f) : 0;
		if (v)
			put_attr(nest, &n, IOLAT_WATCH_A_SLOWER_NS, &v, 8,
				 NLA_HDRLEN + 8);
		if (rnd(f) % 2)
			put_u32(nest, &n, IOLAT_WATCH_A_STAGE,
				rnd(f) % (valid ? 5 : 7));
		if (rnd(f) % 2)
			put_attr(nest, &n, IOLAT_WATCH_A_ON_ERROR, "", 0,
				 NLA_HDRLEN);
	} else if (cmd == IOLAT_CMD_WATCH_TRIGGER) {
		put_u32(nest, &n, IOLAT_WATCH_A_REASON,
			rnd(f) % 4 || valid ? IOLAT_WATCH_USER + rnd(f) % 2 :
					      rnd(f) % 9);
	} else {
		v = rnd(f) % 2 ? 0 : (uint64_t)rnd(f) << 20;
		put_attr(nest, &n, IOLAT_WATCH_A_QUIET_NS, &v, 8, NLA_HDRLEN + 8);
	}
	put_attr(buf, len, IOLAT_A_WATCH | (rnd(f) % 8 || valid ? NLA_F_NESTED : 0),
		 nest, n, NLA_HDRLEN + n);
}

/* Random attributes for a message of command @cmd into @buf. */
static void put_attrs(struct fuzz *f, char *buf, size_t *len)
{
	int k, nattrs = rnd(f) % 8;

	for (k = 0; k < nattrs; k++) {
		uint16_t type = rnd(f) % (IOLAT_A_MAX + 4);
		char junk[4096];
		uint16_t alen, claimed;
		uint64_t v64;
		size_t i;

		switch (rnd(f) % 10) {
		case 0:	/* garbage of any length, claimed length may lie */
			alen = rnd(f) % (rnd(f) % 8 ? 40 : sizeof(junk));
			for (i = 0; i < alen; i++)
				junk[i] = (char)rnd(f);
			claimed = NLA_HDRLEN + alen;
			if (rnd(f) % 4 == 0)
				claimed = rnd(f) % 0x10000;
			put_attr(buf, len, type | (rnd(f) % 16 ? 0 : NLA_F_NESTED),
				 junk, alen, claimed);
			break;
		case 1:
		case 2:
			put_dev(f, buf, len, false);
			break;
		case 3:	/* a string, terminated or not, maybe too long */
			alen = rnd(f) % 24;
			for (i = 0; i < alen; i++)
				junk[i] = 'a' + rnd(f) % 26;
			if (alen && rnd(f) % 2)
				junk[alen - 1] = '\0';
			put_attr(buf, len, IOLAT_A_FILTER_COMM, junk, alen,
				 NLA_HDRLEN + alen);
			break;
		case 4:	/* a u64 */
			v64 = (uint64_t)rnd(f) << 32 | rnd(f);
			put_attr(buf, len, rnd(f) % 2 ? IOLAT_A_FILTER_MIN_NS : type,
				 &v64, 8, NLA_HDRLEN + 8);
			break;
		case 5:	/* a flag, or a flag with a payload */
			alen = rnd(f) % 3 ? 0 : 4;
			memset(junk, 0, 4);
			put_attr(buf, len, (uint16_t[]){ IOLAT_A_COUNTERS_ONLY,
				 IOLAT_A_AGGREGATE, IOLAT_A_NVME }[rnd(f) % 3],
				 junk, alen, NLA_HDRLEN + alen);
			break;
		default:	/* a u32 for a known or unknown attribute */
			put_u32(buf, len, type, some_u32(f, type));
			break;
		}
	}
}

/* Does @cmd exist with this kind (dump or do) in the family? */
static bool genl_knows(int cmd, bool dump)
{
	switch (cmd) {
	case IOLAT_CMD_GET_INFO:
	case IOLAT_CMD_START:
	case IOLAT_CMD_STOP:
	case IOLAT_CMD_CLOCKTEST:
	case IOLAT_CMD_DEV_ADD:
	case IOLAT_CMD_CGROUPS_FREE:
	case IOLAT_CMD_WATCH:
	case IOLAT_CMD_WATCH_TRIGGER:
	case IOLAT_CMD_WATCH_FREEZE:
	case IOLAT_CMD_WATCH_ARM:
		return !dump;
	case IOLAT_CMD_READ:
	case IOLAT_CMD_COUNTERS:
	case IOLAT_CMD_HIST:
	case IOLAT_CMD_CGROUPS:
		return dump;
	default:
		return false;
	}
}

/* The extended-ack message in an NLMSG_ERROR or NLMSG_DONE, or NULL. */
static const char *ext_msg(const struct nlmsghdr *h, size_t off)
{
	const char *p = (const char *)h + off, *end = (const char *)h + h->nlmsg_len;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			return p + NLA_HDRLEN;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/* Classify an error @err (negative) of @cmd, with or without @msg. */
static void outcome(struct fuzz *f, int cmd, bool dump, int err,
		    const char *msg, uint32_t flags)
{
	f->by_cmd[cmd & 15][err ? 1 : 0]++;
	if (!err) {
		f->accepted++;
	} else if (msg && *msg) {
		f->err_msg++;
		f->dump_msg += dump;
	} else if (!genl_knows(cmd, dump) && err == -EOPNOTSUPP) {
		f->err_genl++;
	} else {
		if (cmd < 16 && -err > 0 && -err < 160)
			f->bare[cmd][dump][-err]++;
		if (!f->err_bare) {
			f->bare_cmd = cmd;
			f->bare_err = err;
			f->bare_flags = flags;
		}
		f->err_bare++;
		f->dump_bare += dump;
	}
}

/*
 * Send one message; read until its answer: an ACK or error, or a dump's
 * end.  Return: 0, or -1 if the socket failed or no answer came.
 */
static int one(struct fuzz *f, const char *buf, size_t len, int cmd, bool dump,
	       uint32_t flags)
{
	static char rbuf[1 << 17];
	uint32_t seq = ((struct nlmsghdr *)buf)->nlmsg_seq;

	if (send(f->fd, buf, len, 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(f->fd, rbuf, sizeof(rbuf), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return -1;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;	/* an earlier dump's tail */
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				outcome(f, cmd, dump, e->error,
					h->nlmsg_flags & NLM_F_ACK_TLVS ?
					ext_msg(h, NLMSG_HDRLEN + sizeof(*e)) :
					NULL, flags);
				return 0;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(h), sizeof(err));
				f->dumps++;
				outcome(f, cmd, dump, err,
					h->nlmsg_flags & NLM_F_ACK_TLVS ?
					ext_msg(h, NLMSG_HDRLEN + sizeof(int)) :
					NULL, flags);
				return 0;
			}
		}
	}
}

/* The family's id, from the generic netlink controller. */
static int family_id(int fd)
{
	char buf[4096];
	struct nlmsghdr *h = (void *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	ssize_t n;

	memset(buf, 0, sizeof(buf));
	h->nlmsg_type = GENL_ID_CTRL;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = 1;
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_attr(buf, &len, CTRL_ATTR_FAMILY_NAME, IOLAT_GENL_NAME,
		 sizeof(IOLAT_GENL_NAME), NLA_HDRLEN + sizeof(IOLAT_GENL_NAME));
	h->nlmsg_len = len;
	if (send(fd, buf, len, 0) < 0)
		return -1;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0 || !NLMSG_OK(h, n) || h->nlmsg_type != GENL_ID_CTRL)
		return -1;
	for (struct nlattr *a = (void *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	     (char *)a + NLA_HDRLEN <= (char *)h + h->nlmsg_len && a->nla_len >= NLA_HDRLEN;
	     a = (void *)((char *)a + NLA_ALIGN(a->nla_len)))
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
	return -1;
}

FIXTURE(fuzz) {
	struct fuzz f;
};

FIXTURE_SETUP(fuzz)
{
	char *dev, *depth;
	int n;

	ASSERT_EQ(0, module_load());
	sh("modprobe -r null_blk 2>/dev/null");
	ASSERT_EQ(0, nullb_settle());
	ASSERT_EQ(0, sh("modprobe null_blk nr_devices=1 && udevadm settle 2>/dev/null; test -b /dev/nullb0"));
	dev = slurp("/sys/block/nullb0/dev");
	depth = slurp("/sys/block/nullb0/queue/nr_requests");
	ASSERT_EQ(2, sscanf(dev, "%u:%u", &self->f.major, &self->f.minor));
	self->f.depth = strtoul(depth, NULL, 10);
	free(dev);
	free(depth);
	self->f.nr_hwq = 0;
	for (n = 0; n < 4096; n++) {
		char p[64];

		snprintf(p, sizeof(p), "/sys/block/nullb0/mq/%d", n);
		if (access(p, F_OK))
			break;
		self->f.nr_hwq++;
	}
	ASSERT_LT(0, self->f.major);
	ASSERT_LT(0, self->f.nr_hwq);
	ASSERT_LT(0, self->f.depth);
	/* the io controller, v2's io or v1's blkio (as cgroups_vs_io_stat.py) */
	self->f.blkcg = !sh("awk '$1 == \"io\" || $1 == \"blkio\" { f = 1 } END { exit !f }' /proc/cgroups 2>/dev/null");
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(fuzz)
{
	EXPECT_EQ(0, dmesg_bad_reports());
	sh("modprobe -r null_blk 2>/dev/null");
}

TEST_F_TIMEOUT(fuzz, hostile_messages_answered, 1200)
{
	struct fuzz *f = &self->f;
	static char buf[MSG_MAX];
	long n = getenv("IOLAT_FUZZ_MSGS") ?
		 atol(getenv("IOLAT_FUZZ_MSGS")) : 30000;
	long i, reopen = 0;
	int id, c;

	/* IOLAT_FUZZ_SEED replays a run; the seed is printed either way */
	f->rng = getenv("IOLAT_FUZZ_SEED") ?
		 strtoull(getenv("IOLAT_FUZZ_SEED"), NULL, 0) :
		 0x9e3779b97f4a7c15ULL ^ (uint64_t)time(NULL);
	if (!f->rng)
		f->rng = 1;
	ASSERT_LE(1000, n) TH_LOG("IOLAT_FUZZ_MSGS: at least 1000");
	NOTE("%ld messages, seed %#llx; nullb0 %u:%u, %u queues of %u",
	     n, (unsigned long long)f->rng, f->major, f->minor, f->nr_hwq, f->depth);
	f->fd = nl_open();
	ASSERT_LE(0, f->fd);
	id = family_id(f->fd);
	ASSERT_LT(0, id) TH_LOG("no iolat family");
	f->family = id;
	for (i = 0; i < n; i++) {
		struct nlmsghdr *h = (void *)buf;
		struct genlmsghdr *g = NLMSG_DATA(h);
		size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
		uint32_t flags = NLM_F_REQUEST | NLM_F_ACK;
		bool dump, plausible, joins, recorder;
		int cmd, k, follow;

		/* now and then a fresh socket: sessions end with theirs */
		if (rnd(f) % 500 == 0) {
			close(f->fd);
			f->fd = nl_open();
			ASSERT_LE(0, f->fd);
			reopen++;
		}
		cmd = rnd(f) % 8 ? 1 + rnd(f) % IOLAT_CMD_MAX : rnd(f) % 256;
		/*
		 * One message in a hundred a plausible START: the real
		 * device in a session of each kind, now and then with more
		 * attributes.  Random messages alone start a session of a
		 * given kind (record -A's, whose HIST dumps are then
		 * accepted) only a few times in the barrage, and in some
		 * runs not at all (3 runs in 16).
		 */
		plausible = i % 100 == 50;
		if (plausible)
			cmd = IOLAT_CMD_START;
		/*
		 * and one in four of those a flight recorder's, whole: its
		 * WATCH commands then have a session to be accepted by
		 */
		recorder = plausible && (i / 100) % 4 == 1;
		/* ... followed by its commands, each well formed, in turn */
		follow = i % 400 > 150 && i % 400 <= 154 ? i % 400 - 150 : 0;
		if (follow)
			cmd = (int[]){ IOLAT_CMD_WATCH, IOLAT_CMD_WATCH_TRIGGER,
				       IOLAT_CMD_WATCH_FREEZE,
				       IOLAT_CMD_WATCH_ARM }[follow - 1];
		/* and one a plausible DEV_ADD: a disk of another number */
		joins = i % 100 == 75;
		if (joins)
			cmd = IOLAT_CMD_DEV_ADD;
		/* the clock test runs threads on every CPU: rarely */
		if (cmd == IOLAT_CMD_CLOCKTEST && rnd(f) % 50)
			cmd = IOLAT_CMD_GET_INFO;
		dump = rnd(f) % 8 ? genl_knows(cmd, true) : rnd(f) % 2;
		if (plausible || joins || follow)
			dump = false;
		if (dump)
			flags |= NLM_F_DUMP;
		memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
		g->cmd = cmd;
		g->version = rnd(f) % 8 || plausible || follow ? IOLAT_GENL_VERSION :
						     rnd(f) % 256;
		if (plausible) {
			put_dev(f, buf, &len, true);
			k = recorder ? 1 : rnd(f) % 3;
			if (k)
				put_attr(buf, &len, k == 1 ? IOLAT_A_AGGREGATE :
					 IOLAT_A_COUNTERS_ONLY, "", 0,
					 NLA_HDRLEN);
			/* half of those with cgroup slots (CGROUPS, _FREE) */
			if (k && rnd(f) % 2)
				put_u32(buf, &len, IOLAT_A_CGROUP_SLOTS,
					1 + rnd(f) % IOLAT_CGROUP_SLOTS_MAX);
			/* an aggregating one in three with a flight recorder */
			if (recorder || (k == 1 && rnd(f) % 3 == 0))
				put_watch(f, buf, &len, cmd, recorder);
		}
		if (joins)
			put_disk(f, buf, &len);
		if ((!plausible && !joins && !follow) ||
		    (!recorder && !follow && rnd(f) % 4 == 0))
			put_attrs(f, buf, &len);
		if (cmd == IOLAT_CMD_CLOCKTEST)
			put_u32(buf, &len, IOLAT_A_CLOCK_LOOPS, rnd(f) % 3000);
		if ((cmd == IOLAT_CMD_WATCH_TRIGGER || cmd == IOLAT_CMD_WATCH_ARM) &&
		    (follow || rnd(f) % 2))
			put_watch(f, buf, &len, cmd, follow);
		h->nlmsg_len = len;
		h->nlmsg_type = f->family;
		h->nlmsg_flags = flags;
		h->nlmsg_seq = ++f->seq;
		if (one(f, buf, len, cmd, dump, flags)) {
			f->lost++;
			TH_LOG("message %ld (command %d, flags %#x): no answer: %s",
			       i, cmd, flags, strerror(errno));
			break;
		}
	}
	close(f->fd);
	NOTE("%ld messages on %ld sockets: %ld accepted (%ld dumps ended), %ld errors with an extended-ack message, %ld refused by generic netlink before the family (unknown command or kind), %ld errors without a message, %ld unanswered",
	     i, reopen + 1, f->accepted, f->dumps, f->err_msg, f->err_genl,
	     f->err_bare, f->lost);
	for (c = 1; c <= IOLAT_CMD_MAX; c++)
		NOTE("  command %d: %ld accepted, %ld refused", c,
		     f->by_cmd[c][0], f->by_cmd[c][1]);
	if (f->err_bare)
		NOTE("first error without a message: command %d, flags %#x, error %d",
		     f->bare_cmd, f->bare_flags, f->bare_err);
	for (c = 0; c < 16; c++)
		for (int d = 0; d < 2; d++)
			for (int e = 1; e < 160; e++)
				if (f->bare[c][d][e])
					NOTE("  without a message: command %d%s, error -%d (%s): %ld",
					     c, d ? " (dump)" : "", e, strerror(e),
					     f->bare[c][d][e]);
	EXPECT_EQ(n, i);
	EXPECT_EQ(0, f->lost);
	/*
	 * A dump's error carries an extended-ack message since v4.20
	 * ("netlink: Pass extack to dump handlers"); on a kernel whose
	 * dumps never carried one in the whole barrage (4.19), a dump's
	 * error without one is the kernel's limit, not iolat's, and every
	 * other error must still carry its message.
	 */
	if (!f->dump_msg && f->dump_bare) {
		NOTE("this kernel's dump errors carry no extended ack (before v4.20): %ld of them",
		     f->dump_bare);
		EXPECT_EQ(f->dump_bare, f->err_bare);
		f->err_msg += f->dump_bare;
	} else {
		EXPECT_EQ(0, f->err_bare);
	}
	/* the barrage reached the commands: some of each were accepted */
	if (!f->blkcg)
		NOTE("no block cgroups in this kernel: no session has cgroup slots, so CGROUPS and CGROUPS_FREE are refused, with their reason");
	for (c = 1; c <= IOLAT_CMD_MAX; c++) {
		if (c == IOLAT_CMD_CLOCKTEST ||
		    (!f->blkcg && (c == IOLAT_CMD_CGROUPS ||
				   c == IOLAT_CMD_CGROUPS_FREE)))
			continue;
		EXPECT_LT(0, f->by_cmd[c][0]) {
			TH_LOG("command %d never accepted", c);
		}
	}
	EXPECT_LT(n / 2, f->err_msg);
}

IOLAT_HARNESS_MAIN
