// SPDX-License-Identifier: GPL-2.0
/*
 * include/kunit/visibility.h, EXPORT_SYMBOL_IF_KUNIT(): v6.2, "kunit: add
 * macro to allow conditionally exposing static symbols to tests".
 */
#include <kunit/visibility.h>

#ifndef EXPORT_SYMBOL_IF_KUNIT
#error no EXPORT_SYMBOL_IF_KUNIT
#endif
