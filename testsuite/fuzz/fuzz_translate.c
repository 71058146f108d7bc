/*
 * fuzz_translate.c - passes 1 and 2 (lexer, preprocessor, parser,
 * elaboration, type inference) on arbitrary script text, with the real
 * tapset library. Only begin/end/never probes resolve, so no input can make
 * the fuzzer read binaries, kernel symbols or boot a guest.
 */
#include "sema/sema.h"
#include "codegen/emit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct provider provider_begin_end;
static const struct probe_family families[] = {
	{ "begin", &provider_begin_end },
	{ "end", &provider_begin_end },
	{ "never", &provider_begin_end },
	{ NULL },
};

static char datadir[4096];

/* pass 3 is not part of this target; the providers' emit hooks never run */
void emit_run_handler(struct strbuf *sb, const struct derived_probe *d, const char *state,
		      const char *indent)
{
	(void)sb;
	(void)d;
	(void)state;
	(void)indent;
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the repository root: the fuzzer runs from it (make check) */
	if (!getcwd(datadir, sizeof(datadir)))
		abort();
	diag_suppress_warnings = true;
	diag_silent = true;
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct session *s;
	char *text;

	arena_reset();
	diag_errors = 0;
	s = arena_alloc(sizeof(*s));
	s->last_pass = 2;
	s->families = families;
	s->datadir = datadir;
	s->krel = "6.1.0-57-amd64";
	s->kbuild = "/lib/modules/6.1.0-57-amd64/build";
	text = arena_strndup((const char *)data, size);
	if (strlen(text) != size)
		return 0;	/* utap refuses scripts with NUL bytes before parsing */
	s->user_file = parse_source(s, source_from_string("<fuzz>", text));
	if (diag_errors || load_tapsets(s))
		return 0;
	elaborate(s);
	return 0;
}
