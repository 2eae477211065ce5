/*
 * strtab.c - string interning with an open-addressing hash table (linear probing, FNV-1a).
 *
 * Strings live in one growing pool, addressed by offset so the pool can be realloc'd; this keeps
 * the trace model free of per-string allocations (traces repeat a few thousand distinct names
 * across millions of events). The table is rehashed at 50 % load. Not thread-safe: each reader
 * owns its table.
 */
#include "core/strtab.h"
#include "core/err.h"
#include "core/grow.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint32_t strtab_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static int strtab_rehash(struct lat_strtab *t, uint32_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof(*slots));
    if (!slots) return -ENOMEM;
    for (uint32_t id = 0; id < t->count; id++) {
        uint32_t i = t->hashes[id] & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

int strtab_init(struct lat_strtab *t)
{
    uint32_t id;
    memset(t, 0, sizeof(*t));
    return strtab_intern(t, "", 0, &id);
}

void strtab_fini(struct lat_strtab *t)
{
    free(t->pool);
    free(t->off);
    free(t->len);
    free(t->slots);
    free(t->hashes);
    memset(t, 0, sizeof(*t));
}

uint32_t strtab_find(const struct lat_strtab *t, const char *s, size_t n)
{
    if (!t->nslots) return UINT32_MAX;
    uint32_t h = strtab_hash(s, n);
    for (uint32_t i = h & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
        uint32_t slot = t->slots[i];
        if (!slot) return UINT32_MAX;
        uint32_t id = slot - 1;
        if (t->hashes[id] == h && t->len[id] == n && memcmp(t->pool + t->off[id], s, n) == 0)
            return id;
    }
}

int strtab_intern(struct lat_strtab *t, const char *s, size_t n, uint32_t *out)
{
    uint32_t h = strtab_hash(s, n);
    if (t->nslots) {
        for (uint32_t i = h & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
            uint32_t slot = t->slots[i];
            if (!slot) break;
            uint32_t id = slot - 1;
            if (t->hashes[id] == h && t->len[id] == n && memcmp(t->pool + t->off[id], s, n) == 0) {
                *out = id;
                return 0;
            }
        }
    }
    if (n >= UINT32_MAX || t->pool_len + n + 1 > UINT32_MAX || t->count == UINT32_MAX - 1)
        return LAT_E_OVERFLOW;
    if (t->count == t->cap) {
        /* parallel columns: one capacity (lat_grow_cap's doubling) for the three */
        size_t c = lat_grow_cap(t->cap, (size_t)t->count + 1, sizeof(uint32_t), 256);
        if (!c) return LAT_E_OVERFLOW;
        uint32_t cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
        uint32_t *off = realloc(t->off, cap * sizeof(*off));
        if (!off) return -ENOMEM;
        t->off = off;
        uint32_t *len = realloc(t->len, cap * sizeof(*len));
        if (!len) return -ENOMEM;
        t->len = len;
        uint32_t *hs = realloc(t->hashes, cap * sizeof(*hs));
        if (!hs) return -ENOMEM;
        t->hashes = hs;
        t->cap = cap;
    }
    /* s may be a string of this pool (a name interned again, cut or whole): the growth below
     * moves the pool, so keep its offset */
    uintptr_t sp = (uintptr_t)s, p0 = (uintptr_t)t->pool;
    bool inside = t->pool && sp >= p0 && sp < p0 + t->pool_len;
    size_t s_off = inside ? (size_t)(sp - p0) : 0;
    int rc = LAT_GROW(t->pool, t->pool_cap, t->pool_len, n + 1, 4096);
    if (rc) return rc;
    if (inside) s = t->pool + s_off;
    if ((t->count + 1) * 2 > t->nslots) {
        rc = strtab_rehash(t, t->nslots ? t->nslots * 2 : 512);
        if (rc) return rc;
    }
    uint32_t id = t->count++;
    t->off[id] = (uint32_t)t->pool_len;
    t->len[id] = (uint32_t)n;
    t->hashes[id] = h;
    if (n) memcpy(t->pool + t->pool_len, s, n);
    t->pool[t->pool_len + n] = '\0';
    t->pool_len += n + 1;
    uint32_t i = h & (t->nslots - 1);
    while (t->slots[i])
        i = (i + 1) & (t->nslots - 1);
    t->slots[i] = id + 1;
    *out = id;
    return 0;
}
