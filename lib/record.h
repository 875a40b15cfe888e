/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct iolat_record helpers shared by the module, the KUnit suite and
 * the CLI.
 */
#ifndef _IOLAT_LIB_RECORD_H
#define _IOLAT_LIB_RECORD_H

#include <linux/types.h>
#include <linux/iolat.h>

const char *iolat_op_name(unsigned int op);
__u64 iolat_record_latency(const struct iolat_record *r);
int iolat_record_decode(const void *buf, __u32 len, __u32 rec_size,
			__u32 index, struct iolat_record *out);

#endif /* _IOLAT_LIB_RECORD_H */
