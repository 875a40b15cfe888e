// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests of iolat.ko and the CLI, on kselftest_harness.h (TAP).
 * Run as root inside a guest of tests/guest/run, by tests/check.sh, with:
 *   IOLAT_KO   the module built for the running kernel
 *   IOLAT_CLI  the iolat binary
 * They load null_blk and use the rig's emulated NVMe drive (nvme0n1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/iolat.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FIO_JSON "/tmp/iolat_test.fio.json"

FIXTURE(iolat) {
	int unused;
};

FIXTURE_SETUP(iolat)
{
	if (sh("command -v fio >/dev/null") != 0)
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, module_load());
	/*
	 * two poll queues for io_uring's polled, batched completions; a
	 * null_blk loaded without nullb0 (configfs devices of another
	 * suite, since removed) is reloaded with it
	 */
	if (access("/sys/block/nullb0", F_OK)) {
		sh("modprobe -r null_blk 2>/dev/null");
		ASSERT_EQ(0, nullb_settle());
		ASSERT_EQ(0, sh("modprobe null_blk nr_devices=1 poll_queues=2 2>/dev/null || modprobe null_blk nr_devices=1"));
	}
	ASSERT_EQ(0, access("/dev/nullb0", F_OK));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(iolat)
{
	EXPECT_EQ(0, dmesg_bad_reports());
}

/*
 * A fio job of known size on a device: the CLI reports exactly the
 * requests the device completed (from its stat file) and fio performed,
 * none dropped.
 */
static void exact_records(struct __test_metadata *_metadata,
			  const char *dev, int ios, const char *engine)
{
	long long before, after, delivered, written, dropped, fio_ios;
	double iops, fio_iops;
	const char *out;
	int st;

	if (access("/dev/nvme0n1", F_OK) && !strcmp(dev, "nvme0n1"))
		SKIP(return, "no NVMe drive in this guest");
	before = completed(dev);
	ASSERT_LE(0, before);
	st = sh("%s record -o json -d %s -- fio --name=exact --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=%s --iodepth=32 --number_ios=%d --size=256M --eta=never --output-format=json --output=%s >%s 2>%s",
		env("IOLAT_CLI"), dev, dev, engine, ios, FIO_JSON, OUT, ERR);
	after = completed(dev);
	out = slurp(OUT);
	TH_LOG("iolat: %s%s", out, slurp(ERR));
	ASSERT_EQ(0, st);
	delivered = json_sum(out, "delivered");
	written = json_sum(out, "written");
	dropped = json_sum(out, "dropped");
	fio_ios = json_sum(slurp(FIO_JSON), "total_ios");
	TH_LOG("%s: fio %lld I/Os, device completed %lld, iolat delivered %lld, dropped %lld",
	       dev, fio_ios, after - before, delivered, dropped);
	EXPECT_EQ(ios, fio_ios);
	EXPECT_EQ(after - before, delivered);
	EXPECT_EQ(written, delivered);
	EXPECT_EQ(0, dropped);
	/*
	 * IOPS over the requests' span, as fio's over its job (not
	 * over the whole session, command start-up included, 310 against
	 * fio's 659): within 10%
	 */
	iops = json_num(strstr(out, "\"ops\": [{\"op\": \"read\""), "iops");
	fio_iops = json_num(strstr(slurp(FIO_JSON), "\"read\""), "iops");
	TH_LOG("%s: IOPS iolat %.0f, fio %.0f", dev, iops, fio_iops);
	EXPECT_GE(0.10, fabs(iops - fio_iops) / fio_iops);
}

TEST_F_TIMEOUT(iolat, exact_records_null_blk, 300)
{
	exact_records(_metadata, "nullb0", 20000, "libaio");
}

/* io_uring where the kernel has it (not RHEL 8 nor 4.19), else libaio */
TEST_F_TIMEOUT(iolat, exact_records_nvme, 300)
{
	const char *engine = has_io_uring() ? "io_uring" : "libaio";

	TH_LOG("fio's engine: %s", engine);
	exact_records(_metadata, "nvme0n1", 5000, engine);
}

/* Without the module: one clear line naming modprobe, and a failure. */
TEST_F(iolat, no_module_clear_error)
{
	const char *err;
	int st;

	ASSERT_EQ(0, module_unload());
	st = sh("%s record -d nullb0 -t 1 >%s 2>%s", env("IOLAT_CLI"), OUT, ERR);
	err = slurp(ERR);
	TH_LOG("stderr: %s", err);
	EXPECT_NE(0, st);
	EXPECT_EQ(1, count_lines(err));
	EXPECT_NE(NULL, strstr(err, "modprobe iolat"));
	EXPECT_EQ(0U, strlen(slurp(OUT)));
	ASSERT_EQ(0, module_load());
}

/* The errno a dump ended with (NLMSG_DONE carries it). */
static int dump_done(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
		memcpy(arg, nlmsg_data(nlh), sizeof(int));
	return NL_STOP;
}

/*
 * As nobody: the kernel refuses START and READ itself, with EPERM (a
 * dump's refusal ends it: NLMSG_DONE carries the errno).
 */
static int unprivileged_request(uint8_t cmd, int flags)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *nest;
	int family, err = -1, done = 0;

	if (!sk || !msg || genl_connect(sk))
		goto out;
	family = genl_ctrl_resolve(sk, IOLAT_GENL_NAME);
	if (family < 0)
		goto out;
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd,
		    IOLAT_GENL_VERSION);
	if (cmd == IOLAT_CMD_START) {
		nest = nla_nest_start(msg, IOLAT_A_DEV);
		nla_put_u32(msg, IOLAT_DEV_A_MAJOR, 7);
		nla_put_u32(msg, IOLAT_DEV_A_MINOR, 0);
		nla_put_u32(msg, IOLAT_DEV_A_NR_HWQ, 1);
		nla_put_u32(msg, IOLAT_DEV_A_DEPTH, 64);
		nla_nest_end(msg, nest);
	}
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, dump_done, &done);
	if (nl_send_auto(sk, msg) < 0)
		goto out;
	err = nl_recvmsgs_default(sk);
	if (!err && done < 0)
		err = -nl_syserr2nlerr(done);
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	return err;
}

TEST_F(iolat, unprivileged_gets_eperm)
{
	const char *err;
	pid_t pid;
	int st;

	st = sh("setpriv --reuid=65534 --regid=65534 --clear-groups %s record -d nullb0 -t 1 >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	err = slurp(ERR);
	TH_LOG("stderr: %s", err);
	EXPECT_NE(0, st);
	EXPECT_EQ(1, count_lines(err));
	EXPECT_NE(NULL, strstr(err, "permission denied"));
	EXPECT_EQ(0U, strlen(slurp(OUT)));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		if (unprivileged_request(IOLAT_CMD_START, 0) != -NLE_PERM)
			_exit(11);
		if (unprivileged_request(IOLAT_CMD_READ, NLM_F_DUMP) != -NLE_PERM)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * 10 times: load the module, stream records to the CLI while fio runs,
 * and rmmod under it, 0 to 600 ms after the CLI said it was tracing
 * (each delay twice; a round takes 5 to 14 s under TCG, its load, start
 * and rmmod alike).  The CLI must end with one clear error, never hang,
 * and the kernel must stay clean (checked by the teardown); its
 * --summary is written all the same, marked incomplete.
 */
TEST_F_TIMEOUT(iolat, unload_while_streaming, 900)
{
	char cmd[512];
	pid_t fio, cli;
	int i, st;

	snprintf(cmd, sizeof(cmd),
		 "exec fio --name=bg --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --time_based --runtime=600 --eta=never --output=/dev/null");
	fio = spawn_sh(cmd);
	ASSERT_LT(0, fio);
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, module_load());
		unlink(ERR);
		unlink("/tmp/iolat_unload.json");
		snprintf(cmd, sizeof(cmd), "exec %s record -d nullb0 --summary /tmp/iolat_unload.json >/dev/null 2>%s",
			 env("IOLAT_CLI"), ERR);
		cli = spawn_sh(cmd);
		ASSERT_LT(0, cli);
		ASSERT_EQ(0, wait_text(ERR, "iolat: tracing", 60))
			TH_LOG("round %d: the CLI never started: %s", i,
			       slurp(ERR));
		usleep((i % 5) * 150000);
		ASSERT_EQ(0, module_unload());
		if (wait_for(cli, 30, &st)) {
			kill(-cli, SIGKILL);
			waitpid(cli, &st, 0);
			ASSERT_TRUE(false) TH_LOG("round %d: the CLI hung after rmmod", i);
		}
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1)
			TH_LOG("round %d: CLI status %#x, stderr: %s", i, st,
			       slurp(ERR));
		EXPECT_NE(NULL, strstr(slurp(ERR), "unloaded"))
			TH_LOG("round %d: stderr: %s", i, slurp(ERR));
		EXPECT_NE(NULL, strstr(slurp("/tmp/iolat_unload.json"), "{\"incomplete\":true,"))
			TH_LOG("round %d: summary: %s", i, slurp("/tmp/iolat_unload.json"));
	}
	kill(-fio, SIGKILL);
	waitpid(fio, &st, 0);
	/* fio's job process may outlive its parent: no I/O may be left */
	sh("pkill -KILL -f -- --name=bg; while pgrep -f -- --name=bg >/dev/null; do sleep 0.1; done");
	ASSERT_EQ(0, module_load());
}


#define BT "/tmp/iolat_bt"

/*
 * Run @workload under `iolat trace -o csv -d @dev` into CSV, with
 * blktrace capturing the same device into BT.bin (blkparse's binary
 * dump, for btt) and BT.txt (its text).  The CLI's exit status.
 */
static int trace_with_blktrace(const char *dev, const char *workload)
{
	char args[64], cmd[1024];
	int st;

	snprintf(args, sizeof(args), "-d /dev/%s -o bt", dev);
	snprintf(cmd, sizeof(cmd), "%s trace -o csv -d %s -- sh -c '%s' >" CSV " 2>%s",
		 env("IOLAT_CLI"), dev, workload, ERR);
	st = blktrace_around(BT, args, cmd);
	sh("cd " BT " && blkparse -q -i bt -d bt.bin -o bt.txt >/dev/null 2>&1");
	return st;
}

/* A number printed by a shell command, or -1. */
static double sh_number(const char *fmt, const char *arg)
{
	char cmd[512];
	double v = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), fmt, arg);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%lf", &v) != 1)
		v = -1;
	pclose(p);
	return v;
}

/* btt's mean of a stage over all devices, in ns; -1 if it has none. */
static double btt_mean_ns(const char *stage)
{
	double s = sh_number("cd " BT " && btt -i bt.bin 2>/dev/null | awk '$1 == \"%s\" { print $3; exit }'",
			     stage);

	return s < 0 ? -1 : s * 1e9;
}

/* Count blkparse actions (its 6th column) among @actions, e.g. "MF". */
static long long blkparse_count(const char *actions)
{
	return (long long)sh_number("awk -v a=%s 'length($6) == 1 && index(a, $6) && $6 != \"\" { n++ } END { print n + 0 }' " BT "/bt.txt",
				    actions);
}

#define SCHED_IOS	2048	/* at least the test's requests */

struct sched_io {
	unsigned long long sector;
	long long q2c, d2c;		/* iolat's, then minus blktrace's */
	int n;				/* rows (or blktrace's Q) with it */
};

struct sched_check {
	bool want_insert;
	long rows, bios, bad_order, no_q, no_g, no_i, no_d;
	double d2c, q2c;
	long nr;
	struct sched_io io[SCHED_IOS];
};

static struct sched_io *sched_io_of(struct sched_io *io, long nr,
				    unsigned long long sector)
{
	long i;

	for (i = 0; i < nr; i++)
		if (io[i].sector == sector)
			return &io[i];
	return NULL;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * Pair each request iolat traced with blktrace's events of the same
 * request in blkparse's text (BT.txt), by sector (a sector that more
 * than one request read is left out), and set each pair's q2c and d2c to
 * iolat's minus blktrace's.  blktrace's probes and iolat's run one after
 * the other on the same tracepoints, so a pair differs only by the time
 * between the two probes, which is almost always a probe's own work (a
 * few microseconds) but, now and then, an interrupt or, under emulation,
 * a stall of the virtual CPU (up to milliseconds): the means of the two
 * tools drift apart by a few percent with the host's load, the median of
 * the differences does not.  The number of pairs.
 */
static long sched_pair_blktrace(struct sched_check *c, long long *dq,
				long long *dd)
{
	static struct sched_io bt[SCHED_IOS];
	static double q[SCHED_IOS], d[SCHED_IOS], cc[SCHED_IOS];
	unsigned long long sector;
	char line[256], act[4];
	long nbt = 0, n = 0, i;
	double t;
	FILE *f = fopen(BT "/bt.txt", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct sched_io *b;

		if (sscanf(line, "%*s %*u %*u %lf %*u %3s %*s %llu", &t, act,
			   &sector) != 3 || act[1] || !strchr("QDC", act[0]))
			continue;
		b = sched_io_of(bt, nbt, sector);
		if (!b) {
			if (nbt == SCHED_IOS)
				continue;
			b = &bt[nbt++];
			b->sector = sector;
		}
		i = b - bt;
		if (act[0] == 'Q') {
			b->n++;
			q[i] = t * 1e9;
		} else if (act[0] == 'D') {
			d[i] = t * 1e9;
		} else {
			cc[i] = t * 1e9;
		}
	}
	fclose(f);
	for (i = 0; i < c->nr; i++) {
		struct sched_io *r = &c->io[i], *b;

		b = sched_io_of(bt, nbt, r->sector);
		if (r->n != 1 || !b || b->n != 1 || !d[b - bt] || !cc[b - bt])
			continue;
		dq[n] = r->q2c - llround(cc[b - bt] - q[b - bt]);
		dd[n] = r->d2c - llround(cc[b - bt] - d[b - bt]);
		n++;
	}
	qsort(dq, n, sizeof(*dq), cmp_ll);
	qsort(dd, n, sizeof(*dd), cmp_ll);
	return n;
}

static void sched_row(void *arg, const struct row *r)
{
	struct sched_check *c = arg;
	unsigned long long last = 0;
	struct sched_io *io;
	int k;

	c->rows++;
	c->bios += r->nr_bios ? r->nr_bios : 1;
	for (k = 0; k < 5; k++) {
		if (!r->t[k])
			continue;
		if (r->t[k] < last)
			c->bad_order++;
		last = r->t[k];
	}
	c->no_q += !r->t[0];
	if (!r->t[0])
		fprintf(stderr, "# no Q: %s %s flags %s, %u bios, by %s (pid %u); g %llu i %llu d %llu c %llu\n",
			r->dev, r->op, r->flags, r->nr_bios, r->comm, r->pid,
			r->t[1], r->t[2], r->t[3], r->t[4]);
	c->no_g += !r->t[1];
	c->no_i += !r->t[2];
	c->no_d += !r->t[3];
	c->d2c += r->t[4] - r->t[3];
	c->q2c += r->t[4] - r->t[0];
	io = sched_io_of(c->io, c->nr, r->sector);
	if (!io && c->nr < SCHED_IOS) {
		io = &c->io[c->nr++];
		io->sector = r->sector;
		io->q2c = r->t[4] - r->t[0];
		io->d2c = r->t[4] - r->t[3];
	}
	if (io)
		io->n++;
}

FIXTURE(sched) {
	char saved[64];
};

FIXTURE_VARIANT(sched) {
	const char *name;
	const char *module;
};

FIXTURE_VARIANT_ADD(sched, none) { "none", NULL };
FIXTURE_VARIANT_ADD(sched, mq_deadline) { "mq-deadline", "mq-deadline" };
FIXTURE_VARIANT_ADD(sched, bfq) { "bfq", "bfq" };
FIXTURE_VARIANT_ADD(sched, kyber) { "kyber", "kyber-iosched" };

FIXTURE_SETUP(sched)
{
	if (access("/dev/nvme0n1", F_OK))
		SKIP(return, "no NVMe drive in this guest");
	ASSERT_EQ(0, module_load());
	if (variant->module)
		sh("modprobe %s 2>/dev/null", variant->module);
	ASSERT_EQ(0, sh("echo %s >/sys/block/nvme0n1/queue/scheduler",
			variant->name)) TH_LOG("scheduler %s unavailable",
					       variant->name);
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(sched)
{
	sh("echo none >/sys/block/nvme0n1/queue/scheduler");
	EXPECT_EQ(0, dmesg_bad_reports());
}

/*
 * With each scheduler: every request has Q, G, D and C (and I when an
 * elevator holds it), in order, as many as the device completed and as
 * btt paired from a blktrace capture of the same run; and request by
 * request, iolat's D2C and Q2C agree with blktrace's own timestamps of
 * that request: the median of the differences is within 1% of the mean
 * D2C (sched_pair_blktrace() says why the median).  The differences are
 * the work of blktrace's probes, which run first: at D and C under 1 us
 * on the plain kernels, about 5 us (0.4% of D2C) under KASAN.  Q is the
 * kernel's own stamp of the bio where it keeps one, taken just before
 * the tracepoint, so iolat's Q2C is longer than blktrace's by the time
 * to blktrace's clock read (2.5 to 5.2 us under TCG on 5.4, 5.10, 6.1
 * and RHEL 8's 4.18, up to 1.4% of D2C): its median may be up to 3% of
 * D2C above.  A Q taken too late (the issue time for the queue time)
 * moves the median below by a whole stage, Q2D, 4.4% of D2C or more,
 * which the 1% below catches; the completion's end for its start moves
 * D2C's.
 */
TEST_F_TIMEOUT(sched, stages_match_btt, 300)
{
	static struct sched_check c;
	static long long dq[SCHED_IOS], dd[SCHED_IOS];
	double btt_d2c, btt_q2c, btt_n, d2c, q2c, tol;
	long long completed_before = completed("nvme0n1"), done, mq, md;
	long n;

	memset(&c, 0, sizeof(c));
	c.want_insert = strcmp(variant->name, "none");
	ASSERT_EQ(0, trace_with_blktrace("nvme0n1",
		"fio --name=s --filename=/dev/nvme0n1 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=8 --number_ios=1500 --size=256M --eta=never --output=/dev/null"))
		TH_LOG("%s", slurp(ERR));
	done = completed("nvme0n1") - completed_before;
	ASSERT_LT(0, csv_rows(CSV, sched_row, &c));
	btt_d2c = btt_mean_ns("D2C");
	btt_q2c = btt_mean_ns("Q2C");
	btt_n = sh_number("cd " BT " && btt -i bt.bin 2>/dev/null | awk '$1 == \"%s\" { print $5; exit }'",
			  "Q2C");
	n = sched_pair_blktrace(&c, dq, dd);
	ASSERT_LT(0, n);
	mq = dq[n / 2];
	md = dd[n / 2];
	d2c = c.d2c / c.rows;
	q2c = c.q2c / c.rows;
	tol = 0.01 * d2c;
	TH_LOG("%s: %ld requests of %ld bios (device completed %lld, btt paired %.0f); missing Q %ld G %ld I %ld D %ld; out of order %ld; mean D2C %.0f ns (btt %.0f), Q2C %.0f ns (btt %.0f)",
	       variant->name, c.rows, c.bios, done, btt_n, c.no_q, c.no_g, c.no_i,
	       c.no_d, c.bad_order, d2c, btt_d2c, q2c, btt_q2c);
	TH_LOG("%ld requests paired with blktrace's; iolat minus blktrace, p5/p50/p95: Q2C %lld/%lld/%lld ns, D2C %lld/%lld/%lld ns (allowed median %.0f)",
	       n, dq[n / 20], mq, dq[n - 1 - n / 20], dd[n / 20], md,
	       dd[n - 1 - n / 20], tol);
	EXPECT_EQ(done, c.rows);
	/*
	 * btt pairs every queued bio with its completion: a random read
	 * that a scheduler merged into its neighbour's request (seen once
	 * in 1500, on the newest kernel with mq-deadline) counts there
	 * twice, and in iolat's records once, with two bios
	 */
	EXPECT_EQ(btt_n, c.bios);
	EXPECT_EQ(0, c.bad_order);
	EXPECT_EQ(0, c.no_q);
	EXPECT_EQ(0, c.no_g);
	EXPECT_EQ(0, c.no_d);
	if (c.want_insert)
		EXPECT_EQ(0, c.no_i);
	/* sectors read twice are left out: a few of 65536 */
	EXPECT_LE(c.rows * 9 / 10, n);
	/* Q leads blktrace's by the kernel's stamp, where it keeps one */
	EXPECT_LE(-tol, mq);
	EXPECT_GE(3 * tol, mq);
	EXPECT_GE(tol, llabs(md));
}

struct merge_check {
	long rows, bios, split_rows, writes;
};

static void merge_row(void *arg, const struct row *r)
{
	struct merge_check *c = arg;

	c->rows++;
	c->bios += r->nr_bios ? r->nr_bios - 1 : 0;
	c->split_rows += strstr(r->flags, "split") != NULL;
	c->writes += !strcmp(r->op, "write");
}

/*
 * A sequential buffered write merges bios into few requests: the bios
 * merged, counted per record, equal blktrace's M and F events.
 */
TEST_F_TIMEOUT(iolat, merges_match_blktrace, 300)
{
	struct merge_check c = { 0 };
	long long before = completed("nullb0"), mf;

	ASSERT_EQ(0, trace_with_blktrace("nullb0",
		"dd if=/dev/zero of=/dev/nullb0 bs=64k count=256 conv=fsync status=none"))
		TH_LOG("%s", slurp(ERR));
	ASSERT_LT(0, csv_rows(CSV, merge_row, &c));
	mf = blkparse_count("MF");
	TH_LOG("%ld requests (device completed %lld), %ld bios merged into them; blktrace M+F %lld",
	       c.rows, completed("nullb0") - before, c.bios, mf);
	EXPECT_EQ(completed("nullb0") - before, c.rows);
	EXPECT_LT(0, c.bios);
	EXPECT_EQ(mf, c.bios);
}

/*
 * A tracepoint the kernel lacks (block_rq_merge before v5.8: 5.4, 4.19)
 * is told to the user: one warning once tracing has begun, and the
 * summary's missing_tracepoints; a kernel that has it gets neither.  The
 * truth is the kernel's own list of block events in tracefs.
 */
TEST_F_TIMEOUT(iolat, missing_tracepoint_said, 120)
{
	const char *warn = "iolat: warning: this kernel has no tracepoint block_rq_merge; its stage is not traced";
	const char *err, *out;
	int has, st;

	sh("mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing");
	ASSERT_EQ(0, access("/sys/kernel/tracing/events/block/block_rq_issue", F_OK));
	has = !access("/sys/kernel/tracing/events/block/block_rq_merge", F_OK);
	st = sh("%s record -o json -d nullb0 -- dd if=/dev/nullb0 of=/dev/null bs=4k count=64 iflag=direct status=none >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	err = slurp(ERR);
	TH_LOG("kernel %s block_rq_merge; stderr: %s", has ? "has" : "lacks", err);
	ASSERT_EQ(0, st);
	out = slurp(OUT);
	if (has) {
		EXPECT_EQ(NULL, strstr(err, warn));
		EXPECT_NE(NULL, strstr(out, "\"missing_tracepoints\": []"));
	} else {
		EXPECT_NE(NULL, strstr(err, warn));
		EXPECT_NE(NULL, strstr(out, "\"missing_tracepoints\": [\"block_rq_merge\"]"));
	}
}

/*
 * A large direct read split by a lowered max_sectors_kb: each piece is
 * recorded once, marked split, and blktrace's X events match.
 */
TEST_F_TIMEOUT(iolat, splits_recorded_once, 300)
{
	struct merge_check c = { 0 };
	long long before = completed("nullb0"), x;
	char saved[32];

	snprintf(saved, sizeof(saved), "%s", slurp("/sys/block/nullb0/queue/max_sectors_kb"));
	ASSERT_EQ(0, sh("echo 64 >/sys/block/nullb0/queue/max_sectors_kb"));
	ASSERT_EQ(0, trace_with_blktrace("nullb0",
		"fio --name=x --filename=/dev/nullb0 --rw=read --bs=1M --direct=1 --ioengine=psync --number_ios=20 --size=64M --eta=never --output=/dev/null"))
		TH_LOG("%s", slurp(ERR));
	sh("echo %d >/sys/block/nullb0/queue/max_sectors_kb", atoi(saved));
	ASSERT_LT(0, csv_rows(CSV, merge_row, &c));
	x = blkparse_count("X");
	TH_LOG("%ld requests (device completed %lld), %ld marked split; blktrace X %lld",
	       c.rows, completed("nullb0") - before, c.split_rows, x);
	EXPECT_EQ(20 * 16, c.rows);
	EXPECT_EQ(completed("nullb0") - before, c.rows);
	EXPECT_EQ(c.rows, c.split_rows);
	EXPECT_EQ(20 * 15, x);
}

struct hwq_rows {
	long rows[64], other;
};

static void hwq_row(void *arg, const struct row *r)
{
	struct hwq_rows *h = arg;

	if (r->hwq < 64)
		h->rows[r->hwq]++;
	else
		h->other++;
}

/*
 * The polled job's requests were polled: each record's hardware queue is
 * one of @dev's poll queues (blk-mq's debugfs names each queue's type),
 * which have no interrupt, so that only a poll completes their requests.
 * Kernels before v5.0 have no queue types; 4.19 polls its ordinary
 * queues, and nvme_test's polled_conservation counts its polls there.
 */
static void polled_on_poll_queues(struct __test_metadata *_metadata,
				  const char *dev)
{
	struct hwq_rows h;
	char path[128], *type;
	long polled = 0, rows = 0;
	unsigned int q;
	int st;

	memset(&h, 0, sizeof(h));
	debugfs_mount();
	snprintf(path, sizeof(path), "/sys/kernel/debug/block/%s/hctx0/type", dev);
	if (access(path, F_OK)) {
		TH_LOG("%s: no queue types on this kernel", dev);
		return;
	}
	st = sh("%s trace -o csv -d %s -- fio --name=p --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=%s --iodepth=8 --number_ios=2000 --size=64M --eta=never --output=/dev/null >" CSV " 2>%s",
		env("IOLAT_CLI"), dev, dev, polled_engine(), ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LE(0, csv_rows(CSV, hwq_row, &h));
	for (q = 0; q < 64; q++) {
		if (!h.rows[q])
			continue;
		rows += h.rows[q];
		snprintf(path, sizeof(path),
			 "/sys/kernel/debug/block/%s/hctx%u/type", dev, q);
		type = slurp(path);
		TH_LOG("%s: %ld requests on queue %u, of type %s", dev,
		       h.rows[q], q, type ? type : "?");
		if (type && !strncmp(type, "poll", 4))
			polled += h.rows[q];
		free(type);
	}
	EXPECT_EQ(0, h.other);
	EXPECT_EQ(2000, rows);
	EXPECT_EQ(rows, polled);
}

/*
 * Polled completions (io_uring's are batched): none lost, and each on a
 * poll queue (polled_on_poll_queues()).  On null_blk's poll queues; where
 * null_blk has none (before v5.13's "null_blk: poll queue support":
 * Debian's 5.10, 5.4, RHEL 8, 4.19), on the NVMe drive's, the nvme driver
 * reloaded with one (4.19's has no poll_queues and polls its ordinary
 * queues).  Without io_uring (RHEL 8, 4.19), preadv2's RWF_HIPRI polls.
 */
TEST_F_TIMEOUT(iolat, io_uring_polled, 300)
{
	TH_LOG("fio's engine: %s", polled_engine());
	if (!access("/sys/block/nullb0/mq/2", F_OK)) {
		exact_records(_metadata, "nullb0", 20000, polled_engine());
		polled_on_poll_queues(_metadata, "nullb0");
		return;
	}
	if (access("/dev/nvme0n1", F_OK))
		SKIP(return, "nullb0 has no poll queues, and there is no NVMe drive");
	TH_LOG("nullb0 has no poll queues: polling nvme0n1's");
	ASSERT_EQ(0, nvme_unload("") || sh("modprobe nvme poll_queues=1") ||
		     wait_disk("nvme0n1"));
	/* (4.19 polls no request that went through a scheduler) */
	ASSERT_EQ(0, set_scheduler_none("nvme0n1"));
	exact_records(_metadata, "nvme0n1", 20000, polled_engine());
	polled_on_poll_queues(_metadata, "nvme0n1");
	EXPECT_EQ(0, nvme_unload("") || sh("modprobe nvme") ||
		     wait_disk("nvme0n1"));
}

struct proc_check {
	unsigned int tgid[2];
	const char *comm[2];
	long mine[2], other;
};

static void proc_row(void *arg, const struct row *r)
{
	struct proc_check *c = arg;
	int k;

	for (k = 0; k < 2; k++) {
		if (r->tgid == c->tgid[k] && !strcmp(r->comm, c->comm[k])) {
			c->mine[k]++;
			return;
		}
	}
	c->other++;
}

/* Start fio as @comm (a symlink named so) with @args; its pid. */
static pid_t fio_as(const char *comm, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "ln -sf \"$(command -v fio)\" /tmp/%s && exec /tmp/%s %s",
		 comm, comm, args);
	return spawn_sh(cmd);
}

static long long fio_total_ios(const char *path)
{
	return json_sum(slurp(path), "total_ios");
}

/*
 * Two fio processes with different names, direct I/O: every request is
 * attributed to its own process (tgid and comm, from the submitter's
 * context), none to a kworker; with a pid filter, exactly one process's
 * requests are recorded and the other's are counted as filtered.
 */
static void two_processes(struct __test_metadata *_metadata, bool filter)
{
	const char *job = "--thread --startdelay=3 --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=3000 --size=256M --eta=never --output-format=json";
	struct proc_check c = { .comm = { "fio-alpha", "fio-beta" } };
	char args[512], pidopt[32] = "";
	long long before = completed("nullb0"), ios[2];
	const char *out;
	pid_t pid[2];
	int k, st;

	for (k = 0; k < 2; k++) {
		snprintf(args, sizeof(args), "--name=%s %s --output=/tmp/%s.json",
			 c.comm[k], job, c.comm[k]);
		pid[k] = fio_as(c.comm[k], args);
		ASSERT_LT(0, pid[k]);
		c.tgid[k] = pid[k];
	}
	if (filter)
		snprintf(pidopt, sizeof(pidopt), "-p %d", pid[0]);
	/* until both have exited: they stay zombies, our children, till reaped */
	st = sh("%s trace -o csv -d nullb0 %s -- sh -c 'alive() { s=$(sed \"s/.*) //\" /proc/$1/stat 2>/dev/null | cut -c1); [ -n \"$s\" ] && [ \"$s\" != Z ]; }; while alive %d || alive %d; do sleep 0.1; done' >" CSV " 2>%s",
		env("IOLAT_CLI"), pidopt, pid[0], pid[1], ERR);
	for (k = 0; k < 2; k++)
		waitpid(pid[k], NULL, 0);
	out = slurp(ERR);
	TH_LOG("%s", out);
	ASSERT_EQ(0, st);
	ASSERT_LE(0, csv_rows(CSV, proc_row, &c));
	ios[0] = fio_total_ios("/tmp/fio-alpha.json");
	ios[1] = fio_total_ios("/tmp/fio-beta.json");
	TH_LOG("alpha %lld I/Os, %ld recorded; beta %lld, %ld recorded; others %ld; device completed %lld",
	       ios[0], c.mine[0], ios[1], c.mine[1], c.other,
	       completed("nullb0") - before);
	EXPECT_EQ(3000, ios[0]);
	EXPECT_EQ(3000, ios[1]);
	EXPECT_EQ(ios[0], c.mine[0]);
	EXPECT_EQ(filter ? 0 : ios[1], c.mine[1]);
	EXPECT_EQ(0, c.other);
	if (filter)
		EXPECT_NE(NULL, strstr(out, "3000 filtered"));
	EXPECT_EQ(ios[0] + ios[1], completed("nullb0") - before);
}

TEST_F_TIMEOUT(iolat, per_process_attribution, 300)
{
	two_processes(_metadata, false);
}

TEST_F_TIMEOUT(iolat, pid_filter_exact, 300)
{
	two_processes(_metadata, true);
}

struct op_check {
	long rows, writes, gamma;
};

static void op_row(void *arg, const struct row *r)
{
	struct op_check *c = arg;

	c->rows++;
	c->writes += !strcmp(r->op, "write");
	c->gamma += !strcmp(r->comm, "fio-gamma");
}

/* Each row's latency (first stage to completion), by device, for -m. */
struct lat_rows {
	const char *slow;	/* the device whose rows are counted apart */
	long n, slow_n, shorter;
	unsigned long long min_ns;	/* the threshold */
};

static void lat_row(void *arg, const struct row *r)
{
	struct lat_rows *l = arg;

	l->n++;
	l->slow_n += !strcmp(r->dev, l->slow);
	l->shorter += r->t[4] - row_first(r) < l->min_ns;
}

/*
 * -m at a threshold between devices' latencies, in one session: nullb0,
 * which completes at once (microseconds), and two null_blk devices whose
 * timers (0.6 ms and 2 ms) never fire early.  -m 1ms keeps every request
 * of the slow one (its timer says so), never a row shorter than 1 ms
 * (the middle one's 0.6 ms requests are just below it: a threshold
 * taken for half of it keeps them), and counts the rest filtered: most
 * of nullb0's and the middle one's (a request the guest delayed past
 * 1 ms is kept).  A threshold from another run of the same job would not
 * do: the guest's speed moves between runs (on 5.4 a whole run once lay
 * above the median of the one before).
 */
static void latency_split(struct __test_metadata *_metadata)
{
	struct lat_rows l = { .min_ns = 1000000 };
	char slow[32], mid[32], want[64], *err;
	int st;

	ASSERT_EQ(0, nullb_configfs());
	ASSERT_EQ(0, nullb_create("iolat_slow", 2000000, slow, sizeof(slow)));
	ASSERT_EQ(0, nullb_create("iolat_mid", 600000, mid, sizeof(mid)));
	l.slow = slow;
	st = sh("%s trace -o csv -d nullb0 -d %s -d %s -m 1ms -- sh -c '"
		"fio --name=f --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=500 --size=64M --output=/dev/null & "
		"fio --name=m --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=100 --size=64M --output=/dev/null & "
		"fio --name=s --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=100 --size=64M --output=/dev/null; wait' >" CSV " 2>%s",
		env("IOLAT_CLI"), slow, mid, mid, slow, ERR);
	err = slurp(ERR);
	nullb_remove("iolat_slow");
	nullb_remove("iolat_mid");
	ASSERT_EQ(0, st) TH_LOG("%s", err);
	ASSERT_LE(0, csv_rows(CSV, &lat_row, &l));
	TH_LOG("-m 1ms: %ld of 700 kept, %ld of them %s's, %ld shorter; %s",
	       l.n, l.slow_n, slow, l.shorter, err);
	EXPECT_EQ(0, l.shorter);
	EXPECT_EQ(100, l.slow_n);
	EXPECT_GT(600, l.n);
	snprintf(want, sizeof(want), " %ld filtered", 700 - l.n);
	EXPECT_NE(NULL, strstr(err, want));
}

/*
 * The op and comm filters keep exactly the writes of fio-gamma; a
 * minimum latency of 10 s keeps nothing; one between two devices'
 * latencies splits their requests (latency_split()).  What they drop is
 * counted.
 */
TEST_F_TIMEOUT(iolat, op_comm_latency_filters, 300)
{
	const char *job = "--name=g --filename=/dev/nullb0 --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=2000 --size=64M --eta=never --output-format=json --output=/tmp/fio-gamma.json";
	struct op_check c = { 0 };
	long long w0 = completed_writes("nullb0"), writes, fio_ios;
	char want[64];
	const char *err;
	int st, n;

	st = sh("ln -sf \"$(command -v fio)\" /tmp/fio-gamma && %s trace -o csv -d nullb0 --op write -c fio-gamma -- /tmp/fio-gamma %s >" CSV " 2>%s",
		env("IOLAT_CLI"), job, ERR);
	err = slurp(ERR);
	TH_LOG("%s", err);
	ASSERT_EQ(0, st);
	ASSERT_LE(0, csv_rows(CSV, op_row, &c));
	writes = completed_writes("nullb0") - w0;
	fio_ios = json_sum(slurp("/tmp/fio-gamma.json"), "total_ios");
	TH_LOG("%ld records, %ld writes, %ld by fio-gamma; fio %lld I/Os, device %lld writes",
	       c.rows, c.writes, c.gamma, fio_ios, writes);
	EXPECT_EQ(2000, fio_ios);
	EXPECT_LT(0, writes);
	EXPECT_EQ(writes, c.rows);
	EXPECT_EQ(c.rows, c.writes);
	EXPECT_EQ(c.rows, c.gamma);
	snprintf(want, sizeof(want), "%lld filtered", fio_ios - writes);
	EXPECT_NE(NULL, strstr(err, want));

	st = sh("%s trace -o csv -d nullb0 -m 10s -- fio %s >" CSV " 2>%s",
		env("IOLAT_CLI"), job, ERR);
	err = slurp(ERR);
	TH_LOG("%s", err);
	ASSERT_EQ(0, st);
	n = csv_rows(CSV, op_row, &c);
	EXPECT_EQ(0, n);
	EXPECT_NE(NULL, strstr(err, " 0 requests traced"));
	EXPECT_NE(NULL, strstr(err, "2000 filtered"));

	latency_split(_metadata);
}

/* The rows' submitters, for the -p and --tid filters. */
struct who_rows {
	long rows, other_tgid;
	unsigned int pids[8];	/* distinct pids (thread ids) seen */
	unsigned int nr_pids;
	unsigned int tgid;	/* the process wanted */
};

static void who_row(void *arg, const struct row *r)
{
	struct who_rows *w = arg;
	unsigned int i;

	w->rows++;
	w->other_tgid += r->tgid != w->tgid;
	for (i = 0; i < w->nr_pids && w->pids[i] != r->pid; i++)
		;
	if (i == w->nr_pids && w->nr_pids < 8)
		w->pids[w->nr_pids++] = r->pid;
}

/*
 * -p takes a process, --tid one of its threads: fio with two job
 * threads (--thread) reading nullb0.  -p FIO keeps the reads of both
 * threads and no other process's; --tid, of one of them (which /proc
 * lists as fio's), keeps exactly its reads.
 */
TEST_F_TIMEOUT(iolat, pid_and_tid_filters, 300)
{
	struct who_rows w = { 0 };
	unsigned int tid;
	pid_t fio;
	int i, st;

	/* 200 reads/s a thread: every record fits the buffers */
	fio = spawn_sh("exec fio --thread --numjobs=2 --name=t --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --rate_iops=200 --time_based --runtime=60 --size=64M --eta=never --output=/dev/null");
	ASSERT_LT(0, fio);
	/* fio's main thread and its two job threads (and its helper) */
	for (i = 0; i < 300; i++) {
		if (!sh("test $(ls /proc/%d/task | wc -l) -ge 3", fio))
			break;
		usleep(100000);
	}
	ASSERT_GT(300, i);
	usleep(500000);

	st = sh("%s trace -o csv -d nullb0 -p %d -t 1 >" CSV " 2>" ERR,
		env("IOLAT_CLI"), fio);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	w.tgid = fio;
	ASSERT_LE(0, csv_rows(CSV, who_row, &w));
	TH_LOG("-p %d: %ld rows, %u threads, %ld of another process", fio,
	       w.rows, w.nr_pids, w.other_tgid);
	EXPECT_LT(0, w.rows);
	EXPECT_EQ(0, w.other_tgid);
	EXPECT_EQ(2, w.nr_pids);
	/* a thread that read, which /proc lists as one of fio's */
	tid = w.pids[0];
	ASSERT_NE((unsigned int)fio, tid);
	ASSERT_EQ(0, sh("test -d /proc/%d/task/%u", fio, tid));

	memset(&w, 0, sizeof(w));
	w.tgid = fio;
	st = sh("%s trace -o csv -d nullb0 --tid %u -t 1 >" CSV " 2>" ERR,
		env("IOLAT_CLI"), tid);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LE(0, csv_rows(CSV, who_row, &w));
	TH_LOG("--tid %u: %ld rows, %u threads (first %u), %ld of another process",
	       tid, w.rows, w.nr_pids, w.pids[0], w.other_tgid);
	kill(-fio, SIGKILL);
	waitpid(fio, NULL, 0);
	EXPECT_LT(0, w.rows);
	EXPECT_EQ(0, w.other_tgid);
	EXPECT_EQ(1, w.nr_pids);
	EXPECT_EQ(tid, w.pids[0]);
}

/* The rows' requeues, and the rows requeued. */
struct requeue_rows {
	long rows, requeued, requeues;
};

static void requeue_row(void *arg, const struct row *r)
{
	struct requeue_rows *q = arg;

	q->rows++;
	q->requeued += r->requeues > 0;
	q->requeues += r->requeues;
}

/*
 * Requests the driver gives back (R): a null_blk device throttled to
 * 1 MB/s (its mbps attribute: 20 KiB every 20 ms) returns the requests
 * over its budget to blk-mq, which requeues them (4 KiB writes at depth
 * 8: a request larger than the budget would never pass).  Each record's requeues, summed, are
 * blktrace's R events of the same run, and the device's requests are
 * the rows.
 */
TEST_F_TIMEOUT(iolat, requeues_against_blktrace, 300)
{
	struct requeue_rows q = { 0 };
	char disk[32], path[256];
	long long before, done, r_events;

	if (sh("command -v blktrace >/dev/null && command -v blkparse >/dev/null"))
		SKIP(return, "blktrace is not installed");
	ASSERT_EQ(0, nullb_configfs());
	nullb_remove("iolat_rq");
	ASSERT_EQ(0, sh("mkdir -p /sys/kernel/config/nullb/iolat_rq"));
	if (access("/sys/kernel/config/nullb/iolat_rq/mbps", F_OK)) {
		nullb_remove("iolat_rq");
		SKIP(return, "this null_blk has no bandwidth limit (mbps): nothing to requeue");
	}
	ASSERT_EQ(0, nullb_make("iolat_rq", "mbps=1 irqmode=2 completion_nsec=20000 size=1024", disk, sizeof(disk)));
	ASSERT_EQ(0, wait_disk(disk));
	before = completed(disk);
	snprintf(path, sizeof(path),
		 "fio --name=r --filename=/dev/%s --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=8 --number_ios=200 --size=512M --eta=never --output=/dev/null",
		 disk);
	ASSERT_EQ(0, trace_with_blktrace(disk, path)) TH_LOG("%s", slurp(ERR));
	done = completed(disk) - before;
	ASSERT_LE(0, csv_rows(CSV, requeue_row, &q));
	r_events = (long long)sh_number("awk '$6 == \"R\"' " BT "/bt.txt | wc -l%s", "");
	TH_LOG("%s: %ld rows (device %lld), %ld requeued, %ld requeues; blktrace %lld R",
	       disk, q.rows, done, q.requeued, q.requeues, r_events);
	nullb_remove("iolat_rq");
	EXPECT_EQ(done, q.rows);
	EXPECT_LT(0, r_events);
	EXPECT_EQ(r_events, q.requeues);
}

/*
 * The queue depths of each record against blktrace's events of the same
 * run (tests/kselftest/qd_vs_blktrace.py replays them): a null_blk device
 * of one hardware queue, four driver tags and a 1 ms timer, under
 * mq-deadline, read at depth 16, so that requests wait in the scheduler
 * (qd_insert up to 7: the elevator holds twice the driver's tags) and at
 * the driver (qd_issue up to 3).  Merges are off (nomerges 2): a bio
 * merged in front of a waiting request moves its sector, which the
 * replay pairs by, and two random reads of adjacent blocks among the
 * waiting eight met often enough to fail one run in seven.
 */
TEST_F_TIMEOUT(iolat, queue_depths_against_blktrace, 300)
{
	char disk[32], path[256];
	int st;

	if (sh("command -v blktrace >/dev/null && command -v blkparse >/dev/null"))
		SKIP(return, "blktrace is not installed");
	ASSERT_EQ(0, nullb_configfs());
	ASSERT_EQ(0, nullb_make("iolat_qd", "irqmode=2 completion_nsec=1000000 submit_queues=1 hw_queue_depth=4 size=1024", disk, sizeof(disk)));
	ASSERT_EQ(0, wait_disk(disk));
	sh("modprobe mq-deadline 2>/dev/null");
	ASSERT_EQ(0, sh("echo mq-deadline >/sys/block/%s/queue/scheduler", disk));
	ASSERT_EQ(0, sh("echo 2 >/sys/block/%s/queue/nomerges", disk));
	snprintf(path, sizeof(path),
		 "fio --name=qd --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --number_ios=1000 --size=512M --eta=never --output=/dev/null",
		 disk);
	st = trace_with_blktrace(disk, path);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	if (!st) {
		st = sh("python3 " IOLAT_KSFT_DIR "/qd_vs_blktrace.py " BT "/bt.txt " CSV " >" OUT " 2>&1");
		TH_LOG("%s", slurp(OUT));
		EXPECT_EQ(0, st);
	}
	nullb_remove("iolat_qd");
}

/*
 * `trace -o json` against `trace -o csv` of the same requests: two
 * sessions at once, the CSV one around the JSON one, both on nullb0
 * while fio's 500 reads and writes run; tests/kselftest/json_vs_csv.py
 * parses every JSON line and pairs the requests one to one, every field
 * equal but the times each session's probes take themselves.  Those are
 * checked by their order, not within a tolerance (under TCG on a busy
 * host the vCPU can be descheduled between the two sessions' probes of
 * one event for longer than any bound): the CSV session's probe runs
 * first, so each JSON stamp lies between the CSV's of the same stage and
 * of the next.  The queue depths too are each session's own count at its
 * probe, which a completion on another CPU or in a softirq between the
 * two probes changes for one of them: 90% of them must agree.  The
 * kernel's count of the device's requests is the rows'.
 */
TEST_F_TIMEOUT(iolat, trace_json_matches_csv, 300)
{
	long long before = completed("nullb0"), done;
	int st;

	st = sh("%s trace -o csv -d nullb0 -- sh -c '%s trace -o json -d nullb0 -- fio --name=j --filename=/dev/nullb0 --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=500 --size=64M --eta=never --output=/dev/null >/tmp/iolat_trace.jsonl 2>/tmp/iolat_trace.jerr' >" CSV " 2>%s",
		env("IOLAT_CLI"), env("IOLAT_CLI"), ERR);
	ASSERT_EQ(0, st) TH_LOG("%s %s", slurp(ERR), slurp("/tmp/iolat_trace.jerr"));
	done = completed("nullb0") - before;
	TH_LOG("nullb0 completed %lld requests", done);
	EXPECT_EQ(done, sh_number("wc -l </tmp/iolat_trace.jsonl%s", ""));
	st = sh("python3 " IOLAT_KSFT_DIR "/json_vs_csv.py /tmp/iolat_trace.jsonl " CSV " >" OUT " 2>&1");
	TH_LOG("%s", slurp(OUT));
	EXPECT_EQ(0, st);
}

/*
 * I/O on null_blk and on the NVMe drive at once, tracing null_blk only:
 * exactly its requests are recorded (the CLI fails on any other).
 */
TEST_F_TIMEOUT(iolat, device_filter_exact, 300)
{
	long long before, delivered;
	const char *out;
	int st;

	if (access("/dev/nvme0n1", F_OK))
		SKIP(return, "no NVMe drive in this guest");
	before = completed("nullb0");
	st = sh("%s record -o json -d nullb0 -- sh -c 'fio --name=n --filename=/dev/nvme0n1 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=2000 --size=64M --eta=never --output=/dev/null & fio --name=b --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=3000 --size=64M --eta=never --output=/dev/null; wait' >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	out = slurp(OUT);
	TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, st);
	delivered = json_sum(out, "delivered");
	EXPECT_EQ(completed("nullb0") - before, delivered);
	EXPECT_EQ(3000, delivered);
	EXPECT_EQ(0, json_sum(out, "dropped"));
}

/*
 * A recorder ended by SIGHUP (an ssh session that drops) or SIGTERM
 * writes its summary and a whole file, which report reads with exit 0;
 * one killed with SIGKILL leaves a file that report reads up to the last
 * second's flush, with a warning and exit 1 (a 0-byte file).
 */
TEST_F_TIMEOUT(iolat, record_file_survives_signals, 300)
{
	static const int sigs[] = { SIGHUP, SIGTERM, SIGKILL };
	char cmd[512], *err;
	unsigned int i;
	pid_t cli;
	int st;

	for (i = 0; i < 3; i++) {
		unlink("/tmp/iolat_sig.rec");
		snprintf(cmd, sizeof(cmd),
			 "exec %s record -d nullb0 -w /tmp/iolat_sig.rec -o json >%s 2>%s",
			 env("IOLAT_CLI"), OUT, ERR);
		cli = spawn_tracing(cmd, 60);
		ASSERT_LT(0, cli) TH_LOG("%s", slurp(ERR));
		/* 2 s of reads: the file was flushed at least once */
		ASSERT_EQ(0, sh("fio --name=s --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=2 --time_based --size=64M --eta=never --output=/dev/null"));
		kill(cli, sigs[i]);
		ASSERT_EQ(0, wait_for(cli, 60, &st));
		st = sh("%s report -o json /tmp/iolat_sig.rec >%s.report 2>%s.report",
			env("IOLAT_CLI"), OUT, ERR);
		err = slurp(ERR ".report");
		TH_LOG("signal %d: report exit %d, %lld records; %s", sigs[i], st,
		       (long long)json_num(strstr(slurp(OUT ".report"), "\"Q2C\""), "count"),
		       err);
		EXPECT_LT(0, json_num(strstr(slurp(OUT ".report"), "\"Q2C\""), "count"));
		if (sigs[i] == SIGKILL) {
			/* cut at the last flush, or in a block stdio wrote */
			EXPECT_EQ(1, st);
			EXPECT_NE(NULL, strstr(err, "iolat: warning: /tmp/iolat_sig.rec "));
			EXPECT_NE(NULL, strstr(err, " bytes from there on are lost"));
		} else {
			EXPECT_EQ(0, st) TH_LOG("%s", err);
			/* the live summary is there, and the file says the same */
			EXPECT_EQ(json_sum(slurp(OUT), "delivered"),
				  json_sum(slurp(OUT ".report"), "delivered"));
			EXPECT_LT(0, json_sum(slurp(OUT), "delivered"));
		}
		free(err);
	}
}

/*
 * record --save-only writes the records to the file and nothing else:
 * no report on its output, a line saying how many were saved, and the
 * file holds every read fio did (the device's only I/O), which report
 * reads back.  Without -w it is refused.
 */
TEST_F_TIMEOUT(iolat, record_save_only, 180)
{
	char *out, *err;

	unlink("/tmp/iolat_save.rec");
	ASSERT_EQ(0, sh("%s record -d nullb0 -w /tmp/iolat_save.rec --save-only -- fio --name=s --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=3000 --size=64M --eta=never --output=/dev/null >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR)) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	err = slurp(ERR);
	EXPECT_STREQ("", out);
	EXPECT_NE(NULL, strstr(err, "iolat: 3000 records saved to /tmp/iolat_save.rec, 0 dropped"))
		TH_LOG("%s", err);
	ASSERT_EQ(0, sh("%s report -o json /tmp/iolat_save.rec >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR)) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(3000, json_num(strstr(slurp(OUT), "\"Q2C\""), "count"));
	EXPECT_EQ(2, sh("%s record -d nullb0 --save-only -t 1 >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR));
	EXPECT_NE(NULL, strstr(slurp(ERR), "--save-only needs -w FILE"));
	free(out);
	free(err);
}

/*
 * trace's CSV and JSON carry the wall clock (no anchor to join
 * other logs by): c_real_ns, the completion on CLOCK_REALTIME, within a
 * minute of the guest's own clock, in every row of both.
 */
TEST_F_TIMEOUT(iolat, trace_wall_clock, 120)
{
	struct timespec ts;
	double now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec * 1e9 + ts.tv_nsec;
	ASSERT_EQ(0, sh("%s trace -o csv -d nullb0 -- dd if=/dev/nullb0 of=/dev/null bs=4k count=8 iflag=direct >%s 2>%s",
			env("IOLAT_CLI"), CSV, ERR)) TH_LOG("%s", slurp(ERR));
	/* the last column, by its header's name */
	EXPECT_EQ(0, sh("awk -F, -v now=%.0f 'NR == 1 { if ($(NF-1) != \"c_real_ns\") exit 1; next } { n++; d = $(NF-1) - now; if (d < -60e9 || d > 60e9) exit 1 } END { exit !(n >= 8) }' %s",
			now, CSV)) TH_LOG("%s", slurp(CSV));
	ASSERT_EQ(0, sh("%s trace -o json -d nullb0 -- dd if=/dev/nullb0 of=/dev/null bs=4k count=8 iflag=direct >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR)) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("/usr/bin/python3 -c 'import json, sys\n"
			"rows = [json.loads(l) for l in open(\"%s\")]\n"
			"ok = len(rows) >= 8 and all(abs(r[\"c_real_ns\"] - %.0f) < 60e9 and r[\"c_real_ns\"] - r[\"c_ns\"] == rows[0][\"c_real_ns\"] - rows[0][\"c_ns\"] for r in rows)\n"
			"sys.exit(0 if ok else 1)'", OUT, now)) TH_LOG("%s", slurp(OUT));
}

/*
 * `iolat trace | grep` is live: into a pipe, each request's
 * line arrives while the trace runs, not at its exit.  The trace runs
 * for 600 s; the reads' lines must come through the pipe long before,
 * within 60 s (they come in as many drains as the reads took: counting
 * at the first line's arrival saw 2 of the 9 lines on a busy host).
 */
TEST_F_TIMEOUT(iolat, trace_live_in_a_pipe, 300)
{
	char cmd[512];
	pid_t cli;
	int st, lines, i;

	unlink(CSV);
	snprintf(cmd, sizeof(cmd),
		 "exec %s trace -o csv -d nullb0 -t 600 2>%s | exec cat >%s",
		 env("IOLAT_CLI"), ERR, CSV);
	cli = spawn_tracing(cmd, 30);
	ASSERT_LT(0, cli) TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, sh("dd if=/dev/nullb0 of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null"));
	EXPECT_EQ(0, wait_text(CSV, "nullb0", 60));
	for (i = 0; (lines = count_lines(slurp(CSV))) < 1 + 8 && i < 600; i++)
		usleep(100000);
	EXPECT_EQ(-1, wait_for(cli, 0, &st)) TH_LOG("the trace ended early");
	sh("pkill -INT -x iolat");
	EXPECT_EQ(cli, waitpid(cli, &st, 0));
	TH_LOG("%d lines through the pipe while tracing", lines);
	EXPECT_LE(1 + 8, lines);
}

IOLAT_HARNESS_MAIN
