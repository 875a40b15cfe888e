/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host tests that write record files and run the CLI on them
 * share: the CLI (IOLAT_CLI, default build/iolat), a shell command, a
 * file's text, a number after a key, a header of this CLI's version.
 */
#ifndef IOLAT_TEST_UNIT_H
#define IOLAT_TEST_UNIT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "file/recfile.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64: the same numbers run after run */
static inline uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* uniform in (0, 1) */
static inline double uniform(void)
{
	return ((rnd64() >> 11) + 0.5) / 9007199254740992.0;
}

static inline const char *cli(void)
{
	const char *c = getenv("IOLAT_CLI");

	return c ? c : "build/iolat";
}

static inline int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return strdup("");
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

static inline double json_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtod(p + strlen(key), NULL) : -1;
}

/* A header of this CLI's file version, from @t0, without devices. */
static inline void header_init(struct iolat_file_header *h, uint64_t t0)
{
	memcpy(h->magic, IOLAT_FILE_MAGIC, 8);
	h->version = IOLAT_FILE_VERSION;
	h->endian = IOLAT_FILE_ENDIAN;
	h->abi_version = IOLAT_ABI_VERSION;
	h->record_size = sizeof(struct iolat_record);
	h->t0_ns = t0;
}

/* One device in the header: @name, @major:0, one queue of 64 tags. */
static inline void header_one_dev(struct iolat_file_header *h,
				  const char *name, unsigned int major)
{
	h->nr_devs = 1;
	strcpy(h->devs[0].name, name);
	h->devs[0].major = major;
	h->devs[0].nr_hwq = 1;
	h->devs[0].depth = 64;
	h->devs[0].nvme_ctrl = -1;
}

#endif /* IOLAT_TEST_UNIT_H */
