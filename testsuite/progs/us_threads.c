/*
 * us_threads.c - four threads, each with its own chain
 * (t<N>_entry -> t<N>_mid -> leaf -> getppid()), all alive at once: each
 * thread's backtrace must show its own chain down to start_thread and clone3.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_barrier_t all_started;

__attribute__((noinline)) int leaf(int x)
{
	return x + (int)getppid() * 0 + 1;
}

#define CHAIN(n)								\
	__attribute__((noinline)) int t##n##_mid(int x)				\
	{									\
		int r = leaf(x + n);						\
		asm volatile("" ::: "memory");					\
		return r;							\
	}									\
	static void *t##n##_entry(void *arg)					\
	{									\
		long r;								\
		pthread_barrier_wait(&all_started);				\
		r = t##n##_mid((int)(long)arg);					\
		asm volatile("" ::: "memory");					\
		return (void *)r;						\
	}

CHAIN(0)
CHAIN(1)
CHAIN(2)
CHAIN(3)

int main(void)
{
	void *(*entry[4])(void *) = { t0_entry, t1_entry, t2_entry, t3_entry };
	pthread_t th[4];
	long sum = 0;

	pthread_barrier_init(&all_started, NULL, 4);
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, entry[i], (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(th[i], &r);
		sum += (long)r;
	}
	printf("threads %ld\n", sum);
	return 0;
}
