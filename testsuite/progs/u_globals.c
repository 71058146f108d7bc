/*
 * u_globals - a target for @var: globals of several types (an int that
 * each call counts, a struct, a string pointer, an array, a file-scope
 * static) read from probes on u_tick, which changes some of them.
 */
#include <stdio.h>

struct u_pair {
	int first;
	long second;
};

int u_count;
long u_big = -1234567890123L;
const char *u_name = "globals";
struct u_pair u_pair = { 3, 40 };
unsigned char u_bytes[4] = { 9, 8, 7, 6 };
static int u_hidden = 77;

__attribute__((noipa)) int u_tick(int step)
{
	u_count += step;
	u_pair.second += step;
	u_hidden++;
	return u_count;
}

int main(void)
{
	u_tick(1);
	u_tick(2);
	printf("%d %d\n", u_tick(3), u_hidden);
	return 0;
}
