/*
 * unwind.h - DWARF unwinding of user stack copies (PERF_SAMPLE_STACK_USER + REGS_USER) with
 * elfutils libdwfl, for code built without frame pointers.
 */
#ifndef LAT_CAPTURE_CPU_UNWIND_H
#define LAT_CAPTURE_CPU_UNWIND_H

#include <stdint.h>
#include <sys/types.h>

struct unwinder;

/* perf_event_attr.sample_regs_user for this architecture; 0 when DWARF unwinding is not
 * supported here (then the sampler records no stack copies). */
uint64_t unwind_regs_mask(void);
/* One unwinder per process. 0, -ENOMEM or LAT_E_UNSUPPORTED. */
int unwinder_new(pid_t pid, struct unwinder **out);
void unwinder_free(struct unwinder *u);
/* Tells the unwinder that ELF file path is mapped with load bias `bias` (runtime address minus
 * link-time address) and lowest link-time PT_LOAD address `first_vaddr`. Repeats are cheap. */
int unwinder_add_module(struct unwinder *u, const char *path, uint64_t bias, uint64_t first_vaddr);
/* Unwinds thread tid from the sampled registers (perf register numbering, as parsed by
 * perf_parse_sample) and stack copy, starting at stack pointer regs[SP]. Writes up to max
 * program counters, leaf first (return addresses as found: the caller subtracts 1 for lookup).
 * Returns the count (>= 1 when the initial PC is known) or a negative error. */
int unwinder_unwind(struct unwinder *u, pid_t tid, const uint64_t *regs, const uint8_t *stack,
                    uint64_t stack_size, uint64_t *pcs, int max);

#endif
