# The utap program, layer by layer (docs/ARCHITECTURE.md, "Layers"); the
# ELF, kernel-probe, user-probe, regex, trace-format and VM parts add theirs
# in their own fragments.
UTAP_SRCS += translator/base/arena.c translator/base/strbuf.c translator/base/diag.c \
	translator/base/util.c $(BASE_LIB_SRCS) translator/base/command.c \
	translator/front/lexer.c translator/front/preproc.c translator/front/parse.c \
	translator/front/printf_format.c translator/front/ast.c translator/front/dump.c \
	translator/sema/elaborate.c translator/sema/elide_alias.c translator/sema/types.c translator/sema/elide.c \
	translator/sema/listing.c \
	translator/kernel/kbuild.c \
	translator/codegen/emit.c translator/codegen/needs.c translator/codegen/emit_data.c \
	translator/codegen/nesting.c translator/codegen/emit_share.c \
	translator/codegen/ustack.c \
	translator/probes/providers.c translator/probes/begin_end.c \
	translator/runner/run.c translator/runner/tables.c translator/runner/trace/sink.c \
	translator/main.c

# The runtime's pure core in user space.
UNIT_TESTS += test_core
test_core_SRCS := testsuite/unit/test_core.c runtime/core/format.c runtime/core/map.c \
	runtime/core/stats.c

# Passes 1 and 2 on arbitrary input.
FUZZERS += fuzz_translate
fuzz_translate_SRCS := testsuite/fuzz/fuzz_translate.c translator/base/arena.c \
	translator/base/strbuf.c translator/base/diag.c translator/base/util.c $(BASE_LIB_SRCS) \
	translator/front/lexer.c translator/front/preproc.c translator/front/parse.c \
	translator/front/printf_format.c translator/front/ast.c translator/front/dump.c \
	translator/sema/elaborate.c translator/sema/elide_alias.c translator/sema/types.c translator/sema/elide.c \
	translator/probes/begin_end.c
fuzz_translate_CFLAGS := -D_GNU_SOURCE

# The -c command: splitting, the shell line, and why a program cannot start.
UNIT_TESTS += test_command
test_command_SRCS := testsuite/unit/test_command.c translator/base/command.c translator/base/arena.c \
	translator/base/strbuf.c translator/base/diag.c translator/base/util.c $(BASE_LIB_SRCS)

# The layers, from the sources and the objects (testsuite/host/layers.sh):
# a run of `make check` and `make check-unit`.
HOST_CHECKS := testsuite/host/layers.sh
