// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's clocks.  CLOCK_MONOTONIC is the module's (ktime_get_ns()):
 * a record's timestamps, a session's start and its intervals are all on
 * it; CLOCK_REALTIME only names them in wall time.
 */
#include <time.h>

#include "util.h"

uint64_t iolat_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

uint64_t iolat_mono_ns(void)
{
	return iolat_clock_ns(CLOCK_MONOTONIC);
}

double iolat_mono_s(void)
{
	return iolat_mono_ns() / 1e9;
}
