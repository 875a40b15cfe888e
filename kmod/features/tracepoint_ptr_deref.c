// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint_ptr_deref() over a module's tracepoints_ptrs: v4.20,
 * "kernel: tracepoints: add support for relative references" (the table
 * may hold 32-bit offsets instead of pointers).  RHEL 8 has the plain
 * pointer table.
 */
#include <linux/module.h>
#include <linux/tracepoint.h>

struct tracepoint *iolat_feature(struct module *mod);
struct tracepoint *iolat_feature(struct module *mod)
{
	return tracepoint_ptr_deref(&mod->tracepoints_ptrs[0]);
}
