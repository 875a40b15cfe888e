/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVMe opcodes and status codes, named, shared by the module, the KUnit
 * suite and the CLI (no kernel or libc dependencies beyond
 * <linux/types.h>).  Values are the NVM Express Base and NVM Command Set
 * specifications'.
 */
#ifndef _IOLAT_LIB_NVME_NAMES_H
#define _IOLAT_LIB_NVME_NAMES_H

#include <linux/types.h>

/* struct iolat_record.status when the completion's status was not read. */
#define IOLAT_NVME_STATUS_UNKNOWN	0xffff

int iolat_nvme_io_has_lba(__u8 opcode);
const char *iolat_nvme_opcode_name(int admin, __u8 opcode);
const char *iolat_nvme_status_name(__u16 status);

#endif /* _IOLAT_LIB_NVME_NAMES_H */
