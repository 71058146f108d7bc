/*
 * u_levels - one source built at -O0, -O1, -O2 and -Og
 * (build/progs/u_levels-O0 ...), for the parameters a user's first probe
 * reads: an int, a pointer to a struct with a char array, a string, a
 * local, and a recursive call. At -O0 they live in stack slots the
 * prologue fills; optimized, in registers from the first instruction.
 * noipa keeps every function a real one, called with the standard
 * convention, at every level.
 */
#include <stdio.h>
#include <string.h>

struct item {
	int x;
	char name[12];
};

__attribute__((noipa)) int lv_int(int a)
{
	return a * 3;
}

__attribute__((noipa)) int lv_item(struct item *p)
{
	return p->x + (int)strlen(p->name);
}

__attribute__((noipa)) size_t lv_str(const char *s)
{
	return strlen(s);
}

__attribute__((noipa)) int lv_local(int n)
{
	int sq = n * n;

	sq += lv_int(sq);
	return sq - 1;
}

/* really recursive at every level: the empty asm keeps gcc from making it a loop */
__attribute__((noipa)) int lv_depth(int n)
{
	int r;

	if (n <= 0)
		return 0;
	r = lv_depth(n - 1);
	__asm__ volatile("" : "+r"(r));
	return r + 10;
}

int main(void)
{
	struct item it = { 42, "widget" };
	int r = lv_int(-7);

	r += lv_item(&it);
	r += (int)lv_str("hello, levels");
	r += lv_local(5);
	r += lv_depth(2);
	printf("%d\n", r);
	return 0;
}
