/*
 * u_wait N - waits for a line on standard input, then calls u_tick(1..N)
 * and exits: a process that exists before the probes are armed (-x PID,
 * process(PID)) and does its work only once the test says go.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) long u_tick(long n)
{
	return n * 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, sum = 0;
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (long i = 1; i <= n; i++)
		sum += u_tick(i);
	printf("ticks %ld sum %ld\n", n, sum);
	return 0;
}
