/*
 * table.h - aligned text columns, the one renderer of latscope's text tables (analyze's format
 * sections, doctor's evidence lists).
 *
 *     static const struct lat_tcol cols[] = {{6, 0, NULL}, {36, LAT_TCOL_LEFT | LAT_TCOL_CUT_END,
 * NULL}, {10, 0, NULL}}; static const struct lat_table tab = {"  ", cols, 3};
 *     lat_table_row(&LAT_TOUT_FILE(f), &tab, (const char *[]){"7", name, "1.2 ms"}, 3);
 *
 * A row is the indent, then each cell: its column's separator (one space when NULL; none
 * before the first cell), the cell padded to the column's width (right-aligned, or left with
 * LAT_TCOL_LEFT), and "\n". Widths count bytes, as printf's do. A cell longer than its width
 * is printed whole unless the column cuts it: LAT_TCOL_CUT_END keeps its start ("abc..."),
 * LAT_TCOL_CUT_START its end ("...xyz"), both in exactly width bytes and never inside a UTF-8
 * sequence (padded back to width when the cut lands short). Width 0: the cell as it is (a last
 * free-text column). A row may have fewer cells than the table has columns (a total row).
 * A cell holding control bytes (a trace's name) is escaped by core/esc.h before it is cut.
 */
#ifndef LAT_CORE_TABLE_H
#define LAT_CORE_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"

enum {
    LAT_TCOL_LEFT = 1u << 0,      /* left-aligned (default: right) */
    LAT_TCOL_CUT_END = 1u << 1,   /* too long: "start..." in width bytes */
    LAT_TCOL_CUT_START = 1u << 2, /* too long: "...end" in width bytes */
};

struct lat_tcol {
    int width;       /* bytes; 0: no padding */
    unsigned flags;  /* LAT_TCOL_* */
    const char *sep; /* before this column; NULL: " " (never before the first) */
};

struct lat_table {
    const char *indent; /* before the first cell; NULL: none */
    const struct lat_tcol *cols;
    size_t ncols;
};

/* Where rows go: a FILE (analyze's sections) or a buffer (doctor's renderer). */
struct lat_tout {
    FILE *f;
    struct lat_buf *b;
    int err; /* the first -ENOMEM of a buffer, kept */
};
#define LAT_TOUT_FILE(file) ((struct lat_tout){(file), NULL, 0})
#define LAT_TOUT_BUF(buf)   ((struct lat_tout){NULL, (buf), 0})

/* One row of cells[0..n) (n <= t->ncols; a NULL cell prints as ""). 0, or -ENOMEM (buffer). */
int lat_table_row(struct lat_tout *o, const struct lat_table *t, const char *const *cells,
                  size_t n);

/* One cell alone, as column c prints it (no separator, no newline): for rows that mix a table's
 * columns with free text. */
int lat_table_cell(struct lat_tout *o, const struct lat_tcol *c, const char *s);

#endif
