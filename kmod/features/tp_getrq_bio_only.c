// SPDX-License-Identifier: GPL-2.0
/*
 * block_getrq with only the bio (no queue, no op): v5.11, "block: remove
 * the request_queue and op arguments to the block_getrq tracepoint"
 * (the same series as tp_bio_no_queue).
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct bio *bio)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_getrq(iolat_probe);
}
