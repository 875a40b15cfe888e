// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the session counters' one list (linux/iolat_stats.h):
 * every counter it names, each given a value of its own, goes through
 * the record file and comes out of `iolat report` in JSON (under its
 * class's object), in text and, for the drop reasons, in Prometheus's
 * exposition.  The checks walk the list, so a counter added to it is
 * checked with no change here.  And a record file's end block that
 * carries fewer counters than this CLI knows, or more, is read: the
 * missing ones as 0, the unknown ones passed over.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "analysis/analyze.h"
#include "file/recfile.h"
#include "file_blocks.h"
#include "unit.h"
#include "kselftest_harness.h"

#define DIR "/tmp/iolat_stats_test"
#define T0 1000000000000ULL
#define N_REQ 100

static char *run(const char *fmt, ...)
{
	char cmd[1024], *out = NULL;
	size_t len = 0;
	va_list ap;
	FILE *p, *o;
	int c;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	o = open_memstream(&out, &len);
	if (!p || !o)
		return NULL;
	while ((c = fgetc(p)) != EOF)
		fputc(c, o);
	fclose(o);
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Counter @i's value in these files: its own, never a sum of others. */
static uint64_t value(unsigned int i)
{
	return 1000003ULL * (i + 1);
}

static void request(struct iolat_record *r, unsigned int i)
{
	memset(r, 0, sizeof(*r));
	r->major = 250;
	r->op = IOLAT_OP_READ;
	r->bytes = 4096;
	r->nr_bios = 1;
	r->q_ns = T0 + i * 1000000ULL;
	r->c_ns = r->q_ns + 100000;
	strcpy(r->comm, "fio");
}

/* A file of N_REQ reads, its counters each value(i), by the CLI's writer. */
static int write_file(const char *path)
{
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	struct iolat_dev_counters c[1] = { 0 };
	struct iolat_run r = { 0 };
	struct iolat_record rec;
	struct iolat_file *f;
	unsigned int i;

	if (!h)
		return -1;
	header_init(h, T0);
	header_one_dev(h, "nullb0", 250);
	f = iolat_file_create(path, h);
	free(h);
	if (!f)
		return -1;
	for (i = 0; i < N_REQ; i++) {
		request(&rec, i);
		iolat_file_records(f, &rec);
	}
	r.seconds = 1;
	r.delivered = N_REQ;
	for (i = 0; i < IOLAT_STAT_NR; i++)
		r.stats.n[i] = value(i);
	iolat_file_mark(f, T0 + N_REQ * 1000000ULL);
	iolat_file_end(f, T0 + N_REQ * 1000000ULL, &r, 1, c);
	return iolat_file_close(f);
}

/* The JSON object @key of @json: from its '{' to its '}' (no nesting). */
static char *object(const char *json, const char *key)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\": {", key);
	p = strstr(json, pat);
	if (!p)
		return NULL;
	e = strchr(p, '}');
	return e ? strndup(p, e - p + 1) : NULL;
}

static const char *class_object(enum iolat_stat_class c)
{
	switch (c) {
	case IOLAT_SC_record:
	case IOLAT_SC_drop:
		return "records";
	case IOLAT_SC_event:
		return "events";
	case IOLAT_SC_nvme:
		return "nvme";
	case IOLAT_SC_stack:
		return "stack";
	case IOLAT_SC_watch:
		return "watch";
	}
	return "?";
}

TEST(every_counter_in_every_output)
{
	char *json, *text, *prom, *obj, want[256], reason[64], *r;
	unsigned int i;
	uint64_t dropped = 0;

	ASSERT_EQ(0, system("mkdir -p " DIR));
	ASSERT_EQ(0, write_file(DIR "/all.rec"));
	json = run("%s report -o json %s/all.rec", cli(), DIR);
	text = run("%s report %s/all.rec", cli(), DIR);
	prom = run("%s report -o prom %s/all.rec", cli(), DIR);
	ASSERT_NE(NULL, json);
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, prom);
	for (i = 0; i < IOLAT_STAT_NR; i++) {
		const struct iolat_stat_info *s = &iolat_stat_info[i];

		obj = object(json, class_object(s->class));
		ASSERT_NE(NULL, obj) TH_LOG("no %s object for %s",
					    class_object(s->class), s->name);
		snprintf(want, sizeof(want), "\"%s\": %llu", s->name,
			 (unsigned long long)value(i));
		EXPECT_NE(NULL, strstr(obj, want)) TH_LOG("JSON lacks %s", want);
		free(obj);
		/* text: "N text", but for written and filtered (records line) */
		if (i != IOLAT_S_WRITTEN) {
			snprintf(want, sizeof(want), "%llu %s",
				 (unsigned long long)value(i), s->text);
			if (i == IOLAT_S_FILTERED)
				snprintf(want, sizeof(want), "%llu filtered",
					 (unsigned long long)value(i));
			EXPECT_NE(NULL, strstr(text, want))
				TH_LOG("text lacks '%s'", want);
		}
		if (s->class != IOLAT_SC_drop)
			continue;
		dropped += value(i);
		/* the reason: the text, its words joined by '_' */
		snprintf(reason, sizeof(reason), "%s", s->text);
		for (r = reason; *r; r++)
			if (*r == ' ')
				*r = '_';
		snprintf(want, sizeof(want),
			 "iolat_records_dropped_total{reason=\"%s\"} %llu",
			 reason, (unsigned long long)value(i));
		EXPECT_NE(NULL, strstr(prom, want)) TH_LOG("prom lacks %s", want);
	}
	snprintf(want, sizeof(want), "\"dropped\": %llu",
		 (unsigned long long)dropped);
	EXPECT_NE(NULL, strstr(json, want)) TH_LOG("JSON lacks %s", want);
	free(json);
	free(text);
	free(prom);
}

/* A file whose end block carries @nr counters, value(i) each. */
static int write_counted(const char *path, unsigned int nr)
{
	struct iolat_file_header *h = calloc(1, sizeof(*h));
	size_t len = sizeof(struct iolat_file_end) + nr * sizeof(__u64) +
		     sizeof(struct iolat_file_counters);
	unsigned char *end = calloc(1, len);
	struct iolat_record recs[N_REQ];
	struct iolat_file_end e = { 0 };
	uint64_t mark = T0 + N_REQ * 1000000ULL, v;
	unsigned int i;
	FILE *f = fopen(path, "w");

	if (!h || !end || !f)
		return -1;
	header_init(h, T0);
	header_one_dev(h, "nullb0", 250);
	fwrite(h, sizeof(*h), 1, f);
	free(h);
	for (i = 0; i < N_REQ; i++)
		request(&recs[i], i);
	put_block(f, IOLAT_FB_RECORDS, recs, sizeof(recs));
	put_block(f, IOLAT_FB_MARK, &mark, sizeof(mark));
	e.end_ns = mark;
	e.seconds_ns = 1000000000ULL;
	e.delivered = N_REQ;
	e.nr_stats = nr;
	memcpy(end, &e, sizeof(e));
	for (i = 0; i < nr; i++) {
		v = value(i);
		memcpy(end + sizeof(e) + i * sizeof(v), &v, sizeof(v));
	}
	put_block(f, IOLAT_FB_END, end, len);
	free(end);
	return fclose(f);
}

TEST(end_block_with_fewer_or_more_counters)
{
	char *json, want[128];
	unsigned int nr, i;

	ASSERT_EQ(0, system("mkdir -p " DIR));
	for (nr = 2; nr <= IOLAT_STAT_NR + 3; nr += IOLAT_STAT_NR + 1) {
		ASSERT_EQ(0, write_counted(DIR "/counted.rec", nr));
		json = run("%s report -o json %s/counted.rec", cli(), DIR);
		ASSERT_NE(NULL, json) TH_LOG("%u counters: report failed", nr);
		for (i = 0; i < IOLAT_STAT_NR; i++) {
			if (iolat_stat_info[i].class != IOLAT_SC_record &&
			    iolat_stat_info[i].class != IOLAT_SC_drop &&
			    iolat_stat_info[i].class != IOLAT_SC_event)
				continue;	/* printed only when not 0 */
			snprintf(want, sizeof(want), "\"%s\": %llu",
				 iolat_stat_info[i].name,
				 (unsigned long long)(i < nr ? value(i) : 0));
			EXPECT_NE(NULL, strstr(json, want))
				TH_LOG("%u counters: JSON lacks %s", nr, want);
		}
		free(json);
	}
}

TEST_HARNESS_MAIN
