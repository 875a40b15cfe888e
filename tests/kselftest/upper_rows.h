/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stacked device's trace (upper_test.c): the CSV rows of the device
 * and of the requests below it, and their pairing with blktrace's
 * events (blkparse's text in BT/bt.txt) and btt's figures of the same
 * run.
 */
#ifndef IOLAT_KSFT_UPPER_ROWS_H
#define IOLAT_KSFT_UPPER_ROWS_H

#include <stdbool.h>
#include "helpers.h"

#define NS "nvme0n1"
#define BT "/tmp/iolat_stack_bt"

#define MAX_BIOS 4096
/* the requests below: a striped target's 16 pieces of 300 I/Os, unmerged */
#define MAX_LOW 8192

struct upper_rows {
	const char *kname;	/* the upper device: the others are lower */
	long rows, reads, writes, not_fio, not_bio;
	unsigned long long sector[MAX_BIOS];
	long long q2c[MAX_BIOS];
	char op[MAX_BIOS];
	/* the lower devices' requests: joined (flag "stack"), their bios */
	long lower, joined, joined_bios, joined_not_fio;
	long lower_reads, lower_writes;	/* the requests below, by op */
	/* the rows' links: the device's I/Os, and the requests below */
	unsigned long long link[MAX_BIOS], low_link[MAX_LOW];
	unsigned long long q[MAX_BIOS], c[MAX_BIOS];
	unsigned long long low_first[MAX_LOW], low_c[MAX_LOW];
	/* each request's device (its name), sector, op and D2C */
	char low_dev[MAX_LOW][32];
	unsigned long long low_sector[MAX_LOW];
	long long low_d2c[MAX_LOW];
	char low_op[MAX_LOW];
	long low_rows;
};

/* How the I/Os of a bio-based device reach the devices under it. */
struct stack_case {
	const char *path;	/* the device, as the user names it */
	const char *lowers;	/* the kernel names of those under it */
	const char *fio;
	long want_ios;		/* fio's bios */
	/*
	 * The kernel's count of the device's reads and writes is the bios'
	 * times @pieces: the parts device-mapper cuts each bio into at a
	 * striped target's chunks, each an I/O of its own.
	 */
	long pieces;
	/*
	 * The remaps (A) of each read and write down the stack: a piece
	 * each, both mirrors of a write; -1: as many as blktrace says
	 * (dm-crypt reports its remaps since v5.16 only).
	 */
	long remaps_read, remaps_write;
	bool own_io;		/* md writes superblocks of its own */
	/*
	 * The one device below is a partition (@lowers) of disk @low_disk,
	 * from sector @low_start: blktrace traces the disk, where the
	 * partition's requests are, at the disk's sectors.
	 */
	const char *low_disk;
	unsigned long long low_start;
};

void upper_row(void *arg, const struct row *r);
long q2c_pairs(const struct upper_rows *u, const char *devt,
	       long long *q2c, long long *diff);
long blkparse_n(const char *act, const char *rw, const char *devt);
int devt_of(const char *kname, char *devt, size_t len);
int lower_stat(const char *lowers, unsigned long long f[2]);
long links_check(const struct upper_rows *u, long per_io[4]);
long lower_pairs(const struct upper_rows *u, const struct stack_case *c,
		 char act, long long *t, long long *diff);
double mean_ll(const long long *v, long n);
int btt_dev(const char *devt, const char *table, double *avg, long *n);
int btt_q2c(const char *devt, double *avg, long *n);

#endif /* IOLAT_KSFT_UPPER_ROWS_H */
