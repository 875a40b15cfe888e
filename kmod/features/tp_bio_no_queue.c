// SPDX-License-Identifier: GPL-2.0
/*
 * block_bio_queue without its request_queue argument: v5.11, "block:
 * remove the request_queue argument to the block_bio_queue tracepoint"
 * (part of the series that also reworked the merges, getrq and split,
 * probed each on its own).
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct bio *bio)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_bio_queue(iolat_probe);
}
