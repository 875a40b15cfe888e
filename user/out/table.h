/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables of the commands that print rows of figures (stat, top,
 * nvme, trace, clocktest) in each output format: a table is its
 * columns; a command fills a row's cells and the table writes the row
 * as aligned text, a CSV line or a JSON object (table.c).
 */
#ifndef IOLAT_TABLE_H
#define IOLAT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json;

enum iolat_fmt { IOLAT_FMT_TEXT, IOLAT_FMT_CSV, IOLAT_FMT_JSON, IOLAT_FMT_NR };
#define IOLAT_FMT_ALL	((1u << IOLAT_FMT_NR) - 1)
#define IOLAT_FMT_BIT(f)	(1u << IOLAT_FMT_##f)
/* a column's formats (struct iolat_col's @in): text alone, or CSV and JSON */
#define IOLAT_IN_TEXT		IOLAT_FMT_BIT(TEXT)
#define IOLAT_IN_DATA		(IOLAT_FMT_BIT(CSV) | IOLAT_FMT_BIT(JSON))

int iolat_fmt_parse(const char *name, unsigned int allowed,
		    enum iolat_fmt *fmt);

/*
 * A column.  @key names it in CSV and JSON; "group.name" is the member
 * "name" of the JSON object "group", which holds the columns of that
 * group next to each other.  @head and @width (< 0: left aligned) are
 * its text; @prec and @dprec the digits of a double in text and in CSV
 * and JSON; @in the formats that show it (0: every one); @str a JSON
 * string; @note a text column that is not there when empty (no "-").
 */
struct iolat_col {
	const char *key;
	const char *head;
	int width;
	unsigned char prec, dprec;
	unsigned char in;
	bool str;
	bool note;
};

#define IOLAT_TABLE_COLS 64
#define IOLAT_CELL_LEN 48

struct iolat_table {
	const struct iolat_col *cols;
	unsigned int nr;
	enum iolat_fmt fmt;
	FILE *f;
	const char *indent;	/* text: the start of each line */
	/* the row being filled: a cell's text and its CSV and JSON value */
	char text[IOLAT_TABLE_COLS][IOLAT_CELL_LEN];
	char data[IOLAT_TABLE_COLS][IOLAT_CELL_LEN];
};

void iolat_table_init(struct iolat_table *t, const struct iolat_col *cols,
		      unsigned int nr, enum iolat_fmt fmt, FILE *f);
void iolat_table_header(const struct iolat_table *t);
void iolat_cell_str(struct iolat_table *t, unsigned int i, const char *s);
void iolat_cell_u64(struct iolat_table *t, unsigned int i, uint64_t v);
void iolat_cell_dbl(struct iolat_table *t, unsigned int i, double v);
void iolat_cell_ns(struct iolat_table *t, unsigned int i, uint64_t ns);
void iolat_cell_two(struct iolat_table *t, unsigned int i, const char *text,
		    const char *data);
void iolat_table_row(struct iolat_table *t, struct json *j);

#endif /* IOLAT_TABLE_H */
