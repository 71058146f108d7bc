# The utap program: passes 1-5 (the VM and ELF parts have their own fragments).
UTAP_SRCS += translator/main.c translator/base/arena.c translator/base/strbuf.c translator/base/diag.c \
	translator/base/util.c $(BASE_LIB_SRCS) translator/base/command.c translator/front/lexer.c translator/front/preproc.c \
	translator/front/parse.c translator/front/printf_format.c translator/front/ast.c translator/sema/elaborate.c translator/sema/types.c translator/front/dump.c \
	translator/codegen/emit.c translator/codegen/needs.c translator/kernel/kbuild.c translator/runner/run.c translator/sema/listing.c \
	translator/runner/trace/sink.c translator/codegen/ustack.c translator/runner/tables.c \
	translator/probes/providers.c translator/probes/begin_end.c

# The runtime's pure core in user space.
UNIT_TESTS += test_core
test_core_SRCS := testsuite/unit/test_core.c runtime/core/format.c runtime/core/map.c \
	runtime/core/stats.c
UTAP_SRCS += translator/codegen/emit_data.c

# Passes 1 and 2 on arbitrary input.
FUZZERS += fuzz_translate
fuzz_translate_SRCS := testsuite/fuzz/fuzz_translate.c translator/base/arena.c translator/base/strbuf.c \
	translator/base/diag.c translator/base/util.c $(BASE_LIB_SRCS) translator/front/lexer.c translator/front/preproc.c \
	translator/front/parse.c translator/front/printf_format.c translator/front/ast.c translator/sema/elaborate.c translator/sema/types.c \
	translator/front/dump.c translator/probes/begin_end.c
fuzz_translate_CFLAGS := -D_GNU_SOURCE

# The -c command: splitting, the shell line, and why a program cannot start.
UNIT_TESTS += test_command
test_command_SRCS := testsuite/unit/test_command.c translator/base/command.c translator/base/arena.c \
	translator/base/strbuf.c translator/base/diag.c translator/base/util.c $(BASE_LIB_SRCS)
