// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32C, the record file's block checksum: with SSE 4.2's instruction
 * where the CPU has it, else a table.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "file/recfile.h"

/* CRC32C (Castagnoli, reflected), as iSCSI, ext4 and btrfs use it */
static uint32_t crc32c_table(uint32_t crc, const unsigned char *p, size_t len)
{
	static uint32_t table[256];
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78U : c >> 1;
			table[i] = c;
		}
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
/*
 * The same CRC with SSE 4.2's crc32 instruction, eight bytes at a time:
 * a record costs about 30 of them instead of 200 table steps, which made
 * saving records dearer than analysing them (docs/bench.md).
 */
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc, v;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; len; p++, len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p);
	return (uint32_t)c;
}
#endif

/**
 * iolat_crc32c() - CRC32C of a buffer, continuing @crc
 * @crc: the CRC so far (0 to begin)
 * @buf: the bytes
 * @len: how many
 *
 * Return: the CRC32C of what went before and @buf.
 */
uint32_t iolat_crc32c(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__)
	static int sse42 = -1;

	if (sse42 < 0)
		sse42 = __builtin_cpu_supports("sse4.2");
	if (sse42)
		return ~crc32c_sse42(~crc, buf, len);
#endif
	return ~crc32c_table(~crc, buf, len);
}
