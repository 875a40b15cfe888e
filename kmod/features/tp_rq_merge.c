// SPDX-License-Identifier: GPL-2.0
/*
 * The block_rq_merge tracepoint: v5.8, "blktrace: Provide event for
 * request merging".  5.4 has none.
 */
#include <trace/events/block.h>

void *iolat_feature(void);
void *iolat_feature(void)
{
	return register_trace_block_rq_merge;
}
