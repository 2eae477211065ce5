# latscope - one non-recursive GNU Makefile.
#
#   make                      release build (-O2 -g) -> ./latscope
#   make DEBUG=1              -O0 -g3 (and -Werror)
#   make WERROR=1             warnings are errors (default in DEBUG builds and when CI=true/1)
#   make SAN=address,undefined test     sanitized build in build-san/ and its tests
#   make test                 unit + end-to-end tests of the current configuration
#   make check                deps, build, unit + e2e + sanitizer + fuzz-corpus tests, one summary
#   make check-truth          the heavy truth checks make check skips (torch from PyPI, ~1.8 GB)
#   make demo                 deps, build, the end-to-end demo
#   make perf                 benchmarks (prints a table; never part of check)
#   make interop              bench against real servers (llama-cpp-python, FastAPI+onnxruntime)
#                             side by side with aiperf; pip installs into build/ (never part of check)
#   make fuzz CC=clang        libFuzzer targets, each run FUZZ_SECONDS
#   make format / format-check
#
# Feature-specific rules (the capture library, fixtures) live in mk/*.mk, included below.

CC        ?= cc
O         ?= $(if $(SAN),build-san,build)
V         ?= 0
Q         := $(if $(filter 1,$(V)),,@)
CUDA_HOME ?= /usr/local/cuda

# -Werror only where a warning is ours to fix at once: DEBUG builds, CI (CI=true or CI=1 in the
# environment, as CI services set it) and WERROR=1 (scripts/check.sh, so `make check` fails on a
# warning). A user's plain `make` with a newer compiler that warns about something new still
# builds. WERROR=0 turns it off everywhere.
WERROR ?= $(if $(filter 1,$(DEBUG))$(filter true 1,$(CI)),1,0)
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
        -Wformat-security -Wpointer-arith -Wcast-qual -Wvla -Wnull-dereference \
        -Wimplicit-fallthrough -Wundef -Wno-unused-parameter $(if $(filter 1,$(WERROR)),-Werror)
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -g $(WARN) -Isrc -MMD -MP
ifeq ($(DEBUG),1)
BASE_CFLAGS += -O0 -g3
else
BASE_CFLAGS += -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong
endif
ifneq ($(SAN),)
BASE_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_LDFLAGS := -fsanitize=$(SAN)
endif

# Required Debian packages (scripts/deps.sh installs them): zlib, OpenSSL.
# Optional ones are probed; a missing one turns its feature off (LAT_HAVE_<NAME> = 0).
REQ_PKGS := zlib openssl
OPT_PKGS := libdw libdeflate sqlite3 libisal ompi-c libnghttp2
have_pkg  = $(shell pkg-config --exists $(1) 2>/dev/null && echo 1 || echo 0)
HAVE_LIBDW      := $(call have_pkg,libdw)
HAVE_LIBDEFLATE := $(call have_pkg,libdeflate)
HAVE_SQLITE3    := $(call have_pkg,sqlite3)
HAVE_ISAL       := $(call have_pkg,libisal)
HAVE_NGHTTP2    := $(if $(filter 0,$(NGHTTP2)),0,$(call have_pkg,libnghttp2))
# Open MPI (libopenmpi-dev): `bench --mpi` (src/bench/mpi.c, compiled only with it). MPI=0
# builds without it even when installed.
HAVE_MPI        := $(if $(filter 0,$(MPI)),0,$(call have_pkg,ompi-c))
HAVE_CUPTI      := $(shell test -f $(CUDA_HOME)/include/cupti.h && echo 1 || echo 0)
USED_PKGS := $(REQ_PKGS) $(if $(filter 1,$(HAVE_LIBDW)),libdw libelf) \
             $(if $(filter 1,$(HAVE_LIBDEFLATE)),libdeflate) $(if $(filter 1,$(HAVE_SQLITE3)),sqlite3) \
             $(if $(filter 1,$(HAVE_ISAL)),libisal) $(if $(filter 1,$(HAVE_MPI)),ompi-c) \
             $(if $(filter 1,$(HAVE_NGHTTP2)),libnghttp2)
PKG_CFLAGS := $(shell pkg-config --cflags $(USED_PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(USED_PKGS) 2>/dev/null)
FEATURES   := -DLAT_HAVE_LIBDW=$(HAVE_LIBDW) -DLAT_HAVE_LIBDEFLATE=$(HAVE_LIBDEFLATE) \
              -DLAT_HAVE_SQLITE3=$(HAVE_SQLITE3) -DLAT_HAVE_CUPTI=$(HAVE_CUPTI) \
              -DLAT_HAVE_ISAL=$(HAVE_ISAL) -DLAT_HAVE_MPI=$(HAVE_MPI) \
              -DLAT_HAVE_NGHTTP2=$(HAVE_NGHTTP2)

CFLAGS_ALL := $(BASE_CFLAGS) $(FEATURES) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -lpthread -lm $(LDLIBS)
LDFLAGS_ALL := $(SAN_LDFLAGS) $(LDFLAGS)

# Every .c under src/ except the injection/preload library is part of the CLI. The unit-test
# binary links the same objects minus main.o.
SRCS      := $(sort $(wildcard src/*.c src/*/*.c src/*/*/*.c))
PRELOAD_SRCS := $(filter src/preload/%,$(SRCS))
ifneq ($(HAVE_MPI),1)
SRCS      := $(filter-out src/bench/mpi.c,$(SRCS))
endif
CLI_SRCS  := $(filter-out $(PRELOAD_SRCS),$(SRCS))
CLI_OBJS  := $(patsubst %.c,$(O)/%.o,$(CLI_SRCS)) $(O)/version.o
LIB_OBJS  := $(filter-out $(O)/src/main.o,$(CLI_OBJS))
TEST_SRCS := $(sort $(wildcard tests/unit/*.c))
TEST_OBJS := $(patsubst %.c,$(O)/%.o,$(TEST_SRCS))
BIN       := $(O)/latscope
UNIT_BIN  := $(O)/unit-tests

.PHONY: all test unit e2e check check-truth demo perf interop fuzz fuzz-build fuzz-campaign fuzz-mutate format format-check clean deps
.DEFAULT_GOAL := all

all: $(BIN)
ifeq ($(O),build)
	$(Q)ln -sf build/latscope latscope
endif

$(BIN): $(CLI_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(UNIT_BIN): $(TEST_OBJS) $(LIB_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(O)/%.o: %.c $(O)/flags
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# The compiler and flags of this configuration, feature probes (LAT_HAVE_*) included. Objects
# depend on it and it is rewritten only when it changes, so installing libdw (or changing CC,
# CFLAGS, DEBUG, SAN, WERROR) rebuilds everything, and an unchanged configuration nothing.
FLAGS_LINE := $(CC) $(CFLAGS_ALL) | $(LDFLAGS_ALL) $(LDLIBS_ALL)
$(O)/flags: FORCE
	@mkdir -p $(O)
	@printf '%s\n' '$(subst ','\'',$(FLAGS_LINE))' > $@.tmp; \
	 cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(O)/tests/unit/%.o: CFLAGS_ALL += -Itests/unit -Wno-missing-prototypes

# The version comes from git describe, or LAT_VERSION when given (debian/rules passes the
# package version: a source tree without .git has nothing to describe); the file is rewritten
# only when it changes.
LAT_VERSION ?=
$(O)/version.c: FORCE
	@mkdir -p $(O)
	@v='$(LAT_VERSION)'; [ -n "$$v" ] || v=$$(git describe --tags --always --dirty 2>/dev/null || echo unknown); \
	 printf 'const char lat_version[] = "%s";\n' "$$v" > $@.tmp; \
	 cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(O)/version.o: $(O)/version.c $(O)/flags
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<
.PHONY: FORCE
FORCE:

unit: $(UNIT_BIN)
	$(Q)LATSCOPE_SRCDIR=$(CURDIR) $(UNIT_BIN)

# e2e: E2E_ARGS passes run.sh options and filters, e.g. make e2e E2E_ARGS="-j 4 bench"
e2e: all
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) LATSCOPE_SRCDIR=$(CURDIR) tests/e2e/run.sh $(E2E_ARGS)

test: $(BIN) $(UNIT_BIN)
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) LATSCOPE_SRCDIR=$(CURDIR) UNIT_BIN=$(CURDIR)/$(UNIT_BIN) \
	    tests/run-suites.sh unit e2e

deps:
	$(Q)scripts/deps.sh

# check: the README's test command. Everything, one closing line "N passed, N failed, N skipped".
check: deps
	$(Q)scripts/check.sh

# check-truth: the heavy truth checks (e2e scripts marked "# truth:", e.g. t158: torch from PyPI,
# ~1.8 GB once) that `make check` skips; same closing line. CI runs it after `make check`.
check-truth: all
	$(Q)LATSCOPE=$(CURDIR)/$(BIN) LATSCOPE_SRCDIR=$(CURDIR) E2E_TRUTH=1 tests/e2e/run.sh $(E2E_ARGS)

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)LATSCOPE=$(CURDIR)/build/latscope demo/run.sh

perf: all
	$(Q)LATSCOPE=$(CURDIR)/build/latscope perf/run.sh

# interop: latscope bench against llama-cpp-python's server and FastAPI + onnxruntime, with aiperf on
# the same workloads (docs/interop.md). Installs from PyPI into build/interop-venv* (llama-cpp-python
# builds llama.cpp: slow, once); results in build/interop/. Exit 77 = skipped (no PyPI, no venv).
interop: all
	$(Q)LATSCOPE_DEPS_INTEROP=1 scripts/deps.sh
	$(Q)LATSCOPE=$(CURDIR)/build/latscope tests/interop/run.sh

# libFuzzer targets: tests/fuzz/fuzz-<name>.c, each linked with the library objects built by
# clang with -fsanitize=fuzzer-no-link. Corpus: tests/fuzz/corpus/<name>/.
FUZZ_O       := build-fuzz
FUZZ_SECONDS ?= 30
FUZZ_SRCS    := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(FUZZ_O)/%,$(FUZZ_SRCS))
fuzz-build:
	$(Q)$(MAKE) --no-print-directory O=$(FUZZ_O) CC=clang \
	    CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -DLAT_FUZZING=1" \
	    LDFLAGS="-fsanitize=address,undefined" $(FUZZ_O)/libobjs.stamp $(FUZZ_BINS)
$(FUZZ_O)/libobjs.stamp: $(LIB_OBJS)
	@touch $@
$(FUZZ_O)/fuzz-%: tests/fuzz/fuzz-%.c $(LIB_OBJS)
	@echo "  FUZZ    $@"
	$(Q)$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) $(LDLIBS_ALL)
fuzz: fuzz-build
	$(Q)for f in $(FUZZ_BINS); do n=$$(basename $$f); n=$${n#fuzz-}; \
	    mkdir -p tests/fuzz/corpus/$$n $(FUZZ_O)/corpus/$$n; \
	    echo "== $$f ($(FUZZ_SECONDS) s)"; \
	    $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        $(FUZZ_O)/corpus/$$n tests/fuzz/corpus/$$n || exit 1; done

# fuzz-campaign: every target SECONDS each, JOBS at once (nice 19), new corpus merged back, one row
# per target appended to docs/fuzz-ledger.tsv and the cumulative table of docs/testing.md rewritten.
# fuzz-mutate: mutated real files from ../shared/traces through the sanitizer build, SECONDS long.
fuzz-campaign:
	$(Q)tests/tools/fuzz-campaign.sh -s $(or $(SECONDS),60) $(if $(JOBS),-j $(JOBS))
fuzz-mutate:
	$(Q)$(MAKE) --no-print-directory SAN=address,undefined all
	$(Q)tests/tools/mutate-real.py --seconds $(or $(SECONDS),60)

FORMAT_FILES = $(shell find src tests -name '*.[ch]' -not -path 'tests/fuzz/corpus/*' 2>/dev/null)
format:
	$(Q)clang-format-14 -i $(FORMAT_FILES)
format-check:
	$(Q)clang-format-14 --dry-run -Werror $(FORMAT_FILES) && echo "format: clean"

clean:
	rm -rf build build-san build-fuzz build-debug latscope

-include mk/*.mk
-include $(shell find $(O) -name '*.d' 2>/dev/null)
