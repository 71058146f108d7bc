# Regular expressions (=~, !~): compiled by the translator (translator/codegen/regex.c),
# matched in the module by a Pike VM (runtime/core/regex.c, pure core).

UTAP_SRCS += translator/codegen/regex.c translator/codegen/emit_regex.c

# the unit test includes translator/codegen/regex.c itself (it checks the parse tree)
UNIT_TESTS += test_regex
test_regex_SRCS := testsuite/unit/test_regex.c runtime/core/regex.c
$(B)/unit/test_regex: translator/codegen/regex.c translator/codegen/regex_compile.h runtime/core/regex.h

FUZZERS += fuzz_regex
fuzz_regex_SRCS := testsuite/fuzz/fuzz_regex.c translator/codegen/regex.c runtime/core/regex.c
$(B)/fuzz/fuzz_regex: translator/codegen/regex_compile.h runtime/core/regex.h
