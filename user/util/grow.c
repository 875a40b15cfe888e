// SPDX-License-Identifier: GPL-2.0
/*
 * An array that grows: the CLI's arrays of devices, processes and
 * queues, sized as they are found.
 */
#include <stdlib.h>
#include <string.h>
#include "util/util.h"

/**
 * iolat_grow_to() - an array of @from elements made @to long
 * @p: the array, or NULL
 * @from: its elements
 * @to: the elements wanted
 * @size: an element's size
 *
 * What is added is zeroed.  Out of memory, the CLI says so in one line
 * and exits: a session's device arrays have no smaller fallback.
 *
 * Return: the array, perhaps moved.
 */
void *iolat_grow_to(void *p, unsigned int from, unsigned int to, size_t size)
{
	char *q = realloc(p, (size_t)(to ?: 1) * size);

	if (!q) {
		iolat_err("out of memory for %u devices", to);
		exit(EXIT_FAIL);
	}
	if (to > from)
		memset(q + (size_t)from * size, 0, (size_t)(to - from) * size);
	return q;
}

/**
 * iolat_grow() - room for @need elements in an array that grows
 * @p: the array, or NULL
 * @cap: its room, updated
 * @need: the elements wanted
 * @size: an element's size
 *
 * The room at least doubles; what is added is zeroed (iolat_grow_to()).
 *
 * Return: the array, perhaps moved.
 */
void *iolat_grow(void *p, unsigned int *cap, unsigned int need, size_t size)
{
	unsigned int n = *cap ? *cap : 4;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = iolat_grow_to(p, *cap, n, size);
	*cap = n;
	return p;
}
