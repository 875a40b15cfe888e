// SPDX-License-Identifier: GPL-2.0
/*
 * What the guest tests share; see helpers.h.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "helpers.h"

#define KSFT_FAIL 1

const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v) {
		fprintf(stderr, "# %s is not set\n", name);
		exit(KSFT_FAIL);
	}
	return v;
}

/*
 * $IOLAT_ONLY: the tests to run, as words FIXTURE.TEST; unset or empty,
 * all but only_named[]'s.  Never those of $IOLAT_SKIP (the same words:
 * the tests check.sh runs on one kernel only, tests/kernels/once.tests).
 * only_wanted() marks the words it matches, only_check() names those
 * that matched no test of this program.
 */
struct words {
	char *w[64];
	bool matched[64];
	int nr;
};

static struct words only, skip;
static bool words_read;

static void words_parse(struct words *ws, const char *name)
{
	char *list, *w, *save;

	list = getenv(name);
	if (!list || !*list)
		return;
	list = strdup(list);
	for (w = strtok_r(list, " ", &save); w && ws->nr < 64;
	     w = strtok_r(NULL, " ", &save))
		ws->w[ws->nr++] = w;
}

/* Does word @w name FIXTURE.TEST @fixture.@test? */
static bool word_names(const char *w, const char *fixture, const char *test)
{
	size_t flen = strlen(fixture);

	return !strncmp(w, fixture, flen) && w[flen] == '.' &&
	       !strcmp(w + flen + 1, test);
}

/* Marks and says whether a word of @ws names the test. */
static bool words_match(struct words *ws, const char *fixture,
			const char *test)
{
	bool hit = false;
	int i;

	for (i = 0; i < ws->nr; i++)
		if (word_names(ws->w[i], fixture, test)) {
			ws->matched[i] = true;
			hit = true;
		}
	return hit;
}

/*
 * Tests that need a guest of their own, run only where $IOLAT_ONLY names
 * them: scale.cpus_online_growth, in make check's cpus8 stages (8 CPUs).
 */
static const char *const only_named[] = { "scale.cpus_online_growth",
					   "scale.cpu_hot_add" };

bool only_wanted(const char *fixture, const char *test)
{
	bool want = true, skipped;
	unsigned int i;

	if (!words_read) {
		words_parse(&only, "IOLAT_ONLY");
		words_parse(&skip, "IOLAT_SKIP");
		words_read = true;
	}
	if (only.nr)
		want = words_match(&only, fixture, test);
	else
		for (i = 0; i < sizeof(only_named) / sizeof(only_named[0]); i++)
			if (word_names(only_named[i], fixture, test))
				want = false;
	skipped = words_match(&skip, fixture, test);
	return want && !skipped;
}

static int words_check(const struct words *ws, const char *name)
{
	int i, bad = 0;

	for (i = 0; i < ws->nr; i++) {
		if (ws->matched[i])
			continue;
		fprintf(stderr, "# %s names %s: no such test here\n",
			name, ws->w[i]);
		bad = -1;
	}
	return bad;
}

int only_check(void)
{
	return words_check(&only, "IOLAT_ONLY") | words_check(&skip, "IOLAT_SKIP");
}

/* sh -c the formatted command; its exit status, or -1. */
int sh(const char *fmt, ...)
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

/* A whole file's text in a fresh string, or NULL; the caller frees it. */
char *slurp_all(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, room = 1 << 16, n;
	char *buf = malloc(room), *grown;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	while ((n = fread(buf + len, 1, room - len - 1, f)) > 0) {
		len += n;
		if (room - len - 1 > 0)
			continue;
		grown = realloc(buf, room * 2);
		if (!grown)
			abort();
		buf = grown;
		room *= 2;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/*
 * A file's whole text in a fresh string, "" when it cannot be read; tests
 * exit, not free.  Never cut short: a long run's JSON outgrows any fixed
 * size (the debug kernel's slow analysis run wrote more than 64 KiB).
 */
char *slurp(const char *path)
{
	char *buf = slurp_all(path);

	if (!buf)
		buf = calloc(1, 1);
	if (!buf)
		abort();
	return buf;
}

int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The number after "key": in a JSON text, summed over every occurrence. */
long long json_sum(const char *text, const char *key)
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

/* The fields of /sys/class/block/DEV/stat (a disk or a partition) into @f; how many were read, or -1. */
int dev_stat(const char *dev, unsigned long long f[17])
{
	char path[128];
	FILE *fp;
	int n;

	memset(f, 0, 17 * sizeof(f[0]));
	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", dev);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	n = fscanf(fp, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7],
		   &f[8], &f[9], &f[10], &f[11], &f[12], &f[13], &f[14],
		   &f[15], &f[16]);
	fclose(fp);
	return n;
}

/* Requests the device completed: reads + writes + discards + flushes. */
long long completed(const char *dev)
{
	unsigned long long f[17];

	if (dev_stat(dev, f) < 11)
		return -1;
	return f[0] + f[4] + f[11] + f[15];
}

/* Wait up to @secs for @dev to have completed @n requests in all; 0 or -1. */
int wait_completed(const char *dev, long long n, int secs)
{
	int i;

	for (i = 0; i < secs * 100; i++) {
		if (completed(dev) >= n)
			return 0;
		usleep(10000);
	}
	return -1;
}

/* Writes the device completed (its stat file's fifth field). */
long long completed_writes(const char *dev)
{
	unsigned long long f[17];

	return dev_stat(dev, f) < 5 ? -1 : (long long)f[4];
}

bool module_loaded(void)
{
	return access("/sys/module/iolat", F_OK) == 0;
}

int module_load(void)
{
	if (module_loaded())
		return 0;
	return sh("insmod %s", env("IOLAT_KO"));
}

/* rmmod, retrying while a netlink dump briefly holds the module. */
int module_unload(void)
{
	int i;

	for (i = 0; i < 200 && module_loaded(); i++) {
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
int dmesg_bad_reports(void)
{
	int st = sh("dmesg | grep -F -f '%s' >&2", IOLAT_KERNEL_REPORTS);

	if (st == 1)
		return 0;
	fprintf(stderr, st == 0 ? "# dmesg has kernel reports (above)\n" :
		"# cannot match dmesg against %s\n", IOLAT_KERNEL_REPORTS);
	return 1;
}

pid_t spawn_sh(const char *cmd)
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
int wait_for(pid_t pid, int secs, int *status)
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
int wait_text(const char *path, const char *text, int secs)
{
	int i;

	char *s;
	bool found;

	for (i = 0; i < secs * 20; i++) {
		s = slurp(path);
		found = s && strstr(s, text);
		free(s);
		if (found)
			return 0;
		usleep(50000);
	}
	return -1;
}

/*
 * Start @cmd, an iolat session whose standard error goes to ERR, and wait
 * up to @secs for it to say it is tracing.  Its pid, or -1 (killed).
 */
pid_t spawn_tracing(const char *cmd, int secs)
{
	pid_t pid;

	unlink(ERR);
	pid = spawn_sh(cmd);
	if (pid <= 0)
		return -1;
	if (wait_text(ERR, "iolat: tracing", secs)) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Parse the CSV trace at @path; @fn gets each row.  Rows, or -1. */
/* A row's first stage: queue, else get-request, insert or issue; 0: none. */
unsigned long long row_first(const struct row *r)
{
	int k;

	for (k = 0; k < 4; k++)
		if (r->t[k])
			return r->t[k];
	return 0;
}

int csv_rows(const char *path, void (*fn)(void *arg, const struct row *r),
		    void *arg)
{
	char line[1024], *p, *f[32];
	struct row r;
	FILE *fp = fopen(path, "r");
	int n = 0, k, nf;

	if (!fp)
		return -1;
	if (!fgets(line, sizeof(line), fp) || strncmp(line, "q_ns,", 5)) {
		fclose(fp);
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		p = line;
		for (k = 0; k < 32 && p; k++)
			f[k] = strsep(&p, ",");
		if (k < 27) {
			fclose(fp);
			return -1;
		}
		nf = k;
		memset(&r, 0, sizeof(r));
		for (k = 0; k < 5; k++)
			r.t[k] = strtoull(f[k], NULL, 10);
		snprintf(r.dev, sizeof(r.dev), "%s", f[5]);
		snprintf(r.op, sizeof(r.op), "%s", f[8]);
		snprintf(r.flags, sizeof(r.flags), "%s", f[9]);
		r.sector = strtoull(f[10], NULL, 10);
		r.bytes = strtoul(f[11], NULL, 10);
		r.hwq = strtoul(f[12], NULL, 10);
		r.nr_bios = strtoul(f[14], NULL, 10);
		r.requeues = strtoul(f[15], NULL, 10);
		r.qd_insert = strtoul(f[16], NULL, 10);
		r.qd_issue = strtoul(f[17], NULL, 10);
		r.pid = strtoul(f[19], NULL, 10);
		r.tgid = strtoul(f[20], NULL, 10);
		snprintf(r.comm, sizeof(r.comm), "%s", f[21]);
		if (nf > 28)
			r.link = strtoull(f[28], NULL, 10);
		fn(arg, &r);
		n++;
	}
	fclose(fp);
	return n;
}

/* The number after the first "key": in a JSON text, or NAN. */
double json_num(const char *text, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = strstr(text, pat);
	if (!p)
		return 0.0 / 0.0;
	p += strlen(pat);
	while (*p == ' ' || *p == ':')
		p++;
	return strtod(p, NULL);
}

/* debugfs mounted at /sys/kernel/debug (blktrace's files, blk-mq's queues) */
void debugfs_mount(void)
{
	sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug");
}

#define NULLB_CFS "/sys/kernel/config/nullb"

/*
 * Wait, up to 60 s, until no null_blk disk that is gone still has its
 * blk-mq debugfs directory; 0, or -1 (and the directory's name on stderr).
 * Call it before making a null_blk disk.
 *
 * Before v5.9 ("block: revert back to synchronous request_queue removal",
 * e8c7d14ac6c3) a queue was released, and /sys/kernel/debug/block/NAME
 * removed, later, from a work item.  A disk of the same name made before
 * that found the old directory ("debugfs: Directory 'nullb0' with parent
 * 'block' already present!") and went without one of its own, and
 * blktrace on it failed ("debugfs_dir not present for nullb0 so
 * skipping", seen on 5.4.286; before upstream's 85e0cbbb8a79, "blktrace:
 * fix debugfs use after free", it took the old queue's directory, which
 * the release then removed).  CI's 5.4 guest printed that line twice as
 * the stacks' suites made their disks anew.
 */
int nullb_settle(void)
{
	debugfs_mount();
	return sh("for i in $(seq 600); do stale=; "
		  "for d in /sys/kernel/debug/block/nullb*; do "
		  "test -e \"$d\" && ! test -e \"/sys/block/${d##*/}\" && stale=${d##*/}; "
		  "done; test -z \"$stale\" && exit 0; sleep 0.1; done; "
		  "echo \"# $stale: its debugfs directory outlived the disk by 60 s\" >&2; "
		  "exit 1") ? -1 : 0;
}

/*
 * nullb0 there for a suite: null_blk loaded with one device and, where the
 * kernel takes them, the module parameters @more (NULL: none; e.g. two
 * poll queues, for io_uring's polled, batched completions); a null_blk
 * loaded without nullb0 (configfs devices of another suite, since
 * removed) is reloaded with it.  A nullb0 already there is taken as it
 * is.  0 or -1.
 */
int nullb0_ready(const char *more)
{
	if (!access("/sys/block/nullb0", F_OK))
		return 0;
	sh("modprobe -r null_blk 2>/dev/null");
	if (nullb_settle())
		return -1;
	/* with @more if it loads so, else without */
	if ((!more || sh("modprobe null_blk nr_devices=1 %s 2>/dev/null", more)) &&
	    sh("modprobe null_blk nr_devices=1"))
		return -1;
	return access("/dev/nullb0", F_OK);
}

/* null_blk loaded without devices, and configfs mounted to make them. */
int nullb_configfs(void)
{
	return sh("modprobe null_blk nr_devices=0 2>/dev/null || "
		  "test -d /sys/module/null_blk") ||
	       sh("mountpoint -q /sys/kernel/config || "
		  "mount -t configfs none /sys/kernel/config") ? -1 : 0;
}

void nullb_remove(const char *name)
{
	sh("cd " NULLB_CFS " 2>/dev/null && test -d %s && "
	   "echo 0 >%s/power && rmdir %s", name, name, name);
}

/*
 * A null_blk device of configfs directory @name with the attributes
 * @attrs ("irqmode=2 size=1024 ...", written in that order), powered;
 * its disk name into @disk: @name itself since Linux 6.0, nullb<index>
 * before.  A device of that name is removed first.  0 or -1.
 */
int nullb_make(const char *name, const char *attrs, char *disk, size_t len)
{
	nullb_remove(name);
	if (nullb_settle())
		return -1;
	if (sh("mkdir -p " NULLB_CFS "/%s && cd " NULLB_CFS "/%s && "
	       "for a in %s; do echo \"${a#*=}\" >\"${a%%%%=*}\" || exit 1; done && "
	       "echo 1 >power", name, name, attrs))
		return -1;
	if (nullb_disk(name, disk, len))
		return -1;
	return sh("test -b /dev/%s", disk) ? -1 : 0;
}

/*
 * nullb_make() with a fixed service time of @nsec (timer completions)
 * and two hardware queues.
 */
int nullb_create(const char *name, unsigned long nsec, char *disk,
			size_t len)
{
	char attrs[128];

	snprintf(attrs, sizeof(attrs),
		 "irqmode=2 completion_nsec=%lu submit_queues=2 size=1024",
		 nsec);
	return nullb_make(name, attrs, disk, len);
}

/*
 * The disk name of the powered null_blk device of configfs directory
 * @name into @disk: @name itself since Linux 6.0, nullb<index> before.
 * 0 or -1.
 */
int nullb_disk(const char *name, char *disk, size_t len)
{
	char path[256], *idx;

	snprintf(path, sizeof(path), NULLB_CFS "/%s/index", name);
	idx = slurp(path);
	if (!idx)
		return -1;
	snprintf(disk, len, "nullb%ld", strtol(idx, NULL, 10));
	free(idx);
	snprintf(path, sizeof(path), "/sys/block/%s", name);
	if (!access(path, F_OK))
		snprintf(disk, len, "%s", name);
	return 0;
}

/*
 * Run shell command @cmd with blktrace capturing into directory @dir
 * (made anew) with its arguments @args ("-d /dev/X -o bt", or several
 * -d): blktrace starts 2 s before @cmd and stops 1 s after it.  The
 * status of @cmd.
 */
int blktrace_around(const char *dir, const char *args, const char *cmd)
{
	debugfs_mount();
	sh("rm -rf %s; mkdir -p %s", dir, dir);
	return sh("cd %s && blktrace %s >bt.log 2>&1 & bt=$!; sleep 2; "
		  "%s; st=$?; sleep 1; kill -INT $bt; wait $bt; exit $st",
		  dir, args, cmd);
}

/* @dev's scheduler set to none, and read back: 0 or -1. */
int set_scheduler_none(const char *dev)
{
	return sh("echo none >/sys/block/%s/queue/scheduler && grep -q '\\[none\\]' /sys/block/%s/queue/scheduler",
		  dev, dev) ? -1 : 0;
}

/*
 * Wait up to 30 s for block device @dev to open.  Its node appears
 * before its disk can be opened (add_disk() registers the device, then
 * the block device): wait until it opens.  0 or -1.
 */
int wait_disk(const char *dev)
{
	int i;

	for (i = 0; i < 300; i++) {
		if (!sh("blockdev --getsz /dev/%s >/dev/null 2>&1", dev))
			return 0;
		usleep(100000);
	}
	return -1;
}

/*
 * Unload nvme (and @also, e.g. nvme_core).  An open namespace or
 * controller holds nvme (nvme_ns_open() takes its module), and the
 * kernel's partition scan after a load can still have the namespace open
 * when its node appears: retry for up to 10 s, then say who holds it.
 */
int nvme_unload(const char *also)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!sh("modprobe -r nvme %s 2>/dev/null", also))
			return 0;
		usleep(100000);
	}
	sh("echo \"# nvme refcnt $(cat /sys/module/nvme/refcnt 2>/dev/null), holders: $(ls /sys/module/nvme/holders 2>/dev/null)\" >&2; "
	   "ls -l /proc/[0-9]*/fd 2>/dev/null | grep -E ' /dev/nvme' | sed 's/^/# open: /' >&2");
	return -1;
}

int has_io_uring(void)
{
	/* no parameters: EINVAL where io_uring is, ENOSYS where not */
	return syscall(__NR_io_uring_setup, 0, NULL) < 0 && errno != ENOSYS;
}

const char *polled_engine(void)
{
	return has_io_uring() ? "io_uring --hipri=1" : "pvsync2 --hipri=1";
}

/* A number printed by a shell command, or -1. */
double sh_number(const char *fmt, const char *arg)
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

/* qsort()'s order of long longs, ascending. */
int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* A number at the start of a sysfs file of a block device; 0 if none. */
unsigned long long sysfs_ull(const char *name, const char *attr)
{
	char path[128], *text;
	unsigned long long v;

	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", name, attr);
	text = slurp(path);
	v = text ? strtoull(text, NULL, 10) : 0;
	free(text);
	return v;
}

/*
 * Two partitions of 64 MiB on @disk, p1 then p2 (an NVMe namespace's
 * names), in a DOS table: their start, size and minor number into [1]
 * and [2] of @start, @size and @minor.  0 or -1.
 */
int parts_make(const char *disk, unsigned long long start[3],
	       unsigned long long size[3], unsigned int minor[3])
{
	char name[32], path[128], *devt;
	int i;

	if (sh("printf 'label: dos\\n,64M\\n,64M\\n' | sfdisk -q /dev/%s >/dev/null 2>&1 && for i in $(seq 50); do [ -e /sys/class/block/%sp2 ] && [ -b /dev/%sp2 ] && exit 0; sleep 0.1; done; exit 1",
	       disk, disk, disk))
		return -1;
	for (i = 1; i <= 2; i++) {
		snprintf(name, sizeof(name), "%sp%d", disk, i);
		start[i] = sysfs_ull(name, "start");
		size[i] = sysfs_ull(name, "size");
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
		devt = slurp(path);
		if (!size[i] || !devt || !strchr(devt, ':')) {
			free(devt);
			return -1;
		}
		minor[i] = strtoul(strchr(devt, ':') + 1, NULL, 10);
		free(devt);
	}
	return 0;
}

/* @disk's partition table gone, and its partitions with it. */
void parts_remove(const char *disk)
{
	sh("sfdisk -q --delete /dev/%s >/dev/null 2>&1; wipefs -q -a /dev/%s >/dev/null 2>&1; blockdev --rereadpt /dev/%s 2>/dev/null",
	   disk, disk, disk);
}
