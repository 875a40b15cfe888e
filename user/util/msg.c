// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's one-line messages on stderr: "iolat: ..." and "iolat:
 * warning: ...".  Apart from main.c, so that tests and benchmarks that
 * link the CLI's objects print them the same way.
 */
#include <stdarg.h>
#include <stdio.h>
#include "util/util.h"

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, IOLAT_CLI_NAME ": %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void iolat_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void iolat_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

