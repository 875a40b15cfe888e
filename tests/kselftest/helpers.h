/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest tests share: running commands, reading files, the
 * module's load and unload, the kernel log check, a device's kernel
 * counters and `iolat trace -o csv` rows.
 */
#ifndef IOLAT_KSFT_HELPERS_H
#define IOLAT_KSFT_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/iolat.h>

#define OUT "/tmp/iolat_test.out"
#define ERR "/tmp/iolat_test.err"
#define CSV "/tmp/iolat_test.csv"

const char *env(const char *name);
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *slurp(const char *path);
char *slurp_all(const char *path);
int count_lines(const char *s);
long long json_sum(const char *text, const char *key);
double json_num(const char *text, const char *key);
int dev_stat(const char *dev, unsigned long long f[17]);
long long completed(const char *dev);
long long completed_writes(const char *dev);
int wait_completed(const char *dev, long long n, int secs);
bool module_loaded(void);
int module_load(void);
int module_unload(void);
int dmesg_bad_reports(void);
pid_t spawn_sh(const char *cmd);
int wait_for(pid_t pid, int secs, int *status);
int wait_text(const char *path, const char *text, int secs);
pid_t spawn_tracing(const char *cmd, int secs);
void debugfs_mount(void);
int nullb_settle(void);
int nullb0_ready(const char *more);
int nullb_configfs(void);
void nullb_remove(const char *name);
int nullb_make(const char *name, const char *attrs, char *disk, size_t len);
int nullb_create(const char *name, unsigned long nsec, char *disk, size_t len);
int nullb_disk(const char *name, char *disk, size_t len);
int blktrace_around(const char *dir, const char *args, const char *cmd);
double sh_number(const char *fmt, const char *arg);
int cmp_ll(const void *a, const void *b);
unsigned long long sysfs_ull(const char *name, const char *attr);
int parts_make(const char *disk, unsigned long long start[3],
	       unsigned long long size[3], unsigned int minor[3]);
void parts_remove(const char *disk);
int wait_disk(const char *dev);
/* @dev's I/O scheduler set to none, and read back; 0 or -1 */
int set_scheduler_none(const char *dev);
/*
 * Does the kernel have io_uring?  Not RHEL 8 (built without) nor 4.19:
 * fio's io_uring engine fails there with ENOSYS.
 */
int has_io_uring(void);
/* fio's engine options for polled I/O: io_uring's, or preadv2's RWF_HIPRI */
const char *polled_engine(void);
int nvme_unload(const char *also);

/* One request of `iolat trace -o csv`. */
struct row {
	unsigned long long t[5];	/* q g i d c */
	char dev[32];
	char op[16];
	char flags[64];
	unsigned long long sector;
	unsigned int bytes, hwq, nr_bios, pid, tgid;
	unsigned int requeues, qd_insert, qd_issue;
	char comm[IOLAT_COMM_LEN];
	unsigned long long link;	/* a stack's I/O; 0: none */
};
int csv_rows(const char *path, void (*fn)(void *arg, const struct row *r),
	     void *arg);
unsigned long long row_first(const struct row *r);

/*
 * TEST_HARNESS_MAIN, but running only the tests $IOLAT_ONLY names
 * (FIXTURE.TEST words; if unset, all but those that need a guest of
 * their own, helpers.c's only_named[]), and failing if a word names no
 * test.  The 6.1 harness we build with has no filter of its own (its
 * -r/-t options came later), so this keeps the harness's list of each
 * fixture's tests but the wanted ones, in their order.
 */
bool only_wanted(const char *fixture, const char *test);
int only_check(void);
#define IOLAT_HARNESS_MAIN \
	static void __attribute__((constructor)) \
	__constructor_order_last(void) \
	{ \
		if (!__constructor_order) \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	} \
	int main(int argc, char **argv) \
	{ \
		struct __fixture_metadata *f; \
		struct __test_metadata *t, *next, *last; \
		\
		for (f = __fixture_list; f; f = f->next) { \
			t = f->tests; \
			f->tests = last = NULL; \
			for (; t; t = next) { \
				next = t->next; \
				if (!only_wanted(f->name, t->name)) \
					continue; \
				t->next = NULL; \
				t->prev = last; \
				if (last) \
					last->next = t; \
				else \
					f->tests = t; \
				last = t; \
			} \
			if (f->tests) \
				f->tests->prev = last; \
		} \
		if (only_check()) \
			return KSFT_FAIL; \
		return test_harness_run(argc, argv); \
	}

#endif /* IOLAT_KSFT_HELPERS_H */
