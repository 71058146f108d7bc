/*
 * py_embed - a program linked with libpython3.11 (PIE: the library and its
 * _PyRuntime land at a random address) running a little Python that calls
 * os.getppid() two functions deep.
 */
#include <Python.h>

static const char code[] =
	"import os\n"
	"def emb_inner():\n"
	"    return os.getppid()\n"
	"def emb_outer():\n"
	"    return emb_inner()\n"
	"emb_outer()\n";

int main(void)
{
	Py_Initialize();
	if (PyRun_SimpleString(code))
		return 1;
	return Py_FinalizeEx() ? 1 : 0;
}
