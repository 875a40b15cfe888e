// SPDX-License-Identifier: GPL-2.0
/*
 * JSON strings: the one escaping rule of every JSON iolat writes.
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
