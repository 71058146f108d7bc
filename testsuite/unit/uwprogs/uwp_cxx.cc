// SPDX-License-Identifier: GPL-2.0
/*
 * uwp_cxx - C++ capture target: templates, a lambda, and an exception in
 * flight (snapshot in a destructor run by the unwinder, and in a catch).
 *
 *   uwp_cxx cxx_dtor|cxx_catch
 */
#include <cstring>
#include <exception>
#include <stdexcept>
#include "uwcap.h"

#define KEEP __attribute__((noinline, noipa))

static volatile int sink;
static const char *tag;

struct Guard {
	KEEP ~Guard()
	{
		if (std::uncaught_exceptions() && !strcmp(tag, "cxx_dtor"))
			uwcap_snapshot(tag);
	}
};

template <typename T> struct Box {
	T v;
	KEEP T get() const
	{
		Guard g;

		if (v > T(0))
			throw std::runtime_error("boom");
		return v + sink;
	}
};

template <typename T> KEEP T through_template(T v)
{
	Box<T> b{ v };

	return b.get() + sink;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	tag = argv[1];
	auto lam = [](int v) __attribute__((noinline)) { return through_template<long>(v) + sink; };
	try {
		sink = lam(1);
	} catch (const std::exception &e) {
		if (!strcmp(tag, "cxx_catch"))
			uwcap_snapshot(tag);
	}
	return 0;
}
