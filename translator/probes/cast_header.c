/*
 * cast_header.c - the types of user-space headers, for @cast(p, "type",
 * "<sys/socket.h>"): as stap does, a unit that includes the headers is
 * compiled with the default gcc into a small shared object whose DWARF
 * describes every type they declare (-fno-eliminate-unused-debug-types).
 * It is linked so that libdw reads it without relocating: a .o's DWARF
 * holds its string offsets in relocations. Objects are cached by the
 * headers named, and rebuilt when a header they read is newer.
 */
#include "probes/cast_header.h"
#include "base/base.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "<a.h><b/c.h>" as "#include <a.h>\n#include <b/c.h>\n"; NULL if it is not that. */
static const char *include_lines(const char *spec)
{
	struct strbuf sb = { 0 };
	const char *p = spec, *r;

	while (*p == '<') {
		size_t len = strcspn(p + 1, "<>");

		if (!len || p[1 + len] != '>' || strpbrk(arena_strndup(p + 1, len), " \"\n"))
			break;
		sb_printf(&sb, "#include <%.*s>\n", (int)len, p + 1);
		p += len + 2;
	}
	r = *p || !sb.buf ? NULL : arena_strdup(sb.buf);
	sb_free(&sb);
	return r;
}

static double mtime_of(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	return (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
}

/* Whether OBJ is older than a file its dependency list DEPS (gcc -MD) names, or missing. */
static bool stale(const char *obj, const char *deps)
{
	double built = mtime_of(obj);
	char *text = built < 0 ? NULL : read_file(deps, NULL);
	char *colon = text ? strchr(text, ':') : NULL;

	if (!colon)
		return true;
	for (char *tok = strtok(colon + 1, " \\\n\t"); tok; tok = strtok(NULL, " \\\n\t"))
		if (mtime_of(tok) > built)
			return true;
	return false;
}

/* gcc's first error line in LOG, for the message. */
static const char *first_error(const char *log)
{
	char *text = read_file(log, NULL);
	char *e = text ? strstr(text, "error: ") : NULL;

	if (!e)
		return "gcc failed";
	e += strlen("error: ");
	return arena_strndup(e, strcspn(e, "\n"));
}

const char *cast_header_object(const char *spec, const char **why)
{
	const char *lines = include_lines(spec), *dir, *base, *src, *obj, *tmp, *deps, *log;
	char *argv[16];
	int i = 0;

	if (!lines) {
		*why = "the module must be headers in angle brackets, such as \"<sys/time.h>\" "
		       "or \"<sys/socket.h><netinet/in.h>\"";
		return NULL;
	}
	dir = utap_cache_dir("cast");
	if (!dir) {
		*why = "no cache directory for the compiled headers";
		return NULL;
	}
	base = arena_printf("%s/%016llx", dir, (unsigned long long)hash_str(lines));
	src = arena_printf("%s.c", base);
	obj = arena_printf("%s.so", base);
	deps = arena_printf("%s.d", base);
	if (!stale(obj, deps))
		return obj;
	tmp = arena_printf("%s.so.%d", base, (int)getpid());
	log = arena_printf("%s.log", base);
	if (write_file(src, lines, strlen(lines))) {
		*why = "cannot write the unit that includes them";
		return NULL;
	}
	argv[i++] = "gcc";
	argv[i++] = "-g";
	argv[i++] = "-fno-eliminate-unused-debug-types";
	argv[i++] = "-shared";
	argv[i++] = "-nostdlib";
	argv[i++] = "-fPIC";
	argv[i++] = "-MD";
	argv[i++] = "-MF";
	argv[i++] = (char *)deps;
	argv[i++] = "-o";
	argv[i++] = (char *)tmp;
	argv[i++] = (char *)src;
	argv[i] = NULL;
	if (run_command(argv, log, true) || rename(tmp, obj)) {
		*why = arena_printf("the headers do not compile: %s", first_error(log));
		remove(tmp);
		return NULL;
	}
	return obj;
}
