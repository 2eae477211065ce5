# install.mk - `make install` / `make uninstall` (PREFIX, DESTDIR), the man pages and shell
# completion made from the option tables, and the library directory compiled into latscope.
# What goes where and why: docs/install.md.
#
#   make install                         /usr/local: bin/latscope, lib/latscope/liblatscope-cupti.so,
#                                        share/man/man1/latscope*.1, bash and zsh completion
#   make install PREFIX=/usr DESTDIR=D   staged under D (debian/rules does this)
#   make man completion                  only generate them, into $(O)/man and $(O)/completion

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
PKGLIBDIR  ?= $(LIBDIR)/latscope
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
INSTALL    ?= install

# The library directory compiled into latscope (src/cli-paths.c: the last place it looks for
# liblatscope-cupti.so, for a binary copied out of its tree) is the build's: `make
# PREFIX=/opt/x` records /opt/x/lib/latscope in $(O)/pkglibdir. `make install` keeps what the
# build recorded, so installing never recompiles or relinks: an install under another PREFIX
# still finds the library as ../lib/latscope/ from its bin/.
ifneq ($(filter install uninstall,$(MAKECMDGOALS)),)
BUILT_PKGLIBDIR := $(shell cat $(O)/pkglibdir 2>/dev/null)
endif
BUILD_PKGLIBDIR := $(or $(BUILT_PKGLIBDIR),$(PKGLIBDIR))
$(O)/pkglibdir: FORCE
	@mkdir -p $(O)
	@printf '%s\n' '$(subst ','\'',$(BUILD_PKGLIBDIR))' > $@.tmp; \
	 cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(O)/src/cli-paths.o: src/cli-paths.c $(O)/flags $(O)/pkglibdir
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -DLAT_PKGLIBDIR='"$(subst ','\'',$(BUILD_PKGLIBDIR))"' -c -o $@ $<

# Man pages and completion: written by the binary from the tables its --help prints.
MAN_O  := $(O)/man
COMP_O := $(O)/completion
$(MAN_O)/.stamp: $(BIN)
	@echo "  MAN     $(MAN_O)/"
	$(Q)rm -rf $(MAN_O) && mkdir -p $(MAN_O) && $(BIN) help --man-dir $(MAN_O) && touch $@
$(COMP_O)/latscope.bash: $(BIN)
	@mkdir -p $(COMP_O)
	@echo "  GEN     $@"
	$(Q)$(BIN) help --completion bash > $@.tmp && mv $@.tmp $@
$(COMP_O)/_latscope: $(BIN)
	@mkdir -p $(COMP_O)
	@echo "  GEN     $@"
	$(Q)$(BIN) help --completion zsh > $@.tmp && mv $@.tmp $@

.PHONY: man completion install uninstall install-flags-check
man: $(MAN_O)/.stamp
completion: $(COMP_O)/latscope.bash $(COMP_O)/_latscope

# The CUDA capture library exists only in a build with the toolkit headers (mk/trace.mk).
install: all man completion
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
	    $(DESTDIR)$(ZSHCOMPDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/latscope
	$(Q)if [ -f $(O)/liblatscope-cupti.so ]; then \
	    echo "$(INSTALL) -d $(DESTDIR)$(PKGLIBDIR)"; $(INSTALL) -d $(DESTDIR)$(PKGLIBDIR) && \
	    echo "$(INSTALL) -m 644 $(O)/liblatscope-cupti.so $(DESTDIR)$(PKGLIBDIR)/" && \
	    $(INSTALL) -m 644 $(O)/liblatscope-cupti.so $(DESTDIR)$(PKGLIBDIR)/; \
	 else echo "install: no $(O)/liblatscope-cupti.so (built without $(CUDA_HOME)/include/cupti.h): latscope trace --cuda/--nvtx will be off"; fi
	$(INSTALL) -m 644 $(MAN_O)/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(COMP_O)/latscope.bash $(DESTDIR)$(BASHCOMPDIR)/latscope
	$(INSTALL) -m 644 $(COMP_O)/_latscope $(DESTDIR)$(ZSHCOMPDIR)/_latscope

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/latscope $(DESTDIR)$(PKGLIBDIR)/liblatscope-cupti.so \
	    $(DESTDIR)$(MANDIR)/man1/latscope.1 $(DESTDIR)$(MANDIR)/man1/latscope-*.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/latscope $(DESTDIR)$(ZSHCOMPDIR)/_latscope
	rmdir $(DESTDIR)$(PKGLIBDIR) 2>/dev/null || true

# Exit 0 when $(O) was built with this make's configuration (the compiler and flags line of
# $(O)/flags), so `make install` would not rebuild it (tests/e2e/t820-install.sh).
install-flags-check:
	@printf '%s\n' '$(subst ','\'',$(FLAGS_LINE))' | cmp -s - $(O)/flags
