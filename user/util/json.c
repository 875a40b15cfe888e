// SPDX-License-Identifier: GPL-2.0
/*
 * JSON: the one writer and the one escaping rule of every JSON iolat
 * writes (json.h).
 */
#include "util/json.h"

/**
 * json_str() - @s as a JSON string: quoted, with '"', '\' and the
 * control characters escaped (RFC 8259); other bytes as they are
 * @f: where
 * @s: the text
 */
void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/**
 * json_init() - a writer of one JSON value (or JSON Lines, one a line)
 * @j: the writer
 * @f: where
 * @spaced: ", " and ": " between items and after keys, else none
 */
void json_init(struct json *j, FILE *f, bool spaced)
{
	j->f = f;
	j->spaced = spaced;
	j->depth = 0;
	j->items[0] = 0;
	j->sep[0] = "";
}

/*
 * The next item of the innermost object or array: the separator after
 * an earlier one, and @key in an object.
 */
void json_key(struct json *j, const char *key)
{
	unsigned int d = j->depth;

	if (j->items[d]++)
		fputs(j->sep[d], j->f);
	if (key) {
		json_str(j->f, key);
		fputs(j->spaced ? ": " : ":", j->f);
	}
}

static void json_open(struct json *j, const char *key, char open,
		      const char *sep)
{
	json_key(j, key);
	fputc(open, j->f);
	if (j->depth + 1 < JSON_DEPTH)
		j->depth++;
	j->items[j->depth] = 0;
	j->sep[j->depth] = sep;
	j->close[j->depth] = open == '{' ? '}' : ']';
}

/* An object, as @key's value in an object (NULL in an array or alone). */
void json_obj(struct json *j, const char *key)
{
	json_open(j, key, '{', j->spaced ? ", " : ",");
}

void json_arr(struct json *j, const char *key)
{
	json_open(j, key, '[', j->spaced ? ", " : ",");
}

/* An array whose items each begin a line (a document written as it goes). */
void json_arr_lines(struct json *j, const char *key)
{
	json_open(j, key, '[', ",\n ");
}

/* Closes the innermost object or array; a value alone ends its line. */
void json_end(struct json *j)
{
	if (!j->depth)
		return;
	fputc(j->close[j->depth], j->f);
	if (!--j->depth) {
		fputc('\n', j->f);
		j->items[0] = 0;
	}
}

void json_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j->f, s);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_int(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	fprintf(j->f, "%lld", v);
}

/* A number as @fmt prints it ("%.3f"); its format is the output's schema. */
void json_double(struct json *j, const char *key, const char *fmt, double v)
{
	json_key(j, key);
	fprintf(j->f, fmt, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* A number already written as text (a field CSV shares). */
void json_raw(struct json *j, const char *key, const char *number)
{
	json_key(j, key);
	fputs(number, j->f);
}
