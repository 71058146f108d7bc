# Python frames in user stacks (pybacktrace(), tapsets/ucontext-python.stp;
# runtime/unwind/pyframes.c; translator/elf/pysyms.c). The module reads
# CPython 3.11's structures at offsets the compiler takes from the installed
# headers: tools/gen_pyoffsets.c writes them into a header, checked in and
# rewritten when the generator or the headers change.

PY311_INC := /usr/include/python3.11

UTAP_SRCS += translator/elf/pysyms.c

runtime/unwind/py311_offsets.h: tools/gen_pyoffsets.c $(wildcard $(PY311_INC)/Python.h \
		$(PY311_INC)/internal/pycore_frame.h $(PY311_INC)/internal/pycore_interp.h \
		$(PY311_INC)/internal/pycore_runtime.h $(PY311_INC)/cpython/code.h)
	@mkdir -p $(B)/tools
	$(CC) $(CSTD) $(WARN) -I$(PY311_INC) -o $(B)/tools/gen_pyoffsets $<
	$(B)/tools/gen_pyoffsets > $@.tmp && mv $@.tmp $@

ALL_EXTRA += runtime/unwind/py311_offsets.h

# Target programs: one that only looks like CPython 3.12 (its symbols
# exported), one that embeds libpython3.11.
$(B)/progs/py_fake312: testsuite/progs/py_fake312.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -rdynamic -o $@ $<

$(B)/progs/py_embed: testsuite/progs/py_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -I$(PY311_INC) -o $@ $< -lpython3.11

# The location table decoder against CPython's own co_lines() of real code.
UNIT_TESTS += test_pyline
test_pyline_SRCS := testsuite/unit/test_pyline.c runtime/unwind/pyline.c
test_pyline_CFLAGS := -DPYLINE_VECTORS='"$(abspath $(B))/unit/pyline.vec"'
$(B)/unit/test_pyline: $(B)/unit/pyline.vec runtime/unwind/pyline.h

$(B)/unit/pyline.vec: testsuite/unit/pyline_vectors.py
	@mkdir -p $(dir $@)
	/usr/bin/python3.11 $< $@.tmp && mv $@.tmp $@

FUZZERS += fuzz_pyline
fuzz_pyline_SRCS := testsuite/fuzz/fuzz_pyline.c runtime/unwind/pyline.c

# pybacktrace() strings read back (pyfolded(), the pprof writer's Python frames)
FUZZERS += fuzz_pytext
fuzz_pytext_SRCS := testsuite/fuzz/fuzz_pytext.c runtime/unwind/pytext.c
$(B)/fuzz/fuzz_pytext: runtime/unwind/pytext.h
