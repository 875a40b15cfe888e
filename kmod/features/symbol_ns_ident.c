// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol namespaces named by an identifier, which v6.13 ("module: Convert
 * symbol namespace to string literal") turned into a string literal.
 * With namespaces (symbol_ns) but not this, the name is a string.
 */
#include <linux/export.h>
#include <linux/module.h>

MODULE_IMPORT_NS(IOLAT_FEATURE);
