# trace.mk - `latscope trace`: the CUDA/NVTX injection library and the CUPTI-aware objects.
#
# liblatscope-cupti.so is built next to the CLI ($(O)/liblatscope-cupti.so, where latscope
# looks after $LATSCOPE_CUPTI_SO; mk/install.mk installs it, docs/install.md) whenever the CUDA toolkit headers exist (HAVE_CUPTI = 1). It is never
# sanitized (an instrumented library cannot be injected into an uninstrumented host) and it
# loads libcupti with dlopen, so a missing libcupti or driver disables capture, not the target.
# Its sources that do not need CUPTI at run time (capfile.c, cupti_conv.c) are also part of
# the CLI and the unit tests, so they get sanitizer and fuzz coverage there.

CUPTI_INC := -isystem $(CUDA_HOME)/include

ifeq ($(HAVE_CUPTI),1)
# The record converter and its tests read cupti_activity.h.
$(O)/src/capture/cupti_conv.o: CFLAGS_ALL += $(CUPTI_INC)
# `latscope version` names CUPTI's API version (cupti_version.h).
$(O)/src/core/features.o: CFLAGS_ALL += $(CUPTI_INC)
$(O)/tests/unit/test-cupti.o: CFLAGS_ALL += $(CUPTI_INC)

PRELOAD_LIB  := $(O)/liblatscope-cupti.so
PRELOAD_O    := $(O)/preload-obj
PRELOAD_ALL  := $(PRELOAD_SRCS) src/capture/capfile.c src/capture/cupti_conv.c
PRELOAD_OBJS := $(patsubst %.c,$(PRELOAD_O)/%.o,$(PRELOAD_ALL))
# Own flags: no sanitizer, no CFLAGS from the command line (the fuzz build passes some).
PRELOAD_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O2 $(WARN) -Isrc -MMD -MP $(FEATURES) $(CUPTI_INC) \
                  -fPIC -fvisibility=hidden -fno-omit-frame-pointer -D_FORTIFY_SOURCE=2 \
                  -DLAT_PRELOAD=1

$(PRELOAD_O)/%.o: %.c $(O)/flags
	@mkdir -p $(dir $@)
	@echo "  CC [so] $<"
	$(Q)$(CC) $(PRELOAD_CFLAGS) -c -o $@ $<

$(PRELOAD_LIB): $(PRELOAD_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,--no-undefined -Wl,-z,defs -Wl,-soname,liblatscope-cupti.so \
	    -o $@ $^ -ldl -lpthread

# Built with the CLI (order-only: it is not linked into latscope).
$(BIN): | $(PRELOAD_LIB)
all: $(PRELOAD_LIB)
endif
