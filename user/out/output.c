// SPDX-License-Identifier: GPL-2.0
/*
 * The outputs above the analysis: the backends by name, and the options
 * of record and report that choose one and set the analysis for it.
 */
#include <stdlib.h>
#include <string.h>
#include "out/output.h"

const struct iolat_output *iolat_output_find(const char *name)
{
	static const struct iolat_output *const all[] = {
		&iolat_out_text, &iolat_out_json, &iolat_out_csv,
		&iolat_out_fio, &iolat_out_prom, &iolat_out_svg,
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

/**
 * iolat_an_args_parse() - the analysis options of record and report
 * @a: the options as given
 * @o: the analysis options
 * @out: the output format
 *
 * Return: 0, or EXIT_USAGE after one clear message.
 */
int iolat_an_args_parse(const struct iolat_an_args *a, struct iolat_an_opts *o,
			const struct iolat_output **out)
{
	double secs;

	memset(o, 0, sizeof(*o));
	*out = iolat_output_find(a->output ? a->output : "text");
	if (!*out) {
		iolat_err("unknown output format '%s' (text, json, csv, fio, prom, svg)",
			  a->output);
		return EXIT_USAGE;
	}
	if (a->interval) {
		if (iolat_parse_secs("-i", a->interval, IOLAT_MIN_INTERVAL_S,
				     &secs))
			return EXIT_USAGE;
		o->interval_ns = (uint64_t)(secs * 1e9 + 0.5);
	}
	if (a->pct && iolat_an_parse_pct(o, a->pct)) {
		iolat_err("-P takes up to %d distinct percentiles above 0 and up to 100, such as 50,99,99.9, not '%s'",
			  IOLAT_MAX_PCT, a->pct);
		return EXIT_USAGE;
	}
	if (iolat_prom_parse_step(a->buckets, &o->prom_step))
		return EXIT_USAGE;
	o->stage = IOLAT_STAGE_Q2C;
	if (a->stage) {
		o->stage = iolat_an_stage_parse(a->stage);
		if (o->stage < 0) {
			iolat_err("--stage takes Q2G, G2I, I2D, D2C, Q2C or NVMe, not '%s'",
				  a->stage);
			return EXIT_USAGE;
		}
	}
	return 0;
}

void iolat_an_args_free(struct iolat_an_args *a)
{
	free(a->output);
	free(a->interval);
	free(a->pct);
	free(a->stage);
	free(a->buckets);
}
