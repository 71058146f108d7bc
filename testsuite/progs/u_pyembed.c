/*
 * u_pyembed - runs a little Python through libpython3.11.so, loaded with
 * dlopen (Debian's python3 executable has the interpreter linked in, so
 * only an embedding program maps the shared library and its SDT markers).
 * Exits 2 when the library is not installed.
 */
#include <dlfcn.h>
#include <stdio.h>

/*
 * CPython 3.11 fires function__entry only when a frame is entered from C
 * (generators, the top of an eval loop), not for Python-to-Python calls,
 * which it inlines; function__return fires for every frame. Hence a
 * generator next to plain functions.
 */
static const char code[] =
	"def u_pyinner(n):\n"
	"    return n * 2\n"
	"def u_pyouter(n):\n"
	"    return u_pyinner(n) + 1\n"
	"def u_pygen(n):\n"
	"    yield u_pyouter(n)\n"
	"print(next(u_pygen(20)))\n";

int main(void)
{
	void *lib = dlopen("libpython3.11.so.1.0", RTLD_NOW | RTLD_GLOBAL);
	void (*init)(void);
	int (*run)(const char *, void *);
	int (*fini)(void);

	if (!lib) {
		fprintf(stderr, "u_pyembed: %s\n", dlerror());
		return 2;
	}
	*(void **)&init = dlsym(lib, "Py_Initialize");
	*(void **)&run = dlsym(lib, "PyRun_SimpleStringFlags");
	*(void **)&fini = dlsym(lib, "Py_FinalizeEx");
	if (!init || !run || !fini)
		return 2;
	init();
	if (run(code, NULL))
		return 1;
	return fini() ? 1 : 0;
}
