/*
 * u64map.c - growth and insertion of the u64 map (u64map.h; lookups are inline there).
 *
 * Linear probing at load <= 1/2 with a mixed hash: short probes, one cache line most of the
 * time, and keys and values in two arrays so a probe touches only keys. Rejected: chaining (a
 * pointer per entry and a miss per hop), Robin Hood (deletion is not needed, and plain linear
 * probing at load 1/2 already has short probes). The five hand-written maps this replaces
 * (analyze prep/cpu, doctor accumulators, capture correlations, model tracks) used the same
 * scheme.
 */
#include "core/u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define U64MAP_MIN_CAP 16

/* New table of cap slots holding m's keys; the old one is freed. */
static __attribute__((noinline)) int u64map_rehash(struct lat_u64map *m, size_t cap)
{
    if (cap > SIZE_MAX / sizeof(uint64_t)) return -ENOMEM;
    uint64_t *k = calloc(cap, sizeof(*k)), *v = malloc(cap * sizeof(*v));
    if (!k || !v) {
        free(k);
        free(v);
        return -ENOMEM;
    }
    size_t mask = cap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = (size_t)lat_u64map_hash(m->keys[i]) & mask;
        while (k[j])
            j = (j + 1) & mask;
        k[j] = m->keys[i];
        v[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = k;
    m->vals = v;
    m->cap = cap;
    return 0;
}

int lat_u64map_init(struct lat_u64map *m, size_t expected)
{
    memset(m, 0, sizeof(*m));
    size_t cap = U64MAP_MIN_CAP;
    while (cap / 2 < expected) {
        if (cap > SIZE_MAX / 4) return -ENOMEM;
        cap <<= 1;
    }
    return u64map_rehash(m, cap);
}

void lat_u64map_fini(struct lat_u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

void lat_u64map_clear(struct lat_u64map *m)
{
    if (m->cap) memset(m->keys, 0, m->cap * sizeof(*m->keys));
    m->n = 0;
    m->has0 = false;
    m->val0 = 0;
}

uint64_t *lat_u64map_slot(struct lat_u64map *m, uint64_t key, bool *added)
{
    if (added) *added = false;
    if (!key) {
        if (!m->has0) {
            m->has0 = true;
            m->val0 = 0;
            m->n++;
            if (added) *added = true;
        }
        return &m->val0;
    }
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : U64MAP_MIN_CAP;
        if (cap < m->cap || u64map_rehash(m, cap)) return NULL;
    }
    size_t mask = m->cap - 1;
    size_t j = (size_t)lat_u64map_hash(key) & mask;
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & mask;
    if (!m->keys[j]) {
        m->keys[j] = key;
        m->vals[j] = 0;
        m->n++;
        if (added) *added = true;
    }
    return &m->vals[j];
}

int lat_u64map_put(struct lat_u64map *m, uint64_t key, uint64_t val)
{
    uint64_t *v = lat_u64map_slot(m, key, NULL);
    if (!v) return -ENOMEM;
    *v = val;
    return 0;
}

bool lat_u64map_next(const struct lat_u64map *m, size_t *it, uint64_t *key, uint64_t *val)
{
    for (size_t i = *it; i < m->cap; i++)
        if (m->keys[i]) {
            if (key) *key = m->keys[i];
            if (val) *val = m->vals[i];
            *it = i + 1;
            return true;
        }
    if (*it <= m->cap && m->has0) {
        if (key) *key = 0;
        if (val) *val = m->val0;
        *it = m->cap + 1;
        return true;
    }
    *it = m->cap + 1;
    return false;
}
