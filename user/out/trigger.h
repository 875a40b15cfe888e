/* SPDX-License-Identifier: GPL-2.0 */
/* A flight recorder's dump in words (trigger.c). */
#ifndef IOLAT_OUT_TRIGGER_H
#define IOLAT_OUT_TRIGGER_H

#include <stdio.h>
#include "file/recfile.h"
#include "util/json.h"

const char *iolat_trigger_reason(uint32_t reason);
const char *iolat_blk_status_name(int error);
void iolat_trigger_text(FILE *f, const struct iolat_file_watch *w,
			const char *dev);
void iolat_trigger_window_text(FILE *f, const struct iolat_file_watch *w);
void iolat_trigger_json(struct json *j, const struct iolat_file_watch *w,
			const char *dev);

#endif /* IOLAT_OUT_TRIGGER_H */
