/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session counters as an array, for the module and the CLI: each
 * counter's place is IOLAT_S_<ATTR>, in the order of their list,
 * linux/iolat_stats.h (the record file keeps them in it too).
 */
#ifndef IOLAT_LIB_STATS_H
#define IOLAT_LIB_STATS_H

#include <linux/iolat.h>

enum iolat_stat {
#define IOLAT_STAT(field, ATTR, ...) IOLAT_S_##ATTR,
#include <linux/iolat_stats.h>
	IOLAT_STAT_NR
};

#endif /* IOLAT_LIB_STATS_H */
