// SPDX-License-Identifier: GPL-2.0
/*
 * REQ_OP_SCSI_IN/OUT, passthrough operations of their own until v5.11,
 * "block: remove REQ_OP_SCSI_{IN,OUT}".
 */
#include <linux/blk_types.h>

int iolat_feature(void);
int iolat_feature(void)
{
	return REQ_OP_SCSI_IN + REQ_OP_SCSI_OUT;
}
