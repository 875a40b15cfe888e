/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iolat stat --cgroups`: a row per cgroup and device per interval from
 * the module's cgroup slots (IOLAT_A_CGROUP_SLOTS), instead of a row per
 * device (stat_cgroups.c).
 */
#ifndef IOLAT_STAT_CGROUPS_H
#define IOLAT_STAT_CGROUPS_H

#include <stdbool.h>
#include "out/table.h"
#include "session/session.h"

/*
 * The module's slots per device: 17 of 144 bytes per CPU and device
 * (kmod/cgstat.h), in a 4 KiB slab object
 */
#define STAT_CG_SLOTS	16

struct stat_cgroups;

struct stat_cgroups *stat_cgroups_new(enum iolat_fmt fmt);
void stat_cgroups_free(struct stat_cgroups *c);
int stat_cgroups_sample(struct stat_cgroups *c, struct iolat_session *s);
int stat_cgroups_recycle(struct stat_cgroups *c, struct iolat_session *s);
void stat_cgroups_header(struct stat_cgroups *c);
void stat_cgroups_mark(struct stat_cgroups *c);
void stat_cgroups_rows(struct stat_cgroups *c, const struct iolat_session *s,
		       double t, bool total,
		       const struct iolat_dev_counters *a,
		       const struct iolat_dev_counters *b);

#endif /* IOLAT_STAT_CGROUPS_H */
