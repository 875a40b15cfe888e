// SPDX-License-Identifier: GPL-2.0
/*
 * The records taken where the module wrote them: each CPU's ring of this
 * socket's session, a file of /dev/iolat bound to it (IOLAT_IOC_RING)
 * and mapped (linux/iolat.h, struct iolat_ring_map), read in order while
 * each slot's sequence says its record is whole, and given back by
 * storing the ring's tail.  No copy
 * into a netlink message and out of it, no message zeroed: the record
 * stream's transport (docs/design.md, Draining).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <netlink/netlink.h>
#include "nl/nl.h"
#include "nl/nlsock.h"

#define RING_DEV "/dev/iolat"

struct iolat_ring_view {
	struct iolat_ring_map *map;
	const unsigned char *slots;
	uint64_t mask;
	uint32_t stride;
	uint32_t rec_size;
};

struct iolat_rings {
	uint32_t portid;
	long page;
	unsigned int cpus;	/* possible: @v's and @on's length */
	struct iolat_ring_view *v;	/* by CPU; map NULL: not mapped */
	bool *on;		/* map_new()'s online CPUs */
};

/*
 * One CPU's ring: a file of /dev/iolat bound to it, mapped, and closed
 * (the mapping holds it).  Return: 0, -ENXIO where the CPU has none,
 * or another -errno.
 */
static int map_one(struct iolat_rings *rs, unsigned int cpu)
{
	struct iolat_ring_req req = { .portid = rs->portid, .cpu = cpu };
	struct iolat_ring_view *v = &rs->v[cpu];
	struct iolat_ring_map *hdr;
	long page = rs->page;
	int fd, err = 0;
	void *p;

	fd = open(RING_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENODEV || errno == ENXIO ?
		       -ENOENT : -errno;
	if (ioctl(fd, IOLAT_IOC_RING, &req)) {
		err = -errno;
		close(fd);
		return err;
	}
	p = mmap(NULL, req.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = p == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	hdr = p;
	if (hdr->version != IOLAT_RING_MAP_VERSION || hdr->data_offset != page ||
	    hdr->bytes != req.bytes || !hdr->slots ||
	    (hdr->slots & (hdr->slots - 1)) || !hdr->record_size ||
	    hdr->stride < 8 + hdr->record_size ||
	    req.bytes < page + (uint64_t)hdr->slots * hdr->stride) {
		munmap(p, req.bytes);
		return -EPROTO;
	}
	v->map = hdr;
	v->slots = (const unsigned char *)p + page;
	v->mask = hdr->slots - 1;
	v->stride = hdr->stride;
	v->rec_size = hdr->record_size;
	return 0;
}

/*
 * A CPU list of /sys/devices/system/cpu (@name "possible" or "online"),
 * such as "0-3,5": each of its CPUs below @n marked in @on, if given.
 * Return: its highest CPU + 1, or 0 if it cannot be read.
 */
static unsigned int cpu_list(const char *name, bool *on, unsigned int n)
{
	unsigned int lo, hi, c, end = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%u", &lo) == 1) {
		hi = lo;
		if (fscanf(f, "-%u", &hi) < 0)
			hi = lo;
		for (c = lo; on && c <= hi && c < n; c++)
			on[c] = true;
		if (hi + 1 > end)
			end = hi + 1;
		if (fgetc(f) != ',')
			break;
	}
	fclose(f);
	return end;
}

/*
 * Map the ring of each online CPU not mapped yet that has one (a CPU
 * without one: ENXIO; every possible CPU where the online list cannot
 * be read).  Return: how many were mapped, or a negative errno.
 */
static int map_new(struct iolat_rings *rs)
{
	unsigned int cpu;
	int err, n = 0;

	memset(rs->on, 0, rs->cpus * sizeof(*rs->on));
	if (!cpu_list("online", rs->on, rs->cpus))
		memset(rs->on, 1, rs->cpus * sizeof(*rs->on));
	for (cpu = 0; cpu < rs->cpus; cpu++) {
		if (rs->v[cpu].map || !rs->on[cpu])
			continue;
		err = map_one(rs, cpu);
		if (err == -ENXIO)
			continue;
		if (err)
			return err;
		n++;
	}
	return n;
}

/**
 * iolat_rings_map() - map each CPU's ring of @nl's session
 * @nl: the socket that started a streaming session
 * @out: set to the rings, for iolat_rings_drain()
 *
 * Return: 0; -ENOENT where the module has no /dev/iolat (the caller
 * reads the records through READ); another negative errno.
 */
int iolat_rings_map(struct iolat_nl *nl, struct iolat_rings **out)
{
	unsigned int cpus = cpu_list("possible", NULL, 0);
	struct iolat_rings *rs;
	int n;

	*out = NULL;
	if (!cpus)
		return -ENOENT;
	/* the module has no /dev/iolat, or no node was made for it */
	if (access(RING_DEV, F_OK))
		return -ENOENT;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	rs->v = calloc(cpus, sizeof(*rs->v));
	rs->on = calloc(cpus, sizeof(*rs->on));
	if (!rs->v || !rs->on) {
		iolat_rings_unmap(rs);
		return -ENOMEM;
	}
	rs->portid = nl_socket_get_local_port(nl->sk);
	rs->page = sysconf(_SC_PAGESIZE);
	rs->cpus = cpus;
	n = map_new(rs);
	if (n <= 0) {
		iolat_rings_unmap(rs);
		return n ? n : -ENXIO;
	}
	*out = rs;
	return 0;
}

/**
 * iolat_rings_more() - map the rings of CPUs that came online
 * @rs: the rings mapped
 *
 * A CPU brought online during the session has a ring from then on
 * (kmod/cpus.c); until it is mapped, READ carries its records.
 *
 * Return: 0 or a negative errno.
 */
int iolat_rings_more(struct iolat_rings *rs)
{
	int n = map_new(rs);

	return n < 0 ? n : 0;
}

/* @v's slot of position @pos if its record is whole, else NULL. */
static const unsigned char *slot_whole(const struct iolat_ring_view *v,
				       uint64_t pos)
{
	const unsigned char *slot = v->slots + (pos & v->mask) * v->stride;

	/* pairs with the probe's release: the record is whole */
	if (__atomic_load_n((const uint64_t *)slot, __ATOMIC_ACQUIRE) != pos + 1)
		return NULL;
	return slot;
}

/*
 * The records published in @v's ring from @pos on, to @dec->records in
 * runs of slots in place (to the ring's end at most).  Return: the
 * position after the last.
 */
static uint64_t drain_runs(const struct iolat_ring_view *v, uint64_t pos,
			   struct iolat_decoder *dec, uint32_t size)
{
	uint64_t from;

	for (;;) {
		from = pos;
		/* a run ends at the ring's end too */
		while (slot_whole(v, pos) && (++pos & v->mask))
			;
		if (pos == from)
			return pos;
		dec->records(dec->arg, v->slots + (from & v->mask) * v->stride +
				       sizeof(uint64_t),
			     pos - from, v->stride, size);
	}
}

/*
 * The same to @dec->record, each copied into @rec (its fields past @size
 * zero).  Return: the position after the last.
 */
static uint64_t drain_each(const struct iolat_ring_view *v, uint64_t pos,
			   struct iolat_decoder *dec, uint32_t size,
			   struct iolat_record *rec)
{
	const unsigned char *slot;

	for (; (slot = slot_whole(v, pos)); pos++) {
		iolat_record_copy(rec, slot + sizeof(uint64_t), size);
		dec->record(dec->arg, rec);
	}
	return pos;
}

/*
 * Every record published in each ring, oldest first, to @dec; the slots
 * go back once their records are decoded.  Return: how many.
 */
uint64_t iolat_rings_drain(struct iolat_rings *rs, struct iolat_decoder *dec)
{
	uint64_t n = 0, pos, first;
	struct iolat_record rec;
	unsigned int cpu;
	uint32_t size;

	memset(&rec, 0, sizeof(rec));
	for (cpu = 0; cpu < rs->cpus; cpu++) {
		struct iolat_ring_view *v = &rs->v[cpu];

		if (!v->map)
			continue;
		size = v->rec_size < sizeof(rec) ? v->rec_size : sizeof(rec);
		first = v->map->tail;
		pos = dec->records ? drain_runs(v, first, dec, size) :
				     drain_each(v, first, dec, size, &rec);
		if (pos != first)
			/* the slots are free once their records are taken */
			__atomic_store_n(&v->map->tail, pos, __ATOMIC_RELEASE);
		n += pos - first;
	}
	dec->decoded += n;
	return n;
}

void iolat_rings_unmap(struct iolat_rings *rs)
{
	unsigned int cpu;

	if (!rs)
		return;
	for (cpu = 0; rs->v && cpu < rs->cpus; cpu++)
		if (rs->v[cpu].map)
			munmap(rs->v[cpu].map, rs->v[cpu].map->bytes);
	free(rs->v);
	free(rs->on);
	free(rs);
}
