/*
 * fuzz-symbolize.c - libFuzzer target for the CPU sampler's symbol-table inputs: ELF images
 * (our bounds-checked ELF64 reader elfimg.c and the symbol/segment/build-id walk), perf-PID.map JIT
 * maps and /proc/kallsyms text. The first byte picks the parser (E = ELF, M = perf map, K =
 * kallsyms; other values run all three); the rest is the input. Every table built is then queried
 * at a few addresses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cpu/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(struct symtab *t)
{
    uint64_t v, off;
    if (!t) return;
    for (size_t i = 0; i < t->n && i < 8; i++) {
        symtab_lookup(t, t->syms[i].addr, &off);
        symtab_lookup(t, t->syms[i].addr + t->syms[i].size, &off);
    }
    symtab_lookup(t, 0, &off);
    symtab_lookup(t, UINT64_MAX, &off);
    symtab_off_to_vaddr(t, 0x1000, &v);
    symtab_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    char mode = (char)data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    struct symtab *t;
    if (mode == 'E' || (mode != 'M' && mode != 'K')) {
        /* elf_memory wants a writable buffer. */
        uint8_t *copy = malloc(n + 1);
        if (copy) {
            memcpy(copy, p, n);
            if (symtab_load_elf_mem(copy, n, &t) == 0) probe(t);
            free(copy);
        }
    }
    if (mode == 'M' || (mode != 'E' && mode != 'K'))
        if (symtab_parse_perfmap((const char *)p, n, &t) == 0) probe(t);
    if (mode == 'K' || (mode != 'E' && mode != 'M'))
        if (symtab_parse_kallsyms((const char *)p, n, &t) == 0) probe(t);
    return 0;
}
