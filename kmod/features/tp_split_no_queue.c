// SPDX-License-Identifier: GPL-2.0
/*
 * block_split without its request_queue argument: v5.11, "block: remove
 * the request_queue argument to the block_split tracepoint" (the same
 * series as tp_bio_no_queue).
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct bio *bio, unsigned int new_sector)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_split(iolat_probe);
}
