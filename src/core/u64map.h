/*
 * u64map.h - the one u64 -> u64 hash map: open addressing, linear probing, power-of-two table
 * kept at most half full, no deletion.
 *
 * Every key is allowed: slot key 0 means "empty", so key 0 itself is held beside the table
 * (has0/val0). A zeroed struct is an empty map; lat_u64map_init() only pre-sizes it. Values are
 * 64-bit: an index into the caller's own array (for records or several values per key), a
 * counter, or a pointer cast to uintptr_t.
 *
 *     struct lat_u64map m = {0};
 *     uint64_t *v = lat_u64map_slot(&m, key, NULL);   // 0 when new; NULL: out of memory
 *     if (!v) return -ENOMEM;
 *     (*v)++;
 *     uint64_t k, x;
 *     for (size_t it = 0; lat_u64map_next(&m, &it, &k, &x);) ...   // slot order, key 0 last
 *     lat_u64map_fini(&m);
 *
 * Lookups are inline (they sit in per-event loops). The iteration order depends only on the
 * keys inserted, in their order, and on the initial size: the same inputs give the same order.
 * Callers that print what they iterate should still sort. Threading: one map per user.
 */
#ifndef LAT_CORE_U64MAP_H
#define LAT_CORE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lat_u64map {
    uint64_t *keys; /* cap slots, 0 = empty */
    uint64_t *vals; /* cap values */
    size_t cap;     /* 0 or a power of two */
    size_t n;       /* keys held, key 0 included */
    bool has0;      /* key 0 is held; its value is val0 */
    uint64_t val0;
};

/* Empty map with room for `expected` keys before it grows (table >= 16 slots). 0 or -ENOMEM. */
int lat_u64map_init(struct lat_u64map *m, size_t expected);
void lat_u64map_fini(struct lat_u64map *m);
/* Removes every key; keeps the table. */
void lat_u64map_clear(struct lat_u64map *m);

/* The slot hash (murmur3's finaliser, first half): mixes high bits into the low ones. */
static inline uint64_t lat_u64map_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Position of key: its slot, m->cap for key 0, SIZE_MAX when absent. */
static inline size_t lat_u64map_pos_(const struct lat_u64map *m, uint64_t key)
{
    if (!key) return m->has0 ? m->cap : SIZE_MAX;
    if (!m->cap) return SIZE_MAX;
    size_t mask = m->cap - 1;
    for (size_t j = (size_t)lat_u64map_hash(key) & mask;; j = (j + 1) & mask) {
        if (m->keys[j] == key) return j;
        if (!m->keys[j]) return SIZE_MAX;
    }
}

/* Value of key (writable), or NULL when absent. */
static inline uint64_t *lat_u64map_find(struct lat_u64map *m, uint64_t key)
{
    size_t j = lat_u64map_pos_(m, key);
    return j == SIZE_MAX ? NULL : j == m->cap ? &m->val0 : &m->vals[j];
}

/* Value of key into *val (untouched when absent); true when present. */
static inline bool lat_u64map_get(const struct lat_u64map *m, uint64_t key, uint64_t *val)
{
    size_t j = lat_u64map_pos_(m, key);
    if (j == SIZE_MAX) return false;
    *val = j == m->cap ? m->val0 : m->vals[j];
    return true;
}

/* Value slot of key, inserted with value 0 when absent (*added = true then; added may be NULL).
 * NULL when the table cannot grow (out of memory or size overflow); the map is unchanged. */
uint64_t *lat_u64map_slot(struct lat_u64map *m, uint64_t key, bool *added);
/* key -> val (overwrites). 0 or -ENOMEM. */
int lat_u64map_put(struct lat_u64map *m, uint64_t key, uint64_t val);

/* Next key at or after position *it (start at 0): fills *key and *val (either may be NULL),
 * advances *it and returns true; false when done. */
bool lat_u64map_next(const struct lat_u64map *m, size_t *it, uint64_t *key, uint64_t *val);

#endif
