// SPDX-License-Identifier: GPL-2.0
/*
 * The blk_opf_t type of request operations and flags: v6.0, "block:
 * Introduce the type blk_opf_t".
 */
#include <linux/blk_types.h>

blk_opf_t iolat_feature(void);
blk_opf_t iolat_feature(void)
{
	return 0;
}
