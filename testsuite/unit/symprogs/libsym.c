/*
 * libsym.c - a shared library with versioned symbols: lib_ver@VERS_1 and
 * lib_ver@@VERS_2 sit on their own implementations, the way libc's
 * __libc_start_main@GLIBC_2.2.5 does, plus a plain function and data.
 */
int lib_data = 42;

__attribute__((noinline)) int lib_func(int x)
{
	return x * lib_data + 7;
}

__attribute__((noinline)) int lib_ver_old(int x)
{
	return lib_func(x) + 1;
}

__attribute__((noinline)) int lib_ver_new(int x)
{
	return lib_func(x) + 2;
}

__asm__(".symver lib_ver_old, lib_ver@VERS_1");
__asm__(".symver lib_ver_new, lib_ver@@VERS_2");
