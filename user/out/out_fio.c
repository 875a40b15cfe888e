// SPDX-License-Identifier: GPL-2.0
/*
 * fio's completion-latency histogram log (write_hist_log), so that fio's
 * own fiologparser_hist.py reads iolat's intervals: a line per interval
 * and data direction, "msec, ddir, bs, bin0, ..., bin1855", each bin the
 * count of that interval, in fio's bin layout (stat.h: FIO_IO_U_PLAT_BITS
 * 6, FIO_IO_U_PLAT_GROUP_NR 29, nanoseconds).  Every iolat bin lies in
 * one fio bin, so the conversion only adds.  fio's last bin takes all
 * from 2^34 ns on (17 s); iolat counts what it put there and says so.
 * msec is the interval's end; ddir 0 read, 1 write, 2 discard (trim);
 * bs is the interval's mean request size.  Other ops are left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"

#define U(x) ((unsigned long long)(x))

#define FIO_PLAT_BITS	6
#define FIO_PLAT_VAL	(1U << FIO_PLAT_BITS)
#define FIO_GROUP_NR	29
#define FIO_PLAT_NR	(FIO_GROUP_NR * FIO_PLAT_VAL)

static uint64_t clamped;	/* values put in fio's last bin */

/* fio's plat_val_to_idx() as stat.c defines it. */
static unsigned int fio_idx(uint64_t v)
{
	unsigned int msb = v ? 63 - __builtin_clzll(v) : 0, err, idx;

	if (msb <= FIO_PLAT_BITS)
		return v;
	err = msb - FIO_PLAT_BITS;
	idx = ((err + 1) << FIO_PLAT_BITS) + ((FIO_PLAT_VAL - 1) & (v >> err));
	return idx < FIO_PLAT_NR - 1 ? idx : FIO_PLAT_NR - 1;
}

static void fio_line(uint64_t ms, unsigned int ddir, uint64_t bs,
		     const struct iolat_hist *h)
{
	static uint64_t bins[FIO_PLAT_NR];
	unsigned int i, k;

	memset(bins, 0, sizeof(bins));
	for (i = 0; i < IOLAT_HIST_NR_BINS; i++) {
		if (!h->bins[i])
			continue;
		k = fio_idx(iolat_hist_bin_lo(i));
		bins[k] += h->bins[i];
		if (k == FIO_PLAT_NR - 1)
			clamped += h->bins[i];
	}
	bins[FIO_PLAT_NR - 1] += h->overflow;
	clamped += h->overflow;
	printf("%llu, %u, %llu", U(ms), ddir, U(bs));
	for (i = 0; i < FIO_PLAT_NR; i++)
		printf(", %llu", U(bins[i]));
	printf("\n");
}

static void fio_interval(struct iolat_an *an, uint64_t from, uint64_t to)
{
	static const unsigned int ddir_op[3] = {
		IOLAT_OP_READ, IOLAT_OP_WRITE, IOLAT_OP_DISCARD,
	};
	struct iolat_hist *sum = NULL;
	unsigned int ddir, d, stage;
	uint64_t ios, bytes;

	(void)from;
	for (ddir = 0; ddir < 3; ddir++) {
		bool any = false;

		ios = bytes = 0;
		for (d = 0; d < an->nr_devs; d++) {
			const struct iolat_an_op *o = &an->devs[d].ival[ddir_op[ddir]];
			const struct iolat_hist *h;

			stage = an->o.stage;
			h = stage < IOLAT_AN_STAGES ? o->hist[stage] : NULL;
			if (!h || !h->count)
				continue;
			if (!sum)
				sum = malloc(sizeof(*sum));
			if (!sum) {
				an->nomem = true;
				return;
			}
			if (!any)
				iolat_hist_init(sum);
			any = true;
			iolat_hist_merge(sum, h);
			ios += o->ios;
			bytes += o->bytes;
		}
		if (any)
			fio_line(to / 1000000, ddir, ios ? bytes / ios : 0, sum);
	}
	free(sum);
	fflush(stdout);
}

static void fio_summary(struct iolat_an *an, const struct iolat_run *run,
			const struct iolat_dev_counters *c)
{
	(void)an;
	(void)run;
	(void)c;
	if (clamped)
		iolat_warn("%llu latencies of 17 s or more were put in fio's last histogram bin, as fio does",
			   U(clamped));
}

const struct iolat_output iolat_out_fio = {
	.name = "fio",
	.needs_intervals = true,
	.interval = fio_interval,
	.summary = fio_summary,
};
