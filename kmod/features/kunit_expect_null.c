// SPDX-License-Identifier: GPL-2.0
/*
 * KUNIT_EXPECT_NULL() and KUNIT_EXPECT_NOT_NULL(): v5.18, "kunit:
 * Introduce _NULL and _NOT_NULL macros".
 */
#include <kunit/test.h>

#if !defined(KUNIT_EXPECT_NULL) || !defined(KUNIT_EXPECT_NOT_NULL)
#error no KUNIT_EXPECT_NULL
#endif
