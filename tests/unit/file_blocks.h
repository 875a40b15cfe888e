/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the host tests that write record files by hand (old versions, odd
 * end blocks): one block, as user/file/recfile.c writes it.
 */
#ifndef IOLAT_TEST_FILE_BLOCKS_H
#define IOLAT_TEST_FILE_BLOCKS_H

#include <stdio.h>
#include "file/recfile.h"

/* One block of a record file: head, CRC32C of type, length and payload. */
static inline void put_block(FILE *f, uint32_t type, const void *buf,
			     uint32_t len)
{
	struct iolat_file_block_head bh = { .type = type, .len = len };

	bh.crc = iolat_crc32c(iolat_crc32c(0, &bh, 8), buf, len);
	fwrite(&bh, sizeof(bh), 1, f);
	fwrite(buf, len, 1, f);
}

#endif /* IOLAT_TEST_FILE_BLOCKS_H */
