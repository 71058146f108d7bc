/*
 * u_threads - two threads that both start before either ends (a barrier
 * holds them), for process.thread.begin/end tests.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t started;

__attribute__((noipa)) static int u_work(int n)
{
	return n * 3;
}

static void *thread_main(void *arg)
{
	int r = u_work((int)(long)arg);

	pthread_barrier_wait(&started);
	return (void *)(long)r;
}

int main(void)
{
	pthread_t t[2];
	void *r0, *r1;

	pthread_barrier_init(&started, NULL, 3);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)(i + 1));
	pthread_barrier_wait(&started);
	pthread_join(t[0], &r0);
	pthread_join(t[1], &r1);
	printf("%ld\n", (long)r0 + (long)r1);
	return 0;
}
