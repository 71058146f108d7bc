/*
 * plt.c - a traced module's PLT stubs ("printf@plt", found by elf/plt.c),
 * so the writers charge a call through the PLT to the stub and not to
 * whatever symbol precedes .plt.
 */
#include "runner/trace/tout_int.h"

void tmod_load_plt(struct tmod *m)
{
	/* out of memory: calls through the PLT are charged to the symbol before it */
	elf_plt_read(m->di.file.elf, m->di.separate.elf, &m->plt);
}

int64_t tmod_plt(const struct tmod *m, uint64_t rel, const char **name)
{
	const struct elf_plt_stub *v = m->plt.stubs;
	size_t lo = 0, hi = m->plt.nstubs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].end <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->plt.nstubs || v[lo].start > rel)
		return -1;
	*name = v[lo].name;
	return (int64_t)lo;
}

void tmod_free_plt(struct tmod *m)
{
	elf_plt_free(&m->plt);
}
