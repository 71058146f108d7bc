/*
 * dl_main.c - loads libdl_lib.so (built next to it) with dlopen() after
 * start, and calls into it: the library's frames must be complete in user
 * backtraces although no one named it with -d.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char path[4096];
	void *h;
	int (*entry)(int);

	snprintf(path, sizeof(path), "%s.so", argv[0]);
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	entry = (int (*)(int))dlsym(h, "dl_entry");
	printf("dl %d\n", entry ? entry(3) : -1);
	return 0;
}
