/*
 * pyframe.c - the spelling of a Python frame in a CPU sample's stack (pyframe.h).
 */
#include "model/pyframe.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Whether component c[0..n) of a path is an import root: site-packages, dist-packages, or the
 * standard library's python3.N (or python3) right under lib/ or lib64/ (prev[0..pn)). */
static bool import_root(const char *c, size_t n, const char *prev, size_t pn)
{
    if ((n == 13 && !memcmp(c, "site-packages", 13)) ||
        (n == 13 && !memcmp(c, "dist-packages", 13)))
        return true;
    if (n < 7 || memcmp(c, "python3", 7)) return false;
    for (size_t i = 7; i < n; i++)
        if (!(c[i] == '.' || (c[i] >= '0' && c[i] <= '9'))) return false;
    return (pn == 3 && !memcmp(prev, "lib", 3)) || (pn == 5 && !memcmp(prev, "lib64", 5));
}

void lat_py_file_base(const char **file, size_t *n)
{
    const char *f = *file;
    size_t len = *n;
    /* a pseudo-file ("<frozen importlib._bootstrap>") or a path already relative (py-spy raw's
     * "json/encoder.py") stays as it is */
    if (!len || f[0] != '/') return;
    const char *rest = NULL, *prev = f, *c = f + 1, *end = f + len;
    size_t pn = 0;
    while (c < end) {
        const char *s = memchr(c, '/', (size_t)(end - c));
        if (!s) break; /* c is the file name */
        if (import_root(c, (size_t)(s - c), prev, pn)) rest = s + 1;
        prev = c;
        pn = (size_t)(s - c);
        c = s + 1;
    }
    if (!rest) rest = c;     /* not under an import root: the basename */
    if (rest == end) return; /* a path ending in '/': as it is */
    *n = (size_t)(end - rest);
    *file = rest;
}

/* Appends s[0..n) at *o, as far as it fits in cap - 1 bytes; *o counts every byte. */
static void put(char *buf, size_t cap, size_t *o, const char *s, size_t n)
{
    if (*o + 1 < cap) {
        size_t room = cap - 1 - *o;
        memcpy(buf + *o, s, n < room ? n : room);
    }
    *o += n;
}

size_t lat_py_frame_name(char *buf, size_t cap, const char *func, size_t fn, const char *file,
                         size_t fl, int64_t line)
{
    lat_py_file_base(&file, &fl);
    size_t o = 0;
    put(buf, cap, &o, "py:", 3);
    put(buf, cap, &o, func, fn);
    put(buf, cap, &o, " (", 2);
    put(buf, cap, &o, file, fl);
    if (line >= 0) {
        char num[24];
        int k = snprintf(num, sizeof(num), ":%lld", (long long)line);
        put(buf, cap, &o, num, (size_t)k);
    }
    put(buf, cap, &o, ")", 1);
    if (cap) buf[o < cap ? o : cap - 1] = '\0';
    return o;
}
