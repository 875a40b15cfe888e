// SPDX-License-Identifier: GPL-2.0
/*
 * Opens or closes a window of tests/bench/tbprof.c's count: executes
 * `xchg %bx,%bx` (66 87 db), which changes nothing, once.
 */
int main(void)
{
	__asm__ volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
	return 0;
}
