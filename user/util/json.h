/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer of every output that writes JSON: objects and
 * arrays opened and closed in order, each member by key, the commas
 * between them, and one escaping rule for strings (json_str()).
 */
#ifndef IOLAT_JSON_H
#define IOLAT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH 16

struct json {
	FILE *f;
	bool spaced;		/* ", " and ": " (else "," and ":") */
	unsigned int depth;	/* open objects and arrays */
	/* at each depth: items written, and the separator between them */
	unsigned int items[JSON_DEPTH];
	const char *sep[JSON_DEPTH];
	char close[JSON_DEPTH];
};

void json_str(FILE *f, const char *s);

void json_init(struct json *j, FILE *f, bool spaced);
void json_obj(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
void json_arr_lines(struct json *j, const char *key);
void json_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *key, const char *s);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_int(struct json *j, const char *key, long long v);
void json_double(struct json *j, const char *key, const char *fmt, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_raw(struct json *j, const char *key, const char *number);

#endif /* IOLAT_JSON_H */
