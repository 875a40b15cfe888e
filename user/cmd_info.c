// SPDX-License-Identifier: GPL-2.0
/*
 * iolat info: the versions of the CLI and of the loaded module.
 */
#include <stdio.h>
#include "iolat.h"

int cmd_info(int argc, const char **argv)
{
	struct iolat_info info;
	struct iolat_nl *nl;

	(void)argv;
	if (argc > 1) {
		iolat_err("info takes no arguments");
		return EXIT_USAGE;
	}
	nl = iolat_nl_connect(&info);
	if (!nl)
		return EXIT_FAIL;
	printf("iolat %s, ABI %d\n", IOLAT_VERSION, IOLAT_ABI_VERSION);
	printf("module %s, ABI %u, record size %u bytes, %u CPU buffers\n",
	       info.module_version, info.abi_version, info.record_size,
	       info.nr_cpus);
	iolat_nl_close(nl);
	return EXIT_OK;
}
