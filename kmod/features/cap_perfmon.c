// SPDX-License-Identifier: GPL-2.0
/*
 * CAP_PERFMON: v5.8, "capabilities: Introduce CAP_PERFMON to kernel and
 * user space".
 */
#include <linux/capability.h>

int iolat_feature(void);
int iolat_feature(void)
{
	return CAP_PERFMON;
}
