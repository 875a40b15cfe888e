// SPDX-License-Identifier: GPL-2.0
/*
 * iolat info: the versions of the CLI and of the loaded module.
 */
#include <stdio.h>
#include "cli.h"

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
	printf("NVMe commands: %s\n", info.nvme_available ?
	       "traceable (nvme-core's tracepoints found)" :
	       "not traceable now (nvme-core is not loaded)");
	iolat_nl_close(nl);
	return EXIT_OK;
}
