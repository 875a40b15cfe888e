// SPDX-License-Identifier: GPL-2.0
/*
 * The block_rq_error tracepoint: v5.18, "block: introduce block_rq_error
 * tracepoint".
 */
#include <trace/events/block.h>

void *iolat_feature(void);
void *iolat_feature(void)
{
	return register_trace_block_rq_error;
}
