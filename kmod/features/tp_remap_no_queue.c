// SPDX-License-Identifier: GPL-2.0
/*
 * block_bio_remap without its request_queue argument: v5.11, "block:
 * remove the request_queue argument to the block_bio_remap tracepoint"
 * (the same series as tp_bio_no_queue).
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct bio *bio, dev_t dev, sector_t from)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_bio_remap(iolat_probe);
}
