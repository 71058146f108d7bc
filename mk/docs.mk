# docs.mk - man pages, examples, shell completion and `make install`.
#
#   make man        build/man/utap-tapsets.7, generated from the tapsets' doc
#                   comments by docs/man/tapsetdoc (the other pages are sources)
#   make check-man  every page through groff's warnings
#   make install    PREFIX (default /usr/local) and DESTDIR:
#                     PREFIX/bin/utap
#                     PREFIX/lib/utap/utap-vminit          the guest's /init
#                     PREFIX/share/utap/{runtime,tapsets}  what modules are built from
#                     PREFIX/share/utap/examples
#                     PREFIX/share/man/man{1,5,7}
#                     PREFIX/share/bash-completion/completions/utap
#                   utap finds the rest relative to its own path, so a DESTDIR
#                   tree works where it is.
#   make deps-npm   the flame graph renderer (stackvis, from the npm registry);
#                   part of `make deps`

MAN_PAGES  := docs/man/utap.1 docs/man/utap-probes.7 docs/man/utap-formats.5
MAN_GEN    := $(B)/man/utap-tapsets.7
TAPSETDOC  := $(B)/tapsetdoc
ALL_EXTRA  += $(MAN_GEN)

UTAP_VERSION_NUM = $(shell sed -n 's/^\#define UTAP_VERSION "\(.*\)"/\1/p' translator/base/base.h)

$(TAPSETDOC): docs/man/tapsetdoc.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ $<

$(MAN_GEN): $(TAPSETDOC) $(wildcard tapsets/*.stp) translator/base/base.h
	@mkdir -p $(dir $@)
	$(TAPSETDOC) -V $(UTAP_VERSION_NUM) $(sort $(wildcard tapsets/*.stp)) > $@.tmp
	@mv $@.tmp $@

.PHONY: man check-man deps-npm
man: $(MAN_GEN)

# groff -ww: every warning; -z: no output. Any message fails.
check-man: $(MAN_GEN)
	@for p in $(MAN_PAGES) $(MAN_GEN); do \
		msg=$$(groff -ww -man -z $$p 2>&1); \
		if [ -n "$$msg" ]; then echo "$$p: $$msg"; exit 1; fi; \
	done; echo "man pages: no warnings"

INSTALL_RUNTIME = $(shell find runtime -name '*.[ch]' | sort)

install: all $(MAN_GEN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/utap \
		$(DESTDIR)$(PREFIX)/share/utap/tapsets $(DESTDIR)$(PREFIX)/share/utap/examples \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/man/man7 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(B)/utap $(DESTDIR)$(PREFIX)/bin/utap
	install -m 755 $(B)/utap-vminit $(DESTDIR)$(PREFIX)/lib/utap/utap-vminit
	rm -rf $(DESTDIR)$(PREFIX)/share/utap/runtime
	for f in $(INSTALL_RUNTIME); do \
		install -D -m 644 $$f $(DESTDIR)$(PREFIX)/share/utap/$$f || exit 1; \
	done
	install -m 644 tapsets/*.stp tapsets/*.stpm $(DESTDIR)$(PREFIX)/share/utap/tapsets/
	install -m 644 examples/*.stp $(DESTDIR)$(PREFIX)/share/utap/examples/
	install -m 644 docs/man/utap.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/man/utap-formats.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 docs/man/utap-probes.7 $(MAN_GEN) $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 644 completion/utap.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/utap

# The SVG renderer of the flame-graph test and README: stackvis's
# `flamegraph` command (collapsed stacks with ',' between frames).
STACKVIS := stackvis@0.5.0

# (make deps runs this after its apt-get step; Debian's nodejs comes without npm)
deps-npm:
	@command -v npm > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends npm
	@if [ -x "$$(npm root -g 2>/dev/null)/stackvis/cmd/flamegraph" ]; then \
		echo "utap: the flame graph renderer (stackvis) is installed"; \
	else \
		echo "utap: installing $(STACKVIS) from the npm registry"; \
		npm install -g --ignore-scripts --no-audit --no-fund $(STACKVIS); \
	fi
