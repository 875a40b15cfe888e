// SPDX-License-Identifier: GPL-2.0
/*
 * Many disks, in the guest: 64 null_blk disks (4 submit queues, or one
 * per possible CPU if fewer, of 128 tags each) beside QEMU's NVMe drive.  stat, record -A and export
 * without -d trace every blk-mq disk, each one's requests counted
 * exactly (dd's on three of them; the kernel's own count bracketing
 * the module's on every one); --include and --exclude choose among them;
 * a disk made during a session joins it, and one removed leaves it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "helpers.h"

#define NOTE(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)
#define NS "nvme0n1"
#define D "/tmp/iolat_scale"
#define NR_NULLB 64
#define MAX_DISKS 256
#define CPU1 "/sys/devices/system/cpu/cpu1/online"

/* The I/O of every test: direct reads of 4 KiB, a count per disk. */
static const struct {
	const char *dev;
	int reads;
} io[] = {
	{ "nullb63", 700 }, { "nullb7", 300 }, { NS, 200 },
};

FIXTURE(scale) {
	char disks[MAX_DISKS][32];	/* what iolat takes without -d */
	int nr;
};

/* ls -v's order of the blk-mq disks, less loops with nothing attached */
static int blk_mq_disks(char disks[][32], int max)
{
	FILE *p = popen("for d in /sys/block/*; do n=${d##*/}; test -d $d/mq || continue; "
			"case $n in loop*) test -e $d/loop/backing_file || continue;; esac; "
			"echo $n; done | sort -V", "r");
	int n = 0;

	if (!p)
		return -1;
	while (n < max && fscanf(p, "%31s", disks[n]) == 1)
		n++;
	pclose(p);
	return n;
}

FIXTURE_SETUP(scale)
{
	if (sh("command -v dd >/dev/null"))
		SKIP(return, "dd is not installed");
	ASSERT_EQ(0, wait_disk(NS)) TH_LOG("no /dev/" NS ": the guest needs QEMU's NVMe drive");
	ASSERT_EQ(0, module_load());
	sh("modprobe -r null_blk 2>/dev/null");
	ASSERT_EQ(0, nullb_settle());
	ASSERT_EQ(0, sh("modprobe null_blk nr_devices=%d submit_queues=4 hw_queue_depth=128",
			NR_NULLB));
	ASSERT_EQ(0, wait_disk("nullb63"));
	self->nr = blk_mq_disks(self->disks, MAX_DISKS);
	ASSERT_LE(NR_NULLB + 1, self->nr);
	/* (null_blk gives no more queues than CPUs) */
	sh("echo \"# nullb63: $(ls /sys/block/nullb63/mq | wc -l) queues of $(cat /sys/block/nullb63/mq/0/nr_tags) tags; CPUs $(cat /sys/devices/system/cpu/possible) possible\" >&2");
	ASSERT_EQ(0, sh("rm -rf " D " && mkdir -p " D));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(scale)
{
	sh("for c in /sys/devices/system/cpu/cpu[0-9]*/online; do echo 1 >$c; done 2>/dev/null");
	sh("modprobe -r null_blk 2>/dev/null");
	EXPECT_EQ(0, dmesg_bad_reports());
}

/*
 * export's series of a disk, at the default --buckets 4: read and write
 * Q2C and D2C histograms (105 bounds, +Inf, sum, count), requests and
 * bytes of reads and writes, and four time counters.
 */
#define PROM_SERIES (2 * 2 * (105 + 3) + 2 * 2 + 4)

/* How many times @key is in @text. */
static int count_of(const char *text, const char *key)
{
	int n = 0;

	for (; text && (text = strstr(text, key)); text += strlen(key))
		n++;
	return n;
}

/* The shell command of the I/O; @then runs after it. */
static void io_cmd(char *buf, size_t len, const char *then)
{
	size_t n = 0;
	unsigned int i;

	n += snprintf(buf + n, len - n, "sh -c '");
	for (i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		n += snprintf(buf + n, len - n,
			      "dd if=/dev/%s of=/dev/null bs=4k count=%d iflag=direct status=none && ",
			      io[i].dev, io[i].reads);
	snprintf(buf + n, len - n, "%s'", then ? then : "true");
}

/* A device's object in a --summary file, or NULL. */
static const char *summary_dev(const char *json, const char *dev)
{
	char key[64];

	snprintf(key, sizeof(key), "{\"name\":\"%s\"", dev);
	return strstr(json, key);
}

/*
 * Every disk of @self in the summary @json, its module count inside the
 * kernel's bracket; if @with_io, the disks of io[] with exactly their
 * reads.
 */
static void check_summary(struct __test_metadata *_metadata,
			  FIXTURE_DATA(scale) *self, const char *json,
			  bool with_io)
{
	long long reads, all, inner, outer;
	const char *at, *ops;
	unsigned int i;
	int d;

	for (d = 0; d < self->nr; d++) {
		at = summary_dev(json, self->disks[d]);
		ASSERT_NE(NULL, at) TH_LOG("%s is not in the summary", self->disks[d]);
		ops = strstr(at, "\"ops\":");
		ASSERT_NE(NULL, ops);
		all = json_sum(ops, "ios") - json_sum(strstr(ops, "\"hwqs\":"), "ios");
		inner = json_num(at, "ios_inner");
		outer = json_num(at, "ios_outer");
		EXPECT_LE(inner, all) TH_LOG("%s", self->disks[d]);
		EXPECT_LE(all, outer) TH_LOG("%s", self->disks[d]);
		for (i = 0; with_io && i < sizeof(io) / sizeof(io[0]); i++) {
			if (strcmp(io[i].dev, self->disks[d]))
				continue;
			reads = json_num(strstr(ops, "\"read\":"), "ios");
			EXPECT_EQ(io[i].reads, reads) TH_LOG("%s", io[i].dev);
		}
	}
}

/* stat and record -A without -d: every disk, each one's count exact. */
TEST_F_TIMEOUT(scale, stat_and_aggregate_every_disk, 900)
{
	char cmd[1024];
	char *out;
	int st;

	io_cmd(cmd, sizeof(cmd), NULL);
	st = sh("%s stat --summary " D "/stat.json -o json 1 -- %s >" D "/stat.out 2>%s",
		env("IOLAT_CLI"), cmd, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	out = slurp(D "/stat.json");
	check_summary(_metadata, self, out, true);
	free(out);
	NOTE("stat: %d disks, each in the summary", self->nr);
	st = sh("%s record -A -o json --summary " D "/agg.json -- %s >" D "/agg.out 2>%s",
		env("IOLAT_CLI"), cmd, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	out = slurp(D "/agg.json");
	check_summary(_metadata, self, out, true);
	free(out);
	out = slurp(D "/agg.out");
	EXPECT_NE(NULL, strstr(out, "\"name\": \"nullb63\""));
	EXPECT_NE(NULL, strstr(out, "\"name\": \"" NS "\""));
	free(out);
}

/*
 * export without -d: its exposition, read while it runs, has every disk,
 * each null_blk disk with its documented number of series, with the
 * reads of io[] exactly; the summary at the end, every disk's count
 * inside the kernel's bracket.
 */
TEST_F_TIMEOUT(scale, export_every_disk, 900)
{
	char cmd[2048], then[1024], key[128];
	unsigned int i;
	long long mem;
	char *prom, *at;
	int d, st;

	/* after the I/O: wait for the exposition that has it, keep it */
	snprintf(then, sizeof(then),
		 "for i in $(seq 3000); do grep -q \"^iolat_requests_total{device=\\\"nullb63\\\",op=\\\"read\\\"} %d\\$\" " D "/iolat.prom 2>/dev/null && cp " D "/iolat.prom " D "/live.prom && exit 0; sleep 0.1; done; exit 1",
		 io[0].reads);
	io_cmd(cmd, sizeof(cmd), then);
	st = sh("%s export --textfile " D " -i 0.5 --summary " D "/export.json -- %s 2>%s",
		env("IOLAT_CLI"), cmd, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	prom = slurp(D "/live.prom");
	for (d = 0; d < self->nr; d++) {
		snprintf(key, sizeof(key), "iolat_busy_seconds_total{device=\"%s\"",
			 self->disks[d]);
		EXPECT_NE(NULL, strstr(prom, key)) TH_LOG("%s is not exported", self->disks[d]);
		/* docs/output.md: 440 series a disk without NVMe commands */
		if (strncmp(self->disks[d], "nullb", 5))
			continue;
		snprintf(key, sizeof(key), "{device=\"%s\"", self->disks[d]);
		EXPECT_EQ(PROM_SERIES, count_of(prom, key)) TH_LOG("%s", self->disks[d]);
	}
	for (i = 0; i < sizeof(io) / sizeof(io[0]); i++) {
		snprintf(key, sizeof(key),
			 "\niolat_requests_total{device=\"%s\",op=\"read\"} %d\n",
			 io[i].dev, io[i].reads);
		EXPECT_NE(NULL, strstr(prom, key)) TH_LOG("no %s", key + 1);
	}
	if (!sh("command -v promtool >/dev/null"))
		EXPECT_EQ(0, sh("promtool check metrics <" D "/live.prom"));
	/* the session's memory, as --summary has it */
	at = strstr(prom, "\niolat_module_memory_bytes ");
	mem = at ? strtoll(at + strlen("\niolat_module_memory_bytes "), NULL, 10) : -1;
	free(prom);
	prom = slurp(D "/export.json");
	EXPECT_LT(0, mem);
	EXPECT_EQ(mem, (long long)json_num(prom, "module_memory_bytes"));
	check_summary(_metadata, self, prom, true);
	free(prom);
	NOTE("export: %d disks exported", self->nr);
}

/*
 * The kernel's memory as the module's report is compared with, bytes:
 * SUnreclaim and Percpu of a copy of /proc/meminfo, and the vmalloc pages
 * of one of /proc/vmallocinfo (meminfo's VmallocUsed read 0 from v4.4 to
 * v5.3, "mm/vmalloc: ... VmallocUsed").
 */
static long long kernel_mem(const char *dir)
{
	char path[128];
	double kb, pages;

	snprintf(path, sizeof(path), "%s/meminfo", dir);
	kb = sh_number("awk '/^(SUnreclaim|Percpu):/ { s += $2 } END { print s }' %s",
		       path);
	snprintf(path, sizeof(path), "%s/vmallocinfo", dir);
	pages = sh_number("awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^pages=/) s += substr($i, 7) } END { print s + 0 }' %s",
			  path);
	return 1024LL * (long long)kb + 4096LL * (long long)pages;
}

/*
 * What `iolat CMD -- sh -c 'IO'` takes while it runs (IO: shell commands
 * ending in ';', or nothing): the kernel's Slab, Vmalloc and Percpu
 * counters' growth, read before and during it; *@mod: what the module
 * reports (--summary's module_memory_bytes), within 5% and 2 MiB of that
 * growth.  The summary stays in D/mem.json.
 */
static long long session_mem(struct __test_metadata *_metadata,
			     const char *cmd, const char *io, long long *mod)
{
	long long before, during;
	char *out;
	int st;

	*mod = -1;
	if (sh("sync; echo 3 >/proc/sys/vm/drop_caches; mkdir -p " D "/before " D "/during; cat /proc/meminfo >" D "/before/meminfo; cat /proc/vmallocinfo >" D "/before/vmallocinfo"))
		return -1;
	st = sh("%s %s --summary " D "/mem.json -- sh -c '%s sleep 1; cat /proc/meminfo >" D "/during/meminfo; cat /proc/vmallocinfo >" D "/during/vmallocinfo' >/dev/null 2>%s",
		env("IOLAT_CLI"), cmd, io, ERR);
	EXPECT_EQ(0, st) TH_LOG("%s: %s", cmd, slurp(ERR));
	if (st)
		return -1;
	before = kernel_mem(D "/before");
	during = kernel_mem(D "/during");
	out = slurp(D "/mem.json");
	*mod = out ? (long long)json_num(out, "module_memory_bytes") : -1;
	free(out);
	EXPECT_LT(0, *mod);
	EXPECT_GE(*mod * 21 / 20 + (2LL << 20), during - before) TH_LOG("%s", cmd);
	EXPECT_LE(*mod * 19 / 20 - (2LL << 20), during - before) TH_LOG("%s", cmd);
	return during - before;
}

/* What the module's iolat_alloc_bytes() counts for @n bytes (kmod/alloc.h). */
static long long alloc_bytes(long long n)
{
	long long c = 8;

	if (n > 8192)
		return (n + 4095) / 4096 * 4096;
	if (n > 64 && n <= 96)
		return 96;
	if (n > 128 && n <= 192)
		return 192;
	while (c < n)
		c *= 2;
	return c;
}

/*
 * Export, stat and record over every disk: the module's report true
 * (session_mem()), export and stat within 32 MiB and record within
 * 96 MiB, whatever the possible CPUs.  With --cgroups, export and stat
 * hold exactly their cgroup slots more per disk (kmod/cgstat.h; docs/
 * design.md, "Memory"): per online CPU, 11 slots of 968 bytes (export,
 * --cgroups-top 10), 17 of 144 (stat), and the device's table of ids,
 * CPU pointers and what freed slots counted (1104 + 8 per possible CPU
 * bytes).
 */
static void sessions_mem_bounded(struct __test_metadata *_metadata, int nr)
{
	static const struct {
		const char *cmd;
		long long max_mib;
	} cmds[] = {
		{ "export --textfile " D " -i 5", 32 },
		{ "export --cgroups --textfile " D " -i 5", 32 },
		{ "stat", 32 },
		{ "stat --cgroups", 32 },
		{ "record -o json $(for d in /sys/block/nullb* /sys/block/nvme*; do printf -- '-d %s ' ${d##*/}; done)", 96 },
	};
	long long grew, mod[5], cpus = sysconf(_SC_NPROCESSORS_ONLN), possible, dev;
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		grew = session_mem(_metadata, cmds[i].cmd, "", &mod[i]);
		NOTE("%s over %d disks, %lld CPUs online: the module reports %.1f MiB; SUnreclaim + vmalloc + Percpu grew %.1f MiB",
		     cmds[i].cmd, nr, cpus, mod[i] / 1048576.0, grew / 1048576.0);
		/* small, whatever the possible CPUs */
		EXPECT_GE(cmds[i].max_mib << 20, grew) TH_LOG("%s", cmds[i].cmd);
	}
	possible = (long long)sh_number("n=0; for r in $(tr , ' ' <%s); do a=${r%%%%-*}; b=${r#*-}; n=$((n + b - a + 1)); done; echo $n", "/sys/devices/system/cpu/possible");
	dev = alloc_bytes(1104 + 8 * possible);
	NOTE("--cgroups: export %lld bytes more, stat %lld, over %d disks; %lld and %lld expected",
	     mod[1] - mod[0], mod[3] - mod[2], nr,
	     nr * (cpus * alloc_bytes(11 * 968) + dev),
	     nr * (cpus * alloc_bytes(17 * 144) + dev));
	EXPECT_EQ(nr * (cpus * alloc_bytes(11 * 968) + dev), mod[1] - mod[0]);
	EXPECT_EQ(nr * (cpus * alloc_bytes(17 * 144) + dev), mod[3] - mod[2]);
}

/*
 * In-flight tables for the hardware queues of the CPUs present, not for
 * every queue: a stat session on the NVMe drive (in 6.1's guest, 128
 * queues for 240 possible CPUs, 2 present: tests/guest/run) holds the
 * tables of the queues that a present CPU's requests go to (blk-mq's
 * cpu_list of each), and at most 1 MiB more, where a table per queue
 * would take 4.5 MiB; and counts its reads exactly.  In a guest whose
 * CPUs are all present, every queue is one of them.
 */
TEST_F_TIMEOUT(scale, inflight_present_queues, 300)
{
	long long queues, used, depth, table, every, grew, mod;
	char *out;

	queues = (long long)sh_number("ls -d %s/mq/[0-9]* | wc -l", "/sys/block/" NS);
	used = (long long)sh_number("p=$(cat /sys/devices/system/cpu/present); for q in %s/mq/[0-9]*; do echo \"$p|$(cat $q/cpu_list)\"; done | "
				    "awk -F'|' '{ delete in_; n = split($1, r, \",\"); for (i = 1; i <= n; i++) { split(r[i], b, \"-\"); if (b[2] == \"\") b[2] = b[1]; for (c = b[1] + 0; c <= b[2] + 0; c++) in_[c] = 1 } "
				    "m = split($2, l, \", *\"); u = 0; for (i = 1; i <= m; i++) if (l[i] != \"\" && (l[i] + 0) in in_) u = 1; s += u } END { print s + 0 }'",
				    "/sys/block/" NS);
	depth = (long long)sh_number("cat %s/mq/0/nr_tags", "/sys/block/" NS);
	ASSERT_LT(0, used);
	ASSERT_LE(used, queues);
	/*
	 * stat's table: a slot's 32-byte head per tag (kmod/inflight.h), one
	 * for flushes, one to align
	 */
	table = ((depth + 2) * 32 + 4095) / 4096 * 4096;
	every = queues * table;
	grew = session_mem(_metadata, "stat -d " NS " 5",
			   "dd if=/dev/" NS " of=/dev/null bs=4k count=500 iflag=direct status=none;",
			   &mod);
	NOTE(NS ": %lld queues of %lld tags, %lld of them a present CPU's: the module reports %.2f MiB, the kernel's counters grew %.2f MiB; their tables %.2f MiB, a table per queue %.2f MiB",
	     queues, depth, used, mod / 1048576.0, grew / 1048576.0,
	     used * table / 1048576.0, every / 1048576.0);
	EXPECT_LE(used * (depth + 1) * 32, mod);
	EXPECT_GE(used * table + (1LL << 20), mod);
	out = slurp(D "/mem.json");
	ASSERT_NE(NULL, out);
	EXPECT_EQ(500, (long long)json_num(strstr(strstr(summary_dev(out, NS), "\"ops\":"),
						  "\"read\":"), "ios"));
	free(out);
	/*
	 * An NVMe session: the same queues' command tables beside their
	 * in-flight tables (a record's slot and its 32-byte extension per
	 * tag; a command's state, at most 128 bytes), none of the others'
	 * (with -b 256 a CPU's record buffer is 48 KiB); every read's
	 * command counted, none outside the tables.
	 */
	table = ((depth + 2) * 64 + (depth + 1) * 32 + 4095) / 4096 * 4096 +
		(depth * 128 + 4095) / 4096 * 4096;
	grew = session_mem(_metadata, "nvme -b 256 -d " NS,
			   "dd if=/dev/" NS " of=/dev/null bs=4k count=500 iflag=direct status=none;",
			   &mod);
	NOTE("nvme -b 256 -d " NS ": the module reports %.2f MiB, the kernel's counters grew %.2f MiB; at most %.2f MiB for the %lld queues, %.2f MiB for all",
	     mod / 1048576.0, grew / 1048576.0, used * table / 1048576.0,
	     used, queues * table / 1048576.0);
	EXPECT_GE(used * table + (1LL << 20), mod);
	out = slurp(D "/mem.json");
	ASSERT_NE(NULL, out);
	EXPECT_EQ(500, (long long)json_num(strstr(strstr(summary_dev(out, NS), "\"ops\":"),
						  "\"read\":"), "ios"));
	EXPECT_EQ(0, json_num(out, "drop_range"));
	EXPECT_LE(500, json_num(out, "nvme_completed"));
	free(out);
}

/*
 * Every disk's sessions' memory within bounds (sessions_mem_bounded(); on
 * 6.1's guest, 240 possible CPUs: tests/kernels/table); and
 * max_session_mb, which refuses a session above it with a message that
 * names it.
 */
TEST_F_TIMEOUT(scale, memory_reported, 900)
{
	char *out;
	int st;

	sessions_mem_bounded(_metadata, self->nr);
	ASSERT_EQ(0, sh("echo 1 >/sys/module/iolat/parameters/max_session_mb"));
	st = sh("%s record -A -t 1 >/dev/null 2>%s", env("IOLAT_CLI"), ERR);
	sh("echo 256 >/sys/module/iolat/parameters/max_session_mb");
	EXPECT_EQ(1, st);
	out = slurp(ERR);
	EXPECT_NE(NULL, strstr(out, "max_session_mb")) TH_LOG("%s", out);
	free(out);
}

/* An export session over every disk running @io; its summary into @self's dir. */
static long long export_mem(struct __test_metadata *_metadata,
			    const char *io, const char *name, long long *reads)
{
	char path[128];
	long long mem;
	char *out;
	int st;

	snprintf(path, sizeof(path), D "/%s.json", name);
	st = sh("%s export --textfile " D " -i 5 --summary %s -- sh -c '%s' 2>%s",
		env("IOLAT_CLI"), path, io, ERR);
	EXPECT_EQ(0, st) TH_LOG("%s: %s", name, slurp(ERR));
	out = slurp(path);
	if (!out)
		return -1;
	mem = (long long)json_num(out, "module_memory_bytes");
	*reads = summary_dev(out, "nullb7") ?
		 (long long)json_num(strstr(strstr(summary_dev(out, "nullb7"), "\"ops\":"),
					    "\"read\":"), "ios") : -1;
	free(out);
	return mem;
}

/*
 * CPU hotplug: a session keeps parts only for the CPUs online while it
 * runs.  One started with CPU 1 offline holds one CPU's parts less than
 * one started with it online; CPU 1 brought online during the session
 * gets its parts then (the same memory as at a start with it online,
 * at most 24 KiB per disk more), its I/O is counted exactly, and what it
 * counted stays once it goes offline again.
 */
TEST_F_TIMEOUT(scale, cpu_hotplug, 900)
{
	long long one, hot, two, reads;

	ASSERT_EQ(0, sh("command -v taskset >/dev/null"));
	if (sh("test -w " CPU1)) {
		/* built without CONFIG_HOTPLUG_CPU (the RHEL 8 fixture) */
		NOTE("this kernel cannot take CPU 1 offline (no " CPU1 "): the I/O of CPU 1 only");
		two = export_mem(_metadata, "taskset -c 1 dd if=/dev/nullb7 of=/dev/null bs=4k count=100 iflag=direct status=none",
				 "two", &reads);
		EXPECT_EQ(100, reads);
		EXPECT_LT(0, two);
		return;
	}
	ASSERT_EQ(0, sh("echo 0 >" CPU1));
	one = export_mem(_metadata, "dd if=/dev/nullb7 of=/dev/null bs=4k count=200 iflag=direct status=none",
			 "one", &reads);
	EXPECT_EQ(200, reads);
	hot = export_mem(_metadata,
			 "echo 1 >" CPU1 " && taskset -c 1 dd if=/dev/nullb7 of=/dev/null bs=4k count=500 iflag=direct status=none && "
			 "echo 0 >" CPU1 " && dd if=/dev/nullb7 of=/dev/null bs=4k count=300 iflag=direct status=none",
			 "hot", &reads);
	EXPECT_EQ(800, reads);
	ASSERT_EQ(0, sh("echo 1 >" CPU1));
	two = export_mem(_metadata, "taskset -c 1 dd if=/dev/nullb7 of=/dev/null bs=4k count=100 iflag=direct status=none",
			 "two", &reads);
	EXPECT_EQ(100, reads);
	NOTE("export over %d disks: %.2f MiB with one CPU online, %.2f MiB with a second brought online during it, %.2f MiB with two from the start",
	     self->nr, one / 1048576.0, hot / 1048576.0, two / 1048576.0);
	EXPECT_LT(0, one);
	EXPECT_LT(one, hot);
	EXPECT_EQ(two, hot);
	/* a CPU's part of an export session: at most 24 KiB per disk */
	NOTE("one CPU's part: %.1f KiB per disk", (hot - one) / 1024.0 / self->nr);
	EXPECT_GE(24LL * 1024 * self->nr, hot - one);
}

/*
 * What each online CPU adds to an export session over every disk, from
 * the module's own report: with two CPUs online and with all of them
 * (make check's cpus8 stages: -smp 8,maxcpus=240 and two NVMe drives,
 * 66 disks), at most 24 KiB per CPU per disk.  Nothing for the possible
 * CPUs that are not there.  With two online, every session's memory
 * within its bound as well (sessions_mem_bounded()).  Run only where
 * $IOLAT_ONLY names it (helpers.c's only_named[]).
 */
TEST_F_TIMEOUT(scale, cpus_online_growth, 900)
{
	long long two, all, reads;
	int cpus;

	cpus = (int)sh_number("ls -d %s/cpu[0-9]* | wc -l", "/sys/devices/system/cpu");
	if (cpus < 3)
		SKIP(return, "%d CPUs: make check's cpus8 stage runs this with 8", cpus);
	if (sh("test -w /sys/devices/system/cpu/cpu2/online"))
		SKIP(return, "this kernel cannot take a CPU offline");
	ASSERT_EQ(0, sh("for c in $(seq 2 %d); do echo 0 >/sys/devices/system/cpu/cpu$c/online || exit 1; done",
			cpus - 1));
	sessions_mem_bounded(_metadata, self->nr);
	two = export_mem(_metadata, "dd if=/dev/nullb7 of=/dev/null bs=4k count=100 iflag=direct status=none",
			 "two", &reads);
	EXPECT_EQ(100, reads);
	ASSERT_EQ(0, sh("for c in $(seq 2 %d); do echo 1 >/sys/devices/system/cpu/cpu$c/online || exit 1; done",
			cpus - 1));
	all = export_mem(_metadata, "dd if=/dev/nullb7 of=/dev/null bs=4k count=100 iflag=direct status=none",
			 "all", &reads);
	EXPECT_EQ(100, reads);
	NOTE("export over %d disks: %.2f MiB with 2 CPUs online, %.2f MiB with %d; %.1f KiB per CPU per disk",
	     self->nr, two / 1048576.0, all / 1048576.0, cpus,
	     (all - two) / 1024.0 / (cpus - 2) / self->nr);
	sh("echo \"# possible CPUs: $(cat /sys/devices/system/cpu/possible)\" >&2");
	EXPECT_LT(0, two);
	EXPECT_LT(two, all);
	EXPECT_GE(24LL * 1024 * (cpus - 2) * self->nr, all - two);
}

/*
 * A vCPU hot-added while a session runs, as a hypervisor adds one to a
 * VM that declares more possible CPUs than it runs: the rig adds it over
 * QMP (tests/guest/run), the test brings it online and reads the NVMe
 * drive from it in an NVMe session.  At the session's start it was not
 * present, so the tables of its hardware queue (a queue of its own:
 * blk-mq spreads the present CPUs over the queues first), in-flight
 * slots and NVMe commands, were not made; the module's CPU hotplug step
 * makes them before the CPU runs.  Its reads and their commands are
 * counted exactly, none outside the tables (drop_range), and the
 * session holds those tables more than one without the new CPU (and at
 * most 1 MiB more: with -b 256, the new CPU's record buffer is 48 KiB).  Run only where $IOLAT_ONLY names it (make
 * check's cpus8-6.1: 8 CPUs of 240 possible).
 */
TEST_F_TIMEOUT(scale, cpu_hot_add, 900)
{
	long long base, hot, depth, table, reads;
	const char *state = getenv("IOLAT_GUEST_STATE");
	char *out, *queue;
	int cpu;

	if (!state || sh("[ \"$(cat /sys/devices/system/cpu/possible)\" != \"$(cat /sys/devices/system/cpu/present)\" ]"))
		SKIP(return, "no CPU to hot-add: every possible CPU is present");
	ASSERT_EQ(0, sh("command -v taskset >/dev/null"));
	depth = (long long)sh_number("cat %s/mq/0/nr_tags", "/sys/block/" NS);
	/* a queue's in-flight slots and NVMe commands, 64 bytes each at least */
	table = (depth + 1) * 64 + depth * 64;
	session_mem(_metadata, "nvme -b 256 -d " NS,
		    "dd if=/dev/" NS " of=/dev/null bs=4k count=200 iflag=direct status=none;",
		    &base);
	/* the request to the rig; its answer; the CPU present, offline */
	ASSERT_EQ(0, sh("cat >" D "/hotadd.sh <<'END'\n"
			"st=%s; p=$(cat /sys/devices/system/cpu/present)\n"
			"rm -f $st/cpu-add.rc; : >$st/cpu-add\n"
			"n=0; until [ -e $st/cpu-add.rc ]; do sleep 0.2; n=$((n + 1)); [ $n -lt 1500 ] || exit 3; done\n"
			"[ \"$(cat $st/cpu-add.rc)\" = 0 ] || { cat $st/cpu-add.out >&2; exit 4; }\n"
			"cat $st/cpu-add.out >&2\n"
			"n=0; while [ \"$(cat /sys/devices/system/cpu/present)\" = \"$p\" ]; do sleep 0.2; n=$((n + 1)); [ $n -lt 1500 ] || exit 5; done\n"
			"for c in /sys/devices/system/cpu/cpu[0-9]*; do [ \"$(cat $c/online 2>/dev/null)\" = 0 ] && cpu=${c##*cpu}; done\n"
			"[ -n \"$cpu\" ] || exit 6\n"
			"echo 1 >/sys/devices/system/cpu/cpu$cpu/online || exit 7\n"
			"echo $cpu >" D "/hotadd.cpu\n"
			"grep -lw $cpu /sys/block/" NS "/mq/*/cpu_list | cut -d/ -f6 | tr -d '\\n' >" D "/hotadd.queue\n"
			"taskset -c $cpu dd if=/dev/" NS " of=/dev/null bs=4k count=200 iflag=direct status=none\n"
			"END", state));
	session_mem(_metadata, "nvme -b 256 -d " NS, "sh " D "/hotadd.sh &&", &hot);
	cpu = (int)sh_number("cat %s/hotadd.cpu", D);
	queue = slurp(D "/hotadd.queue");
	out = slurp(D "/mem.json");
	ASSERT_NE(NULL, out);
	reads = (long long)json_num(strstr(strstr(summary_dev(out, NS), "\"ops\":"),
					   "\"read\":"), "ios");
	NOTE("CPU %d hot-added and brought online during nvme on " NS " (queue %s): the module reports %.2f MiB, %.2f MiB without it; a queue's tables %.2f MiB at least",
	     cpu, queue ? queue : "?",
	     hot / 1048576.0, base / 1048576.0, table / 1048576.0);
	EXPECT_EQ(200, reads);
	EXPECT_EQ(0, json_num(out, "drop_range"));
	EXPECT_LE(200, json_num(out, "nvme_completed"));
	EXPECT_LE(base + table, hot);
	EXPECT_GE(base + table + (1LL << 20), hot);
	free(queue);
	free(out);
}

/*
 * --include and --exclude on the names; not with -d; a bad one refused;
 * stat -z leaves out the disks without requests, as iostat -z.
 */
TEST_F_TIMEOUT(scale, include_exclude, 300)
{
	char *out;

	ASSERT_EQ(0, sh("%s stat -z -o json 1 -- dd if=/dev/nullb63 of=/dev/null bs=4k count=100 iflag=direct status=none >" D "/z.json 2>%s",
			env("IOLAT_CLI"), ERR)) TH_LOG("%s", slurp(ERR));
	out = slurp(D "/z.json");
	EXPECT_NE(NULL, strstr(out, "\"total\":true,\"time\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"device\":\"nullb63\"")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "\"device\":\"nullb5\"")) TH_LOG("%s", out);
	free(out);

	ASSERT_EQ(0, sh("%s stat --summary " D "/inc.json --include '^nullb(1|2)$' 1 1 >/dev/null 2>%s",
			env("IOLAT_CLI"), ERR)) TH_LOG("%s", slurp(ERR));
	out = slurp(D "/inc.json");
	EXPECT_NE(NULL, summary_dev(out, "nullb1"));
	EXPECT_NE(NULL, summary_dev(out, "nullb2"));
	EXPECT_EQ(NULL, summary_dev(out, "nullb12"));
	EXPECT_EQ(NULL, summary_dev(out, NS));
	free(out);
	ASSERT_EQ(0, sh("%s stat --summary " D "/exc.json --exclude '^nullb' 1 1 >/dev/null 2>%s",
			env("IOLAT_CLI"), ERR)) TH_LOG("%s", slurp(ERR));
	out = slurp(D "/exc.json");
	EXPECT_EQ(NULL, strstr(out, "\"name\":\"nullb"));
	EXPECT_NE(NULL, summary_dev(out, NS));
	free(out);
	EXPECT_EQ(2, sh("%s stat --include nullb -d nullb1 1 1 >/dev/null 2>%s",
			env("IOLAT_CLI"), ERR));
	out = slurp(ERR);
	EXPECT_NE(NULL, strstr(out, "not with -d")) TH_LOG("%s", out);
	free(out);
	EXPECT_EQ(1, sh("%s stat --include '(' 1 1 >/dev/null 2>%s",
			env("IOLAT_CLI"), ERR));
	out = slurp(ERR);
	EXPECT_NE(NULL, strstr(out, "--include '('")) TH_LOG("%s", out);
	free(out);
	EXPECT_EQ(1, sh("%s stat --include '^nothing$' 1 1 >/dev/null 2>%s",
			env("IOLAT_CLI"), ERR));
	EXPECT_EQ(2, sh("%s record --include nullb -t 1 >/dev/null 2>%s",
			env("IOLAT_CLI"), ERR));
}

/* The value of the exposition @text's sample @series ("name{labels}"), or -1. */
static long long prom_value(const char *text, const char *series)
{
	char key[256];
	const char *at;

	snprintf(key, sizeof(key), "\n%s ", series);
	at = text ? strstr(text, key) : NULL;
	return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}

/*
 * The exposition in D/iolat.prom once it has @text and is the
 * @after-th or a later one (iolat_exporter_expositions_total); NULL
 * after @secs.  One read: its samples are of one exposition.
 */
static char *prom_wait(const char *text, long long after, int secs)
{
	char *prom;
	int i;

	for (i = 0; i < secs * 20; i++) {
		prom = slurp(D "/iolat.prom");
		if (prom && strstr(prom, text) &&
		    prom_value(prom, "iolat_exporter_expositions_total") >= after)
			return prom;
		free(prom);
		usleep(50000);
	}
	return NULL;
}

#define HOT_READS 700

/*
 * A disk made through null_blk's configfs during an export over every
 * disk joins it: in the exposition within two intervals of its making,
 * its reads counted exactly as fio counts them, the kernel's count
 * bracketing the module's; its removal is reported on standard error
 * and in the exposition (iolat_devices), and nullb7's reads, before,
 * during and after, are exact.
 */
TEST_F_TIMEOUT(scale, disk_appears, 900)
{
	char cmd[1024], disk[32], key[160];
	long long made, seen, before, after, ios;
	const char *at, *next;
	char *prom, *out;
	int status = -1;
	pid_t pid;

	if (sh("command -v fio >/dev/null"))
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, nullb_configfs());
	nullb_remove("iolat_hot");
	/*
	 * -i 2, device checks every quarter of it: a disk joins at the
	 * second check that sees it.  At -i 0.5, under KASAN beside three
	 * other guests on the host's two CPUs, the checks of 65 disks fell
	 * behind and the disk came in the third exposition
	 */
	snprintf(cmd, sizeof(cmd),
		 "exec %s export --textfile " D " -i 2 --summary " D "/hot.json 2>" ERR,
		 env("IOLAT_CLI"));
	pid = spawn_tracing(cmd, 300);
	ASSERT_LT(0, pid) TH_LOG("%s", slurp(ERR));
	prom = prom_wait("iolat_exporter_expositions_total", 1, 300);
	ASSERT_NE(NULL, prom);
	free(prom);
	ASSERT_EQ(0, sh("dd if=/dev/nullb7 of=/dev/null bs=4k count=200 iflag=direct status=none"));

	ASSERT_EQ(0, nullb_make("iolat_hot", "submit_queues=2 hw_queue_depth=64 size=1024",
				disk, sizeof(disk)));
	prom = slurp(D "/iolat.prom");
	made = prom_value(prom, "iolat_exporter_expositions_total");
	free(prom);
	snprintf(key, sizeof(key), "\niolat_busy_seconds_total{device=\"%s\"}", disk);
	prom = prom_wait(key, 0, 300);
	ASSERT_NE(NULL, prom) TH_LOG("%s never exported: %s", disk, slurp(ERR));
	seen = prom_value(prom, "iolat_exporter_expositions_total");
	snprintf(key, sizeof(key), "iolat_requests_total{device=\"%s\",op=\"read\"}", disk);
	before = prom_value(prom, key);
	free(prom);
	NOTE("%s: in exposition %lld, the last before it was made %lld; %lld reads then",
	     disk, seen, made, before);
	EXPECT_LE(seen - made, 2);
	EXPECT_LE(0, before);
	EXPECT_EQ(0, wait_text(ERR, "appeared: traced from now on", 10)) TH_LOG("%s", slurp(ERR));

	/* fio on it, dd on nullb7 meanwhile */
	EXPECT_EQ(0, sh("dd if=/dev/nullb7 of=/dev/null bs=4k count=300 iflag=direct status=none & "
			"fio --name=hot --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync "
			"--number_ios=%d --size=512M --output-format=json --output=" D "/fio.json; "
			"st=$?; wait $! && exit $st", disk, HOT_READS));
	out = slurp(D "/fio.json");
	at = out ? strstr(out, "\"read\"") : NULL;
	ios = at ? (long long)json_num(at, "total_ios") : -1;
	free(out);
	EXPECT_EQ(HOT_READS, ios);
	/* two expositions after fio's end: the second one read after it */
	prom = slurp(D "/iolat.prom");
	made = prom_value(prom, "iolat_exporter_expositions_total");
	free(prom);
	prom = prom_wait(key, made + 2, 300);
	ASSERT_NE(NULL, prom);
	after = prom_value(prom, key);
	free(prom);
	EXPECT_EQ(ios, after - before) TH_LOG("%s: %lld reads exported, fio made %lld", disk, after - before, ios);

	nullb_remove("iolat_hot");
	EXPECT_EQ(0, wait_text(ERR, "was removed", 300)) TH_LOG("%s", slurp(ERR));
	prom = prom_wait("\niolat_devices{state=\"removed\"} 1\n", 0, 300);
	EXPECT_NE(NULL, prom);
	free(prom);
	EXPECT_EQ(0, sh("dd if=/dev/nullb7 of=/dev/null bs=4k count=500 iflag=direct status=none"));
	kill(pid, SIGINT);
	ASSERT_EQ(0, wait_for(pid, 300, &status));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("%s", slurp(ERR));

	/* the summary: nullb7's every read; the new disk's, in the kernel's bracket */
	out = slurp(D "/hot.json");
	ASSERT_NE(NULL, out);
	at = summary_dev(out, "nullb7");
	ASSERT_NE(NULL, at);
	EXPECT_EQ(1000, (long long)json_num(strstr(strstr(at, "\"ops\":"), "\"read\":"), "ios"));
	at = summary_dev(out, disk);
	ASSERT_NE(NULL, at) TH_LOG("%s is not in the summary", disk);
	ios = (long long)json_num(strstr(strstr(at, "\"ops\":"), "\"read\":"), "ios");
	EXPECT_EQ(after, ios);
	/* removed: its kernel counters went with it, so no bracket */
	EXPECT_NE(NULL, strstr(summary_dev(out, disk), "\"removed\":true"));
	at = summary_dev(out, disk);
	next = strstr(at + 1, "{\"name\":");
	at = strstr(at, "\"kernel\":");
	EXPECT_TRUE(!at || (next && at > next));
	/* every other disk's, in the kernel's bracket throughout */
	check_summary(_metadata, self, out, false);
	free(out);
}

/*
 * The same for stat over every disk: a configfs disk made while it
 * runs joins it, has rows, and its reads are counted exactly from then
 * (the summary); stat ends cleanly after it is removed.
 */
TEST_F_TIMEOUT(scale, disk_appears_stat, 600)
{
	char *out, *name;
	const char *at;
	int st;

	ASSERT_EQ(0, nullb_configfs());
	nullb_remove("iolat_st");
	ASSERT_EQ(0, nullb_settle());
	st = sh("%s stat -o json --summary " D "/st.json 0.5 -- sh -c '"
		"cd /sys/kernel/config/nullb && mkdir iolat_st && echo 2 >iolat_st/submit_queues && "
		"echo 1 >iolat_st/power && n=nullb$(cat iolat_st/index) && "
		"{ test ! -e /sys/block/iolat_st || n=iolat_st; } && echo $n >" D "/st.name && "
		"for i in $(seq 3000); do grep -q \"$n (.*) appeared\" %s && break; sleep 0.1; done && "
		"dd if=/dev/$n of=/dev/null bs=4k count=100 iflag=direct status=none && sleep 1 && "
		"echo 0 >iolat_st/power && rmdir iolat_st && sleep 1' >" D "/st.out 2>%s",
		env("IOLAT_CLI"), ERR, ERR);
	nullb_remove("iolat_st");
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	name = slurp(D "/st.name");
	ASSERT_NE(NULL, name);
	name[strcspn(name, "\n")] = '\0';
	out = slurp(D "/st.out");
	EXPECT_NE(NULL, out && strstr(out, name) ? out : NULL) TH_LOG("no row of %s", name);
	free(out);
	out = slurp(D "/st.json");
	at = summary_dev(out, name);
	ASSERT_NE(NULL, at) TH_LOG("%s is not in the summary", name);
	EXPECT_EQ(100, (long long)json_num(strstr(strstr(at, "\"ops\":"), "\"read\":"), "ios"));
	EXPECT_NE(NULL, strstr(at, "\"removed\":true"));
	NOTE("stat: %s joined, its 100 reads counted", name);
	free(out);
	free(name);
}

/*
 * And for top over every disk: a configfs disk made while it runs joins
 * it and has its line, with the reads made on it; top ends cleanly.
 */
TEST_F_TIMEOUT(scale, disk_appears_top, 600)
{
	char cmd[512], disk[32];
	int status = -1;
	pid_t pid;

	ASSERT_EQ(0, nullb_configfs());
	nullb_remove("iolat_top");
	snprintf(cmd, sizeof(cmd), "exec %s top -i 0.5 >" D "/top.out 2>" ERR,
		 env("IOLAT_CLI"));
	pid = spawn_tracing(cmd, 300);
	ASSERT_LT(0, pid) TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, nullb_make("iolat_top", "submit_queues=2 size=64", disk, sizeof(disk)));
	EXPECT_EQ(0, wait_text(ERR, "appeared: traced from now on", 300)) TH_LOG("%s", slurp(ERR));
	/* reads on it until a frame shows them: its line, IOPS above 0 */
	EXPECT_EQ(0, sh("for i in $(seq 600); do "
			"dd if=/dev/%s of=/dev/null bs=4k count=200 iflag=direct status=none || exit 1; "
			"grep -qE '^%s +[0-9]*[1-9][0-9]*\\.' " D "/top.out && exit 0; done; exit 1",
			disk, disk)) TH_LOG("%s", slurp(D "/top.out"));
	kill(pid, SIGINT);
	ASSERT_EQ(0, wait_for(pid, 120, &status));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("%s", slurp(ERR));
	nullb_remove("iolat_top");
}

IOLAT_HARNESS_MAIN
