/*
 * symtab.c - ELF, perf-map and kallsyms symbol tables (see symtab.h).
 *
 * ELF is read with our own bounds-checked reader (elfimg.c, no library needed, so every build
 * symbolizes): the section headers are walked once, function symbols
 * (STT_FUNC, STT_GNU_IFUNC, defined, non-zero address) are copied into our own sorted array
 * and the Elf handle is closed, so a table costs ~20 bytes per symbol plus names and holds no
 * fd. .symtab wins over .dynsym; a stripped file with a build-id gets its symbols from the
 * Debian -dbgsym layout (/usr/lib/debug/.build-id/ab/cdef....debug) when that file exists.
 * Aliases at one address keep the global name (sorted by address, then binding).
 * perf-PID.map and kallsyms are line-oriented text: each line is validated on its own and bad
 * lines are skipped, so a half-written JIT map never fails the whole capture.
 * Everything here also runs under the libFuzzer target tests/fuzz/fuzz-symbolize.c.
 */
#include "capture/cpu/symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/cpu/elfimg.h"
#include "core/err.h"
#include "core/grow.h"

/* Binding rank used to order aliases: global first. */
struct sym_tmp {
    struct sym s;
    int rank;
};

static int add_name(struct symtab *t, const char *s, size_t n, uint32_t *off)
{
    if (n > 4096) n = 4096;
    int rc = LAT_GROW(t->names, t->names_cap, t->names_len, n + 1, 4096);
    if (rc) return rc;
    memcpy(t->names + t->names_len, s, n);
    for (size_t i = 0; i < n; i++) {
        /* ';' separates frames in folded stacks and '\n' ends a line: keep names safe. */
        char c = t->names[t->names_len + i];
        if (c == ';' || c == '\n' || c == '\r' || c == '\0') t->names[t->names_len + i] = ':';
    }
    t->names[t->names_len + n] = '\0';
    *off = (uint32_t)t->names_len;
    t->names_len += n + 1;
    return 0;
}

static int add_sym(struct symtab *t, uint64_t addr, uint64_t size, const char *name, size_t n)
{
    int rc = LAT_GROW(t->syms, t->cap, t->n, 1, 256);
    if (rc) return rc;
    uint32_t off;
    rc = add_name(t, name, n, &off);
    if (rc) return rc;
    t->syms[t->n++] = (struct sym){addr, size, off};
    return 0;
}

static int cmp_sym(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    /* Larger size first so the dedupe below keeps the symbol that covers most. */
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    return x->name < y->name ? -1 : (x->name > y->name);
}

/* Sorts and drops aliases (same address): the first kept wins (the caller adds preferred
 * names first, e.g. globals before locals). */
static void finish(struct symtab *t)
{
    if (!t->n) return;
    qsort(t->syms, t->n, sizeof(*t->syms), cmp_sym);
    size_t w = 1;
    for (size_t i = 1; i < t->n; i++) {
        if (t->syms[i].addr == t->syms[w - 1].addr) continue;
        t->syms[w++] = t->syms[i];
    }
    t->n = w;
}

static struct symtab *symtab_alloc(void)
{
    return calloc(1, sizeof(struct symtab));
}

void symtab_free(struct symtab *t)
{
    if (!t) return;
    free(t->syms);
    free(t->names);
    free(t);
}

const char *symtab_lookup(const struct symtab *t, uint64_t addr, uint64_t *off)
{
    if (!t || !t->n || addr < t->syms[0].addr) return NULL;
    size_t lo = 0, hi = t->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->syms[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    const struct sym *s = &t->syms[lo];
    /* A sized symbol covers [addr, addr+size); a zero-sized one (hand-written asm, some JIT
     * maps) covers up to the next symbol, but at most 64 KiB. */
    uint64_t d = addr - s->addr;
    if (s->size ? d >= s->size : d >= 65536) return NULL;
    if (off) *off = d;
    return t->names + s->name;
}

bool symtab_off_to_vaddr(const struct symtab *t, uint64_t off, uint64_t *vaddr)
{
    for (unsigned i = 0; i < t->nsegs; i++) {
        const struct symseg *s = &t->segs[i];
        if (off >= s->off && off - s->off < s->filesz) {
            *vaddr = off - s->off + s->vaddr;
            return true;
        }
    }
    return false;
}

/* Loadable segments and the GNU build-id. */
static void read_segs_and_id(const struct elfimg *e, struct symtab *t)
{
    for (uint64_t i = 0; i < e->eh.e_phnum && t->nsegs < 16; i++) {
        Elf64_Phdr ph;
        if (elfimg_phdr(e, i, &ph) && ph.p_type == PT_LOAD)
            t->segs[t->nsegs++] = (struct symseg){ph.p_offset, ph.p_vaddr, ph.p_filesz};
    }
    t->build_id_len = elfimg_build_id(e, t->build_id, sizeof(t->build_id));
}

struct sym_walk {
    struct symtab *t;
    int pass, added, err;
};

static int sym_cb(void *arg, const Elf64_Sym *s, const char *name)
{
    struct sym_walk *w = arg;
    int ty = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    if ((ty != STT_FUNC && ty != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF || !s->st_value)
        return 0;
    if ((w->pass == 0) != (bind == STB_GLOBAL)) return 0;
    /* "memcpy@@GLIBC_2.14": the version suffix is noise in a profile. */
    const char *at = strchr(name, '@');
    size_t len = at && at > name ? (size_t)(at - name) : strlen(name);
    int rc = add_sym(w->t, s->st_value, s->st_size, name, len);
    if (rc) return rc;
    w->added++;
    return 0;
}

/* Adds the function symbols of section type `type` (SHT_SYMTAB or SHT_DYNSYM). Returns the
 * number added or -errno. Globals are added before locals so aliases keep the global name. */
static int read_syms(const struct elfimg *e, struct symtab *t, uint32_t type)
{
    struct sym_walk w = {.t = t};
    for (w.pass = 0; w.pass < 2; w.pass++) {
        int rc = elfimg_foreach_sym(e, type, sym_cb, &w);
        if (rc) return rc;
    }
    return w.added;
}

/* PLT stubs sit right after _init, a zero-sized symbol: name them "[plt]" instead. */
static int add_plt(const struct elfimg *e, struct symtab *t)
{
    for (uint64_t i = 0; i < e->shnum; i++) {
        Elf64_Shdr sh;
        if (!elfimg_shdr(e, i, &sh) || !sh.sh_addr || !sh.sh_size) continue;
        const char *name = elfimg_section_name(e, &sh);
        if (!name || strncmp(name, ".plt", 4) || (name[4] && name[4] != '.')) continue;
        int rc = add_sym(t, sh.sh_addr, sh.sh_size, "[plt]", 5);
        if (rc) return rc;
    }
    return 0;
}

static int load_elf(const struct elfimg *e, struct symtab *t, bool want_segs)
{
    if (want_segs) {
        read_segs_and_id(e, t);
        int prc = add_plt(e, t);
        if (prc) return prc;
    }
    int rc = read_syms(e, t, SHT_SYMTAB);
    if (rc < 0) return rc;
    if (rc == 0) {
        rc = read_syms(e, t, SHT_DYNSYM);
        if (rc < 0) return rc;
        t->dynsym_only = true;
    }
    return 0;
}

int symtab_load_elf_mem(const void *data, size_t len, struct symtab **out)
{
    *out = NULL;
    struct elfimg e;
    int rc = elfimg_init_mem(&e, data, len);
    if (rc) return rc;
    struct symtab *t = symtab_alloc();
    if (!t) return -ENOMEM;
    rc = load_elf(&e, t, true);
    if (rc) {
        symtab_free(t);
        return rc;
    }
    finish(t);
    *out = t;
    return 0;
}

static int load_path(const char *path, struct symtab *t, bool want_segs)
{
    struct elfimg e;
    int rc = elfimg_open(&e, path);
    if (rc) return rc;
    rc = load_elf(&e, t, want_segs);
    elfimg_close(&e);
    return rc;
}

int symtab_load_elf(const char *path, struct symtab **out)
{
    *out = NULL;
    struct symtab *t = symtab_alloc();
    if (!t) return -ENOMEM;
    int rc = load_path(path, t, true);
    if (rc) {
        symtab_free(t);
        return rc;
    }
    if (t->dynsym_only && t->build_id_len >= 2) {
        /* Stripped: the -dbgsym package keeps the full .symtab under the build-id. */
        char dbg[128];
        int n = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", t->build_id[0]);
        for (unsigned i = 1; i < t->build_id_len; i++)
            n += snprintf(dbg + n, sizeof(dbg) - (size_t)n, "%02x", t->build_id[i]);
        snprintf(dbg + n, sizeof(dbg) - (size_t)n, ".debug");
        struct symtab *d = symtab_alloc();
        if (d && load_path(dbg, d, false) == 0 && !d->dynsym_only && d->n) {
            free(t->syms);
            free(t->names);
            t->syms = d->syms;
            t->n = d->n;
            t->cap = d->cap;
            t->names = d->names;
            t->names_len = d->names_len;
            t->names_cap = d->names_cap;
            d->syms = NULL;
            d->names = NULL;
            t->dynsym_only = false;
            t->from_debug_file = true;
            /* The debug file's sections carry no PLT contents; take them from the binary. */
            struct elfimg e;
            if (elfimg_open(&e, path) == 0) {
                add_plt(&e, t);
                elfimg_close(&e);
            }
        }
        symtab_free(d);
    }
    finish(t);
    *out = t;
    return 0;
}

/* Parses a hex number (optional 0x) at *p, bounded by end; false when none. */
static bool parse_hex(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int digits = 0;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    while (s < end) {
        int c = *s, d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            break;
        if (++digits > 16) return false;
        x = x << 4 | (uint64_t)d;
        s++;
    }
    if (!digits) return false;
    *p = s;
    *v = x;
    return true;
}

static void skip_blanks(const char **p, const char *end)
{
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
}

int symtab_parse_perfmap(const char *text, size_t len, struct symtab **out)
{
    struct symtab *t = symtab_alloc();
    *out = NULL;
    if (!t) return -ENOMEM;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        uint64_t start, size;
        const char *q = p;
        skip_blanks(&q, le);
        if (parse_hex(&q, le, &start) && q < le && (*q == ' ' || *q == '\t')) {
            skip_blanks(&q, le);
            if (parse_hex(&q, le, &size) && q < le && (*q == ' ' || *q == '\t')) {
                skip_blanks(&q, le);
                const char *ne = le;
                while (ne > q && (ne[-1] == '\r' || ne[-1] == ' '))
                    ne--;
                if (ne > q && size && start + size > start) {
                    int rc = add_sym(t, start, size, q, (size_t)(ne - q));
                    if (rc) {
                        symtab_free(t);
                        return rc;
                    }
                }
            }
        }
        p = le + 1;
    }
    finish(t);
    *out = t;
    return 0;
}

int symtab_parse_kallsyms(const char *text, size_t len, struct symtab **out)
{
    struct symtab *t = symtab_alloc();
    *out = NULL;
    if (!t) return -ENOMEM;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        uint64_t addr;
        const char *q = p;
        if (parse_hex(&q, le, &addr) && le - q >= 4 && q[0] == ' ' && q[2] == ' ' && addr) {
            char ty = q[1];
            if (ty == 't' || ty == 'T' || ty == 'w' || ty == 'W') {
                q += 3;
                const char *ne = q;
                while (ne < le && *ne != '\t' && *ne != ' ')
                    ne++;
                if (ne > q) {
                    int rc = add_sym(t, addr, 0, q, (size_t)(ne - q));
                    if (rc) {
                        symtab_free(t);
                        return rc;
                    }
                }
            }
        }
        p = le + 1;
    }
    finish(t);
    *out = t;
    return 0;
}

int symtab_read_file(const char *path, size_t max, char **text, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    int rc = 0;
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    for (;;) {
        if (n == cap) {
            /* stays hand-written: the buffer is cap + 1 bytes (the NUL) and stops at max */
            if (cap >= max) break;
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                rc = -ENOMEM;
                break;
            }
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            rc = -errno;
            break;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
