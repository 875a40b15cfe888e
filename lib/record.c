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

static const char *const iolat_stage_names[IOLAT_STAGE_NR] = {
	[IOLAT_STAGE_Q2G] = "Q2G",
	[IOLAT_STAGE_G2I] = "G2I",
	[IOLAT_STAGE_I2D] = "I2D",
	[IOLAT_STAGE_D2C] = "D2C",
	[IOLAT_STAGE_Q2C] = "Q2C",
};

/**
 * iolat_stage_name() - name of an enum iolat_stage value
 * @stage: the value
 *
 * Return: its blktrace-style name, or "?" for a value this code does not
 * know.
 */
const char *iolat_stage_name(unsigned int stage)
{
	return stage < IOLAT_STAGE_NR ? iolat_stage_names[stage] : "?";
}

/**
 * iolat_record_stage() - how long a request spent in one stage
 * @r: the record
 * @stage: enum iolat_stage
 * @ns: set to the duration, if it is known
 *
 * Return: iolat_stage_ns() of the record's timestamps.
 */
int iolat_record_stage(const struct iolat_record *r, unsigned int stage,
		       __u64 *ns)
{
	return iolat_stage_ns(r->q_ns, r->g_ns, r->i_ns, r->d_ns, r->c_ns,
			      stage, ns);
}

/**
 * iolat_record_latency() - the request's latency as far as it was seen
 * @r: the record
 *
 * Return: iolat_latency_ns() of its stages.
 */
__u64 iolat_record_latency(const struct iolat_record *r)
{
	return iolat_latency_ns(r->q_ns, r->g_ns, r->i_ns, r->d_ns, r->c_ns);
}

/**
 * iolat_record_monotonic() - are the stages that were seen in order?
 * @r: the record
 *
 * Return: 1 if Q <= G <= I <= D <= C over the timestamps present (C
 * always is), else 0.
 */
int iolat_record_monotonic(const struct iolat_record *r)
{
	enum { NR_STAMPS = 5 };
	const __u64 t[NR_STAMPS] = { r->q_ns, r->g_ns, r->i_ns, r->d_ns,
				     r->c_ns };
	__u64 last = 0;
	unsigned int i;

	if (!r->c_ns)
		return 0;
	for (i = 0; i < NR_STAMPS; i++) {
		if (!t[i])
			continue;
		if (t[i] < last)
			return 0;
		last = t[i];
	}
	return 1;
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
	__u32 n;

	if (!rec_size || index >= len / rec_size)
		return -1;
	src = (const unsigned char *)buf + (__u64)index * rec_size;
	n = rec_size < sizeof(*out) ? rec_size : sizeof(*out);
	/* the compiler's own copies: no libc or kernel headers needed */
	__builtin_memcpy(out, src, n);
	if (n < sizeof(*out))
		__builtin_memset((unsigned char *)out + n, 0, sizeof(*out) - n);
	return 0;
}
