// SPDX-License-Identifier: GPL-2.0
/*
 * The session counters' names, texts and classes, from their list
 * (linux/iolat_stats.h), and the writers every output prints them with:
 * a class at a time, so that a counter added to the list is printed
 * everywhere its class is.
 */
#include "nl/nl.h"
#include "util/json.h"

const struct iolat_stat_info iolat_stat_info[IOLAT_STAT_NR] = {
#define IOLAT_STAT(field, ATTR, class, text) \
	[IOLAT_S_##ATTR] = { #field, text, IOLAT_STAT_A_##ATTR, IOLAT_SC_##class },
#include <linux/iolat_stats.h>
};

/* The sum of a class's counters (the dropped records: IOLAT_SC_drop). */
uint64_t iolat_stats_sum(const struct iolat_stats *st, enum iolat_stat_class c)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < IOLAT_STAT_NR; i++)
		if (iolat_stat_info[i].class == c)
			sum += st->n[i];
	return sum;
}

/* A class's counters as "N text, N text", in their list's order. */
void iolat_stats_text(FILE *f, const struct iolat_stats *st,
		      enum iolat_stat_class c)
{
	const char *sep = "";
	unsigned int i;

	for (i = 0; i < IOLAT_STAT_NR; i++) {
		if (iolat_stat_info[i].class != c)
			continue;
		fprintf(f, "%s%llu %s", sep, (unsigned long long)st->n[i],
			iolat_stat_info[i].text);
		sep = ", ";
	}
}

/* A class's counters as members of @j's open object, in their list's order. */
void iolat_stats_json(struct json *j, const struct iolat_stats *st,
		      enum iolat_stat_class c)
{
	unsigned int i;

	for (i = 0; i < IOLAT_STAT_NR; i++)
		if (iolat_stat_info[i].class == c)
			json_u64(j, iolat_stat_info[i].name, st->n[i]);
}
