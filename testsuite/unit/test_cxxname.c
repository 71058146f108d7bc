/*
 * test_cxxname - C++ names as .function patterns see them: demangled
 * without parameters (clone suffixes dropped, part suffixes kept), and
 * patterns matched by "::" components against the end of a name.
 */
#include "unit.h"
#include "probes/cxxname.h"

static const char *match(const char *pattern, const char *qual)
{
	const char *m = cxx_scoped_match(pattern, qual);

	return m ? m : "(none)";
}

TEST(demangle)
{
	CHECK_STR(cxx_demangle("_ZN3acc6WorkerIlE3runEl"), "acc::Worker<long>::run");
	CHECK_STR(cxx_demangle("_ZN3acc6WorkerIlE3runEl.isra.0"), "acc::Worker<long>::run");
	CHECK_STR(cxx_demangle("_ZL11probed_leafi.constprop.0.isra.0"), "probed_leaf");
	CHECK_STR(cxx_demangle("_ZN3acc11probed_leafEi.localalias"), "acc::probed_leaf");
	CHECK_STR(cxx_demangle("_ZN2us7throwerEi.cold"), "us::thrower.cold");
	CHECK_STR(cxx_demangle("_Z3barv.part.0.isra.0"), "bar.part.0");
	CHECK_STR(cxx_demangle("_ZZ4mainENKUliE_clEi"), "main::{lambda(int)#1}::operator()");
	CHECK_STR(cxx_demangle("_ZNK3acc6WorkerIlEltERKS1_"), "acc::Worker<long>::operator<");
	CHECK_STR(cxx_demangle("_ZN3acc6WorkerIiED2Ev"), "acc::Worker<int>::~Worker");
	CHECK_STR(cxx_demangle("_Z3fooIiEiT_"), "foo<int>");	/* no return type */
	CHECK_STR(cxx_demangle("_ZN12_GLOBAL__N_13fooEv"), "(anonymous namespace)::foo");
	CHECK(!cxx_demangle("main"));
	CHECK(!cxx_demangle("main.cold"));
	CHECK(!cxx_demangle("_ZThn8_N1A1fEv"));		/* a thunk is not the function */
	CHECK(!cxx_demangle("_ZGVZ4mainE1x"));
	CHECK(!cxx_demangle("_Zbogus"));
}

TEST(kept_suffix)
{
	CHECK_STR(cxx_kept_suffix("f"), "");
	CHECK_STR(cxx_kept_suffix("f.isra.0.constprop.12"), "");
	CHECK_STR(cxx_kept_suffix("f.cold"), ".cold");
	CHECK_STR(cxx_kept_suffix("f.constprop.0.part.3"), ".part.3");
	CHECK_STR(cxx_kept_suffix("f.part.0.cold"), ".part.0.cold");
}

TEST(scoped_match)
{
	CHECK_STR(match("probed_leaf", "acc::probed_leaf"), "probed_leaf");
	CHECK_STR(match("probed_leaf", "acc::inner::probed_leaf"), "probed_leaf");
	CHECK_STR(match("acc::probed_leaf", "acc::probed_leaf"), "acc::probed_leaf");
	CHECK_STR(match("acc::probed_leaf", "acc::inner::probed_leaf"), "(none)");
	CHECK_STR(match("acc::*", "acc::probed_leaf"), "acc::probed_leaf");
	CHECK_STR(match("acc::*", "acc::Worker<long>::run"), "(none)");
	CHECK_STR(match("inner::probed_leaf", "acc::inner::probed_leaf"), "inner::probed_leaf");
	CHECK_STR(match("probed*", "acc::probed_leaf"), "probed_leaf");
	CHECK_STR(match("acc", "acc::probed_leaf"), "(none)");
	/* the global scope is an empty component in front */
	CHECK_STR(match("*::*", "main"), "::main");
	CHECK_STR(match("::main", "main"), "::main");
	CHECK_STR(match("*::*::*", "main"), "(none)");
	CHECK_STR(match("*::*::*", "acc::probed_leaf"), "::acc::probed_leaf");
	CHECK_STR(match("*::*::*", "::hidden"), "::::hidden");
	/* "::" inside template arguments does not split */
	CHECK_STR(match("Worker<*>::run", "acc::Worker<long>::run"), "Worker<long>::run");
	CHECK_STR(match("Worker<long>::run", "acc::Worker<long int>::run"), "(none)");
	CHECK_STR(match("basic_string<*>::size",
			"std::__cxx11::basic_string<char, std::char_traits<char>, "
			"std::allocator<char> >::size"),
		  "basic_string<char, std::char_traits<char>, std::allocator<char> >::size");
	CHECK_STR(match("*::size", "std::vector<std::pair<a::b, c::d> >::size"),
		  "vector<std::pair<a::b, c::d> >::size");
	/* operators whose names hold brackets */
	CHECK_STR(match("*::operator<", "acc::Worker<long>::operator<"), "Worker<long>::operator<");
	CHECK_STR(match("A::operator->", "A::operator->"), "A::operator->");
	CHECK_STR(match("*::operator>>=", "ns::B::operator>>="), "B::operator>>=");
	CHECK_STR(match("std::operator<<*", "std::operator<< <std::char_traits<char> >"),
		  "std::operator<< <std::char_traits<char> >");
	CHECK_STR(match("operator()", "main::{lambda(int)#1}::operator()"), "operator()");
	CHECK_STR(match("{lambda*}::operator()", "main::{lambda(int)#1}::operator()"),
		  "{lambda(int)#1}::operator()");
	CHECK_STR(match("main::*", "main::{lambda(int)#1}::operator()"), "(none)");
	/* no parameter list is ever part of the name */
	CHECK_STR(match("acc::probed_leaf(int)", "acc::probed_leaf"), "(none)");
}

TEST(base_name)
{
	CHECK_STR(cxx_base_name("main"), "main");
	CHECK_STR(cxx_base_name("acc::Worker<long>::operator<"), "operator<");
	CHECK_STR(cxx_base_name("main::{lambda(int)#1}::operator()"), "operator()");
	CHECK_STR(cxx_base_name("std::map<a::b, c>::find"), "find");
	CHECK_STR(cxx_base_name("::hidden"), "hidden");
}

TEST(param_list)
{
	const char *n = "acc::probed_leaf(int)";

	CHECK(cxx_param_list(n) == n + 16);
	CHECK(!cxx_param_list("acc::probed_leaf"));
	CHECK(!cxx_param_list("operator()"));
	CHECK(!cxx_param_list("main::{lambda(int)#1}::operator()"));
	CHECK(!cxx_param_list("Worker<void (*)(int)>::run"));
	n = "A::operator()(int) const";
	CHECK(cxx_param_list(n) == n + 13);
}

int main(void)
{
	unit_prog = "test_cxxname";
	RUN(demangle);
	RUN(kept_suffix);
	RUN(scoped_match);
	RUN(base_name);
	RUN(param_list);
	return unit_done();
}
