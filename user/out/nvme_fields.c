// SPDX-License-Identifier: GPL-2.0
/*
 * The NVMe fields of a record as users read them: the controller or
 * namespace, the opcode and status by name (its length in blocks and
 * bytes: lib/record.h).  Shared by `iolat trace --nvme` and `iolat nvme`.
 */
#include <stdio.h>
#include "out/output.h"
#include "../../lib/nvme_names.h"

/* nvme<N> for an admin command, else the namespace's name. */
const char *iolat_nvme_device(const struct iolat_session *s, unsigned int dev,
			      const struct iolat_record *r, char *buf,
			      size_t len)
{
	if (!(r->flags & IOLAT_F_NVME_ADMIN))
		return s->devs[dev].name;
	snprintf(buf, len, "nvme%u", r->ctrl);
	return buf;
}

void iolat_nvme_opcode(char *buf, size_t len, const struct iolat_record *r)
{
	const char *name = iolat_nvme_opcode_name(r->qid == 0, r->opcode);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "0x%02x", r->opcode);
}

void iolat_nvme_status(char *buf, size_t len, uint16_t status)
{
	const char *name = iolat_nvme_status_name(status);

	if (status == IOLAT_NVME_STATUS_UNKNOWN)
		snprintf(buf, len, "%s", name);
	else if (name)
		snprintf(buf, len, "%s%s", name, status & 0x4000 ? "|dnr" : "");
	else
		snprintf(buf, len, "0x%03x", status);
}
