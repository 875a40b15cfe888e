// SPDX-License-Identifier: GPL-2.0
/*
 * block_rq_complete's error as a blk_status_t, not the int of
 * blk_status_to_errno(): v5.11's request tracepoint rework ("block:
 * remove the request_queue to argument request based tracepoints" and
 * its neighbours); the same in v5.10.137 and RHEL 8.7.
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct request *rq, blk_status_t error,
			unsigned int nr_bytes)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_rq_complete(iolat_probe);
}
