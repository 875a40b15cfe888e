// SPDX-License-Identifier: GPL-2.0
/*
 * What a production machine does to iolat: an unprivileged user refused,
 * the module unloaded under a streaming session, loaded
 * and unloaded under load with its CLI killed at random points, devices
 * removed while traced, buffers far too small, a user namespace, and a
 * CLI of another ABI.  Every test ends with the kernel log checked for
 * reports; on a kernel with kmemleak (the debug kernel), the module's
 * life cycles end with a leak scan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>
#include <sys/wait.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/iolat.h>
#include "helpers.h"
#include "kselftest_harness.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"
#define SUMMARY "/tmp/iolat_life.json"
#define NULLB_CFS "/sys/kernel/config/nullb"

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Start a background fio on @dev, at @iops (0: as fast as it goes); its
 * process group is killed by stop_fio().
 */
static pid_t start_fio(const char *dev, const char *name, int secs, int iops)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "exec fio --name=%s --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=%d --rate_iops=%d --eta=never --output=/dev/null 2>/dev/null",
		 name, dev, secs, iops);
	return spawn_sh(cmd);
}

static void stop_fio(pid_t pid, const char *name)
{
	int st;

	if (pid <= 0)
		return;
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* fio's job process may outlive its parent: no I/O may be left */
	sh("pkill -KILL -f -- --name=%s; while pgrep -f -- --name=%s >/dev/null; do sleep 0.1; done",
	   name, name);
}

/* the NVMe controller's PCI address, if the guest has one */
static char nvme_pci[64];

FIXTURE(life) {
};

FIXTURE_SETUP(life)
{
	char *p;

	if (sh("command -v fio >/dev/null") != 0)
		SKIP(return, "fio is not installed");
	/*
	 * A test the harness ended at its timeout leaves its CLI (its own
	 * process group), stopped if it was overload_exact_drops', holding
	 * a session: gone before the next, which would find no room.
	 */
	sh("pkill -KILL -x iolat; pkill -KILL -x fio; true");
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, nullb0_ready(NULL));
	nvme_pci[0] = '\0';
	p = NULL;
	if (!sh("basename \"$(readlink -f /sys/class/nvme/nvme0/device)\" >%s 2>/dev/null",
		OUT))
		p = slurp(OUT);
	if (p && strchr(p, ':'))
		snprintf(nvme_pci, sizeof(nvme_pci), "%.*s",
			 (int)strcspn(p, "\n"), p);
	free(p);
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(life)
{
	const char *cli = strrchr(env("IOLAT_CLI"), '/');

	/* a test that failed half-way leaves no fio and no CLI behind */
	sh("pkill -KILL -f -- '--name=(life|over|both)'; while pgrep -f -- '--name=(life|over|both)' >/dev/null; do sleep 0.1; done");
	cli = cli ? cli + 1 : env("IOLAT_CLI");
	/* at most 10 s: a CLI stuck in the kernel is not waited for */
	sh("pkill -KILL -x '%.15s'; for i in $(seq 100); do pgrep -x '%.15s' >/dev/null || break; sleep 0.1; done",
	   cli, cli);
	/* a controller a failed test removed comes back for the next suite */
	if (nvme_pci[0])
		sh("test -e /sys/bus/pci/devices/%s || { echo 1 >/sys/bus/pci/rescan; udevadm settle 2>/dev/null; }",
		   nvme_pci);
	module_load();
	EXPECT_EQ(0, dmesg_bad_reports());
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

TEST_F_TIMEOUT(life, unprivileged_gets_eperm, 300)
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
 * 10 times (IOLAT_UNLOAD_ROUNDS): load the module, stream records to
 * the CLI (--copy: through READ, the rings not mapped) while fio runs,
 * and rmmod under it, 0 to 600 ms after the CLI
 * said it was tracing (each delay twice, in 5 rounds once; a round takes
 * 5 to 14 s under TCG, its load, start and rmmod alike).  The CLI must end with one clear error, never hang,
 * and the kernel must stay clean (checked by the teardown); its
 * --summary is written all the same, marked incomplete.
 */
TEST_F_TIMEOUT(life, unload_while_streaming, 900)
{
	int rounds = getenv("IOLAT_UNLOAD_ROUNDS") ?
		     atoi(getenv("IOLAT_UNLOAD_ROUNDS")) : 10;
	char cmd[512];
	pid_t fio, cli;
	int i, st;

	ASSERT_LT(0, rounds);
	snprintf(cmd, sizeof(cmd),
		 "exec fio --name=bg --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --time_based --runtime=600 --eta=never --output=/dev/null");
	fio = spawn_sh(cmd);
	ASSERT_LT(0, fio);
	for (i = 0; i < rounds; i++) {
		ASSERT_EQ(0, module_load());
		unlink(ERR);
		unlink("/tmp/iolat_unload.json");
		snprintf(cmd, sizeof(cmd), "exec %s record --copy -d nullb0 --summary /tmp/iolat_unload.json >/dev/null 2>%s",
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

/*
 * A CLI that maps its session's rings (/dev/iolat) holds the module:
 * rmmod under it is refused and changes nothing, the CLI ends cleanly
 * with every record (3000 written and delivered, none dropped), and
 * the module unloads once it is gone.
 */
TEST_F_TIMEOUT(life, unload_refused_while_mapped, 300)
{
	const char *sum;
	char cmd[512];
	pid_t cli;
	int st;

	unlink(ERR);
	/* 3000 reads at 1000 a second: the CLI ends with fio */
	snprintf(cmd, sizeof(cmd), "exec %s record -d nullb0 --summary /tmp/iolat_mapped.json -- fio --name=mapped --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=psync --number_ios=3000 --rate_iops=1000 --eta=never --output=/dev/null >/dev/null 2>%s",
		 env("IOLAT_CLI"), ERR);
	cli = spawn_sh(cmd);
	ASSERT_LT(0, cli);
	ASSERT_EQ(0, wait_text(ERR, "iolat: tracing", 60))
		TH_LOG("the CLI never started: %s", slurp(ERR));
	ASSERT_EQ(0, sh("grep -q ' iolat$' /proc/misc"));
	EXPECT_NE(0, sh("rmmod iolat 2>" OUT));
	EXPECT_NE(NULL, strstr(slurp(OUT), "in use")) TH_LOG("rmmod: %s", slurp(OUT));
	EXPECT_TRUE(module_loaded());
	ASSERT_EQ(0, wait_for(cli, 240, &st)) TH_LOG("the CLI did not end");
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("CLI status %#x, stderr: %s", st, slurp(ERR));
	sum = slurp("/tmp/iolat_mapped.json");
	TH_LOG("summary: %.300s", sum);
	EXPECT_NE(NULL, strstr(sum, "{\"incomplete\":false,"));
	/* fio's 3000 and no other I/O on nullb0: every one delivered */
	EXPECT_EQ(0, sh("python3 -c 'import json,sys; s=json.load(open(\"/tmp/iolat_mapped.json\")); sys.exit(not (s[\"written\"] == 3000 and s[\"delivered\"] == 3000 and s[\"dropped\"] == 0))'"))
		TH_LOG("not 3000 written and delivered: %s", sum);
	EXPECT_EQ(0, module_unload());
	ASSERT_EQ(0, module_load());
}

/*
 * kmemleak's unreferenced objects: in @control those of the control
 * module (its 0xa5 fill in the hex dump), and returned, those iolat
 * allocated: a backtrace through iolat, or through a module no longer
 * loaded (its addresses no longer resolve to a symbol: iolat's of an
 * earlier cycle).  The reports go to stderr; -1 if kmemleak failed.
 */
static int kmemleak_iolat_reports(struct __test_metadata *_metadata,
				  int *control)
{
	char *n;
	int all, ours;

	if (sh("echo scan >" KMEMLEAK " && echo scan >" KMEMLEAK " && "
	       "awk 'function flush() { if (o ~ /a5 a5 a5 a5 a5 a5 a5 a5/) c++; "
	       "else if (o ~ /iolat|\\] 0x/) n++; o = \"\" } "
	       "/^unreferenced object/ { all++; flush() } { o = o $0 \"\\n\" } "
	       "END { flush(); print all + 0, n + 0, c + 0 }' "
	       KMEMLEAK " >%s && cat " KMEMLEAK " >&2", OUT))
		return -1;
	n = slurp(OUT);
	if (!n || sscanf(n, "%d %d %d", &all, &ours, control) != 3)
		return -1;
	TH_LOG("kmemleak: %d unreferenced objects since the cycles began: %d of them iolat's, %d the control's",
	       all, ours, *control);
	return ours;
}

/*
 * 20 cycles (IOLAT_LIFE_CYCLES) of load, trace under fio, unload, with
 * the CLI streaming and killed with SIGKILL at a random point: before,
 * during or after the unload.  The CLI never hangs, the module always
 * unloads, nothing leaks (kmemleak, where the kernel has it), no kernel
 * report.  Each kill point comes about seven times on a kernel that
 * runs every test, twice on one of tests/kernels/paths.tests (6
 * cycles), some 30 times a make check; more for a soak by hand (a cycle
 * takes about a second, nine under the debug kernel).
 */
TEST_F_TIMEOUT(life, module_cycles_cli_killed, 1800)
{
	unsigned int seed = getenv("IOLAT_LIFE_SEED") ?
			    strtoul(getenv("IOLAT_LIFE_SEED"), NULL, 0) :
			    (unsigned int)time(NULL);
	int cycles = getenv("IOLAT_LIFE_CYCLES") ?
		     atoi(getenv("IOLAT_LIFE_CYCLES")) : 20;
	bool leaks = !access(KMEMLEAK, F_OK);
	int i, st, kill_first = 0, leaked, control = -1;
	char cmd[512];
	pid_t fio, cli;

	ASSERT_LT(0, cycles);
	TH_LOG("%d cycles, seed %u (IOLAT_LIFE_SEED replays it); kmemleak %s",
	       cycles, seed,
	       leaks ? "on" : "not in this kernel: leaks are the debug kernel's to find");
	srand(seed);
	/*
	 * kmemleak must show that it finds a leak: the control module
	 * (tests/kmemleak-probe) leaks one object and goes, as iolat would
	 */
	if (leaks)
		ASSERT_EQ(0, sh("echo clear >" KMEMLEAK " && insmod \"$(dirname %s)/kmemleak-probe/kmemleak_probe.ko\" && rmmod kmemleak_probe",
				env("IOLAT_KO")));
	/*
	 * 2000 I/O a second: a CLI writing CSV under TCG keeps up, so its
	 * drains leave the module free most of the time.  A CLI that falls
	 * behind drains without a pause, each READ dump holding a module
	 * reference, and rmmod (O_NONBLOCK) can then miss the gaps for
	 * seconds (seen: cycle 95 of a run at full speed).  Full speed is
	 * overload_exact_drops's.
	 */
	fio = start_fio("nullb0", "life", 1500, 2000);
	ASSERT_LT(0, fio);
	for (i = 0; i < cycles; i++) {
		int when = rand() % 3;

		ASSERT_EQ(0, module_load()) TH_LOG("cycle %d", i);
		unlink(ERR);
		/*
		 * A CLI that maps the rings holds the module (rmmod is
		 * refused, unload_refused_while_mapped): one that outlives
		 * the unload takes its records through READ
		 */
		snprintf(cmd, sizeof(cmd), "exec %s %s%s -d nullb0 >/dev/null 2>%s",
			 env("IOLAT_CLI"), i % 2 ? "trace -o csv" : "record -w /tmp/iolat_life.rec",
			 when == 2 ? " --copy" : "", ERR);
		cli = spawn_sh(cmd);
		ASSERT_LT(0, cli);
		/* when 0, killed while it may still be starting */
		if (when)
			ASSERT_EQ(0, wait_text(ERR, "iolat: tracing", 60))
				TH_LOG("cycle %d: the CLI never started: %s", i,
				       slurp(ERR));
		usleep(rand() % 300000);
		if (when != 2) {
			kill(-cli, SIGKILL);
			kill_first++;
		}
		ASSERT_EQ(0, module_unload())
			TH_LOG("cycle %d: iolat would not unload", i);
		if (when == 2) {
			usleep(rand() % 100000);
			kill(-cli, SIGKILL);
		}
		ASSERT_EQ(0, wait_for(cli, 30, &st))
			TH_LOG("cycle %d: the CLI outlived SIGKILL", i);
	}
	stop_fio(fio, "life");
	TH_LOG("%d cycles, the CLI killed before the unload in %d", cycles,
	       kill_first);
	if (leaks) {
		sleep(6);	/* kmemleak reports objects older than 5 s */
		leaked = kmemleak_iolat_reports(_metadata, &control);
		EXPECT_EQ(1, control) TH_LOG("kmemleak did not find the control's leak");
		EXPECT_EQ(0, leaked) TH_LOG("kmemleak: objects iolat leaked (above)");
	}
}

/* The module's sessions now, from `iolat info`; -1 if it did not say. */
static int sessions_now(void)
{
	unsigned int n;
	const char *s;

	if (sh("%s info >%s 2>&1", env("IOLAT_CLI"), OUT))
		return -1;
	s = strstr(slurp(OUT), "sessions: ");
	return s && sscanf(s, "sessions: %u,", &n) == 1 ? (int)n : -1;
}

/*
 * The flight recorder (iolat watch) killed with SIGKILL, armed and then
 * triggered (a window being kept, --after not yet over): its session
 * goes with its socket, the module holds no session, and (under
 * kmemleak, the debug kernel) nothing it allocated is left behind.
 */
TEST_F_TIMEOUT(life, watch_killed_frees_all, 300)
{
	static const char *const how[] = {
		"--slower-than 10s",			/* armed, never triggered */
		"--slower-than 1us --after 600",	/* triggered, kept */
	};
	bool leaks = !access(KMEMLEAK, F_OK);
	int i, st, n, control = -1;
	char cmd[512];
	pid_t fio, cli;

	if (leaks)
		ASSERT_EQ(0, sh("echo clear >" KMEMLEAK));
	fio = start_fio("nullb0", "life", 300, 500);
	ASSERT_LT(0, fio);
	for (i = 0; i < 2; i++) {
		unlink(ERR);
		snprintf(cmd, sizeof(cmd), "exec %s watch -d nullb0 %s -w /tmp/iolat_watch_life >/dev/null 2>%s",
			 env("IOLAT_CLI"), how[i], ERR);
		cli = spawn_sh(cmd);
		ASSERT_LT(0, cli);
		ASSERT_EQ(0, wait_text(ERR, "iolat: watching", 60))
			TH_LOG("%s: the CLI never started: %s", how[i], slurp(ERR));
		usleep(500000);
		EXPECT_EQ(1, sessions_now()) TH_LOG("%s: %s", how[i], slurp(OUT));
		kill(-cli, SIGKILL);
		ASSERT_EQ(0, wait_for(cli, 30, &st))
			TH_LOG("%s: the CLI outlived SIGKILL", how[i]);
		/* the socket's release frees the session (a guard, not a measure) */
		for (n = 0; n < 300 && sessions_now(); n++)
			usleep(100000);
		EXPECT_EQ(0, sessions_now()) TH_LOG("%s: %s", how[i], slurp(OUT));
		TH_LOG("%s: killed; the module after: %s", how[i], slurp(OUT));
	}
	stop_fio(fio, "life");
	ASSERT_EQ(0, module_unload());
	if (leaks) {
		sleep(6);	/* kmemleak reports objects older than 5 s */
		EXPECT_EQ(0, kmemleak_iolat_reports(_metadata, &control))
			TH_LOG("kmemleak: objects iolat leaked (above)");
	}
	ASSERT_EQ(0, module_load());
}

/* The stderr of a session, and its status, into @err. */
static int session_wait(pid_t cli, char **err)
{
	int st;

	if (wait_for(cli, 120, &st)) {
		kill(-cli, SIGKILL);
		waitpid(cli, &st, 0);
		st = -1;
	}
	*err = slurp(ERR);
	return st;
}

struct after {
	const char *dev;
	unsigned long long since;
	long long n;
};

static void count_after(void *arg, const struct row *r)
{
	struct after *a = arg;

	if (!strcmp(r->dev, a->dev) && r->t[4] > a->since)
		a->n++;
}

/* Remove or add back the device of a removal test: 0 or -1. */
static int nullb_gone(struct __test_metadata *_metadata, bool add, char *disk)
{
	if (add)
		return nullb_create("lifegone", 20000, disk, 32);
	nullb_remove("lifegone");
	return access("/sys/kernel/config/nullb/lifegone", F_OK) ? 0 : -1;
}

static int nvme_gone(struct __test_metadata *_metadata, bool add, char *disk)
{
	if (add)
		return sh("echo 1 >/sys/bus/pci/rescan") || wait_disk("nvme0n1");
	return sh("echo 1 >/sys/bus/pci/devices/%s/remove", nvme_pci);
}

/*
 * @disk removed by @gone while traced beside nullb0, then added back:
 * the session says it is gone and keeps tracing nullb0; the device added
 * back is traced again, by this session if it has its numbers again,
 * and by a new one in any case.
 */
static void removed_while_traced(struct __test_metadata *_metadata,
				 char *disk,
				 int (*gone)(struct __test_metadata *, bool, char *))
{
	struct after a = { .dev = "nullb0" };
	unsigned long long removed;
	long long before, after;
	char cmd[512], name[48], *err;
	pid_t cli, f0, f1;
	int st;

	unlink(ERR);
	/* a load the CLI keeps up with, writing CSV: no record dropped */
	f0 = start_fio("nullb0", "life0", 120, 500);
	f1 = start_fio(disk, "life1", 120, 500);
	ASSERT_LT(0, f0);
	ASSERT_LT(0, f1);
	/* until SIGINT: after the device is back */
	snprintf(cmd, sizeof(cmd), "exec %s trace -o csv -d nullb0 -d %s --summary %s >%s 2>%s",
		 env("IOLAT_CLI"), disk, SUMMARY, CSV, ERR);
	cli = spawn_sh(cmd);
	ASSERT_LT(0, cli);
	ASSERT_EQ(0, wait_text(ERR, "iolat: tracing", 60)) TH_LOG("%s", slurp(ERR));
	sleep(2);
	removed = mono_ns();
	ASSERT_EQ(0, gone(_metadata, false, disk)) TH_LOG("cannot remove %s", disk);
	stop_fio(f1, "life1");
	snprintf(name, sizeof(name), "%s (", disk);
	EXPECT_EQ(0, wait_text(ERR, "was removed", 10)) TH_LOG("%s", slurp(ERR));
	sleep(3);
	ASSERT_EQ(0, gone(_metadata, true, disk)) TH_LOG("cannot add %s back", disk);
	EXPECT_EQ(0, wait_text(ERR, "is back", 10)) TH_LOG("%s", slurp(ERR));
	kill(cli, SIGINT);
	st = session_wait(cli, &err);
	stop_fio(f0, "life0");
	TH_LOG("stderr:\n%s", err);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("status %#x", st);
	EXPECT_NE(NULL, strstr(err, name));
	EXPECT_NE(NULL, strstr(err, "was removed: its requests are no longer traced; the other devices still are"));
	EXPECT_NE(NULL, strstr(err, "was removed during the session"));
	EXPECT_NE(NULL, strstr(slurp(SUMMARY), "\"removed\":true"));
	/* nullb0 was traced on, for seconds after the removal */
	a.since = removed + 2000000000ULL;
	EXPECT_LT(0, csv_rows(CSV, count_after, &a));
	EXPECT_LT(100, a.n) TH_LOG("nullb0: %lld requests 2 s after the removal", a.n);

	/* a new session traces the device added back, every request */
	sh("udevadm settle 2>/dev/null");
	before = completed(disk);
	st = sh("%s trace -o csv -d %s -- dd if=/dev/%s of=/dev/null bs=4k count=300 iflag=direct >%s 2>%s",
		env("IOLAT_CLI"), disk, disk, CSV, ERR);
	after = completed(disk);
	EXPECT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(after - before, count_lines(slurp_all(CSV)) - 1)
		TH_LOG("%s: %lld completed", disk, after - before);
	EXPECT_LE(300, after - before);
}

/* a null_blk device deleted through configfs, and made again */
TEST_F_TIMEOUT(life, null_blk_deleted_while_traced, 300)
{
	char disk[32];

	ASSERT_EQ(0, nullb_configfs());
	ASSERT_EQ(0, nullb_gone(_metadata, true, disk));
	removed_while_traced(_metadata, disk, nullb_gone);
	nullb_remove("lifegone");
}

/*
 * A disk that comes back under its numbers with more queues than the
 * session was given: the user is told, and its requests on the new
 * queue are counted as dropped (outside queue geometry), not lost.
 */
TEST_F_TIMEOUT(life, disk_back_with_more_queues, 300)
{
	char disk[32], again[32], cmd[512], attrs[64], *sum;
	const char *poll;
	pid_t cli;
	int st;

	if (sh("command -v taskset >/dev/null") || sh("test -d /sys/devices/system/cpu/cpu1"))
		SKIP(return, "one CPU, or no taskset: no request on a second queue");
	ASSERT_EQ(0, nullb_configfs());
	/* no poll queue (6.1's null_blk makes one): queue 1 is a CPU's */
	poll = sh("cd " NULLB_CFS " && mkdir lifeprobe && test -e lifeprobe/poll_queues; "
		  "st=$?; rmdir lifeprobe; exit $st") ? "" : " poll_queues=0";
	snprintf(attrs, sizeof(attrs), "submit_queues=1 size=64%s", poll);
	ASSERT_EQ(0, nullb_make("lifeq", attrs, disk, sizeof(disk)));
	snprintf(cmd, sizeof(cmd), "exec %s record -o json -d %s --summary %s >/dev/null 2>" ERR,
		 env("IOLAT_CLI"), disk, SUMMARY);
	cli = spawn_tracing(cmd, 120);
	ASSERT_LT(0, cli) TH_LOG("%s", slurp(ERR));
	nullb_remove("lifeq");
	EXPECT_EQ(0, wait_text(ERR, "was removed", 60));
	snprintf(attrs, sizeof(attrs), "submit_queues=2 size=64%s", poll);
	ASSERT_EQ(0, nullb_make("lifeq", attrs, again, sizeof(again)));
	if (strcmp(disk, again)) {
		kill(cli, SIGINT);
		waitpid(cli, NULL, 0);
		nullb_remove("lifeq");
		SKIP(return, "the disk came back as %s, not %s", again, disk);
	}
	EXPECT_EQ(0, wait_text(ERR, "has 2 queues of 128 tags now, 1 of", 60))
		TH_LOG("%s", slurp(ERR));
	/*
	 * the second queue's CPU's requests go to it: CPU 1 on most
	 * kernels, CPU 0 on the newest (its CPU grouping changed)
	 */
	EXPECT_EQ(0, sh("cpu=$(cut -d, -f1 /sys/block/%s/mq/1/cpu_list) && cpu=${cpu%%%%-*} && "
			"taskset -c $cpu dd if=/dev/%s of=/dev/null bs=4k count=50 iflag=direct status=none",
			disk, disk));
	kill(cli, SIGINT);
	ASSERT_EQ(0, wait_for(cli, 120, &st));
	nullb_remove("lifeq");
	sum = slurp(SUMMARY);
	ASSERT_NE(NULL, sum);
	EXPECT_LE(50, json_num(sum, "drop_range")) TH_LOG("%s", sum);
	free(sum);
}

/* the NVMe controller removed through sysfs, and found again by a rescan */
TEST_F_TIMEOUT(life, nvme_controller_removed_while_traced, 300)
{
	char disk[32] = "nvme0n1";

	if (!nvme_pci[0] || access("/dev/nvme0n1", F_OK))
		SKIP(return, "no NVMe drive in this guest");
	removed_while_traced(_metadata, disk, nvme_gone);
}

/*
 * --summary's kernel counts with I/O in flight at the start and the stop
 * ("the kernel over the same window" read 2509 for a session
 * whose module saw 2488 + 8).  fio reads nullb0 before the session
 * starts and after it stops; the kernel's completions just inside the
 * session's window and just around it bracket every request the module
 * accounted for, delivered, dropped or filtered.  Reads only: before
 * 5.5 diskstats does not count flushes, which the module does.
 */
TEST_F_TIMEOUT(life, summary_kernel_bracket, 300)
{
	long long before, inner, outer, seen;
	char *sum;
	pid_t fio;
	int st;

	before = completed("nullb0");
	/*
	 * 2000 I/Os a second, which a CLI writing CSV keeps up with: at
	 * full speed the newest kernel's guest outran it and dropped
	 * records (exit 1), which the bracket does not need
	 */
	fio = start_fio("nullb0", "bracket", 120, 2000);
	ASSERT_LT(0, fio);
	/* fio under way before the session starts */
	ASSERT_EQ(0, wait_completed("nullb0", before + 500, 120))
		TH_LOG("fio did not start");
	st = sh("%s trace -o csv -d nullb0 -t 2 --summary %s >/dev/null 2>%s",
		env("IOLAT_CLI"), SUMMARY, ERR);
	/* and still under way after it stopped */
	before = completed("nullb0");
	EXPECT_EQ(0, wait_completed("nullb0", before + 100, 60));
	stop_fio(fio, "bracket");
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	sum = slurp(SUMMARY);
	inner = json_sum(sum, "ios_inner");
	outer = json_sum(sum, "ios_outer");
	seen = json_sum(sum, "delivered") + json_sum(sum, "dropped") +
	       json_sum(sum, "filtered");
	TH_LOG("kernel inside the window %lld, around it %lld; iolat %lld",
	       inner, outer, seen);
	ASSERT_LT(0, inner) TH_LOG("%s", sum);
	/*
	 * The kernel counts a request in diskstats (blk_account_io_done())
	 * after its block_rq_complete tracepoint.  A vCPU stalled between
	 * the two (TCG on a busy host) puts a request completed before the
	 * session's start into the kernel's count inside the window (seen
	 * on 5.4: inside 3071, iolat 3070), and one completed before the
	 * stop outside the count around it: at most the requests in
	 * flight, fio's depth of 8, at each edge.
	 */
	EXPECT_LE(inner, seen + 8);
	EXPECT_LE(seen, outer + 8);
	EXPECT_NE(NULL, strstr(sum, "\"ios\":")) TH_LOG("%s", sum);
}

/*
 * Buffers of 64 records, a fio at full speed (10 000 reads: 1000 before
 * the stop and 4 buffers' worth during it are all it needs, under KASAN
 * on a loaded host too), and the CLI stopped meanwhile: the records that
 * did not fit are counted as such, and the counts are exact: delivered +
 * dropped == the requests the device completed; the user is told.
 */
TEST_F_TIMEOUT(life, overload_exact_drops, 300)
{
	long long before, after, delivered, full, unmatched, range, filtered;
	long long stop;
	char cmd[512], *sum, *err;
	pid_t cli;
	int st;

	unlink(ERR);
	before = completed("nullb0");
	snprintf(cmd, sizeof(cmd), "exec %s trace -o csv -b 64 -d nullb0 --summary %s -- fio --name=over --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --number_ios=10000 --size=256M --eta=never --output=/dev/null >%s 2>%s",
		 env("IOLAT_CLI"), SUMMARY, CSV, ERR);
	cli = spawn_sh(cmd);
	ASSERT_LT(0, cli);
	ASSERT_EQ(0, wait_text(ERR, "iolat: tracing", 60)) TH_LOG("%s", slurp(ERR));
	/*
	 * Stopped once fio is under way, for as long as it takes the
	 * device to complete four times what every CPU's buffer holds,
	 * however fast the guest is: fio starts slowly under KASAN, and
	 * the CLI stopped for a fixed second before it began lost nothing.
	 */
	ASSERT_EQ(0, wait_completed("nullb0", before + 1000, 120))
		TH_LOG("fio did not start");
	kill(cli, SIGSTOP);	/* fio, its child, goes on */
	stop = completed("nullb0");
	EXPECT_EQ(0, wait_completed("nullb0",
				    stop + 4 * 64 * sysconf(_SC_NPROCESSORS_ONLN),
				    120));
	kill(cli, SIGCONT);
	ASSERT_EQ(0, wait_for(cli, 240, &st)) TH_LOG("the CLI did not end");
	after = completed("nullb0");
	sum = slurp(SUMMARY);
	err = slurp(ERR);
	TH_LOG("stderr:\n%s\nsummary: %s", err, sum);
	delivered = json_sum(sum, "delivered");
	full = json_sum(sum, "drop_full");
	unmatched = json_sum(sum, "drop_unmatched");
	range = json_sum(sum, "drop_range");
	filtered = json_sum(sum, "filtered");
	/* the load must overflow 64-record buffers, or this tests nothing */
	ASSERT_LT(0, full) TH_LOG("no record was dropped: no overload");
	EXPECT_EQ(after - before, delivered + full + unmatched + range + filtered);
	EXPECT_EQ(0, unmatched);
	EXPECT_EQ(0, range);
	EXPECT_EQ(0, filtered);
	EXPECT_EQ(delivered, count_lines(slurp_all(CSV)) - 1);
	EXPECT_LE(10000, after - before);
	/* the user is told: non-zero exit, the reason, what to do */
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1) TH_LOG("status %#x", st);
	EXPECT_NE(NULL, strstr(err, "records dropped because a buffer was full (try a larger -b)"));
}

struct ops {
	long long reads, writes, other;
};

static void count_ops(void *arg, const struct row *r)
{
	struct ops *o = arg;

	if (!strcmp(r->op, "read"))
		o->reads++;
	else if (!strcmp(r->op, "write"))
		o->writes++;
	else
		o->other++;
}

/*
 * Two sessions at once on one device, one keeping the reads and the
 * other the writes of a fio job: each gets exactly its own records, and
 * counts the other's as filtered.  With the module loaded for two
 * sessions, a third is refused in one clear line.
 */
TEST_F_TIMEOUT(life, concurrent_sessions_own_records, 300)
{
	static const char *const op[2] = { "read", "write" };
	long long before[2], after[2];
	char cmd[512], csv[2][64], sum[2][64], err[2][64];
	struct ops got[2] = { 0 };
	unsigned long long f[17];
	pid_t cli[2];
	char *e;
	int i, st;

	ASSERT_EQ(0, module_unload());
	/* a limit out of range is refused at load */
	EXPECT_NE(0, sh("insmod %s max_sessions=0 2>/dev/null", env("IOLAT_KO")));
	EXPECT_NE(0, sh("insmod %s max_sessions=17 2>/dev/null", env("IOLAT_KO")));
	EXPECT_EQ(0, sh("dmesg | grep -q 'max_sessions=17: it must be 1..16'"));
	ASSERT_EQ(0, sh("insmod %s max_sessions=2", env("IOLAT_KO")));
	for (i = 0; i < 2; i++) {
		snprintf(csv[i], sizeof(csv[i]), "/tmp/iolat_life%d.csv", i);
		snprintf(sum[i], sizeof(sum[i]), "/tmp/iolat_life%d.json", i);
		snprintf(err[i], sizeof(err[i]), "/tmp/iolat_life%d.err", i);
		unlink(err[i]);
		snprintf(cmd, sizeof(cmd), "exec %s trace -o csv -d nullb0 --op %s --summary %s >%s 2>%s",
			 env("IOLAT_CLI"), op[i], sum[i], csv[i], err[i]);
		cli[i] = spawn_sh(cmd);
		ASSERT_LT(0, cli[i]);
		ASSERT_EQ(0, wait_text(err[i], "iolat: tracing", 60))
			TH_LOG("session %d: %s", i, slurp(err[i]));
	}
	st = sh("%s trace -d nullb0 -t 1 >%s 2>%s", env("IOLAT_CLI"), OUT, ERR);
	e = slurp(ERR);
	TH_LOG("third session: status %#x, stderr: %s", st, e);
	EXPECT_EQ(1, st);
	EXPECT_EQ(1, count_lines(e));
	EXPECT_NE(NULL, strstr(e, "too many iolat sessions at once (the max_sessions module parameter)"));

	ASSERT_LE(0, dev_stat("nullb0", f));
	before[0] = f[0];
	before[1] = f[4];
	ASSERT_EQ(0, sh("fio --name=both --filename=/dev/nullb0 --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --number_ios=20000 --size=256M --eta=never --output=/dev/null"));
	ASSERT_LE(0, dev_stat("nullb0", f));
	after[0] = f[0];
	after[1] = f[4];
	for (i = 0; i < 2; i++) {
		kill(cli[i], SIGINT);
		ASSERT_EQ(0, wait_for(cli[i], 60, &st));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
			TH_LOG("session %d: status %#x: %s", i, st, slurp(err[i]));
		ASSERT_LT(0, csv_rows(csv[i], count_ops, &got[i]));
		TH_LOG("session %d (%s): %lld reads, %lld writes, %lld other; %lld filtered",
		       i, op[i], got[i].reads, got[i].writes, got[i].other,
		       json_sum(slurp(sum[i]), "filtered"));
	}
	EXPECT_LT(1000, after[0] - before[0]);
	EXPECT_LT(1000, after[1] - before[1]);
	EXPECT_EQ(after[0] - before[0], got[0].reads);
	EXPECT_EQ(0, got[0].writes + got[0].other);
	EXPECT_EQ(after[1] - before[1], got[1].writes);
	EXPECT_EQ(0, got[1].reads + got[1].other);
	EXPECT_EQ(after[1] - before[1], json_sum(slurp(sum[0]), "filtered"));
	EXPECT_EQ(after[0] - before[0], json_sum(slurp(sum[1]), "filtered"));
	ASSERT_EQ(0, module_unload());
	ASSERT_EQ(0, module_load());
}

/*
 * Root of a user namespace is nobody to iolat: the family checks its
 * capabilities in the initial namespace.  From another network
 * namespace the family is not there, and the CLI says why.
 */
TEST_F_TIMEOUT(life, user_namespace_gets_eperm, 300)
{
	char *err;
	int st;

	st = sh("unshare -Ur %s record -d nullb0 -t 1 >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	err = slurp(ERR);
	TH_LOG("user namespace: status %#x, stderr: %s", st, err);
	EXPECT_EQ(1, st);
	EXPECT_EQ(1, count_lines(err));
	EXPECT_NE(NULL, strstr(err, "permission denied"));
	EXPECT_EQ(0U, strlen(slurp(OUT)));

	st = sh("unshare -Urn %s info >%s 2>%s", env("IOLAT_CLI"), OUT, ERR);
	err = slurp(ERR);
	TH_LOG("network namespace: status %#x, stderr: %s", st, err);
	EXPECT_EQ(1, st);
	EXPECT_EQ(1, count_lines(err));
	EXPECT_NE(NULL, strstr(err, "only in the initial network namespace"));
}

/* A CLI of the next ABI is refused by name, before anything starts. */
TEST_F_TIMEOUT(life, abi_mismatch_refused, 300)
{
	char *err;
	int st;

	st = sh("\"$(dirname %s)/tests/iolat-abi-next\" record -d nullb0 -t 1 >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	err = slurp(ERR);
	TH_LOG("status %#x, stderr: %s", st, err);
	EXPECT_EQ(1, st);
	EXPECT_EQ(1, count_lines(err));
	EXPECT_NE(NULL, strstr(err, "speaks ABI"));
	EXPECT_NE(NULL, strstr(err, "install matching versions"));
	EXPECT_EQ(0U, strlen(slurp(OUT)));
}

IOLAT_HARNESS_MAIN
