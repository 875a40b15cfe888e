// SPDX-License-Identifier: GPL-2.0
/*
 * Stacked devices, in the guest: bio-based devices (device-mapper's
 * linear, striped and crypt targets, md raid1, LVM, also on a partition)
 * traced from queue to completion, against the kernel's counters of the
 * device and blktrace's Q and C of its bios; and joined to the requests
 * below them, against the kernel's counters of the devices below,
 * blktrace's remaps (A) and D and C, and btt's Q2C above and below on
 * the same trace.  The upper fixture's stacks are on two null_blk disks,
 * the drive fixture's on QEMU's NVMe drive.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "helpers.h"
#include "upper_rows.h"

#define NOTE(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)
/* lvm2 without udev in the guest: it makes its own nodes and links. */
#define LVM "lvm %s --config 'devices { obtain_device_list_from_udev = 0 types = [ \"nullb\", 16 ] } activation { udev_sync = 0 udev_rules = 0 monitoring = 0 } global { use_lvmetad = 0 }'"

/* the upper fixture's two disks: 100 us a request, memory-backed */
#define UPPER_DISK "irqmode=2 completion_nsec=100000 submit_queues=2 size=1024 memory_backed=1"

FIXTURE(upper) {
	char a[32], b[32];
};

FIXTURE_SETUP(upper)
{
	if (sh("command -v fio >/dev/null && command -v dmsetup >/dev/null && command -v blktrace >/dev/null"))
		SKIP(return, "fio, dmsetup or blktrace is not installed");
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, nullb_configfs());
	/* md reads back its superblocks: the disks keep what is written */
	ASSERT_EQ(0, nullb_make("iolat_ua", UPPER_DISK, self->a, sizeof(self->a)));
	ASSERT_EQ(0, nullb_make("iolat_ub", UPPER_DISK, self->b, sizeof(self->b)));
	ASSERT_EQ(0, wait_disk(self->a));
	ASSERT_EQ(0, wait_disk(self->b));
	ASSERT_EQ(0, sh("modprobe dm_mod 2>/dev/null; test -e /dev/mapper/control || dmsetup mknodes"));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(upper)
{
	sh("losetup -j /tmp/iolat_loop.img 2>/dev/null | cut -d: -f1 | xargs -r losetup -d; rm -f /tmp/iolat_loop.img");
	sh("dmsetup remove iolat_lin 2>/dev/null; dmsetup remove iolat_str 2>/dev/null; "
	   "mdadm --stop /dev/md/iolat_r1 2>/dev/null; mdadm --stop /dev/md127 2>/dev/null; true");
	sh(LVM " -y iolat_vg >/dev/null 2>&1; true", "vgremove -f");
	sh("for d in %s %s; do mdadm --zero-superblock /dev/$d 2>/dev/null; done; true",
	   self->a, self->b);
	nullb_remove("iolat_ua");
	nullb_remove("iolat_ub");
	EXPECT_EQ(0, dmesg_bad_reports());
}

/* The kernel's name (dm-0, md127) of the block device at @path. */
static int kname_of(const char *path, char *name, size_t len)
{
	char cmd[256], *out;
	int st;

	snprintf(cmd, sizeof(cmd), "set -- $(stat -L -c '%%t %%T' %s) && basename $(readlink -f /sys/dev/block/$(printf '%%d:%%d' 0x$1 0x$2)) >" OUT,
		 path);
	st = sh("%s", cmd);
	out = slurp(OUT);
	if (st || !out)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	snprintf(name, len, "%s", out);
	free(out);
	return 0;
}

/*
 * btt on the same run, where each I/O of the device has one request
 * below (@c->pieces 1, one remap each): btt follows the remaps (A) too,
 * and its mean Q2C of the device's bios is iolat's, and its mean Q2C of
 * the requests below (from their queueing there) is iolat's time below.
 * The probes sit on the same tracepoints, a few microseconds apart under
 * TCG (iolat's Q is the kernel's own stamp, taken before blktrace's);
 * but a vCPU the host stops between the two moves that I/O's pair by
 * the whole stop, and the means by it over their count.  So the means
 * agree within the mean distance of the pairs (@up_dist for the device,
 * the requests below paired here), 5% and 2 us; and below, as above, the
 * median pair within 5%.
 */
static void btt_check(struct __test_metadata *_metadata,
		      const struct stack_case *c, const struct upper_rows *u,
		      const char *devt, double up_dist)
{
	static long long t[MAX_LOW], diff[MAX_LOW];
	double up_avg, low_avg, low_sum = 0, q2c = 0, below = 0, low_dist;
	long up_n, low_n, low_total = 0, i, n = 0, pairs;
	char *lowers = strdup(c->low_disk ? c->low_disk : c->lowers), *p;
	char ldevt[32];

	ASSERT_NE(NULL, lowers);
	ASSERT_EQ(0, btt_q2c(devt, &up_avg, &up_n));
	for (p = strtok(lowers, " "); p; p = strtok(NULL, " ")) {
		ASSERT_EQ(0, devt_of(p, ldevt, sizeof(ldevt)));
		ASSERT_EQ(0, btt_q2c(ldevt, &low_avg, &low_n))
			TH_LOG("btt has no Q2C of %s", p);
		low_sum += low_avg * low_n;
		low_total += low_n;
	}
	free(lowers);
	for (i = 0; i < u->rows && i < MAX_BIOS; i++)
		q2c += u->q2c[i];
	q2c /= i;
	for (i = 0; i < u->low_rows; i++, n++)
		below += u->low_c[i] - u->low_first[i];
	below /= n ? n : 1;
	low_avg = low_total ? low_sum / low_total : -1;
	pairs = lower_pairs(u, c, 'Q', t, diff);
	low_dist = mean_ll(diff, pairs);
	NOTE("btt: the device's Q2C %.0f ns over %ld bios, iolat's %.0f ns (pairs %.0f ns apart on average); below it %.0f ns over %ld, iolat's %.0f ns (%ld pairs with blktrace's Q and C, %.0f ns apart on average, median %lld ns); above %.0f ns, iolat's %.0f ns",
	     up_avg, up_n, q2c, up_dist, low_avg, low_total, below, pairs,
	     low_dist, pairs > 0 ? diff[pairs / 2] : 0, up_avg - low_avg,
	     q2c - below);
	EXPECT_EQ(u->rows, up_n);
	EXPECT_EQ(u->low_rows, low_total);
	EXPECT_LE(u->low_rows * 9 / 10, pairs);
	if (pairs > 0)
		EXPECT_GE(t[pairs / 2] / 20, diff[pairs / 2]);
	EXPECT_GE(up_dist + 0.05 * up_avg + 2000, fabs(q2c - up_avg));
	EXPECT_GE(low_dist + 0.05 * low_avg + 2000, fabs(below - low_avg));
}

/*
 * The stack line of `iolat trace`'s summary in ERR: remaps tied and not,
 * lower requests joined and not, into @v in that order.
 */
static int stack_line(long long v[4])
{
	char *text = slurp(ERR), *p;
	int n;

	p = text ? strstr(text, "iolat: stack: ") : NULL;
	n = p ? sscanf(p, "iolat: stack: %lld lower requests joined to an I/O, %lld lower requests not joined, %lld remaps tied to their I/O, %lld remaps not tied",
		       &v[2], &v[3], &v[0], &v[1]) : 0;
	free(text);
	return n == 4 ? 0 : -1;
}

/*
 * `iolat trace -d @c->path` of bio-based device @kname and of the devices
 * under it while @c->fio runs on it, with blktrace on all of them: every
 * bio fio queued is a row of the device (@c->want_ios, and blktrace's Q
 * events), each attributed to fio and marked a bio; the kernel's count of
 * the device's reads and writes (/sys/class/block/KNAME/stat) is the
 * rows' times @c->pieces (blktrace shows each cut as a split, X, except
 * on 4.19); where bios are not cut, each one's Q2C is that of
 * blktrace's Q and C of the same bio (the same tracepoints: a few
 * microseconds apart; a cut bio's C has the sector of its last piece).
 * Joined through the stack: every bio blktrace saw remapped (A) from the
 * device to one below is in a request of a lower device marked "stack"
 * and attributed to fio (the bios of those requests are as many as the
 * remaps), the summary's counters say the same, and a device-mapper
 * stack has no request of its own below.
 */
static void upper_exact(struct __test_metadata *_metadata,
			const struct stack_case *c, const char *kname)
{
	static long long q2c[MAX_LOW], diff[MAX_LOW];
	struct upper_rows *u = calloc(1, sizeof(*u));
	char devt[32], dflags[128] = "", bflags[160] = "", iflags[128] = "";
	char args[256], cmd[1024];
	char *p, *lowers;
	unsigned long long f0[17], f1[17], l0[2], l1[2];
	long long dr, dw, sl[4], a;
	long n, xr, xw, bad, per_io[4];
	double up_dist;
	int st;

	ASSERT_NE(NULL, u);
	u->kname = kname;
	ASSERT_EQ(0, devt_of(kname, devt, sizeof(devt)));
	lowers = strdup(c->lowers);
	ASSERT_NE(NULL, lowers);
	for (p = strtok(lowers, " "); p; p = strtok(NULL, " "))
		snprintf(dflags + strlen(dflags), sizeof(dflags) - strlen(dflags),
			 " -d %s", p);
	free(lowers);
	/* blktrace takes a partition's disk: its D and C are the disk's */
	lowers = strdup(c->low_disk ? c->low_disk : c->lowers);
	ASSERT_NE(NULL, lowers);
	for (p = strtok(lowers, " "); p; p = strtok(NULL, " ")) {
		snprintf(bflags + strlen(bflags), sizeof(bflags) - strlen(bflags),
			 " -d /dev/%s", p);
		snprintf(iflags + strlen(iflags), sizeof(iflags) - strlen(iflags),
			 " -i %s", p);
	}
	free(lowers);
	/*
	 * What the kernel does with a new device on its own is over before
	 * the count starts: a new md array's partitions are scanned when it
	 * is first opened (3 reads, which blktrace's own open would make).
	 */
	ASSERT_EQ(0, sh("blockdev --getsz /dev/%s >/dev/null", kname));
	ASSERT_EQ(0, sh("p=; for i in $(seq 100); do c=$(cat /sys/class/block/%s/stat); [ \"$c\" = \"$p\" ] && exit 0; p=$c; sleep 0.3; done; exit 1",
			kname));
	ASSERT_LT(10, dev_stat(kname, f0));
	ASSERT_EQ(0, lower_stat(c->lowers, l0));
	/* one blktrace for all (its files named after each device) */
	snprintf(args, sizeof(args), "-d /dev/%s%s", kname, bflags);
	snprintf(cmd, sizeof(cmd),
		 "%s trace -o csv -d %s%s -- fio --name=u --filename=%s %s --output=/dev/null >" CSV " 2>" ERR,
		 env("IOLAT_CLI"), c->path, dflags, c->path, c->fio);
	st = blktrace_around(BT, args, cmd);
	sh("cd " BT " && blkparse -q -i %s%s -d bt.bin -o bt.txt >/dev/null 2>&1",
	   kname, iflags);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(10, dev_stat(kname, f1));
	ASSERT_EQ(0, lower_stat(c->lowers, l1));
	ASSERT_LT(0, csv_rows(CSV, upper_row, u)) TH_LOG("%s", slurp(ERR));
	dr = f1[0] - f0[0];
	dw = f1[4] - f0[4];
	n = q2c_pairs(u, devt, q2c, diff);
	up_dist = mean_ll(diff, n);
	NOTE("%s (%s): iolat %ld reads, %ld writes, %ld not by fio, %ld not bios; the kernel %lld and %lld; %ld paired with blktrace's Q and C: Q2C median %lld ns, |iolat - blktrace| median %lld ns, p90 %lld ns",
	     c->path, kname, u->reads, u->writes, u->not_fio, u->not_bio, dr,
	     dw, n, n > 0 ? q2c[n / 2] : 0, n > 0 ? diff[n / 2] : 0,
	     n > 0 ? diff[n * 9 / 10] : 0);
	xr = blkparse_n("X", "R", devt);
	xw = blkparse_n("X", "W", devt);
	a = blkparse_n("A", "RW", devt);
	NOTE("%s: blktrace %ld Q, %ld and %ld X (splits) of reads and writes, %lld A (remaps) to %s",
	     kname, blkparse_n("Q", "RW", devt), xr, xw, a, c->lowers);
	EXPECT_EQ(c->want_ios, u->rows) TH_LOG("%s", slurp(ERR));
	EXPECT_EQ(u->rows, blkparse_n("Q", "RW", devt));
	EXPECT_EQ(dr, u->reads * c->pieces);
	EXPECT_EQ(dw, u->writes * c->pieces);
	/* each cut a split (X), where the kernel says so (not 4.19's dm) */
	if (xr + xw) {
		EXPECT_EQ(xr, u->reads * (c->pieces - 1));
		EXPECT_EQ(xw, u->writes * (c->pieces - 1));
	}
	EXPECT_EQ(0, u->not_fio);
	EXPECT_EQ(0, u->not_bio);
	if (c->pieces == 1) {
		EXPECT_LE(u->rows * 9 / 10, n);
		if (n > 0)
			EXPECT_GE(q2c[n / 2] / 20, diff[n / 2]);
	}
	/* joined through the stack */
	ASSERT_EQ(0, stack_line(sl)) TH_LOG("no stack line: %s", slurp(ERR));
	NOTE("%s: below it %ld requests, %ld joined (%ld bios, %ld not fio's); iolat's remaps %lld, %lld not matched, joined %lld, not %lld",
	     kname, u->lower, u->joined, u->joined_bios, u->joined_not_fio,
	     sl[0], sl[1], sl[2], sl[3]);
	if (c->remaps_read >= 0)
		EXPECT_EQ(u->reads * c->remaps_read + u->writes * c->remaps_write,
			  a);
	EXPECT_EQ(a, sl[0]);
	EXPECT_EQ(0, sl[1]);
	EXPECT_EQ(a, u->joined_bios);
	EXPECT_EQ(0, u->joined_not_fio);
	EXPECT_EQ(u->joined, sl[2]);
	EXPECT_EQ(u->lower - u->joined, sl[3]);
	if (!c->own_io && a)
		EXPECT_EQ(0, sl[3]);
	/*
	 * The devices below: every read and write they completed (the
	 * kernel's count) is a row of theirs, joined or the stack's own.
	 * md writes its superblock on its own after a write burst (marking
	 * the array clean), which may come after the trace ends and before
	 * the count: a few more there.
	 */
	NOTE("%s: below it, iolat %ld reads and %ld writes, the kernel %llu and %llu",
	     kname, u->lower_reads, u->lower_writes, l1[0] - l0[0],
	     l1[1] - l0[1]);
	EXPECT_EQ(l1[0] - l0[0], u->lower_reads);
	if (c->own_io) {
		EXPECT_LE(u->lower_writes, l1[1] - l0[1]);
		EXPECT_GE(u->lower_writes + 4, l1[1] - l0[1]);
	} else {
		EXPECT_EQ(l1[1] - l0[1], u->lower_writes);
	}
	/*
	 * Each request below names its I/O (link) and lies within it; where
	 * bios are not cut, an I/O has one request below per remap: one,
	 * two for an md raid1 write (a striped target's pieces of one I/O
	 * that lie side by side on a disk are merged).
	 */
	bad = links_check(u, per_io);
	NOTE("%s: its I/Os by requests below: %ld with none, %ld with one, %ld with two, %ld with more; %ld requests naming no I/O or outside it",
	     kname, per_io[0], per_io[1], per_io[2], per_io[3], bad);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(u->joined, u->low_rows);
	if (c->pieces == 1 && a) {
		long two = c->remaps_write == 2 ? u->writes : 0;

		EXPECT_EQ(0, per_io[0]);
		EXPECT_EQ(u->rows - two, per_io[1]);
		EXPECT_EQ(two, per_io[2]);
		EXPECT_EQ(0, per_io[3]);
	} else if (a) {
		EXPECT_GT(u->rows / 10, per_io[0]);
	}
	/*
	 * The requests below, each against blktrace's D and C of the same
	 * device, sector and direction (the same tracepoints: a few
	 * microseconds apart under TCG), where they are not merged.
	 */
	if (c->pieces == 1 && a) {
		n = lower_pairs(u, c, 'D', q2c, diff);
		NOTE("%s: below it, %ld requests paired with blktrace's D and C: D2C median %lld ns, |iolat - blktrace| median %lld ns, p90 %lld ns",
		     kname, n, n > 0 ? q2c[n / 2] : 0, n > 0 ? diff[n / 2] : 0,
		     n > 0 ? diff[n * 9 / 10] : 0);
		EXPECT_LE(u->joined * 9 / 10, n);
		if (n > 0)
			EXPECT_GE(q2c[n / 2] / 20, diff[n / 2]);
		if (c->remaps_write != 2)
			btt_check(_metadata, c, u, devt, up_dist);
	}
	free(u);
}

/*
 * Make a bio-based device with the shell command @make (in OUT what it
 * printed), then upper_exact() on it.
 */
static void upper_case(struct __test_metadata *_metadata, const char *make,
		       const struct stack_case *c)
{
	char kname[32];

	ASSERT_EQ(0, sh("{ %s; } >" OUT " 2>&1", make)) TH_LOG("%s", slurp(OUT));
	ASSERT_EQ(0, kname_of(c->path, kname, sizeof(kname)))
		TH_LOG("no %s", c->path);
	upper_exact(_metadata, c, kname);
}

/*
 * The flight recorder (iolat watch) on a dm-delay device over the first
 * disk, against fio's per-I/O latency log: quiet for IOLAT_WATCH_QUIET_S
 * seconds (60 by default, at most 10 without dm-delay) with no dump and
 * no record copied to user space, then the delay at 150 ms for a second
 * and exactly one dump holding every I/O fio completed in its window,
 * then a percentile's trigger (IOLAT_WATCH_P99, 1 by default: the CLI's,
 * over the module's histograms) (watch_vs_fio.py); on a kernel without
 * dm-delay, over dm-linear with the window asked for by `iolat watch
 * --dump`.
 */
TEST_F_TIMEOUT(upper, watch_dm_delay_dump, 900)
{
	const char *quiet = getenv("IOLAT_WATCH_QUIET_S") ?: "60";
	int st;

	/* without dm-delay (CONFIG_DM_DELAY), the script says what it does instead */
	sh("rm -rf /tmp/iolat_watch; mkdir -p /tmp/iolat_watch");
	st = sh("python3 " IOLAT_KSFT_DIR "/watch_vs_fio.py %s %s /tmp/iolat_watch %s %s >/tmp/iolat_watch.out 2>&1",
		env("IOLAT_CLI"), self->a, quiet, getenv("IOLAT_WATCH_P99") ?: "1");
	NOTE("watch_dm_delay_dump: %s", slurp("/tmp/iolat_watch.out"));
	EXPECT_EQ(0, st);
}

/* dm-linear over null_blk, named by its /dev/mapper path. */
TEST_F_TIMEOUT(upper, dm_linear_exact, 300)
{
	const struct stack_case c = {
		.path = "/dev/mapper/iolat_lin", .lowers = self->a,
		.fio = "--rw=randrw --bs=4k --direct=1 --ioengine=psync --size=256M --number_ios=600 --randseed=3",
		.want_ios = 600, .pieces = 1, .remaps_read = 1, .remaps_write = 1,
	};
	char make[256];

	snprintf(make, sizeof(make),
		 "dmsetup create iolat_lin --table \"0 $(blockdev --getsz /dev/%s) linear /dev/%s 0\" && dmsetup mknodes",
		 self->a, self->a);
	upper_case(_metadata, make, &c);
}

/*
 * A striped target over both disks, 4 KiB chunks, written and read in
 * 64 KiB: device-mapper cuts each bio into 16 pieces, one per chunk, and
 * the bio is still one I/O, complete when its last piece is.
 */
TEST_F_TIMEOUT(upper, dm_striped_one_io_per_bio, 300)
{
	char make[256], lowers[64];
	const struct stack_case c = {
		.path = "/dev/mapper/iolat_str", .lowers = lowers,
		.fio = "--rw=randrw --bs=64k --direct=1 --ioengine=libaio --iodepth=4 --size=512M --number_ios=300 --randseed=4",
		.want_ios = 300, .pieces = 16, .remaps_read = 16,
		.remaps_write = 16,
	};

	snprintf(make, sizeof(make),
		 "n=$(blockdev --getsz /dev/%s); dmsetup create iolat_str --table \"0 $((n * 2)) striped 2 8 /dev/%s 0 /dev/%s 0\" && dmsetup mknodes",
		 self->a, self->a, self->b);
	snprintf(lowers, sizeof(lowers), "%s %s", self->a, self->b);
	upper_case(_metadata, make, &c);
}

/* md raid1 over both disks: each write goes to both, one I/O of md's. */
TEST_F_TIMEOUT(upper, md_raid1_exact, 300)
{
	char make[256], lowers[64];
	const struct stack_case c = {
		.path = "/dev/md/iolat_r1", .lowers = lowers,
		.fio = "--rw=randrw --bs=4k --direct=1 --ioengine=psync --size=256M --number_ios=400 --randseed=5",
		.want_ios = 400, .pieces = 1, .remaps_read = 1, .remaps_write = 2,
		.own_io = true,
	};

	if (sh("command -v mdadm >/dev/null"))
		SKIP(return, "mdadm is not installed");
	snprintf(make, sizeof(make),
		 "mdadm --create /dev/md/iolat_r1 --run --quiet --level=1 --raid-devices=2 --assume-clean --metadata=1.2 /dev/%s /dev/%s",
		 self->a, self->b);
	snprintf(lowers, sizeof(lowers), "%s %s", self->a, self->b);
	upper_case(_metadata, make, &c);
}


/*
 * An LVM logical volume striped over both disks, named as LVM names it
 * (/dev/VG/LV): traced as the device-mapper device under the name.
 */
TEST_F_TIMEOUT(upper, lvm_volume_exact, 300)
{
	char make[1024], lowers[64];
	const struct stack_case c = {
		.path = "/dev/iolat_vg/lv", .lowers = lowers,
		.fio = "--rw=randrw --bs=4k --direct=1 --ioengine=psync --size=256M --number_ios=400 --randseed=7",
		.want_ios = 400, .pieces = 1, .remaps_read = 1, .remaps_write = 1,
	};

	if (sh("command -v lvm >/dev/null"))
		SKIP(return, "lvm2 is not installed");
	snprintf(make, sizeof(make),
		 LVM " /dev/%s /dev/%s && " LVM " iolat_vg /dev/%s /dev/%s && "
		 LVM " -y -n lv -L 512M -i 2 -I 64k iolat_vg",
		 "pvcreate -y", self->a, self->b, "vgcreate", self->a, self->b,
		 "lvcreate");
	snprintf(lowers, sizeof(lowers), "%s %s", self->a, self->b);
	upper_case(_metadata, make, &c);
}

/* Reads of device @arg's rows (a struct name_rows). */
struct name_rows {
	const char *kname;
	long reads, other;
};

static void name_row(void *arg, const struct row *r)
{
	struct name_rows *n = arg;

	if (!strcmp(r->dev, n->kname) && !strcmp(r->op, "read"))
		n->reads++;
	else
		n->other++;
}

/*
 * `iolat trace -d @name` while fio reads 50 blocks of /dev/@kname: each
 * read is a row of @kname, and there is no other row.
 */
static void traces_by_name(struct __test_metadata *_metadata,
			   const char *name, const char *kname)
{
	struct name_rows n = { .kname = kname };
	int st;

	st = sh("%s trace -o csv -d %s -- fio --name=n --filename=/dev/%s --rw=randread --bs=4k --direct=1 --ioengine=psync --size=32M --number_ios=50 --output=/dev/null >" CSV " 2>" ERR,
		env("IOLAT_CLI"), name, kname);
	EXPECT_EQ(0, st) TH_LOG("-d %s: %s", name, slurp(ERR));
	if (st)
		return;
	ASSERT_LE(0, csv_rows(CSV, name_row, &n));
	NOTE("-d %s: %ld reads of %s, %ld other rows", name, n.reads, kname,
	     n.other);
	EXPECT_EQ(50, n.reads);
	EXPECT_EQ(0, n.other);
}

/*
 * `-d` takes a device-mapper device by any of its names: its kernel name
 * (dm-N), its device-mapper name, /dev/mapper/NAME and /dev/dm-N.  Each
 * traces exactly that device.
 */
TEST_F_TIMEOUT(upper, dm_by_any_name, 300)
{
	char kname[32], path[64];

	ASSERT_EQ(0, sh("dmsetup create iolat_lin --table \"0 $(blockdev --getsz /dev/%s) linear /dev/%s 0\" && dmsetup mknodes",
			self->a, self->a));
	ASSERT_EQ(0, kname_of("/dev/mapper/iolat_lin", kname, sizeof(kname)));
	snprintf(path, sizeof(path), "/dev/%s", kname);
	traces_by_name(_metadata, kname, kname);
	traces_by_name(_metadata, "iolat_lin", kname);
	traces_by_name(_metadata, "/dev/mapper/iolat_lin", kname);
	traces_by_name(_metadata, path, kname);
}

/* A loop device, by name and by path: exactly that device. */
TEST_F_TIMEOUT(upper, loop_by_name_and_path, 300)
{
	char loop[32], path[64], *o;

	/* a module on Debian's kernels and the debug kernel */
	if (sh("modprobe loop 2>/dev/null; test -e /dev/loop-control"))
		SKIP(return, "this kernel has no loop driver (CONFIG_BLK_DEV_LOOP)");
	ASSERT_EQ(0, sh("truncate -s 64M /tmp/iolat_loop.img && losetup -f --show /tmp/iolat_loop.img >" OUT " 2>" ERR))
		TH_LOG("%s", slurp(ERR));
	o = slurp(OUT);
	ASSERT_NE(NULL, o);
	o[strcspn(o, "\n")] = '\0';
	ASSERT_EQ(0, kname_of(o, loop, sizeof(loop))) TH_LOG("%s", o);
	free(o);
	snprintf(path, sizeof(path), "/dev/%s", loop);
	traces_by_name(_metadata, loop, loop);
	traces_by_name(_metadata, path, loop);
	sh("losetup -d /dev/%s", loop);
	unlink("/tmp/iolat_loop.img");
}

/*
 * `iolat stat` of a device-mapper device: its reads and writes are the
 * kernel's count of the device's, and its %util is iolat's own, beside
 * the kernel's; and its busy time is exact.
 */
TEST_F_TIMEOUT(upper, dm_stat_counts, 300)
{
	unsigned long long f0[17], f1[17];
	char kname[32], pat[96], *out;
	const char *total, *q2c;
	double secs, sum;
	int st;

	ASSERT_EQ(0, sh("dmesg -c >/dev/null; dmsetup create iolat_lin --table \"0 $(blockdev --getsz /dev/%s) linear /dev/%s 0\" && dmsetup mknodes",
			self->a, self->a));
	ASSERT_EQ(0, kname_of("/dev/mapper/iolat_lin", kname, sizeof(kname)));
	ASSERT_LT(10, dev_stat(kname, f0));
	st = sh("%s stat -o json -d iolat_lin 1 -- fio --name=s --filename=/dev/mapper/iolat_lin --rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --size=256M --number_ios=1000 --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	ASSERT_LT(10, dev_stat(kname, f1));
	out = slurp(OUT);
	total = out ? strstr(out, "\"total\":true") : NULL;
	ASSERT_NE(NULL, total) TH_LOG("%s", out);
	secs = json_num(total, "seconds");
	NOTE("dm stat: %.1f reads, %.1f writes; the kernel %llu and %llu; %%util %.2f, the kernel's %.2f",
	     json_num(total, "r_s") * secs, json_num(total, "w_s") * secs,
	     f1[0] - f0[0], f1[4] - f0[4], json_num(total, "util"),
	     json_num(strstr(total, "\"kernel\""), "util"));
	EXPECT_GT(0.5, fabs(json_num(total, "r_s") * secs - (double)(f1[0] - f0[0])));
	EXPECT_GT(0.5, fabs(json_num(total, "w_s") * secs - (double)(f1[4] - f0[4])));
	EXPECT_LT(0, json_num(total, "util"));
	free(out);

	/*
	 * Exact: at queue depth 1 the device's I/Os never overlap, so its
	 * busy time is the sum of their Q2C, to the nanosecond (a mean of
	 * one decimal times the count: 1 ppm).
	 */
	st = sh("%s record -o json -d iolat_lin -- fio --name=q --filename=/dev/mapper/iolat_lin --rw=randread --bs=4k --direct=1 --ioengine=psync --size=256M --number_ios=500 --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), OUT, ERR);
	ASSERT_EQ(0, st) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	ASSERT_NE(NULL, out);
	snprintf(pat, sizeof(pat), "\"devices\": [{\"name\": \"%s\"", kname);
	total = strstr(out, pat);
	ASSERT_NE(NULL, total) TH_LOG("%s", out);
	q2c = strstr(total, "\"Q2C\": ");
	ASSERT_NE(NULL, q2c);
	sum = json_num(q2c, "count") * json_num(q2c, "mean_ns");
	NOTE("dm at QD 1: busy %.0f ns, the sum of %.0f Q2C %.0f ns",
	     json_num(total, "busy_ns"), json_num(q2c, "count"), sum);
	EXPECT_EQ(500, json_num(q2c, "count"));
	EXPECT_GE(1e-6 * sum + 1000, fabs(json_num(total, "busy_ns") - sum));
	free(out);
}

/* The line of `iolat stat -o json`'s total row of device @name in @out. */
static char *stat_total(char *out, const char *name)
{
	char want[64], *p, *end;

	snprintf(want, sizeof(want), "\"device\":\"%s\"", name);
	for (p = out; p && (p = strstr(p, "{\"total\":true")); p = end) {
		end = strchr(p, '\n');
		if (end)
			*end++ = '\0';
		if (strstr(p, want))
			return p;
	}
	return NULL;
}

/* The JSON of device @name in the "devices" of `iolat record -o json`. */
static const char *record_dev(const char *out, const char *name)
{
	char want[64];
	const char *p = strstr(out, "\"devices\": [");

	snprintf(want, sizeof(want), "{\"name\": \"%s\"", name);
	return p ? strstr(p, want) : NULL;
}

/*
 * The split of dm-linear's I/Os at queue depth 1, where each has one
 * request below on the null_blk disk and the disk has none of its own:
 * `iolat stat`'s time below them (counters only: the module's own sums)
 * is the disk's queue busy time, to the nanosecond, every I/O had a
 * request below, and r_await is its parts above and below; `record -A`'s
 * histogram of the time above (the module's) sums to the device's Q2C
 * less the disk's, and counts every read.
 */
TEST_F_TIMEOUT(upper, dm_split_exact, 300)
{
	char kname[32], *out, *out2, *dm, *low;
	const char *dmj, *lowj, *st, *q;
	double below, qbusy, above_sum, q2c_dm, q2c_low;
	int rc;

	ASSERT_EQ(0, sh("dmsetup create iolat_lin --table \"0 $(blockdev --getsz /dev/%s) linear /dev/%s 0\" && dmsetup mknodes && udevadm settle 2>/dev/null; true",
			self->a, self->a));
	ASSERT_EQ(0, kname_of("/dev/mapper/iolat_lin", kname, sizeof(kname)));
	rc = sh("%s stat -o json -d iolat_lin -d %s 1 -- fio --name=s --filename=/dev/mapper/iolat_lin --rw=randrw --bs=4k --direct=1 --ioengine=psync --size=256M --number_ios=600 --randseed=8 --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), self->a, OUT, ERR);
	ASSERT_EQ(0, rc) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	out2 = slurp(OUT);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, out2);
	/* each cuts its copy into lines */
	dm = stat_total(out, kname);
	low = stat_total(out2, self->a);
	ASSERT_NE(NULL, dm);
	ASSERT_NE(NULL, low);
	st = strstr(dm, "\"stack\":{");
	ASSERT_NE(NULL, st) TH_LOG("%s", dm);
	below = json_num(st, "below_ns");
	qbusy = json_num(low, "qbusy_ns");
	NOTE("stat, dm-linear at QD 1: %.0f I/Os, %.0f with a request below; below %.0f ns, the disk's queue busy %.0f ns; r_await %.6f = %.6f above + %.6f below",
	     (json_num(dm, "r_s") + json_num(dm, "w_s")) * json_num(dm, "seconds"),
	     json_num(st, "below_ios"), below, qbusy, json_num(dm, "r_await_ms"),
	     json_num(st, "r_above_ms"), json_num(st, "r_below_ms"));
	EXPECT_GT(0.5, fabs((json_num(dm, "r_s") + json_num(dm, "w_s")) *
			    json_num(dm, "seconds") - 600));
	EXPECT_EQ(600, json_num(st, "below_ios"));
	EXPECT_EQ(1, json_num(st, "r_joined"));
	EXPECT_LT(0, below);
	EXPECT_GE(1e-6 * qbusy + 1000, fabs(below - qbusy));
	EXPECT_LT(0, json_num(st, "r_above_ms"));
	/* three figures printed to 1e-6 ms */
	EXPECT_GE(2e-6, fabs(json_num(dm, "r_await_ms") -
			     json_num(st, "r_above_ms") - json_num(st, "r_below_ms")));
	free(out);
	free(out2);

	rc = sh("%s record -A -o json -d iolat_lin -d %s -- fio --name=a --filename=/dev/mapper/iolat_lin --rw=randread --bs=4k --direct=1 --ioengine=psync --size=256M --number_ios=500 --randseed=9 --output=/dev/null >%s 2>%s",
		env("IOLAT_CLI"), self->a, OUT, ERR);
	ASSERT_EQ(0, rc) TH_LOG("%s", slurp(ERR));
	out = slurp(OUT);
	ASSERT_NE(NULL, out);
	dmj = record_dev(out, kname);
	lowj = record_dev(out, self->a);
	ASSERT_NE(NULL, dmj) TH_LOG("%s", out);
	ASSERT_NE(NULL, lowj) TH_LOG("%s", out);
	st = strstr(dmj, "\"stack\": {");
	ASSERT_NE(NULL, st) TH_LOG("%s", out);
	q = strstr(st, "\"above\": ");
	ASSERT_NE(NULL, q);
	above_sum = json_num(q, "count") * json_num(q, "mean_ns");
	q = strstr(dmj, "\"Q2C\": ");
	ASSERT_NE(NULL, q);
	q2c_dm = json_num(q, "count") * json_num(q, "mean_ns");
	q = strstr(lowj, "\"Q2C\": ");
	ASSERT_NE(NULL, q);
	q2c_low = json_num(q, "count") * json_num(q, "mean_ns");
	NOTE("record -A, dm-linear at QD 1: %.0f I/Os above, sum %.0f ns; the device's Q2C %.0f ns less the disk's %.0f ns: %.0f ns",
	     json_num(strstr(st, "\"above\": "), "count"), above_sum, q2c_dm,
	     q2c_low, q2c_dm - q2c_low);
	EXPECT_EQ(500, json_num(st, "ios"));
	EXPECT_EQ(500, json_num(strstr(st, "\"above\": "), "count"));
	EXPECT_EQ(0, json_num(st, "alone"));
	EXPECT_GE(1e-6 * q2c_dm + 1000, fabs(above_sum - (q2c_dm - q2c_low)));
	free(out);
}

FIXTURE(drive) {
	unsigned long long start[3], size[3];	/* [1], [2]: p1, p2 */
	unsigned int minor[3];
};

/*
 * The stacks on the NVMe drive: two partitions of 64 MiB, p1 then p2;
 * the table goes after, with what a test made on it.
 */
FIXTURE_SETUP(drive)
{
	if (sh("command -v fio >/dev/null && command -v sfdisk >/dev/null && command -v blktrace >/dev/null"))
		SKIP(return, "fio, sfdisk or blktrace is not installed");
	ASSERT_EQ(0, wait_disk(NS)) TH_LOG("no /dev/" NS ": the guest needs QEMU's NVMe drive");
	ASSERT_EQ(0, module_load());
	ASSERT_EQ(0, parts_make(NS, self->start, self->size, self->minor));
	sh("dmesg -c >/dev/null");
}

FIXTURE_TEARDOWN(drive)
{
	sh("cryptsetup close iolat_crypt 2>/dev/null; true");
	sh(LVM " -y iolat_pvg >/dev/null 2>&1; true", "vgremove -f");
	sh(LVM " -y /dev/" NS "p2 >/dev/null 2>&1; true", "pvremove -f");
	parts_remove(NS);
	EXPECT_EQ(0, dmesg_bad_reports());
}

/*
 * dm-crypt (plain, aes-xts-plain64) over the NVMe drive: its writes go
 * down from a kernel thread (dmcrypt_write), its reads are decrypted by
 * kcryptd; every I/O of the device is still fio's, taken when fio
 * queued it, and so is every request of the drive that the kernel
 * reports remapped from one (since v5.16: dm_submit_bio_remap()).
 */
TEST_F_TIMEOUT(drive, dm_crypt_attributed_to_fio, 300)
{
	const struct stack_case c = {
		.path = "/dev/mapper/iolat_crypt", .lowers = NS,
		.fio = "--rw=randrw --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --size=256M --number_ios=400 --randseed=6",
		.want_ios = 400, .pieces = 1, .remaps_read = -1,
		.remaps_write = -1,
	};

	if (sh("command -v cryptsetup >/dev/null && command -v dmsetup >/dev/null"))
		SKIP(return, "cryptsetup is not installed");
	parts_remove(NS);
	upper_case(_metadata,
		   "modprobe dm_crypt 2>/dev/null; head -c 64 /dev/urandom >/tmp/iolat.key && "
		   "cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 --key-file /tmp/iolat.key /dev/" NS " iolat_crypt && dmsetup mknodes",
		   &c);
	sh("cryptsetup close iolat_crypt");
}

/*
 * LVM on a partition, as production machines have it (the volume group's
 * physical volume is nvme0n1p2): the volume's I/Os joined to p2's
 * requests, which blktrace sees on the disk at p2's start plus their
 * sector on p2, and counted against the kernel's counters of p2.
 */
TEST_F_TIMEOUT(drive, lvm_on_partition_exact, 300)
{
	char make[1024];
	const struct stack_case c = {
		.path = "/dev/iolat_pvg/lv", .lowers = NS "p2",
		.fio = "--rw=randrw --bs=4k --direct=1 --ioengine=psync --size=32M --number_ios=400 --randseed=10",
		.want_ios = 400, .pieces = 1, .remaps_read = 1, .remaps_write = 1,
		.low_disk = NS, .low_start = self->start[2],
	};

	if (sh("command -v lvm >/dev/null && command -v dmsetup >/dev/null"))
		SKIP(return, "lvm2 is not installed");
	snprintf(make, sizeof(make),
		 LVM " /dev/" NS "p2 && " LVM " iolat_pvg /dev/" NS "p2 && "
		 LVM " -y -n lv -L 32M iolat_pvg",
		 "pvcreate -y", "vgcreate", "lvcreate");
	upper_case(_metadata, make, &c);
}

IOLAT_HARNESS_MAIN
