# benchstats.mk - the micro-benchmark binary of src/hist and src/stats (perf/21-benchstats.sh).
# Built on demand only (never by `make` or `make check`): $(O)/perf-stats.
$(O)/perf-stats: perf/perf-stats.c $(LIB_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_OBJS) $(LDLIBS_ALL)
