/*
 * symtab.h - symbol tables for the CPU sampler: ELF files (.symtab, else .dynsym, else the
 * separate debug file found by build-id), perf-PID.map JIT maps and /proc/kallsyms.
 *
 * All three load into the same struct symtab: function symbols sorted by address, names in one
 * pool owned by the table. ELF tables also keep their PT_LOAD segments so a file offset (what
 * an mmap record gives) converts to the link-time address the symbols use.
 */
#ifndef LAT_CAPTURE_CPU_SYMTAB_H
#define LAT_CAPTURE_CPU_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym {
    uint64_t addr, size;
    uint32_t name; /* offset into names */
};

struct symseg {
    uint64_t off, vaddr, filesz;
};

struct symtab {
    struct sym *syms;
    size_t n, cap;
    char *names;
    size_t names_len, names_cap;
    struct symseg segs[16];
    unsigned nsegs;
    uint8_t build_id[20];
    unsigned build_id_len;
    bool from_debug_file; /* symbols came from /usr/lib/debug/.build-id/... */
    bool dynsym_only;     /* only .dynsym was available */
};

/* Parses an ELF image in memory. *out is freed with symtab_free(). 0, -ENOMEM or
 * LAT_E_UNSUPPORTED (not a 64-bit ELF file of this byte order) or LAT_E_TRUNCATED. */
int symtab_load_elf_mem(const void *data, size_t len, struct symtab **out);
/* Loads an ELF file; when it has no .symtab, the debug file named by its build-id
 * (/usr/lib/debug/.build-id/xx/yyyy.debug) is tried for symbols. 0 or -errno/LAT_E_*. */
int symtab_load_elf(const char *path, struct symtab **out);
/* Parses perf-PID.map text ("START SIZE name" lines, hex). Bad lines are skipped. */
int symtab_parse_perfmap(const char *text, size_t len, struct symtab **out);
/* Parses /proc/kallsyms text (text symbols only; all-zero addresses give an empty table). */
int symtab_parse_kallsyms(const char *text, size_t len, struct symtab **out);
/* Reads a whole file (at most max bytes) into a malloc'ed NUL-terminated buffer. */
int symtab_read_file(const char *path, size_t max, char **text, size_t *len);
void symtab_free(struct symtab *t);

/* Name of the function containing addr (link-time address), or NULL; *off gets addr minus
 * the symbol start. The string lives as long as the table. */
const char *symtab_lookup(const struct symtab *t, uint64_t addr, uint64_t *off);
/* Converts a file offset to a link-time address through the PT_LOAD segments; returns false
 * when no segment covers it. */
bool symtab_off_to_vaddr(const struct symtab *t, uint64_t off, uint64_t *vaddr);

#endif
