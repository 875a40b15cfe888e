// SPDX-License-Identifier: GPL-2.0
/*
 * IOLAT_CMD_READ payloads -> one struct iolat_record at a time, in the
 * record size the module announced.
 */
#include "iolat.h"

/* iolat_records_fn for struct iolat_decoder. */
void iolat_decode(void *arg, const void *buf, uint32_t len)
{
	struct iolat_decoder *dec = arg;
	struct iolat_record rec;
	uint32_t i;

	if (!dec->rec_size || len % dec->rec_size) {
		dec->bad++;
		return;
	}
	for (i = 0; !iolat_record_decode(buf, len, dec->rec_size, i, &rec); i++) {
		dec->decoded++;
		dec->record(dec->arg, &rec);
	}
}
