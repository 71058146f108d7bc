/*
 * u_callee.c - functions that call each other from more than one place,
 * for .callee("G") and .callees(N): leaf is called by top, by mid and by
 * main; mid by top and by main. Built -O2 (DWARF call sites) and -O0
 * (none), and with -gdwarf-4 (GNU call sites).
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int leaf(int x)
{
	sink += x;
	return x * 2;
}

NOINLINE int other(int x)
{
	sink -= x;
	return x + 1;
}

NOINLINE int mid(int x)
{
	int a = leaf(x);

	return a + other(x);
}

NOINLINE int top(int x)
{
	int a = mid(x);

	return a + leaf(x + 10);
}

int main(void)
{
	printf("%d\n", top(1) + leaf(5) + mid(7));
	return 0;
}
