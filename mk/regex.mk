# Regular expressions (=~, !~): compiled by the translator (translator/regex.c),
# matched in the module by a Pike VM (runtime/core/regex.c, pure core).

UTAP_SRCS += translator/regex.c translator/emit_regex.c

# the unit test includes translator/regex.c itself (it checks the parse tree)
UNIT_TESTS += test_regex
test_regex_SRCS := testsuite/unit/test_regex.c runtime/core/regex.c
$(B)/unit/test_regex: translator/regex.c translator/regex_compile.h runtime/core/regex.h

FUZZERS += fuzz_regex
fuzz_regex_SRCS := testsuite/fuzz/fuzz_regex.c translator/regex.c runtime/core/regex.c
$(B)/fuzz/fuzz_regex: translator/regex_compile.h runtime/core/regex.h
