# The fp_* tapset functions' binary64 arithmetic in integers (runtime/core/softfp.c,
# pure core), checked against the host's FPU.

UNIT_TESTS += test_softfp
test_softfp_SRCS := testsuite/unit/test_softfp.c
test_softfp_LIBS := -lm
$(B)/unit/test_softfp: runtime/core/softfp.c runtime/core/port.h
