// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the CLI: device resolution against a fake sysfs,
 * record decoding, and the CLI's answers to bad input (IOLAT_CLI).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "dev/dev.h"
#include "out/output.h"
#include "util/json.h"
#include "kselftest_harness.h"

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

/* Run @cmd in directory @dir. */
static int sh_in(const char *dir, const char *cmd)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "cd %s && %s", dir, cmd);
	return system(buf);
}

FIXTURE(sysfs) {
	char root[64];
};

/*
 * nvme0n1 (259:0, 3 queues of up to 1023 tags) with partition nvme0n1p1
 * (259:1, sectors 2048 to 6143) and an empty one, nvme0n1p2; vdz, a disk
 * without blk-mq queues; dm-0, device-mapper's "vg-lv" on nvme0n1p1;
 * md0, an md array; and dev/block's links by numbers.
 */
FIXTURE_SETUP(sysfs)
{
	char cmd[2048];

	strcpy(self->root, "/tmp/iolat-sysfs-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	put(self->root, "devices/nvme0n1/dev", "259:0\n");
	put(self->root, "devices/nvme0n1/mq/0/nr_tags", "1023\n");
	put(self->root, "devices/nvme0n1/mq/1/nr_tags", "1023\n");
	put(self->root, "devices/nvme0n1/mq/2/nr_tags", "64\n");
	put(self->root, "devices/nvme0n1/nvme0n1p1/dev", "259:1\n");
	put(self->root, "devices/nvme0n1/nvme0n1p1/partition", "1\n");
	put(self->root, "devices/nvme0n1/nvme0n1p1/start", "2048\n");
	put(self->root, "devices/nvme0n1/nvme0n1p1/size", "4096\n");
	put(self->root, "devices/nvme0n1/nvme0n1p2/dev", "259:2\n");
	put(self->root, "devices/nvme0n1/nvme0n1p2/partition", "2\n");
	put(self->root, "devices/nvme0n1/nvme0n1p2/start", "6144\n");
	put(self->root, "devices/nvme0n1/nvme0n1p2/size", "0\n");
	put(self->root, "devices/vdz/dev", "254:0\n");
	put(self->root, "devices/dm-0/dev", "253:0\n");
	put(self->root, "devices/dm-0/dm/name", "vg-lv\n");
	put(self->root, "devices/md0/dev", "9:0\n");
	put(self->root, "devices/md0/md/level", "raid1\n");
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %1$s/class/block %1$s/block %1$s/dev/block %1$s/devices/dm-0/slaves && cd %1$s/class/block && ln -s ../../devices/nvme0n1 nvme0n1 && ln -s ../../devices/nvme0n1/nvme0n1p1 nvme0n1p1 && ln -s ../../devices/nvme0n1/nvme0n1p2 nvme0n1p2 && ln -s ../../devices/vdz vdz && ln -s ../../devices/dm-0 dm-0 && ln -s ../../devices/md0 md0 && cd %1$s/block && ln -s ../devices/nvme0n1 nvme0n1 && ln -s ../devices/vdz vdz && cd %1$s/dev/block && ln -s ../../devices/nvme0n1 259:0 && ln -s ../../devices/nvme0n1/nvme0n1p1 259:1 && ln -s ../../devices/dm-0 253:0 && ln -s ../../../nvme0n1/nvme0n1p1 %1$s/devices/dm-0/slaves/nvme0n1p1",
		 self->root);
	ASSERT_EQ(0, system(cmd));
}

FIXTURE_TEARDOWN(sysfs)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->root);
	EXPECT_EQ(0, system(cmd));
}

/*
 * A record's device by bisection, as the linear search finds it, for
 * 4096 devices in a shuffled order, numbers given twice (a report over
 * two files' devices: the first wins), a number not there, an NVMe admin
 * command by its controller, and after the devices change (the last
 * device found among them too).
 */
TEST(device_lookup_as_linear_search)
{
	enum { N = 4096 };
	struct iolat_dev_req *devs = calloc(N, sizeof(*devs));
	struct iolat_dev_lookup l = { 0 };
	struct iolat_record r = { 0 };
	unsigned int i, j;

	ASSERT_NE(NULL, devs);
	for (i = 0; i < N; i++) {
		j = (i * 2654435761U) % N;	/* a permutation of 0..N-1 */
		devs[i].major = 8 + j % 3;
		devs[i].minor = j % 1000;	/* numbers repeat */
		devs[i].nvme_ctrl = i == 77 ? 5 : -1;
	}
	for (i = 0; i < 3000; i++) {
		r.major = 8 + i % 4;	/* major 11 is none of them */
		r.minor = (i * 7) % 1100;
		r.flags = 0;
		ASSERT_EQ(iolat_dev_index(devs, N, &r),
			  iolat_dev_find(&l, devs, N, &r));
	}
	r.flags = IOLAT_F_NVME_ADMIN;
	r.ctrl = 5;
	EXPECT_EQ(77, iolat_dev_find(&l, devs, N, &r));
	/* the same number of devices, others: found after a reset */
	devs[0].major = 259;
	devs[0].minor = 3;
	r.flags = 0;
	r.major = 259;
	r.minor = 3;
	iolat_dev_lookup_reset(&l);
	EXPECT_EQ(0, iolat_dev_find(&l, devs, N, &r));
	/* the last hit (kept for the next record) moved: not where it was */
	EXPECT_EQ(0, iolat_dev_find(&l, devs, N, &r));
	devs[0].minor = 4;
	devs[1].major = 259;
	devs[1].minor = 3;
	iolat_dev_lookup_reset(&l);
	EXPECT_EQ(1, iolat_dev_find(&l, devs, N, &r));
	EXPECT_EQ(-1, iolat_dev_find(&l, devs, 0, &r));
	iolat_dev_lookup_free(&l);
	free(devs);
}

TEST_F(sysfs, disk_geometry)
{
	struct iolat_dev_req d;

	ASSERT_EQ(0, iolat_dev_resolve(self->root, "/dev/nvme0n1", &d));
	EXPECT_STREQ("nvme0n1", d.name);
	EXPECT_EQ(259, d.major);
	EXPECT_EQ(0, d.minor);
	EXPECT_EQ(3, d.nr_hwq);
	EXPECT_EQ(1023, d.depth);
}

/*
 * An NVMe namespace's controller is its device, nvme<N>; a multipath
 * head's device is the subsystem; a disk with no device link is none.
 */
TEST_F(sysfs, nvme_controller)
{
	struct iolat_dev_req d;
	char cmd[512];

	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1", &d));
	EXPECT_EQ(-1, d.nvme_ctrl);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %1$s/devices/nvme7 %1$s/devices/nvme-subsys3 && ln -s ../nvme7 %1$s/devices/nvme0n1/device",
		 self->root);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1", &d));
	EXPECT_EQ(7, d.nvme_ctrl);
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1p1", &d));
	EXPECT_EQ(7, d.nvme_ctrl);
	snprintf(cmd, sizeof(cmd),
		 "ln -sfn ../nvme-subsys3 %s/devices/nvme0n1/device", self->root);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1", &d));
	EXPECT_EQ(-1, d.nvme_ctrl);
}

/*
 * A partition is traced on its disk, over its own sectors, with its own
 * numbers; an empty one (an extended partition's container) is refused.
 */
TEST_F(sysfs, partition_on_its_disk)
{
	struct iolat_dev_req d;

	ASSERT_EQ(0, iolat_dev_resolve(self->root, "/dev/nvme0n1p1", &d));
	EXPECT_STREQ("nvme0n1p1", d.name);
	EXPECT_EQ(259, d.major);
	EXPECT_EQ(1, d.minor);
	EXPECT_STREQ("nvme0n1", d.disk);
	EXPECT_EQ(259, d.disk_major);
	EXPECT_EQ(0, d.disk_minor);
	EXPECT_EQ(2048, d.part_start);
	EXPECT_EQ(4096, d.part_sectors);
	EXPECT_EQ(4096, d.sectors);
	EXPECT_EQ(3, d.nr_hwq);
	EXPECT_EQ(1023, d.depth);
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1", &d));
	EXPECT_STREQ("nvme0n1", d.disk);
	EXPECT_EQ(0, d.part_sectors);
	EXPECT_EQ(0, d.disk_minor);
	EXPECT_EQ(-ENOSPC, iolat_dev_resolve(self->root, "nvme0n1p2", &d));
}

/*
 * A device without queues is bio-based: one queue, a table of slots for
 * its bios, what it is and what it sits on; a device-mapper name finds
 * its dm-N.
 */
TEST_F(sysfs, bio_based_devices)
{
	struct iolat_dev_req d;
	char name[32];

	ASSERT_EQ(0, iolat_dev_resolve(self->root, "vg-lv", &d));
	EXPECT_STREQ("dm-0", d.name);
	EXPECT_TRUE(d.bio_based);
	EXPECT_EQ(253, d.major);
	EXPECT_EQ(1, d.nr_hwq);
	EXPECT_EQ(IOLAT_UPPER_SLOTS, d.depth);
	EXPECT_EQ(-1, d.nvme_ctrl);
	EXPECT_STREQ("device-mapper vg-lv", d.kind);
	EXPECT_STREQ("nvme0n1p1", d.lower);
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "/dev/md0", &d));
	EXPECT_STREQ("md RAID", d.kind);
	EXPECT_STREQ("", d.lower);
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "vdz", &d));
	EXPECT_STREQ("bio-based", d.kind);
	EXPECT_TRUE(d.bio_based);
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1", &d));
	EXPECT_FALSE(d.bio_based);
	ASSERT_EQ(0, iolat_dev_name(self->root, "dm-0", name, sizeof(name)));
	EXPECT_STREQ("dm-0", name);
	EXPECT_EQ(-ENOENT, iolat_dev_name(self->root, "vg-lv2", name,
					  sizeof(name)));
}

/*
 * A stack: of the devices named with a bio-based one, those it sits on
 * (its slaves, by whole name: nvme0n1p1's disk nvme0n1 is not) are
 * lower, the others and the bio-based devices not.
 */
TEST_F(sysfs, stack_lower_devices)
{
	struct iolat_dev_req d[3];

	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1", &d[0]));
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "vg-lv", &d[1]));
	ASSERT_EQ(0, iolat_dev_resolve(self->root, "nvme0n1p1", &d[2]));
	iolat_dev_mark_lower(d, 3);
	EXPECT_FALSE(d[0].stack_lower);
	EXPECT_FALSE(d[1].stack_lower);
	EXPECT_TRUE(d[2].stack_lower);
	/* without the bio-based device, no stack */
	iolat_dev_mark_lower(d + 2, 1);
	EXPECT_FALSE(d[2].stack_lower);
	/* a slave's name that only begins another's is not it */
	snprintf(d[1].lower, sizeof(d[1].lower), "nvme0n1p10 xnvme0n1p1");
	iolat_dev_mark_lower(d, 3);
	EXPECT_FALSE(d[2].stack_lower);
	snprintf(d[1].lower, sizeof(d[1].lower), "nvme0n1p10 nvme0n1p1");
	iolat_dev_mark_lower(d, 3);
	EXPECT_TRUE(d[2].stack_lower);
}

/*
 * A path to a device node, through symlinks, is the device of its
 * numbers (dev/block/MAJOR:MINOR); making the nodes takes root.
 */
TEST_F(sysfs, node_paths)
{
	char dir[128], path[256], name[32];
	struct iolat_dev_req d;

	if (geteuid())
		SKIP(return, "making block device nodes takes root");
	snprintf(dir, sizeof(dir), "%s/devnodes", self->root);
	ASSERT_EQ(0, mkdir(dir, 0755));
	snprintf(path, sizeof(path), "%s/dm-0", dir);
	ASSERT_EQ(0, mknod(path, S_IFBLK | 0600, makedev(253, 0)));
	snprintf(path, sizeof(path), "%s/part", dir);
	ASSERT_EQ(0, mknod(path, S_IFBLK | 0600, makedev(259, 1)));
	snprintf(path, sizeof(path), "%s/gone", dir);
	ASSERT_EQ(0, mknod(path, S_IFBLK | 0600, makedev(259, 9)));
	ASSERT_EQ(0, sh_in(dir, "mkdir vg && ln -s ../dm-0 vg/lv && ln -s part by-id && echo x > file"));
	snprintf(path, sizeof(path), "%s/vg/lv", dir);
	ASSERT_EQ(0, iolat_dev_name(self->root, path, name, sizeof(name)));
	EXPECT_STREQ("dm-0", name);
	snprintf(path, sizeof(path), "%s/by-id", dir);
	ASSERT_EQ(0, iolat_dev_resolve(self->root, path, &d));
	EXPECT_STREQ("nvme0n1p1", d.name);
	EXPECT_EQ(2048, d.part_start);
	snprintf(path, sizeof(path), "%s/file", dir);
	EXPECT_EQ(-ENOTBLK, iolat_dev_name(self->root, path, name,
					   sizeof(name)));
	snprintf(path, sizeof(path), "%s/gone", dir);
	EXPECT_EQ(-ENOENT, iolat_dev_name(self->root, path, name,
					  sizeof(name)));
	snprintf(path, sizeof(path), "%s/none", dir);
	EXPECT_EQ(-ENOENT, iolat_dev_name(self->root, path, name,
					  sizeof(name)));
}

TEST_F(sysfs, bad_names)
{
	struct iolat_dev_req d;

	EXPECT_EQ(-ENOENT, iolat_dev_resolve(self->root, "sdq", &d));
	EXPECT_EQ(-ENOENT, iolat_dev_resolve(self->root, "../nvme0n1", &d));
	EXPECT_EQ(-EINVAL, iolat_dev_resolve(self->root, "", &d));
	EXPECT_EQ(-EINVAL, iolat_dev_resolve(self->root, "/dev/", &d));
	EXPECT_EQ(-EINVAL, iolat_dev_resolve(self->root, "..", &d));
}

/*
 * A session's device check reads every device's numbers at once, from
 * sysfs's dev/block: the disks and partitions there are found, others not.
 */
TEST_F(sysfs, device_numbers_at_once)
{
	size_t n;
	uint64_t *v = iolat_devts_read(self->root, &n);

	ASSERT_NE(NULL, v);
	EXPECT_EQ(3, n);
	EXPECT_TRUE(iolat_devts_has(v, n, 259, 0));
	EXPECT_TRUE(iolat_devts_has(v, n, 259, 1));
	EXPECT_TRUE(iolat_devts_has(v, n, 253, 0));
	EXPECT_FALSE(iolat_devts_has(v, n, 259, 2));
	EXPECT_FALSE(iolat_devts_has(v, n, 0, 259));
	free(v);
	EXPECT_EQ(NULL, iolat_devts_read("/nonexistent", &n));
}

/*
 * The disks of "every disk" (stat and top without -d): blk-mq ones, but
 * not a loop device with nothing attached (idle loop devices
 * filled stat's table).
 */
TEST_F(sysfs, every_disk_not_unbound_loops)
{
	char names[4][32];
	int n;

	put(self->root, "devices/loop0/dev", "7:0\n");
	put(self->root, "devices/loop0/mq/0/nr_tags", "128\n");
	put(self->root, "devices/loop1/dev", "7:1\n");
	put(self->root, "devices/loop1/mq/0/nr_tags", "128\n");
	put(self->root, "devices/loop1/loop/backing_file", "/srv/disk.img\n");
	ASSERT_EQ(0, sh_in(self->root, "cd block && ln -s ../devices/loop0 loop0 && ln -s ../devices/loop1 loop1"));
	n = iolat_blk_mq_disks(self->root, names, 4);
	ASSERT_EQ(2, n);
	EXPECT_TRUE((!strcmp(names[0], "nvme0n1") && !strcmp(names[1], "loop1")) ||
		    (!strcmp(names[1], "nvme0n1") && !strcmp(names[0], "loop1")));
}

/*
 * The kernel's counters of a disk, and one `iolat stat` row: 2 s in
 * which the device was busy 0.5 s (the queue 0.6 s), the requests spent
 * 1 s in all, 100 reads of 4 KiB waited 1 ms each; the kernel says 400 ms
 * busy and 90 ms of request time.
 */
TEST_F(sysfs, stat_row)
{
	struct iolat_dev_counters a = { 0 }, b = { 0 };
	struct iolat_diskstats k0 = { { 0 } }, k1;
	struct iolat_stat_row r;
	char names[4][32];

	put(self->root, "devices/nvme0n1/stat",
	    "     100       12      800       50       20        6      160       30        0      400       90        0        0        0        0        0        0\n");
	ASSERT_EQ(1, iolat_blk_mq_disks(self->root, names, 4));
	EXPECT_STREQ("nvme0n1", names[0]);
	ASSERT_EQ(0, iolat_diskstats_read(self->root, "nvme0n1", &k1));
	EXPECT_EQ(100, k1.f[IOLAT_DS_R_IOS]);
	EXPECT_EQ(400, k1.f[IOLAT_DS_IO_TICKS]);
	EXPECT_EQ(90, k1.f[IOLAT_DS_TIME_IN_QUEUE]);
	EXPECT_EQ(-ENOENT, iolat_diskstats_read(self->root, "vdz", &k1));
	ASSERT_EQ(0, iolat_diskstats_read(self->root, "nvme0n1", &k1));

	a.now_ns = 1000000000;
	b.now_ns = 3000000000;
	b.busy_ns = 500000000;
	b.qbusy_ns = 600000000;
	b.inflight_ns = 900000000;
	b.qinflight_ns = 1000000000;
	b.ios[IOLAT_OP_READ] = 100;
	b.bytes[IOLAT_OP_READ] = 409600;
	b.wait_ns[IOLAT_OP_READ] = 100000000;
	b.issues = 100;
	b.qd_sum = 50;
	/* 10 discards of 1 MiB, 8 ms each; 4 flushes of 2 ms */
	b.ios[IOLAT_OP_DISCARD] = 10;
	b.bytes[IOLAT_OP_DISCARD] = 10 << 20;
	b.wait_ns[IOLAT_OP_DISCARD] = 80000000;
	b.ios[IOLAT_OP_FLUSH] = 4;
	b.wait_ns[IOLAT_OP_FLUSH] = 8000000;
	iolat_stat_compute(&a, &b, &k0, &k1, &r);
	/* iostat -x's d/s, dkB/s, d_await, f/s, f_await, rareq-sz */
	EXPECT_EQ(5.0, r.d_s);
	EXPECT_EQ(5120.0, r.dkb_s);
	EXPECT_EQ(8.0, r.d_await_ms);
	EXPECT_EQ(2.0, r.f_s);
	EXPECT_EQ(2.0, r.f_await_ms);
	EXPECT_EQ(4.0, r.rareq_kb);
	EXPECT_EQ(0.0, r.wareq_kb);
	EXPECT_EQ(2.0, r.secs);
	EXPECT_EQ(50.0, r.r_s);
	EXPECT_EQ(200.0, r.rkb_s);
	EXPECT_EQ(1.0, r.r_await_ms);
	EXPECT_EQ(0.0, r.w_await_ms);
	EXPECT_EQ(25.0, r.util);
	EXPECT_EQ(30.0, r.qutil);
	EXPECT_EQ(0.5, r.aqu_sz);
	EXPECT_EQ(0.45, r.dev_qd);
	EXPECT_EQ(0.5, r.qd_issue);
	EXPECT_EQ(20.0, r.k_util);
	EXPECT_EQ(0.045, r.k_aqu_sz);
	EXPECT_EQ(0.5, r.k_r_await_ms);
	/* the kernel's merges, per second: rrqm/s and wrqm/s */
	EXPECT_EQ(6.0, r.k_rrqm_s);
	EXPECT_EQ(3.0, r.k_wrqm_s);
}

struct seen {
	int n;
	uint64_t last_sector;
};

static void count_record(void *arg, const struct iolat_record *r)
{
	struct seen *s = arg;

	s->n++;
	s->last_sector = r->sector;
}

TEST(decode_whole_records_only)
{
	struct iolat_record recs[3] = { { .sector = 1 }, { .sector = 2 },
					{ .sector = 3 } };
	struct seen s = { 0 };
	struct iolat_decoder dec = { .rec_size = sizeof(recs[0]),
				     .record = count_record, .arg = &s };

	iolat_decode(&dec, recs, sizeof(recs), 0);
	EXPECT_EQ(3, s.n);
	EXPECT_EQ(3, s.last_sector);
	EXPECT_EQ(3, dec.decoded);
	iolat_decode(&dec, recs, sizeof(recs) - 1, 0);
	EXPECT_EQ(3, s.n);
	EXPECT_EQ(1, dec.bad);
	dec.rec_size = 0;
	iolat_decode(&dec, recs, sizeof(recs), 0);
	EXPECT_EQ(2, dec.bad);
}

/* A session without NVMe sends block-sized records; the message says so. */
TEST(decode_block_size_records)
{
	unsigned char buf[2 * IOLAT_RECORD_BLOCK_SIZE];
	struct iolat_record r = { .sector = 7, .c_ns = 9 };
	struct seen s = { 0 };
	struct iolat_decoder dec = { .rec_size = sizeof(struct iolat_record),
				     .record = count_record, .arg = &s };

	memset(buf, 0xee, sizeof(buf));
	memcpy(buf, &r, IOLAT_RECORD_BLOCK_SIZE);
	r.sector = 8;
	memcpy(buf + IOLAT_RECORD_BLOCK_SIZE, &r, IOLAT_RECORD_BLOCK_SIZE);
	iolat_decode(&dec, buf, sizeof(buf), IOLAT_RECORD_BLOCK_SIZE);
	EXPECT_EQ(2, s.n);
	EXPECT_EQ(8, s.last_sector);
	EXPECT_EQ(0, dec.bad);
	/* read with the module's size, the two are not whole records */
	iolat_decode(&dec, buf, sizeof(buf), 0);
	EXPECT_EQ(1, dec.bad);
}

/* Run the CLI; its exit status, with stderr's lines counted. */
static int cli(const char *args, int *lines, char *err, size_t len)
{
	char cmd[512];
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>/tmp/iolat-cli-test.err",
		 getenv("IOLAT_CLI"), args);
	st = system(cmd);
	*lines = 0;
	err[0] = '\0';
	f = fopen("/tmp/iolat-cli-test.err", "r");
	if (f) {
		size_t n = fread(err, 1, len - 1, f);

		err[n] = '\0';
		fclose(f);
	}
	for (char *p = err; *p; p++)
		*lines += *p == '\n';
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct bad_input {
	const char *args;
	int status;
	const char *says;
};

/* Standard output of `iolat @args`, exit status in @st. */
static char *cli_out(const char *args, int *st)
{
	static char out[8192];
	char cmd[512];
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", getenv("IOLAT_CLI"), args);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	*st = pclose(f);
	*st = WIFEXITED(*st) ? WEXITSTATUS(*st) : -1;
	return out;
}

/*
 * The one JSON string writer: quotes, backslashes and control bytes
 * escaped, every other byte (UTF-8 included) as it is.
 */
/*
 * A cgroup's name: containers by runtime and short id, in a pod after
 * its UID, under systemd's and cgroupfs's layouts; anything else by path.
 */
TEST(cgroup_names)
{
	static const char *const id =
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	static const char *const uid = "8d3b1c6e-1f2a-4b5c-9d8e-7f6a5b4c3d2e";
	char path[512], buf[128];
	static const struct {
		const char *fmt, *want;
	} cases[] = {
		{ "/system.slice/docker-%s.scope", "docker:0123456789ab" },
		{ "/docker/%s", "docker:0123456789ab" },
		{ "/system.slice/libpod-%s.scope", "podman:0123456789ab" },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod8d3b1c6e_1f2a_4b5c_9d8e_7f6a5b4c3d2e.slice/cri-containerd-%s.scope",
		  "pod:%s containerd:0123456789abc" },
		{ "/kubepods.slice/kubepods-pod8d3b1c6e_1f2a_4b5c_9d8e_7f6a5b4c3d2e.slice/crio-%s.scope",
		  "pod:%s crio:0123456789abc" },
		{ "/kubepods/besteffort/pod8d3b1c6e-1f2a-4b5c-9d8e-7f6a5b4c3d2e/%s",
		  "pod:%s container:0123456789abc" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8d3b1c6e_1f2a_4b5c_9d8e_7f6a5b4c3d2e.slice",
		  "pod:%s" },
	};
	char want[128];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), cases[i].fmt, id);
		snprintf(want, sizeof(want), cases[i].want, uid);
		EXPECT_STREQ(want, iolat_cgroup_name(path, buf, sizeof(buf)))
			TH_LOG("%s", path);
	}
	/* by path: systemd units, the root, a scope that is no container */
	EXPECT_STREQ("/system.slice/postgresql.service",
		     iolat_cgroup_name("/system.slice/postgresql.service", buf,
				       sizeof(buf)));
	EXPECT_STREQ("/", iolat_cgroup_name("/", buf, sizeof(buf)));
	EXPECT_STREQ("/kubepods.slice/kubepods-burstable.slice",
		     iolat_cgroup_name("/kubepods.slice/kubepods-burstable.slice",
				       buf, sizeof(buf)));
	EXPECT_STREQ("/user.slice/docker-123.scope",
		     iolat_cgroup_name("/user.slice/docker-123.scope", buf,
				       sizeof(buf)));
}

TEST(json_strings_escaped)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "nvme0n1", "\"nvme0n1\"" },
		{ "", "\"\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "tab\tnl\n\x01", "\"tab\\u0009nl\\u000a\\u0001\"" },
		{ "caf\xc3\xa9 \x7f", "\"caf\xc3\xa9 \x7f\"" },
	};
	char *buf;
	size_t len;
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = open_memstream(&buf, &len);
		ASSERT_NE(NULL, f);
		json_str(f, cases[i].in);
		fclose(f);
		EXPECT_STREQ(cases[i].out, buf);
		free(buf);
	}
}

/* One document of the JSON writer, @spaced or not, as text. */
static char *json_doc(bool spaced)
{
	struct json j;
	char *buf;
	size_t len;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	json_init(&j, f, spaced);
	json_obj(&j, NULL);
	json_string(&j, "name", "dm\"0");
	json_arr(&j, "empty");
	json_end(&j);
	json_arr_lines(&j, "intervals");
	json_obj(&j, NULL);
	json_u64(&j, "n", 18446744073709551615ULL);
	json_end(&j);
	json_obj(&j, NULL);
	json_int(&j, "error", -5);
	json_arr(&j, "pairs");
	json_arr(&j, NULL);
	json_u64(&j, NULL, 1);
	json_raw(&j, NULL, "2");
	json_end(&j);
	json_end(&j);
	json_end(&j);
	json_end(&j);
	json_double(&j, "secs", "%.3f", 1.5);
	json_bool(&j, "incomplete", false);
	json_end(&j);
	/* a second value: JSON Lines */
	json_obj(&j, NULL);
	json_end(&j);
	fclose(f);
	return buf;
}

/*
 * The one JSON writer: commas between items only, keys escaped as
 * strings, ": " and ", " or none, an array of lines apart, a value
 * alone ending its line.
 */
TEST(json_writer)
{
	char *doc;

	doc = json_doc(false);
	EXPECT_STREQ("{\"name\":\"dm\\\"0\",\"empty\":[],\"intervals\":[{\"n\":18446744073709551615},\n"
		     " {\"error\":-5,\"pairs\":[[1,2]]}],\"secs\":1.500,\"incomplete\":false}\n{}\n",
		     doc);
	free(doc);
	doc = json_doc(true);
	EXPECT_STREQ("{\"name\": \"dm\\\"0\", \"empty\": [], \"intervals\": [{\"n\": 18446744073709551615},\n"
		     " {\"error\": -5, \"pairs\": [[1, 2]]}], \"secs\": 1.500, \"incomplete\": false}\n{}\n",
		     doc);
	free(doc);
}

/* A table of every kind of column, its rows written in @fmt, as text. */
static char *table_doc(enum iolat_fmt fmt)
{
	static const struct iolat_col cols[] = {
		{ .key = "device", .head = "device", .width = -8, .str = true },
		{ .key = "r_s", .head = "r/s", .width = 6, .prec = 1, .dprec = 3 },
		{ .key = "secs", .dprec = 6,
		  .in = IOLAT_FMT_BIT(CSV) | IOLAT_FMT_BIT(JSON) },
		{ .key = "", .head = "|", .width = 1, .in = IOLAT_FMT_BIT(TEXT) },
		{ .key = "kernel.util", .head = "k:%util", .width = 7, .prec = 2,
		  .dprec = 4 },
		{ .key = "kernel.name", .in = IOLAT_FMT_BIT(JSON), .str = true },
		{ .key = "lat_ns", .head = "lat", .width = 7 },
	};
	struct iolat_table t;
	char *buf;
	size_t len;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	iolat_table_init(&t, cols, sizeof(cols) / sizeof(cols[0]), fmt, f);
	iolat_table_header(&t);
	iolat_cell_str(&t, 0, "sd,\"a\"");
	iolat_cell_dbl(&t, 1, 2.25);
	iolat_cell_dbl(&t, 2, 0.5);
	iolat_cell_str(&t, 3, "|");
	iolat_cell_dbl(&t, 4, 99.5);
	iolat_cell_str(&t, 5, "q\"x");
	iolat_cell_ns(&t, 6, 1500000);
	iolat_table_row(&t, NULL);
	/* a row with cells left empty: "-", an empty field, no member */
	iolat_cell_str(&t, 0, "nvme0n1");
	iolat_cell_u64(&t, 6, 7);
	iolat_table_row(&t, NULL);
	fclose(f);
	return buf;
}

/*
 * The commands' tables: text aligned with "-" for an empty cell and only
 * text's columns; CSV quoted as RFC 4180 with its own columns; JSON by
 * the one writer, "group.key" columns in the object "group", empty
 * cells left out; the digits of each format.
 */
TEST(table_formats)
{
	char *text = table_doc(IOLAT_FMT_TEXT);
	char *csv = table_doc(IOLAT_FMT_CSV);
	char *json = table_doc(IOLAT_FMT_JSON);

	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, csv);
	ASSERT_NE(NULL, json);
	EXPECT_STREQ("device      r/s | k:%util     lat\n"
		     "sd,\"a\"      2.2 |   99.50  1.50ms\n"
		     "nvme0n1       - -       -       7\n", text);
	EXPECT_STREQ("device,r_s,secs,kernel.util,lat_ns\n"
		     "\"sd,\"\"a\"\"\",2.250,0.500000,99.5000,1500000\n"
		     "nvme0n1,,,,7\n", csv);
	EXPECT_STREQ("{\"device\":\"sd,\\\"a\\\"\",\"r_s\":2.250,\"secs\":0.500000,\"kernel\":{\"util\":99.5000,\"name\":\"q\\\"x\"},\"lat_ns\":1500000}\n"
		     "{\"device\":\"nvme0n1\",\"lat_ns\":7}\n", json);
	free(text);
	free(csv);
	free(json);
}

/* -o: the formats a command has, one message naming them otherwise. */
TEST(table_format_names)
{
	enum iolat_fmt fmt = IOLAT_FMT_NR;

	EXPECT_EQ(0, iolat_fmt_parse(NULL, IOLAT_FMT_ALL, &fmt));
	EXPECT_EQ(IOLAT_FMT_TEXT, fmt);
	EXPECT_EQ(0, iolat_fmt_parse("csv", IOLAT_FMT_ALL, &fmt));
	EXPECT_EQ(IOLAT_FMT_CSV, fmt);
	EXPECT_EQ(0, iolat_fmt_parse("json", IOLAT_FMT_ALL, &fmt));
	EXPECT_EQ(IOLAT_FMT_JSON, fmt);
	EXPECT_EQ(EXIT_USAGE, iolat_fmt_parse("csv", IOLAT_FMT_BIT(TEXT) |
					      IOLAT_FMT_BIT(JSON), &fmt));
	EXPECT_EQ(EXIT_USAGE, iolat_fmt_parse("yaml", IOLAT_FMT_ALL, &fmt));
}

/*
 * A completion's status as trace --nvme prints it: by name, with the
 * do-not-retry bit; in hex where the table does not know it; "unknown",
 * alone, where the module could not read it.
 */
TEST(nvme_status_names)
{
	static const struct {
		unsigned int status;
		const char *out;
	} cases[] = {
		{ 0x000, "success" },
		{ 0x002, "invalid_field" },
		{ 0x4002, "invalid_field|dnr" },
		{ 0x7ff, "0x7ff" },
		{ 0xffff, "unknown" },
	};
	unsigned int i;
	char buf[64];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		iolat_nvme_status(buf, sizeof(buf), cases[i].status);
		EXPECT_STREQ(cases[i].out, buf);
	}
}

/*
 * A tool of its family: iolat --version, iolat help CMD,
 * usage lines that say "iolat CMD".
 */
TEST(help_and_version)
{
	char *out;
	int st;

	if (!getenv("IOLAT_CLI"))
		SKIP(return, "IOLAT_CLI is not set");
	out = cli_out("--version", &st);
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, strncmp(out, "iolat ", 6)) TH_LOG("%s", out);
	out = cli_out("help record", &st);
	EXPECT_EQ(0, st);
	EXPECT_NE(NULL, strstr(out, "Usage: iolat record ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "--nvme"));
	out = cli_out("stat --help", &st);
	EXPECT_EQ(0, st);
	EXPECT_NE(NULL, strstr(out, "Usage: iolat stat ")) TH_LOG("%s", out);
	/* stat's help lists no filter it would refuse */
	EXPECT_EQ(NULL, strstr(out, "--min-latency"));
	EXPECT_EQ(NULL, strstr(out, "--comm"));
	out = cli_out("help frobnicate", &st);
	EXPECT_EQ(2, st);
	EXPECT_NE(NULL, strstr(out, "unknown command 'frobnicate'"));
}

FIXTURE(bad_input) {
	int unused;
};

FIXTURE_VARIANT(bad_input) {
	struct bad_input in;
};

FIXTURE_VARIANT_ADD(bad_input, unknown_option) {
	{ "record -d nullb0 --bogus", EXIT_USAGE, "unknown option" } };
FIXTURE_VARIANT_ADD(bad_input, unknown_command) {
	{ "frobnicate", EXIT_USAGE, "unknown command" } };
FIXTURE_VARIANT_ADD(bad_input, unknown_device) {
	{ "record -d no-such-disk -t 1", EXIT_FAIL, "unknown block device 'no-such-disk'" } };
FIXTURE_VARIANT_ADD(bad_input, no_device) {
	{ "record -t 1", EXIT_USAGE, "no device given" } };
FIXTURE_VARIANT_ADD(bad_input, bad_format) {
	{ "record -d nullb0 -o yaml", EXIT_USAGE, "unknown output format 'yaml'" } };
FIXTURE_VARIANT_ADD(bad_input, bad_buffer) {
	{ "record -d nullb0 -b 100", EXIT_USAGE, "power of two" } };
FIXTURE_VARIANT_ADD(bad_input, bad_duration) {
	{ "record -t abc", EXIT_USAGE, "-t takes a number, not 'abc'" } };
FIXTURE_VARIANT_ADD(bad_input, trace_bad_format) {
	{ "trace -d nullb0 -o xml", EXIT_USAGE, "unknown output format 'xml' (text, csv, json)" } };
FIXTURE_VARIANT_ADD(bad_input, bad_op) {
	{ "trace -d nullb0 --op read,trim", EXIT_USAGE, "--op takes a list" } };
FIXTURE_VARIANT_ADD(bad_input, bad_pid) {
	{ "trace -d nullb0 -p 0", EXIT_USAGE, "--pid takes a process or thread id, not '0'" } };
FIXTURE_VARIANT_ADD(bad_input, bad_tid) {
	{ "record -d nullb0 --tid x1", EXIT_USAGE, "--tid takes a process or thread id" } };
FIXTURE_VARIANT_ADD(bad_input, long_comm) {
	{ "trace -d nullb0 -c abcdefghijklmnop", EXIT_USAGE, "-c takes a task name of 1 to 15 characters" } };
FIXTURE_VARIANT_ADD(bad_input, bad_min_latency) {
	{ "trace -d nullb0 -m 5parsecs", EXIT_USAGE, "-m takes a latency such as 500us or 10ms, not '5parsecs'" } };
FIXTURE_VARIANT_ADD(bad_input, bad_interval) {
	{ "record -d nullb0 -i 0", EXIT_USAGE, "-i takes a number of seconds from 0.01 to 86400" } };
FIXTURE_VARIANT_ADD(bad_input, duration_with_command) {
	{ "record -d nullb0 -t 1 -- true", EXIT_USAGE, "not with a COMMAND" } };
FIXTURE_VARIANT_ADD(bad_input, stat_bad_interval) {
	{ "stat -d nullb0 0", EXIT_USAGE, "stat takes [interval [count]]" } };
FIXTURE_VARIANT_ADD(bad_input, stat_bad_count) {
	{ "stat -d nullb0 1 2.5", EXIT_USAGE, "a whole count (a COMMAND goes after --), not '2.5'" } };
FIXTURE_VARIANT_ADD(bad_input, stat_filter) {
	{ "stat -d nullb0 -c fio", EXIT_USAGE, "-c: unknown option" } };
FIXTURE_VARIANT_ADD(bad_input, stat_bad_format) {
	{ "stat -d nullb0 -o yaml", EXIT_USAGE, "unknown output format 'yaml' (text, csv, json)" } };
FIXTURE_VARIANT_ADD(bad_input, nvme_bad_format) {
	{ "nvme -d nvme0n1 -o svg", EXIT_USAGE, "unknown output format 'svg' (text, csv, json)" } };
FIXTURE_VARIANT_ADD(bad_input, clocktest_bad_format) {
	{ "clocktest -o prom", EXIT_USAGE, "unknown output format 'prom' (text, csv, json)" } };
FIXTURE_VARIANT_ADD(bad_input, stat_unknown_device) {
	{ "stat -d no-such-disk 1 1", EXIT_FAIL, "unknown block device 'no-such-disk'" } };
/* values that ran forever or were taken silently */
FIXTURE_VARIANT_ADD(bad_input, duration_zero) {
	{ "record -d nullb0 -t 0", EXIT_USAGE, "-t takes a number of seconds above 0" } };
FIXTURE_VARIANT_ADD(bad_input, duration_nan) {
	{ "trace -d nullb0 -t nan", EXIT_USAGE, "-t takes a number of seconds above 0" } };
FIXTURE_VARIANT_ADD(bad_input, duration_inf) {
	{ "stat -d nullb0 -t inf", EXIT_USAGE, "-t takes a number of seconds above 0" } };
FIXTURE_VARIANT_ADD(bad_input, top_zero_frames) {
	{ "top -n 0", EXIT_USAGE, "-n takes a number of refreshes from 1" } };
FIXTURE_VARIANT_ADD(bad_input, op_empty_name) {
	{ "trace -d nullb0 --op read,,write", EXIT_USAGE, "--op takes a list" } };
FIXTURE_VARIANT_ADD(bad_input, op_trailing_comma) {
	{ "record -d nullb0 --op read,", EXIT_USAGE, "--op takes a list" } };
FIXTURE_VARIANT_ADD(bad_input, pct_twice) {
	{ "record -d nullb0 -P 50,50", EXIT_USAGE, "distinct percentiles" } };
FIXTURE_VARIANT_ADD(bad_input, pct_nan) {
	{ "record -d nullb0 -P nan", EXIT_USAGE, "distinct percentiles" } };
FIXTURE_VARIANT_ADD(bad_input, pid_absent) {
	{ "trace -d nullb0 -p 4194303", EXIT_USAGE, "--pid 4194303: no such process" } };
FIXTURE_VARIANT_ADD(bad_input, tid_absent) {
	{ "record -d nullb0 --tid 4194303", EXIT_USAGE, "--tid 4194303: no such thread" } };
FIXTURE_VARIANT_ADD(bad_input, stat_word) {
	{ "stat -d nullb0 abc", EXIT_USAGE, "(a COMMAND goes after --), not 'abc'" } };
FIXTURE_VARIANT_ADD(bad_input, stat_interval_nan) {
	{ "stat -d nullb0 nan", EXIT_USAGE, "not 'nan'" } };
/* one shortest interval, 0.01 s, for every command */
FIXTURE_VARIANT_ADD(bad_input, stat_interval_min) {
	{ "stat -d nullb0 0.005", EXIT_USAGE, "seconds from 0.01" } };
FIXTURE_VARIANT_ADD(bad_input, record_interval_min) {
	{ "record -d nullb0 -i 0.005", EXIT_USAGE, "-i takes a number of seconds from 0.01 to 86400" } };
FIXTURE_VARIANT_ADD(bad_input, top_interval_min) {
	{ "top -d nullb0 -i 0.005", EXIT_USAGE, "-i takes a number of seconds from 0.01 to 86400" } };
FIXTURE_VARIANT_ADD(bad_input, export_interval_min) {
	{ "export -d nullb0 --textfile /tmp -i 0.005", EXIT_USAGE, "-i takes a number of seconds from 0.01 to 86400" } };
FIXTURE_VARIANT_ADD(bad_input, clocktest_argument) {
	{ "clocktest now", EXIT_USAGE, "clocktest takes no arguments" } };
FIXTURE_VARIANT_ADD(bad_input, clocktest_loops) {
	{ "clocktest -n 5", EXIT_USAGE, "-n takes 1000 to 1000000 reads" } };

FIXTURE_SETUP(bad_input)
{
	if (!getenv("IOLAT_CLI"))
		SKIP(return, "IOLAT_CLI is not set");
}

FIXTURE_TEARDOWN(bad_input)
{
}

/* One line on stderr saying what is wrong, and a non-zero status. */
TEST_F(bad_input, one_clear_line)
{
	char err[4096];
	int lines, st;

	st = cli(variant->in.args, &lines, err, sizeof(err));
	TH_LOG("iolat %s -> %d: %s", variant->in.args, st, err);
	EXPECT_EQ(variant->in.status, st);
	EXPECT_EQ(1, lines);
	EXPECT_NE(NULL, strstr(err, variant->in.says));
	EXPECT_EQ(0, strncmp(err, "iolat: ", 7));
}

TEST_HARNESS_MAIN
