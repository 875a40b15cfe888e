/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/iolat: a streaming session's per-CPU rings mapped by its reader,
 * which takes the records in place instead of through READ's copies.
 */
#ifndef _IOLAT_RING_MAP_H
#define _IOLAT_RING_MAP_H

int iolat_ring_map_init(void);
void iolat_ring_map_exit(void);

#endif /* _IOLAT_RING_MAP_H */
