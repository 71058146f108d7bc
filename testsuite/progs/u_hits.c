/*
 * u_hits THREADS CALLS - THREADS threads, released together by a barrier,
 * each calls u_hit(its number, 1..THREADS) CALLS times: the contended
 * uprobe of the global-lock tests. Prints the totals a script must count.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t go;
static long calls;
static volatile long sink;

__attribute__((noipa)) void u_hit(long n)
{
	sink += n;
}

static void *thread_main(void *arg)
{
	pthread_barrier_wait(&go);
	for (long i = 0; i < calls; i++)
		u_hit((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[64];
	long sum = 0;

	calls = argc > 2 ? atol(argv[2]) : 10000;
	if (n < 1 || n > 64)
		return 2;
	pthread_barrier_init(&go, NULL, (unsigned)n);
	for (long i = 0; i < n; i++) {
		pthread_create(&t[i], NULL, thread_main, (void *)(i + 1));
		sum += (i + 1) * calls;
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("calls %ld sum %ld\n", n * calls, sum);
	return 0;
}
