/*
 * elfimg.h - a small, bounds-checked reader of 64-bit little-endian ELF images (executables,
 * shared objects, separate debug files) for the CPU sampler's symbol tables and the Python
 * reader's symbol lookups. Needs no library: symbolization works in every build, and libdw
 * (when present) is used only for DWARF unwinding.
 *
 * Every offset, size and string is checked against the image before it is read; values are
 * copied out with memcpy, so an unaligned buffer (a fuzzer's) is fine. Hostile images yield
 * LAT_E_UNSUPPORTED / LAT_E_TRUNCATED or fewer symbols, never a read outside the image.
 */
#ifndef LAT_CAPTURE_CPU_ELFIMG_H
#define LAT_CAPTURE_CPU_ELFIMG_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfimg {
    const uint8_t *data;
    size_t len;
    void *map; /* mmap of a file (elfimg_open), else NULL */
    size_t map_len;
    Elf64_Ehdr eh;
    uint64_t shnum, shstrndx;
};

/* Checks the header of an image in memory (kept by reference: it must outlive the reader).
 * 0, or LAT_E_UNSUPPORTED (not ELF64 of this byte order) / LAT_E_TRUNCATED. */
int elfimg_init_mem(struct elfimg *e, const void *data, size_t len);
/* Maps a file read-only and checks it; 0 or -errno / LAT_E_*. Close with elfimg_close(). */
int elfimg_open(struct elfimg *e, const char *path);
void elfimg_close(struct elfimg *e);

/* Section header i, false when out of range or outside the image. */
bool elfimg_shdr(const struct elfimg *e, uint64_t i, Elf64_Shdr *sh);
/* Program header i (i < e_phnum), false when outside the image. */
bool elfimg_phdr(const struct elfimg *e, uint64_t i, Elf64_Phdr *ph);
/* The bytes [off, off+len) of the image, NULL when they are not all inside it. */
const uint8_t *elfimg_bytes(const struct elfimg *e, uint64_t off, uint64_t len);
/* NUL-terminated string at offset `off` of string-table section `sec`, NULL when the section
 * is not a string table in the image or the string does not end inside it. */
const char *elfimg_str(const struct elfimg *e, uint64_t sec, uint64_t off);
/* Name of section sh (from the section-header string table), NULL when unreadable. */
const char *elfimg_section_name(const struct elfimg *e, const Elf64_Shdr *sh);

/* Calls fn for every symbol of every section of type `type` (SHT_SYMTAB or SHT_DYNSYM) with
 * its name (never NULL or empty); stops early and returns fn's value when it is non-zero.
 * Returns 0 when done. */
typedef int (*elfimg_sym_fn)(void *arg, const Elf64_Sym *s, const char *name);
int elfimg_foreach_sym(const struct elfimg *e, uint32_t type, elfimg_sym_fn fn, void *arg);

/* The GNU build-id (from the PT_NOTE segments): its length (0 when none), at most max bytes. */
unsigned elfimg_build_id(const struct elfimg *e, uint8_t *out, unsigned max);

#endif
