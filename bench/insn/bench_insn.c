/*
 * bench_insn.c - decode throughput of the x86-64 decoder.
 *
 *   build/bench/insn [FILE...]     (default: libc.so.6)
 *
 * Loads the executable sections of each file, then decodes them linearly
 * (skipping one byte where a decode fails) several times, and prints
 * nanoseconds per instruction of the fastest round. For scale it times Capstone on the same
 * bytes, once with detail off (length and mnemonic) and once with detail on
 * (operands), and prints the ratios.
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"

struct code {
	u8 *buf;
	size_t len;
};

static void load(const char *path, struct code *c)
{
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !(e = elf_begin(fd, ELF_C_READ, NULL))) {
		fprintf(stderr, "bench_insn: cannot read %s\n", path);
		exit(1);
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		c->buf = realloc(c->buf, c->len + d->d_size);
		memcpy(c->buf + c->len, d->d_buf, d->d_size);
		c->len += d->d_size;
	}
	elf_end(e);
	close(fd);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t run_ours(const struct code *c, unsigned long *sink)
{
	struct x86_insn_info in;
	size_t pos = 0, n = 0;

	while (pos < c->len) {
		int len = x86_insn_decode(c->buf + pos, c->len - pos, &in);

		if (len <= 0)
			len = 1;
		*sink += in.flow + in.nmem;
		pos += len;
		n++;
	}
	return n;
}

static size_t run_capstone(csh h, const struct code *c, unsigned long *sink)
{
	cs_insn *ci = cs_malloc(h);
	const u8 *p = c->buf;
	size_t sz = c->len, n = 0;
	uint64_t a = 0;

	while (sz) {
		if (!cs_disasm_iter(h, &p, &sz, &a, ci)) {
			p++;
			sz--;
			a++;
		}
		*sink += ci->size;
		n++;
	}
	cs_free(ci, 1);
	return n;
}

int main(int argc, char **argv)
{
	struct code c = { 0 };
	unsigned long sink = 0;
	double t, ours, cs_plain, cs_detail;
	size_t n = 0, ncs = 0;
	int i, rounds = 5;
	csh h;

	elf_version(EV_CURRENT);
	if (argc < 2)
		load("/lib/x86_64-linux-gnu/libc.so.6", &c);
	for (i = 1; i < argc; i++)
		load(argv[i], &c);

	run_ours(&c, &sink);	/* warm up */
	ours = 1e30;		/* best of several rounds: least disturbed */
	for (i = 0; i < rounds; i++) {
		t = now();
		n = run_ours(&c, &sink);
		t = (now() - t) / n * 1e9;
		if (t < ours)
			ours = t;
	}

	cs_open(CS_ARCH_X86, CS_MODE_64, &h);
	t = now();
	ncs = run_capstone(h, &c, &sink);
	cs_plain = (now() - t) / ncs * 1e9;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	t = now();
	ncs = run_capstone(h, &c, &sink);
	cs_detail = (now() - t) / ncs * 1e9;
	cs_close(&h);

	printf("insn decode: %zu instructions, %zu bytes of code\n", n, c.len);
	printf("  utap x86_insn_decode   %6.1f ns/insn  (%.0f M insn/s)\n",
	       ours, 1e3 / ours);
	printf("  capstone, no detail    %6.1f ns/insn  (utap %.1fx faster)\n",
	       cs_plain, cs_plain / ours);
	printf("  capstone, detail       %6.1f ns/insn  (utap %.1fx faster)\n",
	       cs_detail, cs_detail / ours);
	free(c.buf);
	return sink == 42;	/* keeps the work observable */
}
