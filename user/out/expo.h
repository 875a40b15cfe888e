/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Prometheus exposition, written family by family in one of two
 * formats: the classic text (format 0.0.4: expo.c), or the protobuf
 * messages of io.prometheus.client, delimited (expo_pb.c), whose
 * histograms are also native ones (prom_buckets.c).  out_prom.c says what
 * iolat exposes; export chooses the format a scrape asks for
 * (iolat_expo_negotiate()).
 */
#ifndef IOLAT_OUT_EXPO_H
#define IOLAT_OUT_EXPO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "../../lib/hist.h"

enum iolat_expo_format {
	IOLAT_EXPO_TEXT,
	IOLAT_EXPO_PROTOBUF,
};

enum iolat_expo_type {
	IOLAT_EXPO_COUNTER,
	IOLAT_EXPO_GAUGE,
	IOLAT_EXPO_HISTOGRAM,
};

#define IOLAT_EXPO_TEXT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
#define IOLAT_EXPO_PB_TYPE \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"

struct iolat_expo_label {
	const char *name;
	const char *value;
};

/*
 * Native histograms: 2^schema buckets per power of two, as many as the
 * bins of the histograms they are made from (the module's, or the
 * records' with --records), and a zero bucket for the values below
 * zero_ns (the module's lowest bin, or 0 and 1 ns), which the bins do
 * not tell apart.  (A zero bucket of some width also marks a histogram
 * with no observations yet as native for Prometheus 2.4x.)
 */
struct iolat_native_opts {
	int schema;
	uint64_t zero_ns;	/* at least 2 */
};

/* a histogram of records' (lib/hist.h's bins), or of the module's */
extern const struct iolat_native_opts iolat_native_records, iolat_native_module;

struct iolat_expo_pb;

struct iolat_expo {
	enum iolat_expo_format fmt;
	FILE *f;
	unsigned int step;	/* classic buckets: every step-th bound */
	struct iolat_native_opts native;
	const char *family;	/* the family being written */
	enum iolat_expo_type type;
	struct iolat_expo_pb *pb;	/* the protobuf family being built */
	bool failed;		/* out of memory */
};

void iolat_expo_init(struct iolat_expo *x, enum iolat_expo_format fmt,
		     FILE *f, unsigned int step,
		     const struct iolat_native_opts *native);
void iolat_expo_family(struct iolat_expo *x, const char *name,
		       enum iolat_expo_type type, const char *help);
/* A counter's or gauge's value: @v, in seconds if @ns (v is nanoseconds). */
void iolat_expo_value(struct iolat_expo *x, const struct iolat_expo_label *l,
		      unsigned int nr, uint64_t v, bool ns);
/* A histogram of nanoseconds, in seconds. */
void iolat_expo_hist(struct iolat_expo *x, const struct iolat_expo_label *l,
		     unsigned int nr, const struct iolat_hist *h);
/* The end: 0, or -1 if some of it could not be written. */
int iolat_expo_end(struct iolat_expo *x);

/* From an HTTP request's Accept header (NULL: none): the format to send. */
enum iolat_expo_format iolat_expo_negotiate(const char *accept);

/* The classic buckets: the k-th bound, their number (out_prom.c). */
uint64_t iolat_prom_bound(unsigned int k);
unsigned int iolat_prom_classic(const struct iolat_hist *h, unsigned int step,
				uint64_t below[]);
#define IOLAT_PROM_FIRST_EXP	10
#define IOLAT_PROM_LAST_EXP	36
#define IOLAT_PROM_NR_BOUNDS \
	((IOLAT_PROM_LAST_EXP - IOLAT_PROM_FIRST_EXP) * 4 + 1)

/* expo_pb.c */
void iolat_expo_pb_family(struct iolat_expo *x, const char *name,
			  const char *help);
void iolat_expo_pb_value(struct iolat_expo *x, const struct iolat_expo_label *l,
			 unsigned int nr, double v);
void iolat_expo_pb_hist(struct iolat_expo *x, const struct iolat_expo_label *l,
			unsigned int nr, const struct iolat_hist *h);
void iolat_expo_pb_end(struct iolat_expo *x);

/*
 * prom_buckets.c: a histogram's native buckets.  Each bin's count goes
 * to the bucket of the bin's midpoint, the value iolat's percentiles
 * give for it; those of bins below zero_ns to the zero bucket; the
 * overflow (2^36 ns and more) to the bucket of 2^36 ns.
 */
struct iolat_native {
	uint64_t zero_count;
	unsigned int nr_spans, nr_buckets;
	int32_t *span_offset;	/* [nr_spans] */
	uint32_t *span_length;
	int64_t *delta;		/* [nr_buckets] */
};

int iolat_native_index(double v, int schema);
double iolat_native_upper(int index, int schema);
int iolat_native_from(struct iolat_native *n, const struct iolat_hist *h,
		      const struct iolat_native_opts *o);
void iolat_native_free(struct iolat_native *n);

#endif /* IOLAT_OUT_EXPO_H */
