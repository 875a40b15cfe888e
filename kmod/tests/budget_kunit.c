// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what a session's allocations take (kmod/alloc.h), the figures
 * its memory is counted (kmod/budget.c) and capped with, against the
 * allocator's own: ksize() of a slab object, whole pages of vmalloc.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include "../iolat.h"
#include "../alloc.h"
#include "suites.h"

static void iolat_alloc_bytes_test(struct kunit *test)
{
	static const size_t sizes[] = {
		1, 8, 9, 64, 65, 96, 97, 128, 129, 192, 193, 1000, 4096,
		KMALLOC_MAX_CACHE_SIZE, KMALLOC_MAX_CACHE_SIZE + 1, 100000,
		369408,
	};
	unsigned int i;
	void *p;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		p = iolat_zalloc(sizes[i], NUMA_NO_NODE);
		KUNIT_ASSERT_NOT_NULL(test, p);
		if (sizes[i] > KMALLOC_MAX_CACHE_SIZE) {
			KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(p));
			KUNIT_EXPECT_EQ(test, iolat_alloc_bytes(sizes[i]),
					PAGE_ALIGN(sizes[i]));
		} else {
			KUNIT_EXPECT_FALSE(test, is_vmalloc_addr(p));
			KUNIT_EXPECT_EQ_MSG(test, iolat_alloc_bytes(sizes[i]),
					    ksize(p), "%zu bytes", sizes[i]);
		}
		kvfree(p);
	}
}

static struct kunit_case iolat_budget_cases[] = {
	KUNIT_CASE(iolat_alloc_bytes_test),
	{}
};

struct kunit_suite iolat_budget_suite = {
	.name = "iolat_budget",
	.test_cases = iolat_budget_cases,
};
