// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol namespaces, EXPORT_SYMBOL_NS() and MODULE_IMPORT_NS(): v5.4,
 * "module: add support for symbol namespaces".  RHEL 8 has KUnit but not
 * these.
 */
#include <linux/export.h>
#include <linux/module.h>

#if !defined(EXPORT_SYMBOL_NS) || !defined(MODULE_IMPORT_NS)
#error no symbol namespaces
#endif
