// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol namespaces, MODULE_IMPORT_NS() with the EXPORT_SYMBOL_NS() of
 * the same change: v5.4, "module: add support for symbol namespaces".
 * RHEL 8 has KUnit but not these.
 */
#include <linux/export.h>
#include <linux/module.h>

#ifndef MODULE_IMPORT_NS
#error no symbol namespaces
#endif
