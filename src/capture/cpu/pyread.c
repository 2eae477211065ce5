/*
 * pyread.c - reads CPython 3.11-3.13 stacks from another process (see pyread.h).
 *
 * py-spy's model, not its code: find _PyRuntime (and Py_Version, PyCode_Type) in the dynamic
 * symbols of the interpreter's ELF file, then walk runtime -> first interpreter -> thread
 * states (matched by native_thread_id, the Linux tid) -> the frame chain, with
 * process_vm_readv. The target is never stopped, so every value is checked: a frame's code
 * object must have ob_type == &PyCode_Type, depth is bounded, and a failed read ends the walk.
 * Code objects are cached by address (name, file, first line, line table), revalidated by
 * re-reading the code header, so a warm sample costs ~2 reads per frame.
 *
 * Offsets come from the installed headers of each version (Include/internal/pycore_frame.h,
 * pycore_interp.h, pycore_runtime.h, cpython/code.h, cpython/pystate.h, cpython/unicodeobject.h)
 * as printed by tests/progs/pyoffsets.c; e2e test t356 recompiles that program against each
 * installed version and compares it with the table below. 3.13 also checks the
 * _Py_DebugOffsets cookie ("xdebugpy") at the start of _PyRuntime. Frame boundaries between
 * C-level calls of _PyEval_EvalFrameDefault: 3.11 marks the outermost frame `is_entry`; 3.12+
 * pushes a shim frame owned by FRAME_OWNED_BY_CSTACK (3) under each call.
 */
#include "capture/cpu/pyread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture/cpu/elfimg.h"
#include "core/err.h"

struct pyoffsets {
    unsigned minor;
    uint32_t runtime_interp_head, interp_threads_head;
    uint32_t tstate_next, tstate_native_tid;
    int32_t tstate_cframe;         /* -1 on 3.13+ (current_frame is in the thread state) */
    uint32_t cframe_current_frame; /* in _PyCFrame, or in the thread state on 3.13+ */
    uint32_t frame_code, frame_previous, frame_instr, frame_owner;
    int32_t frame_is_entry; /* 3.11 only */
    uint32_t code_filename, code_name, code_qualname, code_firstlineno, code_linetable,
        code_adaptive;
    uint32_t bytes_size, bytes_data;
    uint32_t unicode_state, unicode_length, unicode_ascii_data, unicode_compact_data;
};

/* Values printed by tests/progs/pyoffsets.c against 3.11.7, 3.12.1 and 3.13.0 headers. */
static const struct pyoffsets py_tables[] = {
    {11,  40,  16,  8,  160, 56,  8,  32, 48, 56, 69, 68,
     112, 120, 128, 72, 136, 184, 16, 32, 32, 16, 48, 72},
    {12,  40,  72,  8,  144, 56,  0,  0,  8,  56, 70, -1,
     112, 120, 128, 68, 136, 192, 16, 32, 32, 16, 40, 56},
    {13,  632, 7344, 8,  160, -1,  72, 0,  8,  56, 70, -1,
     112, 120, 128,  68, 136, 200, 16, 32, 32, 16, 40, 56},
};

const struct pyoffsets *pyread_offsets(unsigned minor)
{
    for (size_t i = 0; i < sizeof(py_tables) / sizeof(py_tables[0]); i++)
        if (py_tables[i].minor == minor) return &py_tables[i];
    return NULL;
}

int pyread_dump_offsets(unsigned minor, char *buf, size_t len)
{
    const struct pyoffsets *o = pyread_offsets(minor);
    if (!o) return LAT_E_UNSUPPORTED;
    int n = snprintf(buf, len,
                     "version 3.%u\nruntime_interp_head %u\ninterp_threads_head %u\n"
                     "tstate_next %u\ntstate_native_tid %u\n",
                     minor, o->runtime_interp_head, o->interp_threads_head, o->tstate_next,
                     o->tstate_native_tid);
    if (o->tstate_cframe >= 0)
        n += snprintf(buf + n, len - (size_t)n, "tstate_cframe %d\ncframe_current_frame %u\n",
                      o->tstate_cframe, o->cframe_current_frame);
    else
        n += snprintf(buf + n, len - (size_t)n, "tstate_current_frame %u\n",
                      o->cframe_current_frame);
    n += snprintf(buf + n, len - (size_t)n,
                  "frame_code %u\nframe_previous %u\nframe_instr %u\nframe_owner %u\n",
                  o->frame_code, o->frame_previous, o->frame_instr, o->frame_owner);
    if (o->frame_is_entry >= 0)
        n += snprintf(buf + n, len - (size_t)n, "frame_is_entry %d\n", o->frame_is_entry);
    n += snprintf(buf + n, len - (size_t)n,
                  "code_filename %u\ncode_name %u\ncode_qualname %u\ncode_firstlineno %u\n"
                  "code_linetable %u\ncode_adaptive %u\nobject_type 8\nbytes_size %u\n"
                  "bytes_data %u\nunicode_state %u\nunicode_length %u\nunicode_ascii_data %u\n"
                  "unicode_compact_data %u\n",
                  o->code_filename, o->code_name, o->code_qualname, o->code_firstlineno,
                  o->code_linetable, o->code_adaptive, o->bytes_size, o->bytes_data,
                  o->unicode_state, o->unicode_length, o->unicode_ascii_data,
                  o->unicode_compact_data);
    return n;
}

#define PY_MAX_DEPTH  256
#define PY_CODE_CACHE 4096 /* entries, power of two */
#define PY_MAX_TABLE  65536

struct pycode {
    uint64_t addr;
    uint64_t filename_ptr, qualname_ptr;
    char *func, *file;
    uint8_t *table;
    size_t table_len;
    int firstlineno;
    uint64_t walk; /* the pyreader_stack() call that last returned it */
};

struct pyreader {
    pid_t pid;
    const struct pyoffsets *o;
    uint64_t runtime, code_type;
    uint64_t reads;
    struct pycode *cache; /* direct-mapped by address */
    uint64_t walk;        /* pyreader_stack() calls so far */
    uint64_t collisions;  /* walks given up: more code objects than ways in one set */
    /* thread state of the last tids asked for (validated by re-reading native_thread_id) */
    struct {
        pid_t tid;
        uint64_t ts;
    } tcache[16];
};

static int rread(struct pyreader *r, uint64_t addr, void *buf, size_t n)
{
    struct iovec l = {buf, n}, rem = {(void *)(uintptr_t)addr, n};
    r->reads++;
    ssize_t got = process_vm_readv(r->pid, &l, 1, &rem, 1, 0);
    if (got < 0) return -errno;
    return (size_t)got == n ? 0 : -EFAULT;
}

static uint64_t u64_at(const uint8_t *b, uint32_t off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

struct find_syms {
    const char *const *names;
    uint64_t *vals;
    int n;
};

static int find_cb(void *arg, const Elf64_Sym *s, const char *nm)
{
    struct find_syms *f = arg;
    if (s->st_shndx == SHN_UNDEF || !s->st_value) return 0;
    for (int k = 0; k < f->n; k++)
        if (!f->vals[k] && !strcmp(nm, f->names[k])) f->vals[k] = s->st_value;
    return 0;
}

/* Finds the link-time values of named symbols in .dynsym/.symtab of path. */
static void find_syms(const char *path, const char *const *names, uint64_t *vals, int n)
{
    struct elfimg e;
    if (elfimg_open(&e, path)) return;
    struct find_syms f = {names, vals, n};
    elfimg_foreach_sym(&e, SHT_DYNSYM, find_cb, &f);
    elfimg_foreach_sym(&e, SHT_SYMTAB, find_cb, &f);
    elfimg_close(&e);
}

int pyreader_open(pid_t pid, const char *path, uint64_t bias, struct pyreader **out,
                  uint32_t *version)
{
    static const char *const names[] = {"_PyRuntime", "Py_Version", "PyCode_Type"};
    uint64_t v[3] = {0, 0, 0};
    *out = NULL;
    *version = 0;
    find_syms(path, names, v, 3);
    if (!v[0]) return LAT_E_NOT_FOUND;
    struct pyreader tmp = {.pid = pid};
    uint32_t hex = 0;
    if (v[1]) {
        int rc = rread(&tmp, v[1] + bias, &hex, sizeof(hex));
        if (rc) return rc;
    }
    *version = hex;
    /* Py_Version exists from 3.11 on: its absence means an older, unsupported Python. */
    if (!v[1] || !v[2] || (hex >> 24) != 3) return LAT_E_UNSUPPORTED;
    const struct pyoffsets *o = pyread_offsets((hex >> 16) & 0xff);
    if (!o) return LAT_E_UNSUPPORTED;
    if (o->minor >= 13) {
        char cookie[8];
        int rc = rread(&tmp, v[0] + bias, cookie, sizeof(cookie));
        if (rc) return rc;
        if (memcmp(cookie, "xdebugpy", 8)) return LAT_E_UNSUPPORTED;
    }
    struct pyreader *r = calloc(1, sizeof(*r));
    if (!r) return -ENOMEM;
    r->cache = calloc(PY_CODE_CACHE, sizeof(*r->cache));
    if (!r->cache) {
        free(r);
        return -ENOMEM;
    }
    r->pid = pid;
    r->o = o;
    r->runtime = v[0] + bias;
    r->code_type = v[2] + bias;
    r->reads = tmp.reads;
    *out = r;
    return 0;
}

static void code_clear(struct pycode *c)
{
    free(c->func);
    free(c->file);
    free(c->table);
    memset(c, 0, sizeof(*c));
}

void pyreader_free(struct pyreader *r)
{
    if (!r) return;
    for (size_t i = 0; i < PY_CODE_CACHE; i++)
        code_clear(&r->cache[i]);
    free(r->cache);
    free(r);
}

uint64_t pyreader_reads(const struct pyreader *r)
{
    return r ? r->reads : 0;
}

uint64_t pyreader_collisions(const struct pyreader *r)
{
    return r ? r->collisions : 0;
}

/* Reads a str object as UTF-8 (compact ASCII / latin-1 / UCS-2 / UCS-4). malloc'ed. */
static char *read_str(struct pyreader *r, uint64_t addr)
{
    const struct pyoffsets *o = r->o;
    uint8_t hdr[80];
    if (!addr || rread(r, addr, hdr, o->unicode_compact_data)) return NULL;
    uint64_t len = u64_at(hdr, o->unicode_length);
    uint32_t state;
    memcpy(&state, hdr + o->unicode_state, 4);
    unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
    if (!compact || !kind || kind == 3 || kind > 4 || len > 1024) return NULL;
    uint64_t data = addr + (ascii ? o->unicode_ascii_data : o->unicode_compact_data);
    uint8_t raw[4096];
    if (rread(r, data, raw, len * kind)) return NULL;
    char *s = malloc(len * 4 + 1), *p = s;
    if (!s) return NULL;
    for (uint64_t i = 0; i < len; i++) {
        uint32_t c = kind == 1   ? raw[i]
                     : kind == 2 ? ((uint16_t *)(void *)raw)[i]
                                 : ((uint32_t *)(void *)raw)[i];
        if (c < 0x80) {
            *p++ = c < 0x20 ? '?' : (char)c;
        } else if (c < 0x800) {
            *p++ = (char)(0xc0 | c >> 6);
            *p++ = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            *p++ = (char)(0xe0 | c >> 12);
            *p++ = (char)(0x80 | ((c >> 6) & 0x3f));
            *p++ = (char)(0x80 | (c & 0x3f));
        } else {
            *p++ = (char)(0xf0 | c >> 18);
            *p++ = (char)(0x80 | ((c >> 12) & 0x3f));
            *p++ = (char)(0x80 | ((c >> 6) & 0x3f));
            *p++ = (char)(0x80 | (c & 0x3f));
        }
    }
    *p = '\0';
    return s;
}

/* varint of the location table: 6-bit chunks, bit 6 = more. */
static bool lt_varint(const uint8_t *t, size_t len, size_t *i, uint32_t *v)
{
    uint32_t x = 0;
    unsigned shift = 0;
    for (;;) {
        if (*i >= len || shift > 28) return false;
        uint8_t b = t[(*i)++];
        x |= (uint32_t)(b & 63) << shift;
        shift += 6;
        if (!(b & 64)) break;
    }
    *v = x;
    return true;
}

static bool lt_svarint(const uint8_t *t, size_t len, size_t *i, int32_t *v)
{
    uint32_t u;
    if (!lt_varint(t, len, i, &u)) return false;
    *v = (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
    return true;
}

int pyread_line(const uint8_t *t, size_t len, int firstlineno, uint64_t index)
{
    size_t i = 0;
    uint64_t pc = 0;
    int line = firstlineno;
    while (i < len) {
        uint8_t b = t[i++];
        if (!(b & 0x80)) return -1; /* every entry starts with the high bit set */
        unsigned code = (b >> 3) & 15, n = (b & 7) + 1;
        int cur = line;
        uint32_t u;
        int32_t d;
        switch (code) {
        case 15:
            cur = -1;
            break; /* no location */
        case 14:   /* long form */
            if (!lt_svarint(t, len, &i, &d)) return -1;
            line += d;
            cur = line;
            if (!lt_varint(t, len, &i, &u) || !lt_varint(t, len, &i, &u) ||
                !lt_varint(t, len, &i, &u))
                return -1;
            break;
        case 13: /* no column */
            if (!lt_svarint(t, len, &i, &d)) return -1;
            line += d;
            cur = line;
            break;
        case 10:
        case 11:
        case 12: /* one-line form */
            line += (int)code - 10;
            cur = line;
            i += 2;
            break;
        default: /* short form: same line, one column byte */
            i += 1;
            break;
        }
        if (index >= pc && index < pc + n) return cur;
        pc += n;
    }
    return -1;
}

/* Returns the cached code object at addr, (re)loading it when new or changed; NULL when addr
 * is not a code object. */
static struct pycode *code_get(struct pyreader *r, uint64_t addr)
{
    const struct pyoffsets *o = r->o;
    uint8_t hdr[256];
    size_t need = o->code_adaptive;
    if (need > sizeof(hdr) || rread(r, addr, hdr, need)) return NULL;
    if (u64_at(hdr, 8) != r->code_type) return NULL;
    uint64_t fname = u64_at(hdr, o->code_filename), qname = u64_at(hdr, o->code_qualname);
    /* Two-way set associative: slots 2k and 2k+1. */
    struct pycode *set = &r->cache[(addr >> 4) & (PY_CODE_CACHE - 2)], *c = NULL;
    for (int w = 0; w < 2; w++) {
        struct pycode *x = &set[w];
        if (x->addr == addr && x->filename_ptr == fname && x->qualname_ptr == qname) {
            x->walk = r->walk;
            return x;
        }
    }
    /* Evict the way not used by this walk (the least recently used one when neither is):
     * evicting one in use would free names an earlier frame of this walk points to. */
    for (int w = 0; w < 2; w++) {
        struct pycode *x = &set[w];
        if (x->addr && x->walk == r->walk) continue;
        if (!c || !x->addr || x->walk < c->walk) c = x;
    }
    if (!c) {
        r->collisions++;
        return NULL;
    }
    code_clear(c);
    c->addr = addr;
    c->filename_ptr = fname;
    c->qualname_ptr = qname;
    int32_t first;
    memcpy(&first, hdr + o->code_firstlineno, 4);
    c->firstlineno = first;
    c->func = read_str(r, qname);
    c->file = read_str(r, fname);
    uint64_t lt = u64_at(hdr, o->code_linetable);
    uint8_t bh[40];
    if (lt && !rread(r, lt, bh, o->bytes_data)) {
        uint64_t n = u64_at(bh, o->bytes_size);
        if (n && n <= PY_MAX_TABLE && (c->table = malloc(n))) {
            if (rread(r, lt + o->bytes_data, c->table, n) == 0) {
                c->table_len = n;
            } else {
                free(c->table);
                c->table = NULL;
            }
        }
    }
    if (!c->func || !c->file) {
        code_clear(c);
        return NULL;
    }
    c->walk = r->walk;
    return c;
}

int pyreader_stack(struct pyreader *r, pid_t tid, struct pyframe *out, int max)
{
    const struct pyoffsets *o = r->o;
    uint64_t interp, ts;
    r->walk++; /* entries stamped with this walk are in use by out[] until it returns */
    unsigned slot = (unsigned)tid & 15;
    ts = r->tcache[slot].tid == tid ? r->tcache[slot].ts : 0;
    if (ts) {
        /* The cached thread state, if it still belongs to tid (one read instead of a walk). */
        uint64_t nt;
        if (rread(r, ts + o->tstate_native_tid, &nt, 8) || nt != (uint64_t)tid) ts = 0;
    }
    if (!ts) {
        int rc = rread(r, r->runtime + o->runtime_interp_head, &interp, 8);
        if (rc) return rc;
        if (!interp || rread(r, interp + o->interp_threads_head, &ts, 8)) return 0;
        /* Find the thread state of tid (bounded: a torn list must not loop forever). */
        for (int i = 0; ts && i < 4096; i++) {
            uint8_t t[176];
            if (rread(r, ts, t, o->tstate_native_tid + 8)) return -EAGAIN;
            if (u64_at(t, o->tstate_native_tid) == (uint64_t)tid) break;
            ts = u64_at(t, o->tstate_next);
        }
        if (!ts) return 0;
        r->tcache[slot].tid = tid;
        r->tcache[slot].ts = ts;
    }
    uint64_t frame;
    if (o->tstate_cframe >= 0) {
        uint64_t cf;
        if (rread(r, ts + (uint32_t)o->tstate_cframe, &cf, 8) || !cf ||
            rread(r, cf + o->cframe_current_frame, &frame, 8))
            return -EAGAIN;
    } else if (rread(r, ts + o->cframe_current_frame, &frame, 8)) {
        return -EAGAIN;
    }
    int n = 0;
    for (int depth = 0; frame && depth < PY_MAX_DEPTH && n < max; depth++) {
        uint8_t f[80];
        if (rread(r, frame, f, o->frame_owner + 1)) return -EAGAIN;
        uint8_t owner = f[o->frame_owner];
        uint64_t prev = u64_at(f, o->frame_previous);
        if (owner == 3 && o->minor >= 12) { /* C-stack shim: ends the group above it */
            if (n) out[n - 1].entry = true;
            frame = prev;
            continue;
        }
        if (owner > 3) return -EAGAIN; /* torn */
        uint64_t code = u64_at(f, o->frame_code);
        struct pycode *c = code_get(r, code);
        if (!c) return -EAGAIN; /* not a code object: torn (or a full cache set) */
        uint64_t instr = u64_at(f, o->frame_instr), start = code + o->code_adaptive;
        int line = -1;
        if (instr >= start && c->table)
            line = pyread_line(c->table, c->table_len, c->firstlineno, (instr - start) / 2);
        out[n].func = c->func;
        out[n].file = c->file;
        out[n].line = line;
        out[n].entry = o->frame_is_entry >= 0 && f[o->frame_is_entry];
        n++;
        frame = prev;
    }
    return n;
}
