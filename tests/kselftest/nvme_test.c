// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe commands, in the guest, on QEMU's NVMe controller (nvme0n1, two
 * vCPUs so several I/O queues): `iolat trace --nvme -o csv` against what
 * the workload itself says it did (fio's own I/O log, blkdiscard's
 * range, nvme-cli), against ftrace's nvme_complete_rq events for the
 * conservation of polled I/O, and across an nvme-core reload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "helpers.h"

#define NOTE(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)
#define NS "nvme0n1"
#define IOLOG "/tmp/iolat_nvme.iolog"
#define MNT "/tmp/iolat_nvme_mnt"
#define TRACEFS "/sys/kernel/tracing"

/* One command of `iolat trace --nvme -o csv`, by the header's names. */
struct cmd {
	char comm[IOLAT_COMM_LEN], dev[32], opcode[24], status[40];
	unsigned long long start, end, slba, lbas, bytes, dsm_first_slba;
	unsigned int qid, cid, nsid, admin, dsm_ranges, dsm_first_lbas;
};

#define MAX_CMDS 40000

struct cmds {
	unsigned int n;
	struct cmd *c;
};

static int col(char **names, int nr, const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* Read the CSV at @path into @out: the number of commands, or -1. */
static int read_cmds(const char *path, struct cmds *out)
{
	enum { START, END, COMM, DEV, QID, CID, OPCODE, NSID, SLBA, LBAS,
	       BYTES, STATUS, ADMIN, DSM_RANGES, DSM_FIRST_SLBA,
	       DSM_FIRST_LBAS, NR_COLS };
	static const char *const want[NR_COLS] = {
		"start_ns", "end_ns", "comm", "device", "qid", "cid", "opcode",
		"nsid", "slba", "length_lbas", "length_bytes", "status",
		"admin", "dsm_ranges", "dsm_first_slba", "dsm_first_lbas",
	};
	char *text = slurp_all(path), *line, *save = NULL, *f[64], *p;
	int idx[NR_COLS], nf, i;

	out->n = 0;
	out->c = calloc(MAX_CMDS, sizeof(*out->c));
	if (!out->c || !text)
		return -1;
	line = strtok_r(text, "\n", &save);
	if (!line)
		return -1;
	for (nf = 0, p = line; nf < 64 && p; nf++)
		f[nf] = strsep(&p, ",");
	for (i = 0; i < NR_COLS; i++)
		if ((idx[i] = col(f, nf, want[i])) < 0)
			return -1;
	while ((line = strtok_r(NULL, "\n", &save)) && out->n < MAX_CMDS) {
		struct cmd *c = &out->c[out->n++];
		char *v[64];
		int n;

		for (n = 0, p = line; n < 64 && p; n++)
			v[n] = strsep(&p, ",");
		if (n != nf)
			return -1;
		c->start = strtoull(v[idx[START]], NULL, 10);
		c->end = strtoull(v[idx[END]], NULL, 10);
		snprintf(c->comm, sizeof(c->comm), "%s", v[idx[COMM]]);
		snprintf(c->dev, sizeof(c->dev), "%s", v[idx[DEV]]);
		c->qid = strtoul(v[idx[QID]], NULL, 10);
		c->cid = strtoul(v[idx[CID]], NULL, 10);
		snprintf(c->opcode, sizeof(c->opcode), "%s", v[idx[OPCODE]]);
		c->nsid = strtoul(v[idx[NSID]], NULL, 10);
		c->slba = strtoull(v[idx[SLBA]], NULL, 10);
		c->lbas = strtoull(v[idx[LBAS]], NULL, 10);
		c->bytes = strtoull(v[idx[BYTES]], NULL, 10);
		snprintf(c->status, sizeof(c->status), "%s", v[idx[STATUS]]);
		c->admin = strtoul(v[idx[ADMIN]], NULL, 10);
		c->dsm_ranges = strtoul(v[idx[DSM_RANGES]], NULL, 10);
		c->dsm_first_slba = strtoull(v[idx[DSM_FIRST_SLBA]], NULL, 10);
		c->dsm_first_lbas = strtoul(v[idx[DSM_FIRST_LBAS]], NULL, 10);
	}
	return out->n;
}

static unsigned int count_opcode(const struct cmds *cs, const char *opcode)
{
	unsigned int i, n = 0;

	for (i = 0; i < cs->n; i++)
		n += !strcmp(cs->c[i].opcode, opcode);
	return n;
}

/* The namespace's logical block size. */
static unsigned int lba_size(void)
{
	char *s = slurp("/sys/block/" NS "/queue/logical_block_size");

	return strtoul(s, NULL, 10);
}

/*
 * Load nvme with @params, nvme-core's I/O timeout at 1 s rather than 30.
 * Polled I/O on 6.12 under this rig's QEMU now and then stops at the
 * emulated controller (seen with iolat not loaded: a job of 3.4 s took
 * 312 s and 75 driver timeouts); the driver's timeout handler then aborts
 * the commands, resets the controller and retries them, and the tests
 * count every try.  The timeout is read when nvme allocates its tag sets.
 */
static int nvme_load(const char *params)
{
	return sh("modprobe nvme_core && echo 1 >/sys/module/nvme_core/parameters/io_timeout && modprobe nvme %s",
		  params);
}

FIXTURE(nvme) {
	unsigned int lba;
	pid_t cli;	/* a CLI run in the background, reaped in teardown */
};

FIXTURE_SETUP(nvme)
{
	if (sh("command -v fio >/dev/null") != 0)
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, nvme_load(""));
	ASSERT_EQ(0, wait_disk(NS)) TH_LOG("no /dev/" NS ": the guest needs QEMU's NVMe drive");
	ASSERT_EQ(0, module_load());
	self->lba = lba_size();
	ASSERT_LT(0, self->lba);
	sh("dmesg -c >/dev/null");
}

/*
 * Whatever a test left behind when an assertion ended it: its CLI, ftrace
 * events (which hold nvme-core), a mount, nvme loaded with poll queues
 * or not at all.
 */
FIXTURE_TEARDOWN(nvme)
{
	int st;

	if (self->cli > 0) {
		kill(-self->cli, SIGKILL);
		wait_for(self->cli, 30, &st);
	}
	sh("{ echo 0 >" TRACEFS "/tracing_on; echo 0 >" TRACEFS "/events/nvme/enable; } 2>/dev/null; true");
	sh("umount " MNT " 2>/dev/null; umount /tmp/iolat_wl/f 2>/dev/null; true");
	if (!sh("test \"$(cat /sys/module/nvme/parameters/poll_queues 2>/dev/null || echo 0)\" != 0"))
		EXPECT_EQ(0, nvme_unload(""));
	if (sh("test -d /sys/module/nvme"))
		EXPECT_EQ(0, nvme_load("") || wait_disk(NS));
	EXPECT_EQ(0, dmesg_bad_reports());
}

/*
 * nvme-core's own nvme_setup_cmd event (ftrace) of the command with
 * opcode @op ("read", "write") at @slba on NS in TRACEFS/trace: its qid,
 * command id and nsid.  Return: 0, or -1 if there is none.
 */
static int ftrace_setup(const char *op, unsigned long long slba,
			unsigned int *qid, unsigned int *cid, unsigned int *nsid)
{
	char cmd[512], *out;
	int n;

	snprintf(cmd, sizeof(cmd),
		 "grep -o 'nvme_setup_cmd: .*qid=[0-9]*, cmdid=[0-9]*, nsid=[0-9]*, .*cmd=(nvme_cmd_%s slba=%llu,' " TRACEFS "/trace "
		 "| head -1 | sed 's/.*qid=\\([0-9]*\\), cmdid=\\([0-9]*\\), nsid=\\([0-9]*\\),.*/\\1 \\2 \\3/' >/tmp/iolat_setup.txt",
		 op, slba);
	if (sh("%s", cmd))
		return -1;
	out = slurp("/tmp/iolat_setup.txt");
	n = out ? sscanf(out, "%u %u %u", qid, cid, nsid) : 0;
	free(out);
	return n == 3 ? 0 : -1;
}

/*
 * A sequential fio job's writes then reads: each of fio's I/Os (its own
 * log, --write_iolog) is one NVMe command with the right opcode, slba
 * and length, on an I/O queue, status success; and its qid, command id
 * and nsid are those of nvme-core's own nvme_setup_cmd event of the same
 * command (ftrace, the same run).
 */
TEST_F_TIMEOUT(nvme, fio_offsets, 300)
{
	struct cmds cs;
	unsigned long long off, len;
	char *log, *line, *save = NULL, op[16], file[64];
	unsigned int i, matched = 0, ios = 0, traced = 0, fq, fc, fn;
	int st;

	sh("rm -f " IOLOG "*");	/* fio appends to an I/O log left before */
	sh("mountpoint -q " TRACEFS " || mount -t tracefs none " TRACEFS);
	ASSERT_EQ(0, sh("cd " TRACEFS " && echo 0 >tracing_on && echo 4096 >buffer_size_kb && echo >trace && "
			"echo 1 >events/nvme/nvme_setup_cmd/enable && echo 1 >tracing_on"));
	st = sh("%s trace --nvme -o csv -d " NS " -- fio --name=seq --filename=/dev/" NS " --rw=write --bs=64k --offset=8M --size=2M --direct=1 --ioengine=psync --write_iolog=" IOLOG ".w --output=/dev/null >%s 2>%s && "
		"%s trace --nvme -o csv -d " NS " -- fio --name=seq --filename=/dev/" NS " --rw=read --bs=64k --offset=8M --size=2M --direct=1 --ioengine=psync --write_iolog=" IOLOG ".r --output=/dev/null >>%s 2>>%s",
		env("IOLAT_CLI"), CSV, ERR, env("IOLAT_CLI"), CSV, ERR);
	sh("cd " TRACEFS " && echo 0 >tracing_on && echo 0 >events/nvme/nvme_setup_cmd/enable");
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	/* the second header line is a row of its own: drop it */
	sh("awk 'NR == 1 || !/^start_ns/' %s >%s.1 && mv %s.1 %s", CSV, CSV,
	   CSV, CSV);
	ASSERT_LT(0, read_cmds(CSV, &cs));
	NOTE("fio_offsets: %u commands, %u writes, %u reads", cs.n,
	     count_opcode(&cs, "write"), count_opcode(&cs, "read"));
	sh("cat " IOLOG ".w " IOLOG ".r >" IOLOG);
	log = slurp_all(IOLOG);
	ASSERT_NE(NULL, log);
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* version 3 logs begin each line with a time */
		if (sscanf(line, "%*u %63s %15s %llu %llu", file, op, &off,
			   &len) != 4 &&
		    sscanf(line, "%63s %15s %llu %llu", file, op, &off,
			   &len) != 4)
			continue;
		if (strcmp(op, "read") && strcmp(op, "write"))
			continue;
		ios++;
		for (i = 0; i < cs.n; i++) {
			struct cmd *c = &cs.c[i];

			if (strcmp(c->opcode, op) || c->slba != off / self->lba ||
			    c->bytes != len || c->lbas != len / self->lba)
				continue;
			EXPECT_LT(0, c->qid);
			EXPECT_STREQ("success", c->status);
			EXPECT_STREQ(NS, c->dev);
			EXPECT_STREQ("fio", c->comm);
			EXPECT_LT(c->start, c->end);
			matched++;
			if (!ftrace_setup(op, c->slba, &fq, &fc, &fn)) {
				traced++;
				EXPECT_EQ(fq, c->qid);
				EXPECT_EQ(fc, c->cid);
				EXPECT_EQ(fn, c->nsid);
			}
			break;
		}
		EXPECT_GT(cs.n, i) TH_LOG("fio's %s at %llu, %llu bytes: no command",
					  op, off, len);
	}
	NOTE("fio_offsets: fio logged %u I/Os, %u matched a command, %u of them to nvme-core's nvme_setup_cmd event (qid, command id, nsid)",
	     ios, matched, traced);
	EXPECT_EQ(64, ios);
	EXPECT_EQ(ios, matched);
	EXPECT_EQ(matched, traced);
	EXPECT_EQ(32, count_opcode(&cs, "write"));
	EXPECT_EQ(32, count_opcode(&cs, "read"));
}

/* blkdiscard of a known range: DSM commands whose ranges add up to it. */
TEST_F_TIMEOUT(nvme, discard_ranges, 300)
{
	const unsigned long long off = 3ULL << 20, len = 5ULL << 20;
	unsigned long long lbas = 0, next = off / self->lba;
	unsigned int i, dsm = 0;
	struct cmds cs;
	int st;

	st = sh("%s trace --nvme -o csv -d " NS " -- blkdiscard -o %llu -l %llu /dev/" NS " >%s 2>%s",
		env("IOLAT_CLI"), off, len, CSV, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(0, read_cmds(CSV, &cs));
	for (i = 0; i < cs.n; i++) {
		struct cmd *c = &cs.c[i];

		if (strcmp(c->opcode, "dsm"))
			continue;
		NOTE("discard_ranges: dsm cid %u qid %u: %u range(s), %llu blocks, first at %llu for %u, %llu bytes, %s",
		     c->cid, c->qid, c->dsm_ranges, c->lbas, c->dsm_first_slba,
		     c->dsm_first_lbas, c->bytes, c->status);
		dsm++;
		lbas += c->lbas;
		EXPECT_STREQ("success", c->status);
		EXPECT_EQ(c->lbas * self->lba, c->bytes);
		EXPECT_LT(0, c->dsm_ranges);
		/* blkdiscard goes in order, one contiguous range each */
		if (c->dsm_ranges == 1) {
			EXPECT_EQ(next, c->dsm_first_slba);
			EXPECT_EQ(c->lbas, c->dsm_first_lbas);
			next = c->dsm_first_slba + c->dsm_first_lbas;
		}
	}
	EXPECT_LT(0, dsm);
	EXPECT_EQ(len / self->lba, lbas);
	EXPECT_EQ(0, count_opcode(&cs, "write"));
}

/* nvme id-ctrl is an admin command: qid 0, identify, nvme0, by nvme. */
TEST_F_TIMEOUT(nvme, admin_identify, 300)
{
	unsigned int i, found = 0;
	struct cmds cs;
	int st;

	if (sh("command -v nvme >/dev/null"))
		SKIP(return, "nvme-cli is not installed");
	st = sh("%s trace --nvme -o csv -d " NS " -- sh -c 'nvme id-ctrl /dev/nvme0 >/dev/null' >%s 2>%s",
		env("IOLAT_CLI"), CSV, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(0, read_cmds(CSV, &cs));
	for (i = 0; i < cs.n; i++) {
		struct cmd *c = &cs.c[i];

		if (strcmp(c->opcode, "identify"))
			continue;
		NOTE("admin_identify: %s qid %u cid %u %s by %s, %llu bytes, %s",
		     c->dev, c->qid, c->cid, c->opcode, c->comm, c->bytes,
		     c->status);
		EXPECT_EQ(0, c->qid);
		EXPECT_EQ(1, c->admin);
		EXPECT_STREQ("nvme0", c->dev);
		EXPECT_STREQ("nvme", c->comm);
		EXPECT_STREQ("success", c->status);
		EXPECT_EQ(4096, c->bytes);
		found++;
	}
	EXPECT_EQ(1, found);
}

/*
 * nvme-core just loaded: its tags' generations are 0, which say nothing
 * of its request layout at setup, and a passthrough command's flags byte
 * reads as a status in the layout without one.  Every identify is named
 * a success all the same: the completion's generation, one more than at
 * setup, says which layout (in CI, 6.12 once named the first "unknown").
 */
#define IDENTIFIES 16
TEST_F_TIMEOUT(nvme, admin_status_after_reload, 300)
{
	unsigned int i, found = 0, ok = 0;
	struct cmds cs;
	int st;

	if (sh("command -v nvme >/dev/null"))
		SKIP(return, "nvme-cli is not installed");
	ASSERT_EQ(0, nvme_unload(""));
	ASSERT_EQ(0, nvme_load(""));
	ASSERT_EQ(0, wait_disk(NS));
	/*
	 * from each CPU in turn (each CPU's tag hint moves on by one): half
	 * the admin queue's tags, most of them each on its first command
	 */
	st = sh("%s trace --nvme -o csv -d " NS " -- sh -c 'n=$(nproc); for i in $(seq 0 %u); do "
		"taskset -c $((i %% n)) nvme id-ctrl /dev/nvme0 >/dev/null || exit 1; done' >%s 2>%s",
		env("IOLAT_CLI"), IDENTIFIES - 1, CSV, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(0, read_cmds(CSV, &cs));
	for (i = 0; i < cs.n; i++) {
		struct cmd *c = &cs.c[i];

		if (strcmp(c->opcode, "identify") || strcmp(c->comm, "nvme"))
			continue;
		found++;
		ok += !strcmp(c->status, "success");
		NOTE("admin_status_after_reload: identify cid %#x: %s",
		     c->cid, c->status);
	}
	EXPECT_EQ(IDENTIFIES, found);
	EXPECT_EQ(found, ok);
}

/*
 * fsync on a file system on the drive sends flushes; blkdiscard -z a
 * range sends write-zeroes commands covering it.
 */
TEST_F_TIMEOUT(nvme, flush_and_write_zeroes, 300)
{
	const unsigned long long off = 20ULL << 20, len = 1ULL << 20;
	unsigned long long lbas = 0;
	unsigned int i, flushes, wz = 0;
	struct cmds cs;
	int st;

	ASSERT_EQ(0, sh("modprobe ext4 && mkfs.ext4 -q -F /dev/" NS " >/dev/null 2>&1 && mkdir -p " MNT " && mount /dev/" NS " " MNT));
	st = sh("%s trace --nvme -o csv -d " NS " -- sh -c 'dd if=/dev/zero of=" MNT "/f bs=4k count=16 conv=fsync 2>/dev/null && sync' >%s 2>%s",
		env("IOLAT_CLI"), CSV, ERR);
	sh("umount " MNT);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(0, read_cmds(CSV, &cs));
	flushes = count_opcode(&cs, "flush");
	NOTE("flush_and_write_zeroes: fsync on ext4: %u commands, %u flushes, %u writes",
	     cs.n, flushes, count_opcode(&cs, "write"));
	EXPECT_LT(0, flushes);
	for (i = 0; i < cs.n; i++)
		if (!strcmp(cs.c[i].opcode, "flush"))
			EXPECT_EQ(0, cs.c[i].lbas);
	free(cs.c);

	st = sh("%s trace --nvme -o csv -d " NS " -- blkdiscard -z -o %llu -l %llu /dev/" NS " >%s 2>%s",
		env("IOLAT_CLI"), off, len, CSV, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(0, read_cmds(CSV, &cs));
	for (i = 0; i < cs.n; i++) {
		struct cmd *c = &cs.c[i];

		if (strcmp(c->opcode, "write_zeroes"))
			continue;
		wz++;
		lbas += c->lbas;
		EXPECT_LE(off / self->lba, c->slba);
		EXPECT_GE((off + len) / self->lba, c->slba + c->lbas);
		EXPECT_STREQ("success", c->status);
	}
	NOTE("flush_and_write_zeroes: blkdiscard -z of %llu bytes: %u write_zeroes commands, %llu blocks",
	     len, wz, lbas);
	/*
	 * A kernel that does not send Write Zeroes to this drive (its queue
	 * limit is 0: 4.19's nvme) writes pages of zeroes instead.
	 */
	if (atoll(slurp("/sys/block/" NS "/queue/write_zeroes_max_bytes")) == 0) {
		for (i = 0, lbas = 0; i < cs.n; i++)
			if (!strcmp(cs.c[i].opcode, "write"))
				lbas += cs.c[i].lbas;
		NOTE("flush_and_write_zeroes: no Write Zeroes on this kernel: writes of %llu blocks",
		     lbas);
		EXPECT_EQ(0, wz);
	} else {
		EXPECT_LT(0, wz);
	}
	EXPECT_EQ(len / self->lba, lbas);
}

/*
 * A flush has no sector (printed as 18446744073709551615):
 * "-" in trace's text, an empty field in its CSV.  fsync on the raw
 * device sends the drive (a volatile write cache) a flush.
 */
TEST_F_TIMEOUT(nvme, flush_has_no_sector, 300)
{
	int st, flushes = 0, bad = 0;
	char line[1024], *f[8], *p;
	FILE *fp;
	unsigned int k;

	st = sh("%s trace -d " NS " -- dd if=/dev/zero of=/dev/" NS " bs=4k count=4 oflag=direct conv=fsync >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	fp = fopen(OUT, "r");
	ASSERT_NE(NULL, fp);
	while (fgets(line, sizeof(line), fp)) {
		/* time comm pid device op sector ... */
		for (k = 0, p = strtok(line, " \n"); p && k < 8; p = strtok(NULL, " \n"))
			f[k++] = p;
		if (k < 6 || strcmp(f[4], "flush"))
			continue;
		flushes++;
		bad += strcmp(f[5], "-") != 0;
	}
	fclose(fp);
	NOTE("flush_has_no_sector: %d flushes in trace's text, %d with a sector", flushes, bad);
	EXPECT_LT(0, flushes) TH_LOG("%s", slurp(OUT));
	EXPECT_EQ(0, bad) TH_LOG("%s", slurp(OUT));
	st = sh("%s trace -o csv -d " NS " -- dd if=/dev/zero of=/dev/" NS " bs=4k count=4 oflag=direct conv=fsync >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	/* the sector is the 11th field: empty in every flush row */
	EXPECT_EQ(0, sh("awk -F, 'NR > 1 && $9 == \"flush\" { n++; if ($11 != \"\") bad++ } END { exit !(n > 0 && !bad) }' %s", OUT))
		TH_LOG("%s", slurp(OUT));
}

/* @op's requests in record's JSON summary of the device, or -1. */
static long long summary_op(const char *json, const char *op, const char *key)
{
	char pat[64];
	const char *p = strstr(json, "], \"devices\": [");

	snprintf(pat, sizeof(pat), "{\"op\": \"%s\", ", op);
	p = p ? strstr(p, pat) : NULL;
	/* (the op's own object: its "ios" and "bytes" come first) */
	return p ? (long long)json_num(p, key) : -1;
}

/*
 * fsync() after each write on the raw drive (a volatile write cache):
 * blk-mq turns each fsync into an empty write that waits for a flush
 * (they were counted into the write percentiles unseen).
 * record shows them apart, as "preflush", the data writes alone in
 * "write": checked against fio's own counts of its writes and fsyncs,
 * and write + preflush and the flushes against the drive's diskstats.
 * trace marks them: preflush in the flags, no sector; a flush the
 * kernel issued has no submitter (an empty comm and pid).
 */
TEST_F_TIMEOUT(nvme, preflush_writes_apart, 300)
{
	unsigned long long a[17], b[17];
	double fw, fs;
	char *out, *fio;
	int st, nf;

	if (sh("grep -q 'write back' /sys/block/" NS "/queue/write_cache"))
		SKIP(return, "the drive has no volatile write cache: no flushes");
	/* diskstats counts flushes from 5.5 on: 17 fields, else 11 or 15 */
	nf = dev_stat(NS, a);
	ASSERT_LE(11, nf);
	st = sh("%s record -o json -d " NS " -- fio --name=pf --filename=/dev/" NS " --rw=randwrite --bs=4k --direct=1 --ioengine=psync --fsync=1 --number_ios=200 --size=64M --output-format=json --output=/tmp/iolat_pf.json >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(nf, dev_stat(NS, b));
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	fio = slurp("/tmp/iolat_pf.json");
	if (nf < 17)
		a[15] = b[15] = 0;
	fw = json_num(strstr(fio, "\"write\""), "total_ios");
	fs = json_num(strstr(fio, "\"sync\""), "total_ios");
	NOTE("preflush_writes_apart: fio %.0f writes, %.0f fsyncs; iolat write %lld, preflush %lld, flush %lld; diskstats %llu writes, %llu flushes",
	     fw, fs, summary_op(out, "write", "ios"),
	     summary_op(out, "preflush", "ios"),
	     summary_op(out, "flush", "ios"), b[4] - a[4], b[15] - a[15]);
	ASSERT_EQ(200, fw) TH_LOG("%.2000s", fio);
	ASSERT_LT(0, fs);
	EXPECT_EQ(fw, summary_op(out, "write", "ios"));
	EXPECT_EQ(4096 * fw, summary_op(out, "write", "bytes"));
	EXPECT_EQ(fs, summary_op(out, "preflush", "ios"));
	EXPECT_EQ(0, summary_op(out, "preflush", "bytes"));
	EXPECT_EQ(b[4] - a[4], summary_op(out, "write", "ios") +
				summary_op(out, "preflush", "ios"));
	if (nf >= 17) {
		EXPECT_EQ(b[15] - a[15], summary_op(out, "flush", "ios"));
	} else {
		EXPECT_LT(0, summary_op(out, "flush", "ios"));
	}
	/* the data writes' own latency: no D2C-less empty write among them */
	EXPECT_EQ(fw, json_num(strstr(strstr(strstr(out, "], \"devices\": ["),
					      "{\"op\": \"write\", "),
				       "\"D2C\""), "count"));

	st = sh("%s trace -o csv -d " NS " -- dd if=/dev/zero of=/dev/" NS " bs=4k count=4 oflag=direct conv=fsync >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	/* op $9, flags $10, sector $11, bytes $12, pid $20, comm $22 */
	EXPECT_EQ(0, sh("awk -F, 'NR > 1 && $9 == \"write\" && $12 == 0 { e++; if ($11 != \"\" || $10 !~ /preflush/ || $22 != \"dd\") bad++ } NR > 1 && $9 == \"flush\" { f++; if ($20 != \"\" || $22 != \"\") bad++ } END { exit !(e > 0 && f > 0 && !bad) }' %s", OUT))
		TH_LOG("%s", slurp(OUT));
}

/*
 * record --nvme (README and the man page said record shows the
 * NVMe stage; it had no --nvme): 300 random reads are 300 NVMe stages
 * in record's JSON, inside their Q2C and near their D2C; --stage NVMe as a
 * fio log, live and from the saved file, and as a plot; and a file
 * recorded without --nvme is refused for --stage NVMe with one line.
 */
TEST_F_TIMEOUT(nvme, record_nvme_stage, 300)
{
	char *out, *nv, *d2c, *q2c;
	int st;

	st = sh("%s record --nvme -o json -d " NS " -w /tmp/iolat_nv.rec -- fio --name=r --filename=/dev/" NS " --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=300 --size=64M --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	nv = strstr(out, "\"NVMe\": {");
	d2c = strstr(out, "\"D2C\": {");
	ASSERT_NE(NULL, nv) TH_LOG("%.600s", out);
	ASSERT_NE(NULL, d2c);
	EXPECT_EQ(300, json_num(nv, "count"));
	EXPECT_EQ(300, json_num(d2c, "count"));
	/*
	 * The command runs from nvme_setup_cmd, just before the request's
	 * issue (D), to nvme_complete_rq, just before its completion (C):
	 * inside Q2C, and the drive's time (100 us and more here) plus a
	 * few microseconds of the driver's, so near D2C.
	 */
	q2c = strstr(out, "\"Q2C\": {");
	ASSERT_NE(NULL, q2c);
	EXPECT_LE(json_num(nv, "mean_ns"), json_num(q2c, "mean_ns"));
	EXPECT_LE(json_num(nv, "max_ns"), json_num(q2c, "max_ns"));
	EXPECT_LE(0.5 * json_num(d2c, "mean_ns"), json_num(nv, "mean_ns"));
	EXPECT_GE(1.5 * json_num(d2c, "mean_ns"), json_num(nv, "mean_ns"));
	EXPECT_LT(0, json_num(nv, "min_ns"));
	free(out);
	/* the fio log of the NVMe stage: one line per second and direction */
	st = sh("%s record --nvme --stage NVMe -o fio -d " NS " -- fio --name=r --filename=/dev/" NS " --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=300 --size=64M --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	EXPECT_LT(0, count_lines(slurp(OUT))) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("%s report /tmp/iolat_nv.rec --stage NVMe -o fio | grep -q '^[0-9]*, 0, 4096, '",
			env("IOLAT_CLI")));
	EXPECT_EQ(0, sh("%s plot /tmp/iolat_nv.rec --stage NVMe -o /tmp/iolat_nv.svg && grep -q '<polyline' /tmp/iolat_nv.svg",
			env("IOLAT_CLI")));
	/* without --nvme: refused, live and from a file */
	EXPECT_EQ(2, sh("%s record --stage NVMe -o fio -d " NS " -t 1 >/dev/null 2>%s",
			env("IOLAT_CLI"), ERR));
	EXPECT_NE(NULL, strstr(slurp(ERR), "--stage NVMe needs --nvme"));
	ASSERT_EQ(0, sh("%s record -d " NS " -w /tmp/iolat_blk.rec -o json -- dd if=/dev/" NS " of=/dev/null bs=4k count=8 iflag=direct >/dev/null 2>&1",
			env("IOLAT_CLI")));
	EXPECT_EQ(1, sh("%s plot /tmp/iolat_blk.rec --stage NVMe -o /tmp/iolat_nv.svg 2>%s",
			env("IOLAT_CLI"), ERR));
	EXPECT_NE(NULL, strstr(slurp(ERR), "no NVMe command in the record file"));
}

/*
 * iolat nvme -o json: a job of 300 random reads at QD 4 is 300 read
 * commands, spread over the I/O queues, each with a queue depth at
 * setup below 4 and a driver time within its own min and max.
 */
TEST_F_TIMEOUT(nvme, summary_json, 300)
{
	char *out, *p, *ops;
	long long qids = 0, qd = 0;
	int st, nq = 0;

	st = sh("%s nvme -o json -d " NS " -- fio --name=j --filename=/dev/" NS " --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --number_ios=300 --size=64M --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	NOTE("summary_json: %.400s", out);
	ops = strstr(out, "\"opcodes\"");
	ASSERT_NE(NULL, ops);
	/* the qids: everything before "opcodes" */
	for (p = out; (p = strstr(p, "\"qid\":")) && p < ops; p++) {
		char *h = strstr(p, "\"qd_hist\":[");
		int i;

		nq++;
		qids += (long long)json_num(p, "commands");
		EXPECT_LE(json_num(p, "min_ns"), json_num(p, "p50_ns"));
		EXPECT_LE(json_num(p, "p50_ns"), json_num(p, "p99_ns"));
		EXPECT_LE(json_num(p, "p99_ns"), json_num(p, "max_ns") * 1.004);
		ASSERT_NE(NULL, h);
		h += strlen("\"qd_hist\":[");
		for (i = 0; *h && *h != ']'; i++) {
			long long n = strtoll(h, &h, 10);

			qd += n;
			EXPECT_TRUE(i < 4 || n == 0) TH_LOG("depth %d at setup", i);
			if (*h == ',')
				h++;
		}
	}
	EXPECT_LE(1, nq);
	EXPECT_EQ(300, qids);
	EXPECT_EQ(300, qd);
	p = strstr(ops, "\"opcode\":\"read\"");
	ASSERT_NE(NULL, p);
	EXPECT_EQ(300, json_num(p, "commands"));
	EXPECT_EQ(300 * 4096, json_num(p, "bytes"));
	EXPECT_EQ(0, json_num(p, "errors"));
}

/* Events ftrace's buffers overwrote or dropped, over the CPUs, or -1. */
static long long ftrace_lost(void)
{
	long long lost = -1;

	if (sh("cat " TRACEFS "/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF; seen = 1 } END { if (!seen) exit 1; print n }' >/tmp/iolat_ftrace.lost"))
		return -1;
	sscanf(slurp("/tmp/iolat_ftrace.lost"), "%lld", &lost);
	return lost;
}

/*
 * nvme_complete_rq events in ftrace's buffer, or -1 if it lost some: the
 * header's entries in the buffer against those written, or, where the
 * header has no such line (RHEL 8), each CPU's overruns and dropped
 * events.
 */
static long long ftrace_completions(void)
{
	long long n = -1, in, written;
	const char *line;
	char *head;

	if (sh("head -5 " TRACEFS "/trace >/tmp/iolat_ftrace.head && grep -c nvme_complete_rq: " TRACEFS "/trace >/tmp/iolat_ftrace.n") > 1)
		return -1;
	head = slurp("/tmp/iolat_ftrace.head");
	line = strstr(head, "entries-in-buffer/entries-written:");
	if (line) {
		if (sscanf(line, "entries-in-buffer/entries-written: %lld/%lld",
			   &in, &written) != 2 || in != written)
			return -1;
	} else if (ftrace_lost() != 0) {
		return -1;
	}
	sscanf(slurp("/tmp/iolat_ftrace.n"), "%lld", &n);
	return n;
}

/*
 * The queue depth of each command at its setup (`trace --nvme`'s qd)
 * against nvme-core's own events of the same run, replayed by
 * tests/kselftest/nvme_qd_vs_ftrace.py: its nvme_setup_cmd and
 * nvme_complete_rq, with every event kept.  A job of 2000 random reads
 * at depth 16.  The events are ordered by ftrace's counter clock, one
 * count for all CPUs: the default, each CPU's own clock, need not order
 * two vCPUs' events as they happened when the host is busy.
 */
TEST_F_TIMEOUT(nvme, qd_against_ftrace, 300)
{
	int st;

	sh("mountpoint -q " TRACEFS " || mount -t tracefs none " TRACEFS);
	ASSERT_EQ(0, sh("cd " TRACEFS " && echo 0 >tracing_on && echo 16384 >buffer_size_kb && echo counter >trace_clock && echo >trace && "
			"echo 1 >events/nvme/nvme_setup_cmd/enable && echo 1 >events/nvme/nvme_complete_rq/enable && echo 1 >tracing_on"));
	st = sh("%s trace --nvme -o csv -d " NS " -- fio --name=qd --filename=/dev/" NS " --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --number_ios=2000 --size=256M --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), CSV, ERR);
	sh("cd " TRACEFS " && echo 0 >tracing_on && echo 0 >events/nvme/nvme_setup_cmd/enable && echo 0 >events/nvme/nvme_complete_rq/enable");
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, ftrace_lost()) TH_LOG("ftrace lost events: no truth");
	st = sh("cp " TRACEFS "/trace /tmp/iolat_qd.trace && echo local >" TRACEFS "/trace_clock && python3 " IOLAT_KSFT_DIR "/nvme_qd_vs_ftrace.py /tmp/iolat_qd.trace %s >/tmp/iolat_qd.out 2>&1",
		CSV);
	NOTE("qd_against_ftrace: %s", slurp("/tmp/iolat_qd.out"));
	/* on one line, for make check's digest of a failure */
	sh("tr '\\n' ' ' </tmp/iolat_qd.out >/tmp/iolat_qd.line");
	EXPECT_EQ(0, st) TH_LOG("%s", slurp("/tmp/iolat_qd.line"));
}

/*
 * A read past the namespace's last block, sent as a passthrough I/O
 * command (the block layer would refuse it before the driver): the
 * controller answers LBA Out of Range with Do Not Retry, and the record
 * says so, on every kernel, whichever layout of nvme-core's request data
 * it has (compat.h).  The truth is the same command's status as nvme-cli
 * prints it from the completion it was given.
 */
TEST_F_TIMEOUT(nvme, out_of_range_status, 120)
{
	unsigned long long nlb;
	unsigned int i, found = 0;
	struct cmds cs;
	int st;

	nlb = atoll(slurp("/sys/block/" NS "/size")) * 512 / self->lba;
	ASSERT_LT(0, nlb);
	st = sh("%s trace --nvme -o csv -d " NS " -- sh -c 'nvme read /dev/" NS " --start-block=%llu --block-count=0 --data-size=%u >/tmp/iolat_nvme_cli.out 2>&1; true' >%s 2>%s",
		env("IOLAT_CLI"), nlb, self->lba, CSV, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	NOTE("out_of_range_status: nvme-cli said: %s", slurp("/tmp/iolat_nvme_cli.out"));
	/* nvme-cli names the status (\"LBA Out of Range\" or LBA_RANGE) */
	EXPECT_NE(NULL, strcasestr(slurp("/tmp/iolat_nvme_cli.out"), "LBA"));
	ASSERT_LT(0, read_cmds(CSV, &cs));
	for (i = 0; i < cs.n; i++) {
		struct cmd *c = &cs.c[i];

		if (c->admin || strcmp(c->opcode, "read") || c->slba != nlb)
			continue;
		found++;
		NOTE("out_of_range_status: qid %u cid %u read of block %llu: %s",
		     c->qid, c->cid, c->slba, c->status);
		EXPECT_STREQ("lba_range|dnr", c->status);
	}
	EXPECT_EQ(1, found);
	free(cs.c);
}

/*
 * The flight recorder with --on-error and --nvme: the same out-of-range
 * read, among plain reads, makes one dump whose trigger is that read,
 * with its NVMe status named (LBA Out of Range, Do Not Retry), and the
 * block layer's status where the kernel gives it one (7.2 does not: a
 * passthrough command's NVMe status goes to its caller alone).
 */
TEST_F_TIMEOUT(nvme, watch_on_error_dump, 300)
{
	unsigned long long nlb;
	int st;

	nlb = atoll(slurp("/sys/block/" NS "/size")) * 512 / self->lba;
	ASSERT_LT(0, nlb);
	sh("rm -rf /tmp/iolat_watch_err");
	st = sh("%s watch -d " NS " --nvme --on-error --before 2 --after 0.5 -w /tmp/iolat_watch_err -- sh -c "
		"'dd if=/dev/" NS " of=/dev/null bs=4k count=100 iflag=direct status=none; "
		"nvme read /dev/" NS " --start-block=%llu --block-count=0 --data-size=%u >/dev/null 2>&1; "
		"dd if=/dev/" NS " of=/dev/null bs=4k count=100 iflag=direct status=none' >/dev/null 2>%s",
		env("IOLAT_CLI"), nlb, self->lba, ERR);
	NOTE("watch_on_error_dump: %s", slurp(ERR));
	ASSERT_EQ(0, st);
	ASSERT_EQ(0, sh("test $(ls /tmp/iolat_watch_err/*.rec | wc -l) = 1"));
	ASSERT_EQ(0, sh("%s report -o json /tmp/iolat_watch_err/*.rec >%s 2>%s",
			env("IOLAT_CLI"), OUT, ERR)) TH_LOG("%s", slurp(ERR));
	NOTE("watch_on_error_dump: the dump's trigger: %s",
	     strstr(slurp(OUT), "\"trigger\"") ?: slurp(OUT));
	EXPECT_EQ(0, sh("python3 -c 'import json, sys; t = json.load(open(\"%s\"))[\"trigger\"]; "
			"sys.exit(not (t[\"reason\"] == \"error\" and t[\"nvme_status\"] == \"lba_range|dnr\" and "
			"(t[\"error\"] == 0 or t[\"status\"].startswith(\"BLK_STS_\")) and "
			"t[\"device\"] == \"" NS "\"))'", OUT));
	EXPECT_EQ(0, sh("%s report /tmp/iolat_watch_err/*.rec | grep -q '^trigger: error: " NS "'",
			env("IOLAT_CLI")));
}

/*
 * The flight recorder's limits: four errors, each after the dump of the
 * one before, with --max-dumps 3 and --keep 2: three dumps written, the
 * two newest kept, then the recorder off; a dump that would leave less
 * than --min-free of its file system (a 2 MiB tmpfs) free is not
 * written; SIGUSR1 asks for a dump.
 */
TEST_F_TIMEOUT(nvme, watch_limits, 300)
{
	unsigned long long nlb;
	char err[128];
	int st;

	nlb = atoll(slurp("/sys/block/" NS "/size")) * 512 / self->lba;
	ASSERT_LT(0, nlb);
	sh("rm -rf /tmp/iolat_wl; mkdir -p /tmp/iolat_wl");
	/* each round waits for its dump's line, or the recorder's end */
	st = sh("%s watch -d " NS " --on-error --before 1 --after 0.2 --min-gap 0 --max-dumps 3 --keep 2 "
		"-w /tmp/iolat_wl/d -- sh -c 'for i in 1 2 3 4; do "
		"nvme read /dev/" NS " --start-block=%llu --block-count=0 --data-size=%u >/dev/null 2>&1; "
		"n=0; until grep -q \"dump $i:\\\\|max-dumps\" /tmp/iolat_wl/err; do sleep 0.1; n=$((n + 1)); [ $n -lt 3000 ] || exit 1; done; "
		"done' >/dev/null 2>/tmp/iolat_wl/err",
		env("IOLAT_CLI"), nlb, self->lba);
	NOTE("watch_limits: --max-dumps 3 --keep 2: %s", slurp("/tmp/iolat_wl/err"));
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, sh("grep -q '3 dumps written (--max-dumps): the recorder stays off' /tmp/iolat_wl/err"));
	EXPECT_EQ(0, sh("test $(ls /tmp/iolat_wl/d | wc -l) = 2 && ls /tmp/iolat_wl/d/*-2.rec /tmp/iolat_wl/d/*-3.rec"));
	/*
	 * no room: a 2 MiB file system, and 1 MiB of buffers (2 CPUs of
	 * 1024 records, and a MiB besides) would leave under --min-free 50
	 */
	snprintf(err, sizeof(err), "/tmp/iolat_wl/err2");
	ASSERT_EQ(0, sh("mkdir -p /tmp/iolat_wl/f && mount -t tmpfs -o size=2m iolat_wl /tmp/iolat_wl/f"));
	st = sh("%s watch -d " NS " -b 1024 --on-error --before 1 --after 0.2 --min-free 50 -w /tmp/iolat_wl/f -- sh -c '"
		"nvme read /dev/" NS " --start-block=%llu --block-count=0 --data-size=%u >/dev/null 2>&1; "
		"n=0; until grep -q \"not written\" %s; do sleep 0.1; n=$((n + 1)); [ $n -lt 3000 ] || exit 1; done' >/dev/null 2>%s",
		env("IOLAT_CLI"), nlb, self->lba, err, err);
	NOTE("watch_limits: --min-free 50 of 2 MiB: %s", slurp(err));
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, sh("grep -q '0 dumps written, 1 not (no room)' %s && test -z \"$(ls /tmp/iolat_wl/f)\"", err));
	sh("umount /tmp/iolat_wl/f");
	/* SIGUSR1: a dump asked for */
	st = sh("%s watch -d " NS " --slower-than 10s --before 1 --after 0.2 -w /tmp/iolat_wl/u -- sh -c '"
		"kill -USR1 $PPID; n=0; until grep -q \"dump 1:\" /tmp/iolat_wl/err3; do sleep 0.1; n=$((n + 1)); [ $n -lt 3000 ] || exit 1; done' "
		">/dev/null 2>/tmp/iolat_wl/err3", env("IOLAT_CLI"));
	NOTE("watch_limits: SIGUSR1: %s", slurp("/tmp/iolat_wl/err3"));
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, sh("grep -q 'dump 1: asked: SIGUSR1' /tmp/iolat_wl/err3"));
}

/*
 * Polls of the namespace's queues by blk_poll(), over every queue: the
 * io_poll files' "considered", which counts each whether it then slept
 * (hybrid polling) or called the driver's ->poll ("invoked").  Whether a
 * poll or the interrupt found a completion first is up to the emulated
 * device's timing.
 */
static long long io_polls_considered(void)
{
	char path[128];
	long long n = 0;
	const char *s;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/debug/block/" NS "/hctx%u/io_poll", i);
		if (access(path, F_OK))
			continue;
		s = strstr(slurp(path), "considered=");
		if (s)
			n += atoll(s + strlen("considered="));
	}
	return n;
}

/*
 * io_uring polled I/O on nvme's poll queues: every command completion the
 * driver reported (ftrace's nvme_complete_rq on the namespace) is a
 * request's record, counted dropped, or an earlier try of a command that
 * nvme-core retried; every request the device completed (diskstats, fio's
 * own count) is a record or dropped; the module's own count of
 * completions adds the controller's admin commands (the aborts of
 * commands that timed out among them).  Batched completions included;
 * the requests ran on a poll queue.  20 000 reads (IOLAT_POLLED_IOS).
 */
TEST_F_TIMEOUT(nvme, polled_conservation, 600)
{
	long long events, io, admin = 0, dropped, retried, unmatched, before,
		  after, seen, polls;
	unsigned int i, polled = 0, poll_qid = 0;
	int typed;
	long ios = getenv("IOLAT_POLLED_IOS") ?
		   atol(getenv("IOLAT_POLLED_IOS")) : 20000;
	char path[128], *sum, *type;
	struct cmds cs;
	int st;

	ASSERT_LE(1000, ios) TH_LOG("IOLAT_POLLED_IOS: at least 1000");
	ASSERT_EQ(0, nvme_unload(""));
	ASSERT_EQ(0, nvme_load("poll_queues=1"));
	ASSERT_EQ(0, wait_disk(NS));
	/*
	 * No I/O scheduler: 4.19 polls no request that went through one.
	 * A fresh queue of one hardware queue gets mq-deadline there once
	 * its module is loaded (elevator_init_mq() does not load it), as
	 * it is after records_test's sched fixture: then nothing was polled.
	 */
	ASSERT_EQ(0, set_scheduler_none(NS));
	debugfs_mount();
	/* every queue: one per possible CPU, up to the drive's 64, before it */
	for (i = 0; i < 1024; i++) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/debug/block/" NS "/hctx%u/type", i);
		if (access(path, F_OK))
			break;
		type = slurp(path);
		if (strstr(type, "poll"))
			poll_qid = i + 1;
	}
	/*
	 * Queues of types (default, read, poll) came with v5.0's poll
	 * queues; 4.19 polls its ordinary queues, which count each poll in
	 * their io_poll file: the requests ran on any I/O queue, and the
	 * driver was polled.
	 */
	typed = !access("/sys/kernel/debug/block/" NS "/hctx0/type", F_OK);
	if (typed)
		ASSERT_LT(0, poll_qid) TH_LOG("no poll queue after poll_queues=1");
	polls = io_polls_considered();
	sh("mountpoint -q " TRACEFS " || mount -t tracefs none " TRACEFS);
	ASSERT_EQ(0, sh("cd " TRACEFS " && echo 0 >tracing_on && echo 16384 >buffer_size_kb && echo >trace && "
			"echo 'disk == \"" NS "\"' >events/nvme/nvme_complete_rq/filter && "
			"echo 1 >events/nvme/nvme_complete_rq/enable && echo 1 >tracing_on"));
	before = completed(NS);
	st = sh("%s trace --nvme -o csv -b 65536 -d " NS " --summary /tmp/iolat_nvme.json -- fio --name=poll --filename=/dev/" NS " --rw=randread --bs=4k --direct=1 --ioengine=%s --iodepth=32 --number_ios=%ld --size=256M --output-format=json --output=/tmp/iolat_fio.json >%s 2>%s",
		env("IOLAT_CLI"), polled_engine(), ios, CSV, ERR);
	polls = io_polls_considered() - polls;
	after = completed(NS);
	sh("cd " TRACEFS " && echo 0 >tracing_on && echo 0 >events/nvme/nvme_complete_rq/enable");
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	events = ftrace_completions();
	sum = slurp("/tmp/iolat_nvme.json");
	dropped = json_sum(sum, "dropped");
	retried = json_num(sum, "nvme_retried");
	unmatched = json_num(sum, "nvme_unmatched");
	seen = json_num(sum, "nvme_completed");
	ASSERT_LT(0, read_cmds(CSV, &cs));
	for (i = 0; i < cs.n; i++) {
		admin += cs.c[i].admin;
		polled += !cs.c[i].admin &&
			  (typed ? cs.c[i].qid == poll_qid : cs.c[i].qid > 0);
	}
	io = cs.n - admin;
	NOTE("polled_conservation: ftrace nvme_complete_rq %lld; iolat I/O records %lld + dropped %lld + retried %lld; on the poll queue (qid %u) %u; diskstats %lld, fio %lld reads; module saw %lld completions = %lld admin records + %lld unmatched + the I/O ones",
	     events, io, dropped, retried, poll_qid, polled, after - before,
	     (long long)json_num(strstr(slurp("/tmp/iolat_fio.json"), "\"read\""), "total_ios"),
	     seen, admin, unmatched);
	if (retried) {
		NOTE("polled_conservation: %lld tries retried; the driver said:",
		     retried);
		sh("dmesg | grep -E 'timeout|Abort|reset' | tail -n 4 | sed 's/^/# /' >&2");
	}
	EXPECT_LT(0, events) TH_LOG("ftrace lost events or saw none");
	EXPECT_EQ(events, io + dropped + retried);
	EXPECT_EQ(0, dropped);
	EXPECT_EQ(after - before, io + dropped);
	EXPECT_EQ(ios, io + dropped);
	EXPECT_EQ(seen, events + admin + unmatched);
	EXPECT_EQ(0, unmatched);
	EXPECT_LE(ios, polled);
	/* (the io_poll files went with the queue types' stats, after 5.0) */
	if (!typed) {
		NOTE("polled_conservation: ordinary queues, polled %lld times",
		     polls);
		EXPECT_LT(0, polls) {
			sh("grep . /sys/block/" NS "/queue/io_poll* /sys/kernel/debug/block/" NS "/hctx*/io_poll | sed 's/^/# /' >&2");
			/* a task left running would take the CPU from fio's polls */
			sh("ps -eo pid,ppid,stat,time,args --sort=-time | head -n 8 | sed 's/^/# /' >&2");
		}
	}
}

/*
 * iolat loaded before nvme; nvme and nvme-core unloaded while a session
 * traces NVMe commands, then loaded again: no kernel report, the user is
 * told of both, and the commands after the reload are traced.
 */
TEST_F_TIMEOUT(nvme, reload_while_tracing, 600)
{
	unsigned int i, after = 0;
	char cmd[512];
	struct cmds cs;
	int st;

	ASSERT_EQ(0, module_unload());
	ASSERT_EQ(0, nvme_unload("nvme_core"));
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, nvme_load(""));
	ASSERT_EQ(0, wait_disk(NS));
	/*
	 * until the SIGINT below, however long the reload takes: with -t 60
	 * the session on the debug kernel ended before the reads after it
	 */
	snprintf(cmd, sizeof(cmd),
		 "exec %s trace --nvme -o csv -d " NS " >%s 2>%s",
		 env("IOLAT_CLI"), CSV, ERR);
	/* not a previous test's text: wait_text() reads it at once */
	unlink(ERR);
	unlink(CSV);
	self->cli = spawn_sh(cmd);
	ASSERT_LT(0, self->cli);
	ASSERT_EQ(0, wait_text(ERR, "iolat: tracing", 30));
	sh("dd if=/dev/" NS " of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null");
	ASSERT_EQ(0, nvme_unload("nvme_core"));
	EXPECT_EQ(0, wait_text(ERR, "was unloaded", 30)) TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, nvme_load(""));
	ASSERT_EQ(0, wait_disk(NS));
	EXPECT_EQ(0, wait_text(ERR, "is back", 30)) TH_LOG("%s", slurp(ERR));
	sh("cp /bin/dd /tmp/iolat_after && /tmp/iolat_after if=/dev/" NS " of=/dev/null bs=4k count=16 skip=200 iflag=direct 2>/dev/null");
	kill(self->cli, SIGINT);
	ASSERT_EQ(0, wait_for(self->cli, 60, &st));
	self->cli = 0;
	NOTE("reload_while_tracing: %s", slurp(ERR));
	ASSERT_LT(0, read_cmds(CSV, &cs));
	for (i = 0; i < cs.n; i++)
		after += !strcmp(cs.c[i].comm, "iolat_after") &&
			 !strcmp(cs.c[i].opcode, "read");
	NOTE("reload_while_tracing: %u commands traced, %u reads after the reload",
	     cs.n, after);
	EXPECT_EQ(16, after);
	EXPECT_EQ(0, sh("dmesg | grep -q 'NVMe commands no longer traced'"));
	EXPECT_EQ(0, sh("dmesg | grep -q 'tracing NVMe commands again'"));
}

IOLAT_HARNESS_MAIN
