/*
 * tokenizer.c - byte-level BPE from a Hugging Face tokenizer.json (see tokenizer.h).
 *
 * Encoding one text: added tokens are cut out first (longest match at each position); each
 * remaining segment is split by the pre-tokenizer regex (hand-written matchers of the GPT-2 and
 * the Llama-3 patterns, alternatives tried in order like the regex engine); each piece's bytes
 * become the vocabulary ids of their byte-to-unicode characters, and merges are applied with a
 * min-heap on (rank, position) over a linked list of symbols: the leftmost lowest-rank pair
 * first, which is what `tokenizers`' BPE does, in O(n log n) per piece (a piece of 10^5 spaces
 * stays fast). The vocabulary and the merges are open-addressing hash tables built at load time.
 */
#include "llm/tokenizer.h"

#include "core/err.h"
#include "core/grow.h"
#include "json/tok.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

enum pretok { PT_GPT2 = 0, PT_LLAMA3 };

struct vent {
    uint32_t off, len; /* key bytes in the arena */
    int32_t id;        /* -1: empty slot */
};

struct ment {
    uint64_t key; /* (a << 32 | b) + 1; 0: empty */
    int32_t rank, id;
};

struct added {
    uint32_t off, len;
    int32_t id;
};

struct llm_tokenizer {
    char *arena;
    size_t arena_len, arena_cap;
    struct vent *vocab;
    size_t vcap, vn;
    struct ment *merges;
    size_t mcap, mn;
    int32_t max_id;
    int32_t byte_id[256]; /* id of each byte's mapped character, -1 absent */
    struct added *added;  /* sorted by length, longest first */
    size_t nadded;
    unsigned char added_first[32]; /* bit set: an added token starts with this byte */
    enum pretok pretok;
    bool add_prefix_space, ignore_merges, fuse_unk, byte_fallback;
    int32_t unk_id;
};

/* ---- hashing ---- */

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int arena_put(struct llm_tokenizer *t, const char *p, size_t n, uint32_t *off)
{
    if (t->arena_len + n > UINT32_MAX) return LAT_E_OVERFLOW;
    int rc = LAT_GROW(t->arena, t->arena_cap, t->arena_len, n, (size_t)1 << 16);
    if (rc) return rc;
    /* an empty string (fuzz-tokenizer: a "" token) copies nothing, also into an arena not yet
     * allocated (memcpy to NULL + 0 is undefined) */
    if (n) memcpy(t->arena + t->arena_len, p, n);
    *off = (uint32_t)t->arena_len;
    t->arena_len += n;
    return 0;
}

static int32_t vocab_get(const struct llm_tokenizer *t, const char *p, size_t n)
{
    if (!t->vcap) return -1;
    size_t mask = t->vcap - 1, i = hash_bytes(p, n) & mask;
    for (;;) {
        const struct vent *e = &t->vocab[i];
        if (e->id < 0) return -1;
        if (e->len == n && !memcmp(t->arena + e->off, p, n)) return e->id;
        i = (i + 1) & mask;
    }
}

static int vocab_grow(struct llm_tokenizer *t)
{
    size_t nc = t->vcap ? t->vcap * 2 : 1024;
    struct vent *nv = malloc(nc * sizeof(*nv));
    if (!nv) return -ENOMEM;
    for (size_t i = 0; i < nc; i++)
        nv[i].id = -1;
    for (size_t k = 0; k < t->vcap; k++) {
        struct vent *e = &t->vocab[k];
        if (e->id < 0) continue;
        size_t i = hash_bytes(t->arena + e->off, e->len) & (nc - 1);
        while (nv[i].id >= 0)
            i = (i + 1) & (nc - 1);
        nv[i] = *e;
    }
    free(t->vocab);
    t->vocab = nv;
    t->vcap = nc;
    return 0;
}

/* Adds key -> id; a key already there keeps its first id (returns 1). */
static int vocab_put(struct llm_tokenizer *t, const char *p, size_t n, int32_t id)
{
    if ((t->vn + 1) * 2 > t->vcap) {
        int rc = vocab_grow(t);
        if (rc) return rc;
    }
    size_t mask = t->vcap - 1, i = hash_bytes(p, n) & mask;
    while (t->vocab[i].id >= 0) {
        if (t->vocab[i].len == n && !memcmp(t->arena + t->vocab[i].off, p, n)) return 1;
        i = (i + 1) & mask;
    }
    uint32_t off;
    int rc = arena_put(t, p, n, &off);
    if (rc) return rc;
    t->vocab[i] = (struct vent){off, (uint32_t)n, id};
    t->vn++;
    if (id > t->max_id) t->max_id = id;
    return 0;
}

static const struct ment *merge_get(const struct llm_tokenizer *t, int32_t a, int32_t b)
{
    if (!t->mcap) return NULL;
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t mask = t->mcap - 1, i = hash_u64(key) & mask;
    for (;;) {
        const struct ment *e = &t->merges[i];
        if (!e->key) return NULL;
        if (e->key == key) return e;
        i = (i + 1) & mask;
    }
}

static int merge_put(struct llm_tokenizer *t, int32_t a, int32_t b, int32_t rank, int32_t id)
{
    if ((t->mn + 1) * 2 > t->mcap) {
        size_t nc = t->mcap ? t->mcap * 2 : 1024;
        struct ment *nm = calloc(nc, sizeof(*nm));
        if (!nm) return -ENOMEM;
        for (size_t k = 0; k < t->mcap; k++) {
            if (!t->merges[k].key) continue;
            size_t i = hash_u64(t->merges[k].key) & (nc - 1);
            while (nm[i].key)
                i = (i + 1) & (nc - 1);
            nm[i] = t->merges[k];
        }
        free(t->merges);
        t->merges = nm;
        t->mcap = nc;
    }
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t mask = t->mcap - 1, i = hash_u64(key) & mask;
    while (t->merges[i].key) {
        if (t->merges[i].key == key) return 0; /* a repeated merge keeps its first rank */
        i = (i + 1) & mask;
    }
    t->merges[i] = (struct ment){key, rank, id};
    t->mn++;
    return 0;
}

/* ---- byte-to-unicode (GPT-2) ---- */

/* The code point byte b is written as in byte-level vocabularies. */
static unsigned byte_cp(unsigned b)
{
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) return b;
    unsigned n = 0;
    for (unsigned x = 0; x < b; x++)
        if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255))) n++;
    return 256 + n;
}

static size_t utf8_put(unsigned cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes one UTF-8 sequence at p[0..n) (n >= 1): its length; *cp gets the code point, or
 * 0xDC00 + byte (a class "other" symbol of one byte) for an invalid sequence. */
static size_t utf8_get(const unsigned char *p, size_t n, unsigned *cp)
{
    unsigned c = p[0];
    size_t len;
    unsigned v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        len = 2, v = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, v = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        goto bad;
    }
    if (len > n) goto bad;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) goto bad;
        v = (v << 6) | (p[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) goto bad;
    *cp = v;
    return len;
bad:
    *cp = 0xDC00 + c;
    return 1;
}

/* ---- Unicode classes ---- */

struct range {
    unsigned lo, hi;
};

/* White_Space */
static bool is_space(unsigned c)
{
    return (c >= 9 && c <= 13) || c == 32 || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
           c == 0x205f || c == 0x3000;
}

/* General category N (Nd, Nl, No): the scripts' digit blocks and the common number forms. */
static const struct range num_ranges[] = {
    {0x30, 0x39},       {0xb2, 0xb3},       {0xb9, 0xb9},       {0xbc, 0xbe},
    {0x660, 0x669},     {0x6f0, 0x6f9},     {0x7c0, 0x7c9},     {0x966, 0x96f},
    {0x9e6, 0x9ef},     {0x9f4, 0x9f9},     {0xa66, 0xa6f},     {0xae6, 0xaef},
    {0xb66, 0xb6f},     {0xb72, 0xb77},     {0xbe6, 0xbf2},     {0xc66, 0xc6f},
    {0xc78, 0xc7e},     {0xce6, 0xcef},     {0xd58, 0xd5e},     {0xd66, 0xd78},
    {0xde6, 0xdef},     {0xe50, 0xe59},     {0xed0, 0xed9},     {0xf20, 0xf33},
    {0x1040, 0x1049},   {0x1090, 0x1099},   {0x1369, 0x137c},   {0x16ee, 0x16f0},
    {0x17e0, 0x17e9},   {0x17f0, 0x17f9},   {0x1810, 0x1819},   {0x1946, 0x194f},
    {0x19d0, 0x19da},   {0x1a80, 0x1a89},   {0x1a90, 0x1a99},   {0x1b50, 0x1b59},
    {0x1bb0, 0x1bb9},   {0x1c40, 0x1c49},   {0x1c50, 0x1c59},   {0x2070, 0x2070},
    {0x2074, 0x2079},   {0x2080, 0x2089},   {0x2150, 0x2182},   {0x2185, 0x2189},
    {0x2460, 0x249b},   {0x24ea, 0x24ff},   {0x2776, 0x2793},   {0x2cfd, 0x2cfd},
    {0x3007, 0x3007},   {0x3021, 0x3029},   {0x3038, 0x303a},   {0x3192, 0x3195},
    {0x3220, 0x3229},   {0x3248, 0x324f},   {0x3251, 0x325f},   {0x3280, 0x3289},
    {0x32b1, 0x32bf},   {0xa620, 0xa629},   {0xa6e6, 0xa6ef},   {0xa830, 0xa835},
    {0xa8d0, 0xa8d9},   {0xa900, 0xa909},   {0xa9d0, 0xa9d9},   {0xa9f0, 0xa9f9},
    {0xaa50, 0xaa59},   {0xabf0, 0xabf9},   {0xff10, 0xff19},   {0x10107, 0x10133},
    {0x104a0, 0x104a9}, {0x1d7ce, 0x1d7ff}, {0x1f100, 0x1f10c},
};

/* General category M (combining marks): not letters for \p{L}. The blocks of the common
 * scripts; glibc's iswalpha counts many of them as alphabetic. */
static const struct range mark_ranges[] = {
    {0x300, 0x36f},   {0x483, 0x489},     {0x591, 0x5bd},   {0x5bf, 0x5bf},   {0x5c1, 0x5c2},
    {0x5c4, 0x5c5},   {0x5c7, 0x5c7},     {0x610, 0x61a},   {0x64b, 0x65f},   {0x670, 0x670},
    {0x6d6, 0x6dc},   {0x6df, 0x6e4},     {0x6e7, 0x6e8},   {0x6ea, 0x6ed},   {0x900, 0x903},
    {0x93a, 0x93c},   {0x93e, 0x94f},     {0x951, 0x957},   {0x962, 0x963},   {0x981, 0x983},
    {0x9bc, 0x9bc},   {0x9be, 0x9c4},     {0x9c7, 0x9c8},   {0x9cb, 0x9cd},   {0x9d7, 0x9d7},
    {0x9e2, 0x9e3},   {0xa01, 0xa03},     {0xa3c, 0xa51},   {0xa70, 0xa71},   {0xa75, 0xa75},
    {0xa81, 0xa83},   {0xabc, 0xabc},     {0xabe, 0xacd},   {0xae2, 0xae3},   {0xb01, 0xb03},
    {0xb3c, 0xb3c},   {0xb3e, 0xb57},     {0xb62, 0xb63},   {0xb82, 0xb82},   {0xbbe, 0xbcd},
    {0xbd7, 0xbd7},   {0xc00, 0xc04},     {0xc3c, 0xc3c},   {0xc3e, 0xc56},   {0xc62, 0xc63},
    {0xc81, 0xc83},   {0xcbc, 0xcbc},     {0xcbe, 0xcd6},   {0xce2, 0xce3},   {0xd00, 0xd03},
    {0xd3b, 0xd3c},   {0xd3e, 0xd4d},     {0xd57, 0xd57},   {0xd62, 0xd63},   {0xe31, 0xe31},
    {0xe34, 0xe3a},   {0xe47, 0xe4e},     {0xeb1, 0xeb1},   {0xeb4, 0xebc},   {0xec8, 0xecd},
    {0xf18, 0xf19},   {0xf35, 0xf35},     {0xf37, 0xf37},   {0xf39, 0xf39},   {0xf3e, 0xf3f},
    {0xf71, 0xf84},   {0xf86, 0xf87},     {0xf8d, 0xfbc},   {0x102b, 0x103e}, {0x1056, 0x1059},
    {0x135d, 0x135f}, {0x17b4, 0x17d3},   {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x20d0, 0x20f0},
    {0x302a, 0x302f}, {0x3099, 0x309a},   {0xa66f, 0xa672}, {0xa674, 0xa67d}, {0xfe00, 0xfe0f},
    {0xfe20, 0xfe2f}, {0xe0100, 0xe01ef},
};

static bool in_ranges(unsigned c, const struct range *r, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < r[mid].lo)
            hi = mid;
        else if (c > r[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

static pthread_once_t loc_once = PTHREAD_ONCE_INIT;
static locale_t utf8_loc;

static void loc_init(void)
{
    utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static bool is_num(unsigned c)
{
    if (c < 0x80) return c >= '0' && c <= '9';
    return in_ranges(c, num_ranges, sizeof(num_ranges) / sizeof(num_ranges[0]));
}

static bool is_letter(unsigned c)
{
    if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    if (c >= 0xDC80 && c <= 0xDCFF) return false; /* an invalid byte */
    if (is_num(c) || is_space(c)) return false;
    if (in_ranges(c, mark_ranges, sizeof(mark_ranges) / sizeof(mark_ranges[0]))) return false;
    if (utf8_loc) return iswalpha_l((wint_t)c, utf8_loc) != 0;
    return c >= 0xc0; /* no UTF-8 locale: above Latin-1's symbols, take it as a letter */
}

/* Symbol classes per code point: letter, number, space, CR/LF. */
enum { C_L = 1, C_N = 2, C_S = 4, C_NL = 8 };

struct cps {
    unsigned *cls;
    uint32_t *off; /* byte offset of each code point; off[n] = the end */
    unsigned *cp;
    size_t n, cap;
};

static int cps_fill(struct cps *s, const char *text, size_t n)
{
    if (n + 1 > s->cap) { /* resized to this text's exact need, not grown by doubling */
        size_t nc = n + 1;
        unsigned *c1 = realloc(s->cls, nc * sizeof(*c1));
        if (c1) s->cls = c1;
        uint32_t *o1 = realloc(s->off, nc * sizeof(*o1));
        if (o1) s->off = o1;
        unsigned *p1 = realloc(s->cp, nc * sizeof(*p1));
        if (p1) s->cp = p1;
        if (!c1 || !o1 || !p1) return -ENOMEM;
        s->cap = nc;
    }
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t l = utf8_get((const unsigned char *)text + i, n - i, &cp);
        unsigned c = 0;
        if (is_space(cp))
            c = C_S | ((cp == '\r' || cp == '\n') ? C_NL : 0);
        else if (is_num(cp))
            c = C_N;
        else if (is_letter(cp))
            c = C_L;
        s->cls[k] = c;
        s->cp[k] = cp;
        s->off[k++] = (uint32_t)i;
        i += l;
    }
    s->off[k] = (uint32_t)n;
    s->n = k;
    return 0;
}

/* ---- the pre-tokenizer regexes ---- */

static size_t contraction(const struct cps *s, size_t i, bool icase)
{
    if (s->cp[i] != '\'' || i + 1 >= s->n) return 0;
    unsigned a = s->cp[i + 1], b = i + 2 < s->n ? s->cp[i + 2] : 0;
    if (icase) {
        if (a < 0x80) a |= 0x20;
        if (b < 0x80 && b) b |= 0x20;
    }
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
}

/* \s+(?!\S) then \s+ at i (s->cls[i] is space): the match length in code points. */
static size_t ws_run(const struct cps *s, size_t i)
{
    size_t j = i;
    while (j < s->n && (s->cls[j] & C_S))
        j++;
    if (j == s->n) return j - i; /* the run reaches the end: (?!\S) holds */
    if (j - i >= 2) return j - i - 1;
    return 1; /* \s+ */
}

/* Length (code points) of the piece starting at i, per the GPT-2 pattern:
 * 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static size_t piece_gpt2(const struct cps *s, size_t i)
{
    size_t n = s->n, c;
    if ((c = contraction(s, i, false))) return c;
    size_t j = i + (s->cp[i] == ' ' && i + 1 < n ? 1 : 0);
    unsigned k = s->cls[j];
    if (j > i || !(k & C_S)) {
        if (k & C_L) {
            while (j < n && (s->cls[j] & C_L))
                j++;
            return j - i;
        }
        if (k & C_N) {
            while (j < n && (s->cls[j] & C_N))
                j++;
            return j - i;
        }
        if (!(k & C_S)) {
            while (j < n && !(s->cls[j] & (C_S | C_L | C_N)))
                j++;
            return j - i;
        }
    }
    return ws_run(s, i);
}

/* Per the Llama-3 pattern:
 * (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
 * \s*[\r\n]+|\s+(?!\S)|\s+ */
static size_t piece_llama3(const struct cps *s, size_t i)
{
    size_t n = s->n, c, j;
    if ((c = contraction(s, i, true))) return c;
    unsigned k = s->cls[i];
    if (k & C_L) {
        for (j = i; j < n && (s->cls[j] & C_L); j++)
            ;
        return j - i;
    }
    if (!(k & (C_NL | C_N)) && i + 1 < n && (s->cls[i + 1] & C_L)) {
        for (j = i + 1; j < n && (s->cls[j] & C_L); j++)
            ;
        return j - i;
    }
    if (k & C_N) {
        for (j = i; j < n && j < i + 3 && (s->cls[j] & C_N); j++)
            ;
        return j - i;
    }
    j = i + (s->cp[i] == ' ' && i + 1 < n ? 1 : 0);
    if (!(s->cls[j] & (C_S | C_L | C_N))) {
        while (j < n && !(s->cls[j] & (C_S | C_L | C_N)))
            j++;
        while (j < n && (s->cls[j] & C_NL))
            j++;
        return j - i;
    }
    /* here s->cls[i] is a space */
    size_t e = i;
    while (e < n && (s->cls[e] & C_S))
        e++;
    for (size_t q = e; q > i; q--)
        if (s->cls[q - 1] & C_NL) return q - i; /* \s*[\r\n]+ */
    return ws_run(s, i);
}

/* ---- BPE on one piece ---- */

struct sym {
    int32_t id;
    int32_t prev, next; /* -1 none */
    uint32_t len;       /* bytes covered (for fuse_unk bookkeeping only) */
};

struct cand {
    int32_t rank, pos, id;
    int32_t right_id; /* the right symbol's id when queued (stale check) */
};

struct scratch {
    struct cps cps;
    struct sym *sym;
    struct cand *heap;
    size_t sym_cap, heap_cap, nheap;
};

static bool cand_less(const struct cand *a, const struct cand *b)
{
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static int heap_push(struct scratch *x, struct cand c)
{
    int rc = LAT_GROW(x->heap, x->heap_cap, x->nheap, 1, 64);
    if (rc) return rc;
    size_t i = x->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!cand_less(&c, &x->heap[p])) break;
        x->heap[i] = x->heap[p];
        i = p;
    }
    x->heap[i] = c;
    return 0;
}

static struct cand heap_pop(struct scratch *x)
{
    struct cand top = x->heap[0], last = x->heap[--x->nheap];
    size_t i = 0, n = x->nheap;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct cand *best = &last;
        if (l < n && cand_less(&x->heap[l], best)) m = l, best = &x->heap[l];
        if (r < n && cand_less(&x->heap[r], best)) m = r;
        if (m == i) break;
        x->heap[i] = x->heap[m];
        i = m;
    }
    if (n) x->heap[i] = last;
    return top;
}

static int push_pair(const struct llm_tokenizer *t, struct scratch *x, int32_t pos)
{
    struct sym *s = x->sym;
    int32_t nx = s[pos].next;
    if (nx < 0) return 0;
    const struct ment *m = merge_get(t, s[pos].id, s[nx].id);
    if (!m) return 0;
    return heap_push(x, (struct cand){m->rank, pos, m->id, s[nx].id});
}

static int emit(struct lat_buf *ids, int64_t *count, int32_t id)
{
    (*count)++;
    return ids ? buf_append(ids, &id, sizeof(id)) : 0;
}

/* Encodes the bytes p[0..n) of one piece. */
static int bpe_piece(const struct llm_tokenizer *t, struct scratch *x, const unsigned char *p,
                     size_t n, struct lat_buf *ids, int64_t *count)
{
    if (!n) return 0;
    if (t->ignore_merges) {
        /* the whole piece, if the vocabulary has it */
        char small[256], *buf = small;
        size_t bl = 0;
        if (n * 2 <= sizeof(small)) {
            for (size_t i = 0; i < n; i++)
                bl += utf8_put(byte_cp(p[i]), buf + bl);
            int32_t id = vocab_get(t, buf, bl);
            if (id >= 0) return emit(ids, count, id);
        } else {
            buf = malloc(n * 2);
            if (!buf) return -ENOMEM;
            for (size_t i = 0; i < n; i++)
                bl += utf8_put(byte_cp(p[i]), buf + bl);
            int32_t id = vocab_get(t, buf, bl);
            free(buf);
            if (id >= 0) return emit(ids, count, id);
        }
    }
    if (n * 4 > x->sym_cap) { /* sized once per piece from its length, not grown by doubling */
        size_t nc = n * 4;
        struct sym *ns = realloc(x->sym, nc * sizeof(*ns));
        if (!ns) return -ENOMEM;
        x->sym = ns;
        x->sym_cap = nc;
    }
    /* initial symbols: one per byte; unknown ones become byte-fallback ids, unk or nothing */
    int32_t ns = 0;
    bool unk_open = false;
    for (size_t i = 0; i < n; i++) {
        int32_t id = t->byte_id[p[i]];
        if (id < 0) {
            if (t->unk_id < 0) continue;
            if (t->fuse_unk && unk_open) continue;
            id = t->unk_id;
            unk_open = true;
        } else {
            unk_open = false;
        }
        x->sym[ns] = (struct sym){id, ns - 1, ns + 1, 1};
        ns++;
    }
    if (!ns) return 0;
    x->sym[ns - 1].next = -1;
    x->nheap = 0;
    int rc = 0;
    for (int32_t i = 0; i + 1 < ns && !rc; i++)
        rc = push_pair(t, x, i);
    while (!rc && x->nheap) {
        struct cand c = heap_pop(x);
        struct sym *s = x->sym;
        if (s[c.pos].len == 0) continue; /* merged away */
        int32_t nx = s[c.pos].next;
        if (nx < 0 || s[nx].id != c.right_id) continue; /* stale */
        const struct ment *m = merge_get(t, s[c.pos].id, s[nx].id);
        if (!m || m->id != c.id) continue;
        s[c.pos].id = c.id;
        s[c.pos].len += s[nx].len;
        s[c.pos].next = s[nx].next;
        if (s[nx].next >= 0) s[s[nx].next].prev = c.pos;
        s[nx].len = 0;
        if (s[c.pos].prev >= 0) rc = push_pair(t, x, s[c.pos].prev);
        if (!rc) rc = push_pair(t, x, c.pos);
    }
    for (int32_t i = 0; i >= 0 && !rc; i = x->sym[i].next)
        rc = emit(ids, count, x->sym[i].id);
    return rc;
}

/* Pre-tokenizes and encodes a segment without added tokens. */
static int encode_segment(const struct llm_tokenizer *t, struct scratch *x, const char *text,
                          size_t n, struct lat_buf *ids, int64_t *count)
{
    if (!n) return 0;
    char *tmp = NULL;
    if (t->add_prefix_space && text[0] != ' ') {
        tmp = malloc(n + 1);
        if (!tmp) return -ENOMEM;
        tmp[0] = ' ';
        memcpy(tmp + 1, text, n);
        text = tmp;
        n++;
    }
    int rc = cps_fill(&x->cps, text, n);
    for (size_t i = 0; !rc && i < x->cps.n;) {
        size_t len = t->pretok == PT_LLAMA3 ? piece_llama3(&x->cps, i) : piece_gpt2(&x->cps, i);
        if (!len) len = 1;
        uint32_t b = x->cps.off[i], e = x->cps.off[i + len];
        rc = bpe_piece(t, x, (const unsigned char *)text + b, e - b, ids, count);
        i += len;
    }
    free(tmp);
    return rc;
}

int llm_tokenizer_encode(const struct llm_tokenizer *t, const char *text, size_t n,
                         struct lat_buf *ids, int64_t *count)
{
    struct scratch x = {0};
    *count = 0;
    int rc = 0;
    size_t seg = 0;
    for (size_t i = 0; i < n && !rc;) {
        unsigned char b = (unsigned char)text[i];
        const struct added *hit = NULL;
        if (t->nadded && (t->added_first[b >> 3] & (1u << (b & 7))))
            for (size_t k = 0; k < t->nadded; k++) {
                const struct added *a = &t->added[k];
                if (a->len <= n - i && !memcmp(text + i, t->arena + a->off, a->len)) {
                    hit = a;
                    break;
                }
            }
        if (!hit) {
            i++;
            continue;
        }
        rc = encode_segment(t, &x, text + seg, i - seg, ids, count);
        if (!rc) rc = emit(ids, count, hit->id);
        i += hit->len;
        seg = i;
    }
    if (!rc) rc = encode_segment(t, &x, text + seg, n - seg, ids, count);
    free(x.cps.cls);
    free(x.cps.off);
    free(x.cps.cp);
    free(x.sym);
    free(x.heap);
    return rc;
}

int llm_tokenizer_count(const struct llm_tokenizer *t, const char *text, size_t n, int64_t *count)
{
    return llm_tokenizer_encode(t, text, n, NULL, count);
}

int llm_tokenizer_pieces(const struct llm_tokenizer *t, const char *text, size_t n,
                         struct lat_buf *out)
{
    struct cps c = {0};
    char *tmp = NULL;
    int rc = 0;
    if (t->add_prefix_space && n && text[0] != ' ') {
        tmp = malloc(n + 1);
        if (!tmp) return -ENOMEM;
        tmp[0] = ' ';
        memcpy(tmp + 1, text, n);
        text = tmp;
        n++;
    }
    if (n) rc = cps_fill(&c, text, n);
    for (size_t i = 0, k = 0; !rc && i < c.n; k++) {
        size_t len = t->pretok == PT_LLAMA3 ? piece_llama3(&c, i) : piece_gpt2(&c, i);
        if (!len) len = 1;
        if (k) rc = buf_putc(out, ' ');
        for (uint32_t b = c.off[i]; !rc && b < c.off[i + len]; b++)
            rc = buf_printf(out, "%02x", (unsigned char)text[b]);
        i += len;
    }
    free(c.cls);
    free(c.off);
    free(c.cp);
    free(tmp);
    return rc;
}

size_t llm_tokenizer_vocab_size(const struct llm_tokenizer *t)
{
    return (size_t)t->max_id + 1;
}

size_t llm_tokenizer_merges(const struct llm_tokenizer *t)
{
    return t->mn;
}

const char *llm_tokenizer_pretok(const struct llm_tokenizer *t)
{
    return t->pretok == PT_LLAMA3 ? "llama3" : "gpt2";
}

void llm_tokenizer_free(struct llm_tokenizer *t)
{
    if (!t) return;
    free(t->arena);
    free(t->vocab);
    free(t->merges);
    free(t->added);
    free(t);
}

/* ---- loading ---- */

static const char gpt2_re[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char llama3_re[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

struct ld {
    const char *doc;
    size_t n;
    const char *name;
    char *why;
    size_t whylen;
    struct lat_buf s; /* scratch string */
};

static int fail(struct ld *l, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct ld *l, int rc, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(l->why, l->whylen, "%s: %s", l->name, msg);
    return rc;
}

/* The value at path inside v (NULL v: the document); 0 found, LAT_E_NOT_FOUND, or an error. */
static int sub(const struct ld *l, const struct json_val *v, const char *path, struct json_val *out)
{
    if (!v) return json_find(l->doc, l->n, path, out);
    int rc = json_find(l->doc + v->off, v->len, path, out);
    if (!rc) out->off += v->off;
    return rc;
}

static int get_str(struct ld *l, const struct json_val *v, const char *path, bool *have)
{
    struct json_val x;
    *have = false;
    l->s.len = 0;
    int rc = sub(l, v, path, &x);
    if (rc == LAT_E_NOT_FOUND) return 0;
    if (rc) return rc;
    if (x.type == JSON_NULL) return 0;
    if (x.type != JSON_STR) return LAT_E_USAGE;
    rc = json_str_decode(l->doc + x.off, x.len, &l->s);
    if (!rc) *have = true;
    return rc;
}

static int get_bool(struct ld *l, const struct json_val *v, const char *path, bool *out)
{
    struct json_val x;
    int rc = sub(l, v, path, &x);
    if (rc == LAT_E_NOT_FOUND) return 0;
    if (rc) return rc;
    if (x.type == JSON_TRUE)
        *out = true;
    else if (x.type == JSON_FALSE)
        *out = false;
    else if (x.type != JSON_NULL)
        return LAT_E_USAGE;
    return 0;
}

static bool str_is(const struct lat_buf *b, const char *s)
{
    return b->data && b->len == strlen(s) && !memcmp(b->data, s, b->len);
}

/* ByteLevel pre-tokenizer object at v: use_regex must be `want_regex`. */
static int byte_level(struct ld *l, struct llm_tokenizer *t, const struct json_val *v,
                      bool want_regex)
{
    bool use_regex = true, aps = false;
    int rc = get_bool(l, v, "use_regex", &use_regex);
    if (!rc) rc = get_bool(l, v, "add_prefix_space", &aps);
    if (rc) return fail(l, LAT_E_BAD_JSON, "pre_tokenizer ByteLevel: malformed options");
    if (use_regex != want_regex)
        return fail(l, LAT_E_UNSUPPORTED,
                    want_regex ? "pre_tokenizer ByteLevel with use_regex false and no Split "
                                 "before it is not supported"
                               : "a Split followed by ByteLevel with use_regex true is not "
                                 "supported");
    t->add_prefix_space = aps;
    return 0;
}

static int load_pretok(struct ld *l, struct llm_tokenizer *t)
{
    struct json_val pt, x;
    int rc = sub(l, NULL, "pre_tokenizer", &pt);
    if (rc == LAT_E_NOT_FOUND || (!rc && pt.type == JSON_NULL))
        return fail(l, LAT_E_UNSUPPORTED,
                    "no pre_tokenizer: only byte-level BPE tokenizers (GPT-2 / Llama-3 style "
                    "ByteLevel pre-tokenizer) are supported");
    if (rc || pt.type != JSON_OBJ_BEGIN)
        return fail(l, LAT_E_BAD_JSON, "pre_tokenizer is not an object");
    bool have;
    if (get_str(l, &pt, "type", &have) || !have)
        return fail(l, LAT_E_BAD_JSON, "pre_tokenizer has no \"type\"");
    if (str_is(&l->s, "ByteLevel")) {
        t->pretok = PT_GPT2;
        return byte_level(l, t, &pt, true);
    }
    if (!str_is(&l->s, "Sequence"))
        return fail(l, LAT_E_UNSUPPORTED,
                    "pre_tokenizer %s is not supported (ByteLevel, or a Sequence of Split and "
                    "ByteLevel)",
                    l->s.data);
    size_t cnt = 0;
    if (sub(l, &pt, "pretokenizers", &x) || x.type != JSON_ARR_BEGIN ||
        json_get_count(l->doc + x.off, x.len, "", &cnt) || cnt != 2)
        return fail(l, LAT_E_UNSUPPORTED,
                    "pre_tokenizer Sequence: only [Split, ByteLevel] is supported");
    struct json_val sp, bl;
    if (sub(l, &x, "0", &sp) || sub(l, &x, "1", &bl))
        return fail(l, LAT_E_BAD_JSON, "pre_tokenizer Sequence: malformed");
    if (get_str(l, &sp, "type", &have) || !str_is(&l->s, "Split"))
        return fail(l, LAT_E_UNSUPPORTED,
                    "pre_tokenizer Sequence: only [Split, ByteLevel] is supported");
    bool invert = false;
    if (get_bool(l, &sp, "invert", &invert) || invert)
        return fail(l, LAT_E_UNSUPPORTED, "pre_tokenizer Split with invert is not supported");
    if (get_str(l, &sp, "behavior", &have) || !str_is(&l->s, "Isolated"))
        return fail(l, LAT_E_UNSUPPORTED,
                    "pre_tokenizer Split: only behavior Isolated is supported");
    if (get_str(l, &sp, "pattern/Regex", &have) || !have)
        return fail(l, LAT_E_UNSUPPORTED, "pre_tokenizer Split: only a Regex pattern is supported");
    if (str_is(&l->s, gpt2_re))
        t->pretok = PT_GPT2;
    else if (str_is(&l->s, llama3_re))
        t->pretok = PT_LLAMA3;
    else
        return fail(
            l, LAT_E_UNSUPPORTED,
            "pre_tokenizer Split regex is neither the GPT-2 nor the Llama-3 pattern: %.120s",
            l->s.data);
    if (get_str(l, &bl, "type", &have) || !str_is(&l->s, "ByteLevel"))
        return fail(l, LAT_E_UNSUPPORTED,
                    "pre_tokenizer Sequence: only [Split, ByteLevel] is supported");
    return byte_level(l, t, &bl, false);
}

static int load_vocab(struct ld *l, struct llm_tokenizer *t, const struct json_val *model)
{
    struct json_val v, e;
    if (sub(l, model, "vocab", &v) || v.type != JSON_OBJ_BEGIN)
        return fail(l, LAT_E_BAD_JSON, "model.vocab is missing or not an object");
    struct json_iter it;
    int rc = json_iter_init(&it, l->doc, l->n, &v);
    while (!rc && (rc = json_iter_next(&it, &l->s, &e)) == 1) {
        int64_t id;
        if (e.type != JSON_NUM || json_num_fixed(l->doc + e.off, e.len, 0, &id, NULL) || id < 0 ||
            id > INT32_MAX - 1)
            return fail(l, LAT_E_BAD_JSON,
                        "model.vocab: the id of \"%.80s\" is not an integer "
                        ">= 0",
                        l->s.data);
        rc = vocab_put(t, l->s.data ? l->s.data : "", l->s.len, (int32_t)id);
        if (rc == 1) rc = 0;
    }
    if (rc < 0 && rc != -ENOMEM) return fail(l, rc, "model.vocab is malformed");
    if (rc < 0) return rc;
    if (!t->vn) return fail(l, LAT_E_BAD_JSON, "model.vocab is empty");
    return 0;
}

static int load_merges(struct ld *l, struct llm_tokenizer *t, const struct json_val *model)
{
    struct json_val v, e;
    int rc = sub(l, model, "merges", &v);
    if (rc == LAT_E_NOT_FOUND) return 0;
    if (rc || v.type != JSON_ARR_BEGIN)
        return fail(l, LAT_E_BAD_JSON, "model.merges is not an array");
    struct json_iter it;
    struct lat_buf a = LAT_BUF_INIT, b = LAT_BUF_INIT, ab = LAT_BUF_INIT;
    rc = json_iter_init(&it, l->doc, l->n, &v);
    int32_t rank = 0;
    while (!rc && (rc = json_iter_next(&it, NULL, &e)) == 1) {
        rc = 0;
        a.len = b.len = ab.len = 0;
        if (e.type == JSON_STR) {
            rc = json_str_decode(l->doc + e.off, e.len, &a);
            const char *sp = rc ? NULL : memchr(a.data ? a.data : "", ' ', a.len);
            if (rc || !sp || memchr(sp + 1, ' ', a.len - (size_t)(sp + 1 - a.data))) {
                rc = fail(l, LAT_E_BAD_JSON,
                          "model.merges: expected \"A B\" (two tokens and one space)");
                break;
            }
            size_t al = (size_t)(sp - a.data);
            rc = buf_append(&b, sp + 1, a.len - al - 1);
            a.len = al;
        } else if (e.type == JSON_ARR_BEGIN) {
            struct json_val x0, x1;
            size_t cnt = 0;
            if (json_get_count(l->doc + e.off, e.len, "", &cnt) || cnt != 2 ||
                sub(l, &e, "0", &x0) || sub(l, &e, "1", &x1) || x0.type != JSON_STR ||
                x1.type != JSON_STR || json_str_decode(l->doc + x0.off, x0.len, &a) ||
                json_str_decode(l->doc + x1.off, x1.len, &b)) {
                rc = fail(l, LAT_E_BAD_JSON, "model.merges: expected [\"A\", \"B\"]");
                break;
            }
        } else {
            rc = fail(l, LAT_E_BAD_JSON, "model.merges: expected strings \"A B\" or pairs");
            break;
        }
        if (!rc) rc = buf_append(&ab, a.data ? a.data : "", a.len);
        if (!rc) rc = buf_append(&ab, b.data ? b.data : "", b.len);
        if (rc) break;
        int32_t ia = vocab_get(t, a.data ? a.data : "", a.len);
        int32_t ib = vocab_get(t, b.data ? b.data : "", b.len);
        int32_t iab = vocab_get(t, ab.data ? ab.data : "", ab.len);
        if (ia < 0 || ib < 0 || iab < 0) {
            rc = fail(l, LAT_E_BAD_JSON, "model.merges: a merge of \"%.80s\" is not in the vocab",
                      ab.data);
            break;
        }
        rc = merge_put(t, ia, ib, rank++, iab);
        if (rank == INT32_MAX) rc = LAT_E_OVERFLOW;
    }
    buf_fini(&a);
    buf_fini(&b);
    buf_fini(&ab);
    if (rc < 0 && rc != -ENOMEM && !l->why[0]) return fail(l, rc, "model.merges is malformed");
    return rc < 0 ? rc : 0;
}

static int cmp_added(const void *x, const void *y)
{
    const struct added *a = x, *b = y;
    if (a->len != b->len) return a->len > b->len ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int load_added(struct ld *l, struct llm_tokenizer *t)
{
    struct json_val v, e, x;
    int rc = sub(l, NULL, "added_tokens", &v);
    if (rc == LAT_E_NOT_FOUND || (!rc && v.type == JSON_NULL)) return 0;
    if (rc || v.type != JSON_ARR_BEGIN)
        return fail(l, LAT_E_BAD_JSON, "added_tokens is not an array");
    size_t cnt = 0;
    if (json_get_count(l->doc + v.off, v.len, "", &cnt))
        return fail(l, LAT_E_BAD_JSON, "added_tokens is malformed");
    if (!cnt) return 0;
    t->added = calloc(cnt, sizeof(*t->added));
    if (!t->added) return -ENOMEM;
    struct json_iter it;
    rc = json_iter_init(&it, l->doc, l->n, &v);
    while (!rc && (rc = json_iter_next(&it, NULL, &e)) == 1) {
        int64_t id;
        bool have;
        if (e.type != JSON_OBJ_BEGIN || sub(l, &e, "id", &x) || x.type != JSON_NUM ||
            json_num_fixed(l->doc + x.off, x.len, 0, &id, NULL) || id < 0 || id > INT32_MAX - 1 ||
            get_str(l, &e, "content", &have) || !have || !l->s.len)
            return fail(l, LAT_E_BAD_JSON,
                        "added_tokens: expected {\"id\": N, \"content\": \"...\"}");
        if (t->nadded >= cnt) break;
        struct added *a = &t->added[t->nadded++];
        rc = arena_put(t, l->s.data, l->s.len, &a->off);
        a->len = (uint32_t)l->s.len;
        a->id = (int32_t)id;
        if (id > t->max_id) t->max_id = (int32_t)id;
        unsigned char b0 = (unsigned char)l->s.data[0];
        t->added_first[b0 >> 3] |= (unsigned char)(1u << (b0 & 7));
    }
    if (rc < 0) return rc == -ENOMEM ? rc : fail(l, rc, "added_tokens is malformed");
    qsort(t->added, t->nadded, sizeof(*t->added), cmp_added);
    return 0;
}

int llm_tokenizer_load_mem(const char *doc, size_t n, const char *name, struct llm_tokenizer **out,
                           char *why, size_t whylen)
{
    *out = NULL;
    why[0] = '\0';
    pthread_once(&loc_once, loc_init);
    struct ld l = {doc, n, name, why, whylen, LAT_BUF_INIT};
    struct llm_tokenizer *t = calloc(1, sizeof(*t));
    if (!t) return -ENOMEM;
    t->max_id = -1;
    t->unk_id = -1;
    int rc;
    uint64_t eoff = 0;
    char msg[160];
    if ((rc = json_validate(doc, n, 0, &eoff, msg, sizeof(msg))) != 0) {
        snprintf(why, whylen,
                 "%s: not valid JSON at byte %llu: %s (expected a Hugging Face "
                 "tokenizer.json)",
                 name, (unsigned long long)eoff, msg);
        goto out;
    }
    struct json_val model, x;
    if (sub(&l, NULL, "", &x) || x.type != JSON_OBJ_BEGIN || sub(&l, NULL, "model", &model) ||
        model.type != JSON_OBJ_BEGIN) {
        rc = fail(&l, LAT_E_BAD_JSON, "no \"model\" object: not a Hugging Face tokenizer.json");
        goto out;
    }
    bool have;
    if ((rc = get_str(&l, &model, "type", &have)) != 0 && rc != LAT_E_USAGE) goto out;
    if (have && !str_is(&l.s, "BPE")) {
        rc = fail(&l, LAT_E_UNSUPPORTED,
                  "model type %s is not supported (only byte-level BPE; WordPiece, Unigram and "
                  "SentencePiece models are not)",
                  l.s.data);
        goto out;
    }
    if (!have && sub(&l, &model, "merges", &x)) {
        rc = fail(&l, LAT_E_UNSUPPORTED, "model has no type and no merges: not a BPE model");
        goto out;
    }
    struct json_val nz;
    if (!sub(&l, NULL, "normalizer", &nz) && nz.type != JSON_NULL) {
        get_str(&l, &nz, "type", &have);
        rc = fail(&l, LAT_E_UNSUPPORTED, "normalizer %s is not supported (only null)",
                  have ? l.s.data : "?");
        goto out;
    }
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "model/end_of_word_suffix" : "model/continuing_subword_prefix";
        if (get_str(&l, NULL, key, &have) == 0 && have && l.s.len) {
            rc = fail(&l, LAT_E_UNSUPPORTED, "%s is set: not a byte-level BPE", key + 6);
            goto out;
        }
    }
    if ((rc = get_bool(&l, &model, "ignore_merges", &t->ignore_merges)) != 0 ||
        (rc = get_bool(&l, &model, "fuse_unk", &t->fuse_unk)) != 0 ||
        (rc = get_bool(&l, &model, "byte_fallback", &t->byte_fallback)) != 0) {
        rc = fail(&l, LAT_E_BAD_JSON, "model: ignore_merges/fuse_unk/byte_fallback not booleans");
        goto out;
    }
    if ((rc = load_pretok(&l, t)) != 0) goto out;
    if ((rc = load_vocab(&l, t, &model)) != 0) goto out;
    if ((rc = load_merges(&l, t, &model)) != 0) goto out;
    if ((rc = load_added(&l, t)) != 0) goto out;
    if (get_str(&l, &model, "unk_token", &have) == 0 && have) {
        t->unk_id = vocab_get(t, l.s.data, l.s.len);
        if (t->unk_id < 0) {
            rc =
                fail(&l, LAT_E_BAD_JSON, "model.unk_token \"%.80s\" is not in the vocab", l.s.data);
            goto out;
        }
    }
    for (unsigned b = 0; b < 256; b++) {
        char u[8];
        t->byte_id[b] = vocab_get(t, u, utf8_put(byte_cp(b), u));
        if (t->byte_id[b] < 0 && t->byte_fallback) {
            rc = fail(&l, LAT_E_UNSUPPORTED,
                      "byte_fallback with a vocabulary that lacks byte-level characters is not "
                      "supported");
            goto out;
        }
    }
out:
    buf_fini(&l.s);
    if (rc) {
        if (!why[0]) snprintf(why, whylen, "%s: %s", name, lat_strerror(rc));
        llm_tokenizer_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int llm_tokenizer_load(const char *path, struct llm_tokenizer **out, char *why, size_t whylen)
{
    struct lat_buf b = LAT_BUF_INIT;
    *out = NULL;
    int rc = buf_read_file(&b, path, LLM_TOKENIZER_MAX_FILE);
    if (rc) {
        if (rc == LAT_E_OVERFLOW)
            snprintf(why, whylen, "%s: larger than %u MiB: not a tokenizer.json", path,
                     LLM_TOKENIZER_MAX_FILE >> 20);
        else
            snprintf(why, whylen, "%s: %s", path, lat_strerror(rc));
        buf_fini(&b);
        return rc;
    }
    rc = llm_tokenizer_load_mem(b.data ? b.data : "", b.len, path, out, why, whylen);
    buf_fini(&b);
    return rc;
}
