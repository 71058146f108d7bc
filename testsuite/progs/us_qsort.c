/*
 * us_qsort.c - a libc callback path: main -> sort_them -> qsort() ->
 * (libc's merge sort) -> cmp_ints. A backtrace in the comparator goes
 * through libc's frames back to the program and main.
 */
#include <stdio.h>
#include <stdlib.h>

static int calls;

__attribute__((noinline)) int cmp_ints(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	calls++;
	return (a > b) - (a < b);
}

__attribute__((noinline)) int sort_them(int *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ints);
	asm volatile("" ::: "memory");
	return v[0];
}

int main(void)
{
	int v[] = { 5, 3, 9, 1, 7, 2 };
	int first = sort_them(v, 6);

	printf("qsort %d %d\n", first, calls > 0);
	return 0;
}
