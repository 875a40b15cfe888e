// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe opcodes and status codes; see nvme.h.
 */
#include "nvme_names.h"

struct iolat_nvme_name {
	__u16 code;
	const char *name;
};

/* NVM command set I/O commands. */
static const struct iolat_nvme_name iolat_nvme_io_ops[] = {
	{ 0x00, "flush" },
	{ 0x01, "write" },
	{ 0x02, "read" },
	{ 0x04, "write_uncor" },
	{ 0x05, "compare" },
	{ 0x08, "write_zeroes" },
	{ 0x09, "dsm" },
	{ 0x0c, "verify" },
	{ 0x0d, "resv_register" },
	{ 0x0e, "resv_report" },
	{ 0x11, "resv_acquire" },
	{ 0x15, "resv_release" },
	{ 0x19, "copy" },
	{ 0x79, "zone_mgmt_send" },
	{ 0x7a, "zone_mgmt_recv" },
	{ 0x7d, "zone_append" },
	{ 0x7f, "fabrics" },
};

static const struct iolat_nvme_name iolat_nvme_admin_ops[] = {
	{ 0x00, "delete_sq" },
	{ 0x01, "create_sq" },
	{ 0x02, "get_log_page" },
	{ 0x04, "delete_cq" },
	{ 0x05, "create_cq" },
	{ 0x06, "identify" },
	{ 0x08, "abort" },
	{ 0x09, "set_features" },
	{ 0x0a, "get_features" },
	{ 0x0c, "async_event" },
	{ 0x0d, "ns_mgmt" },
	{ 0x10, "fw_commit" },
	{ 0x11, "fw_download" },
	{ 0x14, "dev_self_test" },
	{ 0x15, "ns_attach" },
	{ 0x18, "keep_alive" },
	{ 0x19, "directive_send" },
	{ 0x1a, "directive_recv" },
	{ 0x1c, "virtual_mgmt" },
	{ 0x1d, "nvme_mi_send" },
	{ 0x1e, "nvme_mi_recv" },
	{ 0x7c, "dbbuf" },
	{ 0x7f, "fabrics" },
	{ 0x80, "format_nvm" },
	{ 0x81, "security_send" },
	{ 0x82, "security_recv" },
	{ 0x84, "sanitize" },
	{ 0x86, "get_lba_status" },
};

/* Status: code type << 8 | code. */
static const struct iolat_nvme_name iolat_nvme_statuses[] = {
	{ 0x000, "success" },
	{ 0x001, "invalid_opcode" },
	{ 0x002, "invalid_field" },
	{ 0x003, "cmdid_conflict" },
	{ 0x004, "data_xfer_error" },
	{ 0x005, "power_loss" },
	{ 0x006, "internal" },
	{ 0x007, "abort_req" },
	{ 0x008, "abort_queue" },
	{ 0x009, "fused_fail" },
	{ 0x00a, "fused_missing" },
	{ 0x00b, "invalid_ns" },
	{ 0x00c, "cmd_seq_error" },
	{ 0x00d, "sgl_invalid_last" },
	{ 0x00e, "sgl_invalid_count" },
	{ 0x00f, "sgl_invalid_data" },
	{ 0x010, "sgl_invalid_metadata" },
	{ 0x011, "sgl_invalid_type" },
	{ 0x012, "cmb_invalid_use" },
	{ 0x013, "prp_invalid_offset" },
	{ 0x014, "atomic_write_unit_exceeded" },
	{ 0x015, "operation_denied" },
	{ 0x016, "sgl_invalid_offset" },
	{ 0x018, "host_id_inconsistent" },
	{ 0x019, "keep_alive_expired" },
	{ 0x01a, "keep_alive_invalid" },
	{ 0x01b, "preempt_abort" },
	{ 0x01c, "sanitize_failed" },
	{ 0x01d, "sanitize_in_progress" },
	{ 0x01e, "sgl_invalid_granularity" },
	{ 0x01f, "cmd_not_sup_cmb_queue" },
	{ 0x020, "ns_write_protected" },
	{ 0x021, "cmd_interrupted" },
	{ 0x022, "transient_tr_err" },
	{ 0x024, "admin_command_media_not_ready" },
	{ 0x080, "lba_range" },
	{ 0x081, "cap_exceeded" },
	{ 0x082, "ns_not_ready" },
	{ 0x083, "reservation_conflict" },
	{ 0x084, "format_in_progress" },
	{ 0x100, "cq_invalid" },
	{ 0x101, "qid_invalid" },
	{ 0x102, "queue_size" },
	{ 0x103, "abort_limit" },
	{ 0x105, "async_limit" },
	{ 0x106, "firmware_slot" },
	{ 0x107, "firmware_image" },
	{ 0x108, "invalid_vector" },
	{ 0x109, "invalid_log_page" },
	{ 0x10a, "invalid_format" },
	{ 0x10b, "fw_needs_conv_reset" },
	{ 0x10c, "invalid_queue" },
	{ 0x10d, "feature_not_saveable" },
	{ 0x10e, "feature_not_changeable" },
	{ 0x10f, "feature_not_per_ns" },
	{ 0x110, "fw_needs_subsys_reset" },
	{ 0x111, "fw_needs_reset" },
	{ 0x112, "fw_needs_max_time" },
	{ 0x113, "fw_activate_prohibited" },
	{ 0x114, "overlapping_range" },
	{ 0x115, "ns_insufficient_cap" },
	{ 0x116, "ns_id_unavailable" },
	{ 0x118, "ns_already_attached" },
	{ 0x119, "ns_is_private" },
	{ 0x11a, "ns_not_attached" },
	{ 0x11b, "thin_prov_not_supp" },
	{ 0x11c, "ctrl_list_invalid" },
	{ 0x11d, "self_test_in_progress" },
	{ 0x11e, "bp_write_prohibited" },
	{ 0x11f, "ctrl_id_invalid" },
	{ 0x120, "sec_ctrl_state_invalid" },
	{ 0x121, "ctrl_res_num_invalid" },
	{ 0x122, "res_id_invalid" },
	{ 0x123, "pmr_san_prohibited" },
	{ 0x124, "ana_group_id_invalid" },
	{ 0x125, "ana_attach_failed" },
	{ 0x180, "bad_attributes" },
	{ 0x181, "invalid_pi" },
	{ 0x182, "read_only" },
	{ 0x183, "onc_not_supp_by_host" },
	{ 0x1b8, "zone_boundary_error" },
	{ 0x1b9, "zone_full" },
	{ 0x1ba, "zone_read_only" },
	{ 0x1bb, "zone_offline" },
	{ 0x1bc, "zone_invalid_write" },
	{ 0x1bd, "zone_too_many_active" },
	{ 0x1be, "zone_too_many_open" },
	{ 0x1bf, "zone_invalid_transition" },
	{ 0x280, "write_fault" },
	{ 0x281, "read_error" },
	{ 0x282, "guard_check" },
	{ 0x283, "apptag_check" },
	{ 0x284, "reftag_check" },
	{ 0x285, "compare_failed" },
	{ 0x286, "access_denied" },
	{ 0x287, "unwritten_block" },
	{ 0x300, "internal_path_error" },
	{ 0x301, "ana_persistent_loss" },
	{ 0x302, "ana_inaccessible" },
	{ 0x303, "ana_transition" },
	{ 0x360, "ctrl_path_error" },
	{ 0x370, "host_path_error" },
	{ 0x371, "host_aborted_cmd" },
};

#define IOLAT_NVME_N(a)	(sizeof(a) / sizeof((a)[0]))

static const char *iolat_nvme_lookup(const struct iolat_nvme_name *t,
				     unsigned int n, __u16 code)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return (const char *)0;
}

/**
 * iolat_nvme_io_has_lba() - does an I/O command address a range of LBAs?
 * @opcode: the command's opcode
 *
 * Return: 1 for the commands with SLBA in dwords 10-11 and a 0-based
 * block count in dword 12's low half (read, write, compare, write
 * uncorrectable, write zeroes, verify, zone append), else 0.
 */
int iolat_nvme_io_has_lba(__u8 opcode)
{
	switch (opcode) {
	case 0x01:
	case 0x02:
	case 0x04:
	case 0x05:
	case 0x08:
	case 0x0c:
	case 0x7d:
		return 1;
	default:
		return 0;
	}
}

/**
 * iolat_nvme_opcode_name() - the name of a command's opcode
 * @admin: an admin command (qid 0)
 * @opcode: the opcode
 *
 * Return: the name, or NULL for an opcode this table does not know
 * (vendor-specific, or newer).
 */
const char *iolat_nvme_opcode_name(int admin, __u8 opcode)
{
	if (admin)
		return iolat_nvme_lookup(iolat_nvme_admin_ops,
					 IOLAT_NVME_N(iolat_nvme_admin_ops),
					 opcode);
	return iolat_nvme_lookup(iolat_nvme_io_ops,
				 IOLAT_NVME_N(iolat_nvme_io_ops), opcode);
}

/**
 * iolat_nvme_status_name() - the name of a completion's status
 * @status: the status field without the phase bit (struct iolat_record)
 *
 * The code type and code are named; the retry delay, more and do-not-retry
 * bits are not part of the name.
 *
 * Return: the name, "unknown" for IOLAT_NVME_STATUS_UNKNOWN, or NULL for
 * a status this table does not know.
 */
const char *iolat_nvme_status_name(__u16 status)
{
	if (status == IOLAT_NVME_STATUS_UNKNOWN)
		return "unknown";
	return iolat_nvme_lookup(iolat_nvme_statuses,
				 IOLAT_NVME_N(iolat_nvme_statuses),
				 status & 0x7ff);
}
