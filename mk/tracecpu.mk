# tracecpu.mk - the CPU sampler's test driver (tests/progs/cpuprof-run.c), linked with the
# library objects; used by perf/30-cpuprof.sh and tests that exercise the library directly.
$(O)/cpuprof-run: $(O)/tests/progs/cpuprof-run.o $(LIB_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)
# Built with the CLI so the e2e tests find it next to $LATSCOPE.
all: $(O)/cpuprof-run
# The live-sampling unit test checks callers of its own spin functions: with frame pointers
# the kernel's callchain finds them in every build, also one without libdw (no DWARF unwinding).
$(O)/tests/unit/test-cpuprof.o: CFLAGS_ALL += -fno-omit-frame-pointer
