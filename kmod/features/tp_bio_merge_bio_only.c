// SPDX-License-Identifier: GPL-2.0
/*
 * block_bio_backmerge/frontmerge with only the bio: v5.11, "block: remove
 * the request_queue and request arguments to the merge tracepoints"
 * (the same series as tp_bio_no_queue).
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct bio *bio)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_bio_backmerge(iolat_probe);
}
