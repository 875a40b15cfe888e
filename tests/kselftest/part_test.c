// SPDX-License-Identifier: GPL-2.0
/*
 * Partitions, in the guest: partitions of QEMU's NVMe drive traced on
 * their own, against the kernel's per-partition counters
 * (/sys/class/block/PART/stat) and blktrace's remap (A) events of the
 * same run; a whole disk named by a partition, and a disk and its
 * partition in one session refused.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "helpers.h"

#define NOTE(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)
#define NS "nvme0n1"
#define BT "/tmp/iolat_stack_bt"

FIXTURE(part) {
	unsigned long long start[3], size[3];	/* [1], [2]: p1, p2 */
	unsigned int minor[3];
};

/* Two partitions of 64 MiB on the drive, p1 then p2; the table goes after. */
FIXTURE_SETUP(part)
{
	if (sh("command -v fio >/dev/null && command -v sfdisk >/dev/null && command -v blktrace >/dev/null"))
		SKIP(return, "fio, sfdisk or blktrace is not installed");
	ASSERT_EQ(0, wait_disk(NS)) TH_LOG("no /dev/" NS ": the guest needs QEMU's NVMe drive");
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, parts_make(NS, self->start, self->size, self->minor));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(part)
{
	parts_remove(NS);
	EXPECT_EQ(0, dmesg_bad_reports());
}

#define MAX_IOS 4096

struct part_check {
	unsigned long long size;	/* of p2, in sectors */
	long rows, reads, writes, bios, outside, other_dev;
	unsigned long long sector[MAX_IOS];
	long long d2c[MAX_IOS];
	char op[MAX_IOS];
};

static void part_row(void *arg, const struct row *r)
{
	struct part_check *pc = arg;

	pc->rows++;
	if (strcmp(r->dev, NS "p2"))
		pc->other_dev++;
	if (r->sector + r->bytes / 512 > pc->size)
		pc->outside++;
	pc->reads += !strcmp(r->op, "read");
	pc->writes += !strcmp(r->op, "write");
	pc->bios += r->nr_bios;
	if (pc->rows <= MAX_IOS) {
		pc->sector[pc->rows - 1] = r->sector;
		pc->d2c[pc->rows - 1] = r->t[4] - r->t[3];
		pc->op[pc->rows - 1] = r->op[0];
	}
}

/*
 * blktrace's remap (A) events of reads and writes from partition 259:@minor
 * in BT/bt.txt: how many, and in @matched how many of @pc's rows start at
 * the sector of one of them.
 */
static long long remaps_from(unsigned int minor, const struct part_check *pc,
			     long long *matched)
{
	static unsigned long long from[MAX_IOS * 2];
	long long n = 0, i, j;
	char cmd[256], line[256];
	FILE *fp;

	snprintf(cmd, sizeof(cmd),
		 "awk '$6 == \"A\" && $(NF-1) == \"(259,%u)\" && ($7 ~ /^[RW]/) { print $NF }' " BT "/bt.txt",
		 minor);
	*matched = 0;
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp) && n < MAX_IOS * 2)
		from[n++] = strtoull(line, NULL, 10);
	pclose(fp);
	for (i = 0; i < pc->rows && i < MAX_IOS; i++)
		for (j = 0; j < n; j++)
			if (from[j] == pc->sector[i]) {
				(*matched)++;
				break;
			}
	return n;
}

/*
 * For up to @max of @pc's rows, blktrace's D and C of the same op at disk
 * sector @start + the row's sector (the last D there, and the first C
 * after a D): the row's D2C in @d2c and its distance from blktrace's in
 * @diff, both sorted.  blkparse's text is read once, its D and C events
 * kept in order.  Return: how many, or -1.
 */
static long d2c_diffs(const struct part_check *pc, unsigned long long start,
		      long long *d2c, long long *diff, long max)
{
	static unsigned long long sec[MAX_IOS * 4];
	static double at[MAX_IOS * 4];
	static char act[MAX_IOS * 4], rw[MAX_IOS * 4];
	char line[256], a[8], w[8];
	long i, j, m = 0, n = 0;
	double d, c;
	FILE *fp;

	fp = popen("awk '($6 == \"D\" || $6 == \"C\") && $7 ~ /^[RW]/ { print $8, $4, $6, $7 }' " BT "/bt.txt",
		   "r");
	if (!fp)
		return -1;
	while (m < MAX_IOS * 4 && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llu %lf %7s %7s", &sec[m], &at[m], a, w) != 4)
			continue;
		act[m] = a[0];
		rw[m++] = w[0];
	}
	pclose(fp);
	for (i = 0; i < pc->rows && i < MAX_IOS && n < max; i++) {
		d = -1;
		c = -1;
		for (j = 0; j < m; j++) {
			if (sec[j] != start + pc->sector[i] ||
			    rw[j] != (pc->op[i] == 'r' ? 'R' : 'W'))
				continue;
			if (act[j] == 'D')
				d = at[j];
			else if (d >= 0 && c < 0)
				c = at[j];
		}
		if (d < 0 || c < 0)
			continue;
		d2c[n] = pc->d2c[i];
		diff[n++] = llabs(pc->d2c[i] - (long long)((c - d) * 1e9));
	}
	qsort(diff, n, sizeof(diff[0]), cmp_ll);
	qsort(d2c, n, sizeof(d2c[0]), cmp_ll);
	return n;
}

/*
 * `iolat trace -d nvme0n1p2` while p2 and p1 are both read and written:
 * it records exactly p2's requests.  The truths, of the same run: the
 * kernel's counters of p2 (reads and writes completed, which the kernel
 * counts per partition) and of p1 (busy too, so that a session taking the
 * disk's requests would be caught); blktrace on the disk, whose remap
 * (A) events from p2 give each bio's sector on p2, and whose D and C
 * events of the same disk sector give each request's D2C.
 */
TEST_F_TIMEOUT(part, partition_traced_exactly, 300)
{
	unsigned long long f0[2][17], f1[2][17];
	long long dr, dw, p1_ios, matched, remaps;
	static long long diff[MAX_IOS], d2c[MAX_IOS];
	struct part_check *pc = calloc(1, sizeof(*pc));
	char cmd[1024];
	long n;
	int st;

	ASSERT_NE(NULL, pc);
	pc->size = self->size[2];
	ASSERT_LT(10, dev_stat(NS "p1", f0[0]));
	ASSERT_LT(10, dev_stat(NS "p2", f0[1]));
	snprintf(cmd, sizeof(cmd),
		 "%s trace -o csv -d /dev/" NS "p2 -- sh -c '"
		 "fio --name=p2 --filename=/dev/" NS "p2 --rw=randrw --bs=4k --direct=1 --ioengine=psync --size=32M --number_ios=400 --randseed=7 --output=/dev/null & "
		 "fio --name=p1 --filename=/dev/" NS "p1 --rw=randrw --bs=4k --direct=1 --ioengine=psync --size=32M --number_ios=300 --randseed=8 --output=/dev/null; wait' "
		 ">" CSV " 2>" CSV ".err", env("IOLAT_CLI"));
	st = blktrace_around(BT, "-d /dev/" NS " -o bt", cmd);
	sh("cd " BT " && blkparse -q -i bt -o bt.txt >/dev/null 2>&1");
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(10, dev_stat(NS "p1", f1[0]));
	ASSERT_LT(10, dev_stat(NS "p2", f1[1]));
	ASSERT_LT(0, csv_rows(CSV, part_row, pc));
	dr = f1[1][0] - f0[1][0];
	dw = f1[1][4] - f0[1][4];
	p1_ios = f1[0][0] + f1[0][4] - f0[0][0] - f0[0][4];
	NOTE("partition: iolat %ld reads, %ld writes of p2 (%ld bios); kernel %lld and %lld; p1 did %lld",
	     pc->reads, pc->writes, pc->bios, dr, dw, p1_ios);
	EXPECT_LE(300, p1_ios);
	EXPECT_EQ(dr, pc->reads);
	EXPECT_EQ(dw, pc->writes);
	EXPECT_EQ(0, pc->other_dev);
	EXPECT_EQ(0, pc->outside);
	ASSERT_GE(MAX_IOS, pc->rows);

	/*
	 * blktrace's remaps from p2: "259,0 ... A R 2099200 + 8 <- (259,2)
	 * 2048".  Each of iolat's rows starts at one of them (its first bio's
	 * sector on p2), and they are as many as the rows' bios.
	 */
	remaps = remaps_from(self->minor[2], pc, &matched);
	NOTE("partition: blktrace %lld remaps from p2; %lld of iolat's %ld rows start at one",
	     remaps, matched, pc->rows);
	EXPECT_EQ(pc->bios, remaps);
	EXPECT_EQ(pc->rows, matched);

	/*
	 * Each row's D2C against blktrace's D and C of the same disk sector
	 * (p2's start + the row's sector): the same tracepoints, so they
	 * agree to the probes' order, a few microseconds.
	 */
	n = d2c_diffs(pc, self->start[2], d2c, diff, 200);
	NOTE("partition: %ld rows matched to blktrace's D and C; D2C median %lld ns, |iolat - blktrace| median %lld ns, p90 %lld ns",
	     n, n ? d2c[n / 2] : 0, n ? diff[n / 2] : 0, n ? diff[n * 9 / 10] : 0);
	EXPECT_LE(100, n);
	if (n)
		EXPECT_GE(d2c[n / 2] / 20, diff[n / 2]);
	free(pc);
}

/*
 * `iolat stat -d nvme0n1p2`: the partition's own counters, beside the
 * kernel's of the partition, while p1 is busy too.  Its total row's
 * reads and writes (r_s and w_s over its seconds) are the kernel's count
 * of p2's over the session.
 */
TEST_F_TIMEOUT(part, partition_stat_counts, 300)
{
	unsigned long long f0[17], f1[17];
	const char *total;
	double secs, reads, writes;
	char *out;
	int st;

	ASSERT_LT(10, dev_stat(NS "p2", f0));
	st = sh("%s stat -o json -d " NS "p2 1 -- sh -c '"
		"fio --name=p2 --filename=/dev/" NS "p2 --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --size=32M --number_ios=500 --randseed=9 --output=/dev/null & "
		"fio --name=p1 --filename=/dev/" NS "p1 --rw=randread --bs=4k --direct=1 --ioengine=psync --size=32M --number_ios=300 --output=/dev/null; wait' >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(10, dev_stat(NS "p2", f1));
	out = slurp(OUT);
	ASSERT_NE(NULL, out);
	total = strstr(out, "\"total\":true");
	ASSERT_NE(NULL, total) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(total, "\"device\":\"" NS "p2\"")) TH_LOG("%s", total);
	secs = json_num(total, "seconds");
	reads = json_num(total, "r_s") * secs;
	writes = json_num(total, "w_s") * secs;
	NOTE("partition stat: %.1f reads, %.1f writes in %.3f s; kernel %llu and %llu",
	     reads, writes, secs, f1[0] - f0[0], f1[4] - f0[4]);
	EXPECT_GT(0.5, fabs(reads - (double)(f1[0] - f0[0])));
	EXPECT_GT(0.5, fabs(writes - (double)(f1[4] - f0[4])));
	EXPECT_LT(0, reads);
	free(out);
}

/* The "ios" of partition @name in `-o json`'s partitions of a disk; -1. */
static long long part_ios(const char *json, const char *name)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "{\"name\": \"%s\"", name);
	p = json ? strstr(json, pat) : NULL;
	return p ? (long long)json_num(p, "ios") : -1;
}

/*
 * A whole-disk session breaks its requests down by partition: `record
 * -o json` of the disk, and `report` of the file it wrote, give each
 * partition's reads and writes as the kernel counted them (which it does
 * per partition) while both were busy.
 */
TEST_F_TIMEOUT(part, whole_disk_by_partition, 300)
{
	unsigned long long f0[3][17], f1[3][17];
	long long want[3];
	char name[16], *out;
	int st, i;

	for (i = 1; i <= 2; i++) {
		snprintf(name, sizeof(name), NS "p%d", i);
		ASSERT_LT(10, dev_stat(name, f0[i]));
	}
	st = sh("%s record -o json -w " OUT ".rec -d " NS " -- sh -c '"
		"fio --name=p2 --filename=/dev/" NS "p2 --rw=randrw --bs=4k --direct=1 --ioengine=psync --size=32M --number_ios=400 --output=/dev/null & "
		"fio --name=p1 --filename=/dev/" NS "p1 --rw=randread --bs=8k --direct=1 --ioengine=psync --size=32M --number_ios=250 --output=/dev/null; wait' >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	for (i = 1; i <= 2; i++) {
		snprintf(name, sizeof(name), NS "p%d", i);
		ASSERT_LT(10, dev_stat(name, f1[i]));
		want[i] = f1[i][0] + f1[i][4] - f0[i][0] - f0[i][4];
	}
	out = slurp(OUT);
	NOTE("by partition: record says p1 %lld, p2 %lld requests; the kernel %lld and %lld",
	     part_ios(out, NS "p1"), part_ios(out, NS "p2"), want[1], want[2]);
	EXPECT_EQ(want[1], part_ios(out, NS "p1")) TH_LOG("%s", out);
	EXPECT_EQ(want[2], part_ios(out, NS "p2"));
	EXPECT_LE(250, want[1]);
	free(out);
	st = sh("%s report -o json " OUT ".rec >%s 2>%s", env("IOLAT_CLI"), OUT,
		ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	EXPECT_EQ(want[1], part_ios(out, NS "p1")) TH_LOG("%s", out);
	EXPECT_EQ(want[2], part_ios(out, NS "p2"));
	free(out);
	st = sh("%s report " OUT ".rec >%s 2>%s", env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(0, sh("grep -q '(" NS " by partition)' %s && grep -q '^" NS "p1 ' %s", OUT, OUT))
		TH_LOG("%s", slurp(OUT));
	sh("rm -f " OUT ".rec");
}

/* A disk and its partition are not traced together: one clear line. */
TEST_F_TIMEOUT(part, disk_with_its_partition_refused, 300)
{
	int st = sh("%s record -d " NS " -d " NS "p1 -t 1 >" CSV " 2>" ERR,
		    env("IOLAT_CLI"));
	char *err = slurp(ERR);

	EXPECT_EQ(1, st) TH_LOG("%s", err);
	EXPECT_EQ(1, count_lines(err)) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "are on the same disk")) TH_LOG("%s", err);
	free(err);
}

/*
 * Bio-based devices over two null_blk disks: device-mapper's linear and
 * striped targets and md's raid1.  Each is traced by its device node's
 * path, with blktrace on the same device in the same run.
 */

IOLAT_HARNESS_MAIN
