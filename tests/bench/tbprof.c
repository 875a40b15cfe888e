// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin (QEMU's plugin API, version 1 as in Debian 12's
 * QEMU 7.2) that counts the guest instructions executed per translation
 * block between markers the guest sets: tests/bench/profile.sh.
 *
 * Each block translated gets a counter that an inline add bumps at every
 * execution (one vCPU: no race).  The guest marks a window by executing
 * `xchg %bx,%bx` (66 87 db, which does nothing) twice, by running
 * tests/bench/marker.c: at the first, every counter is noted; at the
 * second, each block executed since is written to OUT.N (N counting the
 * windows from 0), one line per block: its address, its instructions,
 * and its executions in the window.  The host maps the addresses to the
 * guest's symbols (cost.py profile).  A block left in the middle (an
 * exception or interrupt) counts whole: the figures are close, not exact.
 *
 *   -plugin tbprof.so,out=PREFIX
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr;
	uint64_t n;		/* executions, bumped inline */
	uint64_t n0;		/* at the window's opening marker */
	uint32_t insns;
};

#define CHUNK 65536

static struct block **chunks;
static size_t nr, nr_chunks;
static const char *prefix = "tbprof";
static unsigned int window;
static int open_window;

static struct block *block_new(void)
{
	struct block **more;

	if (nr == nr_chunks * CHUNK) {
		more = realloc(chunks, (nr_chunks + 1) * sizeof(*chunks));
		if (!more)
			abort();
		chunks = more;
		chunks[nr_chunks] = calloc(CHUNK, sizeof(struct block));
		if (!chunks[nr_chunks])
			abort();
		nr_chunks++;
	}
	nr++;
	return &chunks[(nr - 1) / CHUNK][(nr - 1) % CHUNK];
}

static struct block *block_at(size_t i)
{
	return &chunks[i / CHUNK][i % CHUNK];
}

static void window_write(void)
{
	char path[4096];
	struct block *b;
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s.%u", prefix, window++);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	for (i = 0; i < nr; i++) {
		b = block_at(i);
		if (b->n != b->n0)
			fprintf(f, "%" PRIx64 " %" PRIu32 " %" PRIu64 "\n",
				b->vaddr, b->insns, b->n - b->n0);
	}
	fclose(f);
}

static void marker(unsigned int vcpu, void *udata)
{
	size_t i;

	if (open_window) {
		window_write();
	} else {
		for (i = 0; i < nr; i++)
			block_at(i)->n0 = block_at(i)->n;
	}
	open_window = !open_window;
}

static int is_marker(const struct qemu_plugin_insn *insn)
{
	static const unsigned char xchg_bx_bx[] = { 0x66, 0x87, 0xdb };

	return qemu_plugin_insn_size(insn) == sizeof(xchg_bx_bx) &&
	       !memcmp(qemu_plugin_insn_data(insn), xchg_bx_bx,
		       sizeof(xchg_bx_bx));
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = block_new();

	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	/* a block translated inside a window started there at 0 */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->n, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (is_marker(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			prefix = argv[i] + 4;
		} else {
			fprintf(stderr, "tbprof: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
