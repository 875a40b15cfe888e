// SPDX-License-Identifier: GPL-2.0
/*
 * iolat info: the versions of the CLI and of the loaded module.
 */
#include <stdio.h>
#include <string.h>
#include "cmd/cmd.h"

/* The module parameter @name, from sysfs, into @buf; "?" if unreadable. */
static const char *param(const char *name, char buf[32])
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/iolat/parameters/%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, 32, f))
		strcpy(buf, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

int cmd_info(int argc, const char **argv)
{
	char buf[2][32];
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
	printf("sessions: %u, %.1f MiB; a session at most %s MiB (max_session_mb), its record buffers %s MiB unless -b (ring_mb)\n",
	       info.nr_sessions, info.mem_bytes / 1048576.0,
	       param("max_session_mb", buf[0]), param("ring_mb", buf[1]));
	iolat_nl_close(nl);
	return EXIT_OK;
}
