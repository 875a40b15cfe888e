// SPDX-License-Identifier: GPL-2.0
/*
 * The commands' tables (table.h): one row of cells written as aligned
 * text, a CSV line (RFC 4180 quoting) or a JSON object (util/json.c's
 * writer and escaping).  An empty cell is "-" in text, an empty CSV
 * field and no member in JSON.
 */
#include <string.h>
#include "out/table.h"
#include "util/json.h"
#include "util/util.h"

static const char *const fmt_names[IOLAT_FMT_NR] = { "text", "csv", "json" };

/**
 * iolat_fmt_parse() - the -o of a command that prints a table
 * @name: as given, or NULL for text
 * @allowed: the formats the command has (IOLAT_FMT_BIT())
 * @fmt: the format
 *
 * Return: 0, or EXIT_USAGE after one message naming those formats.
 */
int iolat_fmt_parse(const char *name, unsigned int allowed,
		    enum iolat_fmt *fmt)
{
	char list[32] = "";
	unsigned int f;

	for (f = 0; f < IOLAT_FMT_NR; f++) {
		if (!(allowed & (1u << f)))
			continue;
		if (!name ? f == IOLAT_FMT_TEXT : !strcmp(name, fmt_names[f])) {
			*fmt = f;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", list[0] ? ", " : "", fmt_names[f]);
	}
	iolat_err("unknown output format '%s' (%s)", name ? name : "text",
		  list);
	return EXIT_USAGE;
}

void iolat_table_init(struct iolat_table *t, const struct iolat_col *cols,
		      unsigned int nr, enum iolat_fmt fmt, FILE *f)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->nr = nr < IOLAT_TABLE_COLS ? nr : IOLAT_TABLE_COLS;
	t->fmt = fmt;
	t->f = f;
	t->indent = "";
}

static bool iolat_table_shows(const struct iolat_table *t, unsigned int i)
{
	return !t->cols[i].in || (t->cols[i].in & (1u << t->fmt));
}

/* The text columns: the widths, one space apart. */
static void text_line(const struct iolat_table *t, bool head)
{
	unsigned int i, n = 0;

	fputs(t->indent, t->f);
	for (i = 0; i < t->nr; i++) {
		const char *v = head ? t->cols[i].head : t->text[i];

		if (!iolat_table_shows(t, i) ||
		    (t->cols[i].note && !(v && v[0])))
			continue;
		fprintf(t->f, "%s%*s", n++ ? " " : "", t->cols[i].width,
			v && v[0] ? v : "-");
	}
	fputc('\n', t->f);
}

/* A CSV field, quoted if it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static void csv_line(const struct iolat_table *t, bool head)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nr; i++) {
		if (!iolat_table_shows(t, i))
			continue;
		if (n++)
			fputc(',', t->f);
		csv_field(t->f, head ? t->cols[i].key : t->data[i]);
	}
	fputc('\n', t->f);
}

/* Text: the column headers; CSV: the keys; JSON: nothing. */
void iolat_table_header(const struct iolat_table *t)
{
	if (t->fmt == IOLAT_FMT_TEXT)
		text_line(t, true);
	else if (t->fmt == IOLAT_FMT_CSV)
		csv_line(t, true);
}

/* The row's members, "group.name" ones in the object "group". */
static void json_members(const struct iolat_table *t, struct json *j)
{
	char group[IOLAT_CELL_LEN] = "";
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		const char *key = t->cols[i].key, *dot = strchr(key, '.');
		size_t glen = dot ? (size_t)(dot - key) : 0;

		if (!iolat_table_shows(t, i) || !t->data[i][0])
			continue;
		if (group[0] && (glen != strlen(group) ||
				 strncmp(group, key, glen))) {
			json_end(j);
			group[0] = '\0';
		}
		if (dot && !group[0] && glen < sizeof(group)) {
			memcpy(group, key, glen);
			group[glen] = '\0';
			json_obj(j, group);
		}
		if (dot)
			key = dot + 1;
		if (t->cols[i].str)
			json_string(j, key, t->data[i]);
		else
			json_raw(j, key, t->data[i]);
	}
	if (group[0])
		json_end(j);
}

/**
 * iolat_table_row() - writes the row filled and empties it
 * @t: the table
 * @j: JSON: the writer whose open object takes the row's members; NULL:
 *     the row is an object on a line of its own
 */
void iolat_table_row(struct iolat_table *t, struct json *j)
{
	struct json own;
	unsigned int i;

	switch (t->fmt) {
	case IOLAT_FMT_TEXT:
		text_line(t, false);
		break;
	case IOLAT_FMT_CSV:
		csv_line(t, false);
		break;
	default:
		if (!j) {
			json_init(&own, t->f, false);
			json_obj(&own, NULL);
			json_members(t, &own);
			json_end(&own);
		} else {
			json_members(t, j);
		}
		break;
	}
	for (i = 0; i < t->nr; i++)
		t->text[i][0] = t->data[i][0] = '\0';
}

static void cell_copy(char *dst, const char *src)
{
	size_t n = strnlen(src, IOLAT_CELL_LEN - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A cell: @text in text, @data in CSV and JSON (only the format's kept). */
void iolat_cell_two(struct iolat_table *t, unsigned int i, const char *text,
		    const char *data)
{
	if (i >= t->nr)
		return;
	if (t->fmt == IOLAT_FMT_TEXT)
		cell_copy(t->text[i], text);
	else
		cell_copy(t->data[i], data);
}

void iolat_cell_str(struct iolat_table *t, unsigned int i, const char *s)
{
	iolat_cell_two(t, i, s, s);
}

/* In decimal, without printf: a request's row has some 30 of them. */
void iolat_cell_u64(struct iolat_table *t, unsigned int i, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	iolat_cell_two(t, i, p, p);
}

/* @v with the column's digits: prec in text, dprec in CSV and JSON. */
void iolat_cell_dbl(struct iolat_table *t, unsigned int i, double v)
{
	if (i >= t->nr)
		return;
	if (t->fmt == IOLAT_FMT_TEXT)
		snprintf(t->text[i], IOLAT_CELL_LEN, "%.*f", t->cols[i].prec, v);
	else
		snprintf(t->data[i], IOLAT_CELL_LEN, "%.*f", t->cols[i].dprec,
			 v);
}

/* A time: in text with its unit ("1.23ms"), in CSV and JSON in ns. */
void iolat_cell_ns(struct iolat_table *t, unsigned int i, uint64_t ns)
{
	char text[IOLAT_CELL_LEN], data[24];

	iolat_fmt_ns(text, sizeof(text), ns);
	snprintf(data, sizeof(data), "%llu", (unsigned long long)ns);
	iolat_cell_two(t, i, text, data);
}
