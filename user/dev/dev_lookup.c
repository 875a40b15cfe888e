// SPDX-License-Identifier: GPL-2.0
/*
 * A record -> the session's or file's device it is of: by its number,
 * with the devices' numbers sorted once and bisected, or an NVMe admin
 * command by its controller.
 */
#include <stdint.h>
#include <stdlib.h>
#include "dev/dev.h"

static int dev_key_cmp(const void *a, const void *b)
{
	const struct iolat_dev_key *x = a, *y = b;

	if (x->devt != y->devt)
		return x->devt < y->devt ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/**
 * iolat_dev_find_slow() - iolat_dev_index() by bisection
 * @l: the devices' keys, built here when @nr devices are not indexed
 * @devs: the devices
 * @nr: how many
 * @r: the record
 *
 * The first of the devices of @r's number, as iolat_dev_index() finds
 * it, in O(log @nr); an admin command (of its controller, not a
 * number), or keys that cannot be allocated, by iolat_dev_index().
 *
 * Return: the index, or -1.
 */
int iolat_dev_find_slow(struct iolat_dev_lookup *l,
			const struct iolat_dev_req *devs, unsigned int nr,
			const struct iolat_record *r)
{
	if (r->flags & IOLAT_F_NVME_ADMIN)
		return iolat_dev_index(devs, nr, r);
	return iolat_dev_find_num(l, devs, nr, r->major, r->minor);
}

/**
 * iolat_dev_run() - the records of one device, from the first on
 * @l: the devices' keys (iolat_dev_find())
 * @devs: the devices
 * @nr: how many
 * @p: the first record
 * @n: the records at @p
 * @stride: bytes from one record to the next
 * @dev: the first's device's index, or -1 (not traced)
 *
 * Return: how many records from @p on (1 to @n) are of the same device
 * (the same number, none an admin command): a stream's records come in
 * runs of a device, which take one lookup.
 */
unsigned int iolat_dev_run(struct iolat_dev_lookup *l,
			   const struct iolat_dev_req *devs, unsigned int nr,
			   const unsigned char *p, unsigned int n, size_t stride,
			   int *dev)
{
	const struct iolat_record *r = (const void *)p, *x;
	unsigned int k;

	*dev = iolat_dev_find(l, devs, nr, r);
	if (r->flags & IOLAT_F_NVME_ADMIN)
		return 1;
	for (k = 1; k < n; k++) {
		x = (const void *)(p + k * stride);
		if (x->major != r->major || x->minor != r->minor ||
		    (x->flags & IOLAT_F_NVME_ADMIN))
			break;
	}
	return k;
}

/* iolat_dev_find() of device @major:@minor (a cgroup slot's, a record's). */
int iolat_dev_find_num(struct iolat_dev_lookup *l,
		       const struct iolat_dev_req *devs, unsigned int nr,
		       uint32_t major, uint32_t minor)
{
	uint64_t devt = (uint64_t)major << 32 | minor;
	unsigned int lo = 0, hi, mid, d;
	int last = iolat_dev_last(l, nr, devt);

	if (last >= 0)
		return last;
	if (l->nr != nr) {
		if (l->cap < nr) {
			struct iolat_dev_key *k = realloc(l->keys,
							  nr * sizeof(*k));

			if (!k) {
				for (d = 0; d < nr; d++)
					if (devs[d].major == major &&
					    devs[d].minor == minor)
						return d;
				return -1;
			}
			l->keys = k;
			l->cap = nr;
		}
		for (d = 0; d < nr; d++) {
			l->keys[d].devt = (uint64_t)devs[d].major << 32 |
					  devs[d].minor;
			l->keys[d].index = d;
		}
		qsort(l->keys, nr, sizeof(*l->keys), dev_key_cmp);
		l->nr = nr;
		l->last_devt = UINT64_MAX;	/* no device's */
	}
	/* the first key not below devt */
	hi = nr;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->keys[mid].devt < devt)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nr || l->keys[lo].devt != devt)
		return -1;
	l->last_devt = devt;
	l->last_index = l->keys[lo].index;
	return l->last_index;
}

/* The devices changed (their number may not have): build the keys again. */
void iolat_dev_lookup_reset(struct iolat_dev_lookup *l)
{
	l->nr = 0;
}

void iolat_dev_lookup_free(struct iolat_dev_lookup *l)
{
	free(l->keys);
	l->keys = NULL;
	l->nr = 0;
	l->cap = 0;
}

/**
 * iolat_dev_index() - which of the devices a record is of
 * @devs: the session's devices
 * @nr: how many
 * @r: the record; an admin command is of its controller's namespaces
 *
 * Return: the index, or -1.
 */
int iolat_dev_index(const struct iolat_dev_req *devs, unsigned int nr,
		    const struct iolat_record *r)
{
	unsigned int d;

	for (d = 0; d < nr; d++) {
		if (r->flags & IOLAT_F_NVME_ADMIN ?
		    devs[d].nvme_ctrl == r->ctrl :
		    devs[d].major == r->major && devs[d].minor == r->minor)
			return d;
	}
	return -1;
}
