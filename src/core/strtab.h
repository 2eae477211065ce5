/*
 * strtab.h - string interning. Every name, category and string value in the trace model is a
 * uint32_t id into one table. Id 0 is always the empty string.
 */
#ifndef LAT_CORE_STRTAB_H
#define LAT_CORE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct lat_strtab {
    char *pool; /* all strings, each NUL-terminated */
    size_t pool_len, pool_cap;
    uint32_t *off; /* off[id] = offset of string id in pool */
    uint32_t *len; /* len[id] = length in bytes (strings may hold NUL-free binary) */
    uint32_t count, cap;
    uint32_t *slots;  /* open-addressing hash: id + 1, 0 = empty */
    uint32_t *hashes; /* hash of each id, for rehash without re-hashing */
    uint32_t nslots;
};

int strtab_init(struct lat_strtab *t);
void strtab_fini(struct lat_strtab *t);
/* Interns s[0..n); stores the id in *id. Returns 0 or -ENOMEM / LAT_E_OVERFLOW. s may point
 * into this table's own strings (it is read after the growth); any other pointer from
 * strtab_str() is invalid after an intern: copy what is needed of it first. */
int strtab_intern(struct lat_strtab *t, const char *s, size_t n, uint32_t *id);
/* Returns the id of s[0..n) or UINT32_MAX when it was never interned. */
uint32_t strtab_find(const struct lat_strtab *t, const char *s, size_t n);
/* The string for id (NUL-terminated); valid until the next intern (the pool may move) or
 * strtab_fini. */
static inline const char *strtab_str(const struct lat_strtab *t, uint32_t id)
{
    return t->pool + t->off[id];
}
static inline uint32_t strtab_len(const struct lat_strtab *t, uint32_t id)
{
    return t->len[id];
}

#endif
