/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outputs: the backends by name and the options of record and
 * report (output.c), the backends (out_*.c), a request as a row of text,
 * CSV or JSON (req_row.c) and the commands' tables (table.h), a
 * record's NVMe fields named (nvme_fields.c);
 * struct iolat_output, the hooks the analysis calls, is analyze.h's.
 */
#ifndef IOLAT_OUTPUT_H
#define IOLAT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include "analysis/analyze.h"
#include "out/table.h"
#include "out/expo.h"

extern const struct iolat_output iolat_out_text, iolat_out_json,
	iolat_out_csv, iolat_out_fio, iolat_out_prom, iolat_out_svg;
const struct iolat_output *iolat_output_find(const char *name);
/* -o, -i, -P and --stage of record and report */
struct iolat_an_args {
	char *output;
	char *interval;
	char *pct;
	char *stage;
	char *buckets;
};
#define IOLAT_AN_POPT(a)						\
	{ "output", 'o', POPT_ARG_STRING, &(a).output, 0,		\
	  "output format: text, json, csv (a line per request), fio (fio's clat_hist log), prom (Prometheus), svg (plot)", \
	  "FORMAT" },							\
	{ "interval", 'i', POPT_ARG_STRING, &(a).interval, 0,		\
	  "also print each SECS seconds the percentiles of the requests completed in it", \
	  "SECS" },							\
	{ "percentiles", 'P', POPT_ARG_STRING, &(a).pct, 0,		\
	  "percentiles to show (default 50,90,99,99.9,99.99)", "LIST" },	\
	{ "stage", 0, POPT_ARG_STRING, &(a).stage, 0,			\
	  "the stage of fio and prom output and plots: Q2C (default), D2C, NVMe...", \
	  "STAGE" },							\
	IOLAT_PROM_POPT((a).buckets)
/* prom: how many histogram bounds per power of two */
#define IOLAT_PROM_POPT(var)						\
	{ "buckets", 0, POPT_ARG_STRING, &(var), 0,			\
	  "prom: histogram bounds per power of two, 4 (default, 105 bounds), 2, 1 or 0.5 (14 bounds); hosts with the same bounds add up", \
	  "PER" }
int iolat_prom_parse_step(const char *per, unsigned int *step);
int iolat_an_args_parse(const struct iolat_an_args *a, struct iolat_an_opts *o,
			const struct iolat_output **out);
void iolat_an_args_free(struct iolat_an_args *a);
/* out_prom.c */
void iolat_prom_write(struct iolat_expo *x, const struct iolat_an *an,
		      const struct iolat_run *run,
		      const struct iolat_dev_counters *c);
/* req_row.c: a request as a row of a table (trace, -o csv) */
void iolat_row_table(struct iolat_table *t, enum iolat_fmt fmt, FILE *f,
		     bool cgroups);
void iolat_row(struct iolat_table *t, const struct iolat_record *r,
	       const char *dev, uint64_t t0_ns, uint64_t real_offset);
void iolat_safe_comm(char *dst, const char *comm);
void iolat_fmt_flags(char *buf, size_t len, uint32_t flags);
uint32_t iolat_row_flags(const struct iolat_record *r);


/* out_text.c */
void iolat_text_hist(const struct iolat_hist *h);
void iolat_text_qd_hist(const uint64_t *n);

/* nvme_fields.c */
const char *iolat_nvme_device(const struct iolat_session *s, unsigned int dev,
			      const struct iolat_record *r, char *buf,
			      size_t len);
void iolat_nvme_opcode(char *buf, size_t len, const struct iolat_record *r);
void iolat_nvme_status(char *buf, size_t len, uint16_t status);

#endif /* IOLAT_OUTPUT_H */
