/*
 * fields.c - reading and writing analyze's field tables (render.h): a field's value as a
 * number (diff, report), a field or a row as JSON, a name cut from the left for text tables.
 * Below render.c: the format sections (ort.c, tf.c, trt.c, ncu.c) that render.c's section table
 * calls write their rows with these (tests/e2e/t005-link-graph.sh).
 */
#include "analyze/render.h"
#include "core/table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define AT(row, f, type) ((const type *)((const char *)(row) + (f)->off))

double lat_an_field_num(const struct lat_an_field *f, const void *row)
{
    switch (f->unit) {
    case LAT_AN_U_NS:
        return (double)*AT(row, f, lat_ns);
    case LAT_AN_U_NS_D:
    case LAT_AN_U_PCT:
    case LAT_AN_U_F3:
    case LAT_AN_U_F6:
        return *AT(row, f, double);
    case LAT_AN_U_COUNT:
    case LAT_AN_U_BYTES:
        return (double)*AT(row, f, uint64_t);
    case LAT_AN_U_I64:
        return (double)*AT(row, f, int64_t);
    case LAT_AN_U_I32:
        return (double)*AT(row, f, int32_t);
    case LAT_AN_U_BOOL:
        return *AT(row, f, bool) ? 1.0 : 0.0;
    case LAT_AN_U_KTYPE:
        return (double)*AT(row, f, enum lat_ktype);
    case LAT_AN_U_STR:
        break;
    }
    return NAN;
}

void lat_an_field_json(struct jsonw *w, const struct lat_an_field *f, const void *row)
{
    jsonw_key(w, f->key);
    switch (f->unit) {
    case LAT_AN_U_NS:
        jsonw_ns_as_us(w, *AT(row, f, lat_ns));
        break;
    case LAT_AN_U_NS_D:
        jsonw_fixed(w, *AT(row, f, double) / 1000.0, 3);
        break;
    case LAT_AN_U_PCT:
        jsonw_fixed(w, *AT(row, f, double), 4);
        break;
    case LAT_AN_U_F3:
        jsonw_fixed(w, *AT(row, f, double), 3);
        break;
    case LAT_AN_U_F6:
        jsonw_fixed(w, *AT(row, f, double), 6);
        break;
    case LAT_AN_U_COUNT:
    case LAT_AN_U_BYTES:
        jsonw_u64(w, *AT(row, f, uint64_t));
        break;
    case LAT_AN_U_I64:
        jsonw_i64(w, *AT(row, f, int64_t));
        break;
    case LAT_AN_U_I32:
        jsonw_i64(w, *AT(row, f, int32_t));
        break;
    case LAT_AN_U_BOOL:
        jsonw_bool(w, *AT(row, f, bool));
        break;
    case LAT_AN_U_KTYPE:
        jsonw_str(w, analysis_ktype_name(*AT(row, f, enum lat_ktype)));
        break;
    case LAT_AN_U_STR: {
        const char *s;
        memcpy(&s, (const char *)row + f->off, sizeof(s));
        if (s)
            jsonw_str(w, s);
        else
            jsonw_null(w);
        break;
    }
    }
}

void lat_an_row_json(struct jsonw *w, const struct lat_an_table *t, const void *row)
{
    jsonw_obj_begin(w);
    for (size_t i = 0; i < t->nfields; i++)
        lat_an_field_json(w, &t->fields[i], row);
    jsonw_obj_end(w);
}

/* Names are table cells (core/table.h): escaped (core/esc.h), padded, cut to the width. */
void lat_an_print_tail(FILE *f, const char *s, int w)
{
    lat_table_cell(&LAT_TOUT_FILE(f),
                   &(struct lat_tcol){w, LAT_TCOL_LEFT | LAT_TCOL_CUT_START, NULL}, s);
}
