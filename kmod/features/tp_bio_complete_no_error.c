// SPDX-License-Identifier: GPL-2.0
/*
 * block_bio_complete without its error argument: v5.8, "block: remove
 * the error argument to the block_bio_complete tracepoint" (and RHEL
 * 8's 4.18).
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct request_queue *q, struct bio *bio)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_bio_complete(iolat_probe);
}
