/*
 * py_fake312 - looks like CPython 3.12 to pybacktrace(): the dynamic
 * symbols it looks for, exported (-rdynamic), with 3.12's Py_Version.
 * Makes one getppid() call for a probe to catch.
 */
#include <unistd.h>

const unsigned long Py_Version = 0x030c00f0;	/* 3.12.0 final */
char _PyRuntime[4096];
char PyCode_Type[256], PyUnicode_Type[256], PyBytes_Type[256];

int main(void)
{
	return getppid() > 0 ? 0 : 1;
}
