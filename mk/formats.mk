# Trace output formats (issue 7).
#
#   runtime/formats/      pure-core streaming encoders (qtrace, lackey)
#   translator/formats/   the readers (qtrace)

FMT_RT_SRCS   := runtime/formats/qtrace.c runtime/formats/lackey.c runtime/formats/stream.c
FMT_HDRS      := $(wildcard runtime/formats/*.h translator/formats/*.h runtime/itrace/*.h)

# --- unit tests ---------------------------------------------------------------

UNIT_TESTS += test_fmt_stream
test_fmt_stream_SRCS := testsuite/unit/test_fmt_stream.c $(FMT_RT_SRCS) translator/formats/qtrace_read.c
$(B)/unit/test_fmt_stream: $(FMT_HDRS)
