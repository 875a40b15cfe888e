/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON strings, for every output that writes JSON.
 */
#ifndef IOLAT_JSON_H
#define IOLAT_JSON_H

#include <stdio.h>

void json_str(FILE *f, const char *s);

#endif /* IOLAT_JSON_H */
