/* dl_main.so.c - the library dl_main dlopens: dl_entry -> dl_middle -> dl_leaf -> getppid() */
#include <unistd.h>

__attribute__((noinline)) int dl_leaf(int x)
{
	return x + (int)getppid() * 0 + 1;
}

__attribute__((noinline)) int dl_middle(int x)
{
	int r = dl_leaf(x * 2);

	asm volatile("" ::: "memory");
	return r + 1;
}

int dl_entry(int x)
{
	int r = dl_middle(x + 1);

	asm volatile("" ::: "memory");
	return r;
}
