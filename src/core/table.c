/*
 * table.c - aligned text columns (see table.h).
 */
#include "core/table.h"

#include "core/esc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void put(struct lat_tout *o, const char *s, size_t n)
{
    if (!n) return;
    if (o->f) {
        fwrite(s, 1, n, o->f);
    } else if (o->b && !o->err) {
        o->err = buf_append(o->b, s, n);
    }
}

static void pad(struct lat_tout *o, size_t n)
{
    static const char spaces[] = "                                ";
    while (n) {
        size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
        put(o, spaces, k);
        n -= k;
    }
}

static bool cont(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

int lat_table_cell(struct lat_tout *o, const struct lat_tcol *c, const char *s)
{
    if (!s) s = "";
    char *esc = NULL; /* a cell with control bytes is printed escaped (core/esc.h), then cut */
    if (lat_esc_needed(s)) {
        if (!(esc = lat_esc_dup(s))) return o->err ? o->err : -ENOMEM;
        s = esc;
    }
    size_t l = strlen(s), w = c->width > 0 ? (size_t)c->width : 0;
    const char *pre = "", *body = s, *post = "";
    size_t bn = l;
    if (w > 3 && l > w && (c->flags & LAT_TCOL_CUT_START)) {
        body = s + l - (w - 3);
        while (*body && cont(*body))
            body++;
        bn = strlen(body);
        pre = "...";
    } else if (w > 3 && l > w && (c->flags & LAT_TCOL_CUT_END)) {
        bn = w - 3;
        while (bn && cont(s[bn]))
            bn--;
        post = "...";
    }
    size_t len = strlen(pre) + bn + strlen(post);
    size_t fill = len < w ? w - len : 0;
    if (!(c->flags & LAT_TCOL_LEFT)) pad(o, fill);
    put(o, pre, strlen(pre));
    put(o, body, bn);
    put(o, post, strlen(post));
    if (c->flags & LAT_TCOL_LEFT) pad(o, fill);
    free(esc);
    return o->err;
}

int lat_table_row(struct lat_tout *o, const struct lat_table *t, const char *const *cells, size_t n)
{
    if (t->indent) put(o, t->indent, strlen(t->indent));
    for (size_t i = 0; i < n && i < t->ncols; i++) {
        const struct lat_tcol *c = &t->cols[i];
        if (i) {
            const char *sep = c->sep ? c->sep : " ";
            put(o, sep, strlen(sep));
        }
        lat_table_cell(o, c, cells[i]);
    }
    put(o, "\n", 1);
    return o->err;
}
