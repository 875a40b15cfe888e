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
#include <sys/stat.h>
#include <sys/wait.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/iolat.h>

#include "kselftest_harness.h"

#define OUT "/tmp/iolat_test.out"
#define ERR "/tmp/iolat_test.err"
#define FIO_JSON "/tmp/iolat_test.fio.json"

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v) {
		fprintf(stderr, "# %s is not set\n", name);
		exit(KSFT_FAIL);
	}
	return v;
}

/* sh -c the formatted command; its exit status, or -1. */
static int sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int st;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (!cmd)
		return -1;
	st = system(cmd);
	free(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* A file's text (first 64 KiB) in a fresh string; tests exit, not free. */
static char *slurp(const char *path)
{
	char *buf = calloc(1, 1 << 16);
	FILE *f = fopen(path, "r");

	if (!buf)
		abort();
	if (f) {
		if (fread(buf, 1, (1 << 16) - 1, f) == 0)
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The number after "key": in a JSON text, summed over every occurrence. */
static long long json_sum(const char *text, const char *key)
{
	char pat[64];
	const char *p = text;
	long long sum = 0;
	int found = 0;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	while ((p = strstr(p, pat))) {
		p += strlen(pat);
		while (*p == ' ' || *p == ':')
			p++;
		sum += strtoll(p, NULL, 10);
		found = 1;
	}
	return found ? sum : -1;
}

/* Requests the device completed: reads + writes + discards + flushes. */
static long long completed(const char *dev)
{
	unsigned long long f[17] = { 0 };
	char path[128];
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", dev);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	n = fscanf(fp, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7],
		   &f[8], &f[9], &f[10], &f[11], &f[12], &f[13], &f[14],
		   &f[15], &f[16]);
	fclose(fp);
	if (n < 11)
		return -1;
	return f[0] + f[4] + f[11] + f[15];
}

static bool module_loaded(void)
{
	return access("/sys/module/iolat", F_OK) == 0;
}

static int module_load(void)
{
	if (module_loaded())
		return 0;
	return sh("insmod %s", env("IOLAT_KO"));
}

/* rmmod, retrying while a netlink dump briefly holds the module. */
static int module_unload(void)
{
	int i;

	for (i = 0; i < 100 && module_loaded(); i++) {
		if (sh("rmmod iolat 2>/dev/null") == 0)
			return 0;
		usleep(50000);
	}
	return module_loaded() ? -1 : 0;
}

/*
 * Kernel reports that fail a run (oopses, KASAN, lockdep, warnings): the
 * fixed strings in tests/kernel-reports, which check.sh also applies to
 * the guest's whole kernel log.  Non-zero if dmesg has one, or if the
 * patterns cannot be read.
 */
static int dmesg_bad_reports(void)
{
	int st = sh("dmesg | grep -F -f '%s' >&2", IOLAT_KERNEL_REPORTS);

	if (st == 1)
		return 0;
	fprintf(stderr, st == 0 ? "# dmesg has kernel reports (above)\n" :
		"# cannot match dmesg against %s\n", IOLAT_KERNEL_REPORTS);
	return 1;
}

FIXTURE(iolat) {
	int unused;
};

FIXTURE_SETUP(iolat)
{
	if (sh("command -v fio >/dev/null") != 0)
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, module_load());
	if (access("/sys/block/nullb0", F_OK))
		ASSERT_EQ(0, sh("modprobe null_blk nr_devices=1"));
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
}

TEST_F_TIMEOUT(iolat, exact_records_null_blk, 300)
{
	exact_records(_metadata, "nullb0", 20000, "libaio");
}

TEST_F_TIMEOUT(iolat, exact_records_nvme, 300)
{
	exact_records(_metadata, "nvme0n1", 5000, "io_uring");
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

/* As nobody: the kernel refuses START and READ itself, with EPERM. */
static int unprivileged_request(uint8_t cmd, int flags)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *nest;
	int family, err = -1;

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
	if (nl_send_auto(sk, msg) < 0)
		goto out;
	err = nl_recvmsgs_default(sk);
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

static pid_t spawn_sh(const char *cmd)
{
	pid_t pid = fork();

	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* waitpid with a deadline; -1 if @pid is still running after @secs. */
static int wait_for(pid_t pid, int secs, int *status)
{
	int i;

	for (i = 0; i < secs * 20; i++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
		usleep(50000);
	}
	return -1;
}

/* Wait up to @secs for @path to contain @text. */
static int wait_text(const char *path, const char *text, int secs)
{
	int i;

	for (i = 0; i < secs * 20; i++) {
		if (strstr(slurp(path), text))
			return 0;
		usleep(50000);
	}
	return -1;
}

/*
 * 20 times: load the module, stream records to the CLI while fio runs,
 * and rmmod under it.  The CLI must end with one clear error, never hang,
 * and the kernel must stay clean (checked by the teardown).
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
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, module_load());
		unlink(ERR);
		snprintf(cmd, sizeof(cmd), "exec %s record -d nullb0 >/dev/null 2>%s",
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
	}
	kill(-fio, SIGKILL);
	waitpid(fio, &st, 0);
	ASSERT_EQ(0, module_load());
}

TEST_HARNESS_MAIN
