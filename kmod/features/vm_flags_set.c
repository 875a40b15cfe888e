// SPDX-License-Identifier: GPL-2.0
/*
 * vm_flags_set(): v6.3, "mm: introduce vma->vm_flags wrapper functions";
 * vma->vm_flags is read-only from then on.
 */
#include <linux/mm.h>

void iolat_feature(struct vm_area_struct *vma);
void iolat_feature(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTDUMP);
}
