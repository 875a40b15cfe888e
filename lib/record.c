// SPDX-License-Identifier: GPL-2.0
/*
 * struct iolat_record helpers; see record.h.
 */
#include "record.h"

static const char *const iolat_op_names[IOLAT_OP_NR] = {
	[IOLAT_OP_READ] = "read",
	[IOLAT_OP_WRITE] = "write",
	[IOLAT_OP_FLUSH] = "flush",
	[IOLAT_OP_DISCARD] = "discard",
	[IOLAT_OP_WRITE_ZEROES] = "write-zeroes",
	[IOLAT_OP_OTHER] = "other",
};

/**
 * iolat_op_name() - name of an enum iolat_op value
 * @op: the value
 *
 * Return: its name, or "other" for a value this code does not know.
 */
const char *iolat_op_name(unsigned int op)
{
	return op < IOLAT_OP_NR ? iolat_op_names[op] : "other";
}

/**
 * iolat_record_latency() - issue to completion time of a record
 * @r: the record
 *
 * Return: complete_ns - issue_ns, or 0 if the clock went backwards.
 */
__u64 iolat_record_latency(const struct iolat_record *r)
{
	return r->complete_ns > r->issue_ns ? r->complete_ns - r->issue_ns : 0;
}

/**
 * iolat_record_decode() - copy one record out of an IOLAT_A_RECORDS payload
 * @buf: the payload
 * @len: its length in bytes
 * @rec_size: record size the module announced (IOLAT_A_RECORD_SIZE)
 * @index: which record
 * @out: where to put it
 *
 * A module with a larger record (fields appended) is decoded up to the
 * fields this code knows; a smaller one leaves the missing fields zero.
 *
 * Return: 0, or -1 if @rec_size is 0 or @index is beyond @len.
 */
int iolat_record_decode(const void *buf, __u32 len, __u32 rec_size,
			__u32 index, struct iolat_record *out)
{
	const unsigned char *src;
	unsigned char *dst = (unsigned char *)out;
	__u32 i, n;

	if (!rec_size || index >= len / rec_size)
		return -1;
	src = (const unsigned char *)buf + (__u64)index * rec_size;
	n = rec_size < sizeof(*out) ? rec_size : sizeof(*out);
	for (i = 0; i < n; i++)
		dst[i] = src[i];
	for (; i < sizeof(*out); i++)
		dst[i] = 0;
	return 0;
}
