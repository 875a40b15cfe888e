// SPDX-License-Identifier: GPL-2.0
/*
 * Request tracepoints (insert, issue, merge, requeue) without their
 * request_queue argument: v5.11, "block: remove the request_queue to
 * argument request based tracepoints"; in v5.10.137 and RHEL 8.7 by
 * backport.
 */
#include <trace/events/block.h>

static void iolat_probe(void *data, struct request *rq)
{
}

void iolat_feature(void);
void iolat_feature(void)
{
	check_trace_callback_type_block_rq_issue(iolat_probe);
}
