// SPDX-License-Identifier: GPL-2.0
/*
 * IOLAT_CMD_READ payloads -> one struct iolat_record at a time, in the
 * record size the module announced.
 */
#include <string.h>
#include "nl/nl.h"

/* iolat_records_fn for struct iolat_decoder. */
void iolat_decode(void *arg, const void *buf, uint32_t len, uint32_t rec_size)
{
	struct iolat_decoder *dec = arg;
	struct iolat_record rec;
	uint32_t i;

	if (!rec_size)
		rec_size = dec->rec_size;
	if (!rec_size || len % rec_size) {
		dec->bad++;
		return;
	}
	/*
	 * The first record is decoded whole; the fields past a smaller
	 * record size stay zero in @rec, so the next ones only need their
	 * own bytes copied over it.
	 */
	for (i = 0; i < len / rec_size; i++) {
		if (!i)
			iolat_record_decode(buf, len, rec_size, 0, &rec);
		else
			memcpy(&rec, (const char *)buf + (size_t)i * rec_size,
			       rec_size < sizeof(rec) ? rec_size : sizeof(rec));
		dec->decoded++;
		dec->record(dec->arg, &rec);
	}
}

/* iolat_event_fn for struct iolat_decoder. */
void iolat_decode_event(void *arg, uint64_t ns, uint32_t kind,
			const char *module)
{
	struct iolat_decoder *dec = arg;

	if (dec->event)
		dec->event(dec->arg, ns, kind, module);
}
