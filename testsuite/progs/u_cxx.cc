// u_cxx - C++ functions for .function probes by name: overloads in a
// namespace, one in a nested namespace and one at file scope with the same
// base name, a class template instantiated for long and int, a member
// operator, a destructor, a lambda. main calls each a known number of
// times with known arguments, in a fixed order, and prints nothing.
#include <cstdio>

namespace acc {

__attribute__((noipa)) int probed_leaf(int x)
{
	return x + 1;
}

__attribute__((noipa)) long probed_leaf(long x, long y)
{
	return x * y;
}

namespace inner {
__attribute__((noipa)) int probed_leaf(int x)
{
	return x - 1;
}
} // namespace inner

template <typename T> struct Worker {
	T base;

	__attribute__((noipa)) T run(T n)
	{
		return base + n;
	}

	__attribute__((noipa)) bool operator<(const Worker &o) const
	{
		return base < o.base;
	}

	__attribute__((noipa)) ~Worker()
	{
		asm volatile("" : : "r"(base) : "memory");
	}
};

} // namespace acc

__attribute__((noipa)) static int probed_leaf(const char *s)
{
	return s[0];
}

int main()
{
	long sum = 0;
	auto twice = [&sum](int v) __attribute__((noipa)) { sum += 2 * v; return 2 * v; };

	sum += acc::probed_leaf(41);
	sum += acc::probed_leaf(6L, 7L);
	sum += acc::inner::probed_leaf(10);
	sum += probed_leaf("z");
	{
		acc::Worker<long> wl{100};
		acc::Worker<int> wi{5};

		sum += wl.run(23);
		sum += wi.run(4);
		sum += wi.run(5);
		sum += wl < acc::Worker<long>{200};
		sum += twice(21);
	}
	if (sum == 0)
		std::puts("unreachable");
	return 0;
}
