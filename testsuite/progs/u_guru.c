/*
 * u_guru - a program whose variables a guru script changes (built -O2 and
 * -O0: at -O2 twice()'s n is in a register at its entry, at -O0 in its
 * frame). Unchanged it prints "twice 2" and "value 5".
 */
#include <stdio.h>

__attribute__((noinline)) int twice(int n)
{
	return 2 * n;
}

__attribute__((noinline)) void show(int *p)
{
	printf("value %d\n", *p);
}

int main(void)
{
	int v = 5;

	printf("twice %d\n", twice(1));
	show(&v);
	return 0;
}
