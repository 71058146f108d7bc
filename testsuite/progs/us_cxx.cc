/*
 * us_cxx.cc - C++ frames: a member function of a class template, a lambda,
 * and a destructor that runs while an exception is in flight (called from
 * a landing pad during unwinding). Each path ends in us_mark(), the probe
 * point, whose backtrace must reach main.
 */
#include <cstdio>
#include <stdexcept>
#include <unistd.h>

extern "C" __attribute__((noinline)) int us_mark(int x)
{
	return x + (int)getppid() * 0 + 1;
}

namespace us {

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) int apply(int k)
	{
		auto f = [this, k](int y) __attribute__((noinline)) {
			int r = us_mark(k + y);
			asm volatile("" ::: "memory");
			return r + (int)v;
		};
		int r = f(1);
		asm volatile("" ::: "memory");
		return r;
	}
};

struct Guard {
	int id;
	__attribute__((noinline)) ~Guard();
};

Guard::~Guard()
{
	us_mark(id);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void thrower(int x)
{
	Guard g{x};

	if (x >= 0)
		throw std::runtime_error("boom");
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) int catcher(int x)
{
	try {
		thrower(x);
	} catch (const std::exception &e) {
		return 1;
	}
	return 0;
}

} // namespace us

int main()
{
	us::Box<int> bi{2};
	us::Box<double> bd{0.5};
	int r = bi.apply(10) + bd.apply(20) + us::catcher(3);

	std::printf("cxx %d\n", r);
	return 0;
}
