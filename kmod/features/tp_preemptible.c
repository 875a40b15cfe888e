// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint probes run preemptible: "tracing: Guard __DECLARE_TRACE()
 * use of __DO_TRACE_CALL() with SRCU-fast" made a tracepoint's call site
 * take tracepoint_srcu in place of guard(preempt_notrace)(), and left the
 * tracers to keep their CPU themselves.  This compiles where the kernel
 * has SRCU-fast's guard and a tracepoint's call site takes that guard and
 * no other: guard() is redefined below so that any other guard does not
 * compile.  A kernel that has the guard and still disables preemption
 * without one (none is known) passes too, and only pays for disabling
 * it twice.
 */
#include <linux/srcu.h>
#include <linux/tracepoint.h>

#undef guard
#define guard(name) iolat_feature_guard_##name
#define iolat_feature_guard_srcu_fast_notrace(srcu)			\
	class_srcu_fast_notrace_t *iolat_guarded __maybe_unused = NULL;	\
	(void)(srcu)

/* parsed here, with the guard() above: a call is not needed */
DECLARE_TRACE(iolat_feature_tp, TP_PROTO(int x), TP_ARGS(x));

/* and the guard itself, which a kernel without SRCU-fast lacks */
void *iolat_feature(void);
void *iolat_feature(void)
{
	class_srcu_fast_notrace_t *g = NULL;

	return g;
}
