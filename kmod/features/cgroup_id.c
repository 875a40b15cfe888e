// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_id(), a cgroup's kernfs node id as one u64: v5.5, "kernfs:
 * convert kernfs_node->id from union kernfs_node_id to u64" (RHEL 8's
 * 4.18 has it); before, the id is kn->id.id of union kernfs_node_id, the
 * same 64 bits (inode number and generation) that name_to_handle_at()
 * gives for the cgroup's directory.
 */
#include <linux/cgroup.h>

u64 iolat_feature(struct cgroup *cgrp);
u64 iolat_feature(struct cgroup *cgrp)
{
	return cgroup_id(cgrp);
}
