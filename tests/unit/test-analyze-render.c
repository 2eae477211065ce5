/* test-analyze-render.c - analyze's field tables (src/analyze/render.h): every column sits
 * inside its row, keys are unique per table, numbers come back in their unit, and a row renders
 * as the JSON object docs/analyze-json.md describes. */
#include "test.h"

#include "analyze/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct lat_an_table *const tables[] = {
    &lat_an_temporal_table, &lat_an_idle_table,   &lat_an_ktype_table,     &lat_an_queue_table,
    &lat_an_step_table,     &lat_an_op_table,     &lat_an_op_kernel_table, &lat_an_aten_table,
    &lat_an_kernel_table,   &lat_an_memcpy_table, &lat_an_sync_table,
};

TEST(analyze_render_tables_consistent)
{
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
        const struct lat_an_table *tb = tables[t];
        ASSERT_OP_I64((int64_t)tb->nfields, >, 0);
        for (size_t i = 0; i < tb->nfields; i++) {
            const struct lat_an_field *f = &tb->fields[i];
            ASSERT(f->key && f->key[0] && f->label && f->label[0]);
            ASSERT_OP_I64((int64_t)f->off, <, (int64_t)tb->row_size);
            for (size_t j = 0; j < i; j++)
                if (!strcmp(f->key, tb->fields[j].key)) FAIL("%s: key %s twice", tb->key, f->key);
        }
    }
}

TEST(analyze_render_field_values)
{
    struct lat_an_step s = {.step = 3, .ts = 1500, .dur = 2000250, .idle = 7, .kernels = 9};
    const struct lat_an_table *t = &lat_an_step_table;
    double want[] = {3, 1500, 2000250, 0, 0, 0, 0, 0, 7, 9};
    ASSERT_EQ_U64(t->nfields, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < t->nfields; i++)
        ASSERT_NEAR(lat_an_field_num(&t->fields[i], &s), want[i], 0);

    struct lat_an_kernel k = {
        .type = LAT_KT_MEMORY, .name = "memcpy", .count = 2, .mean_ns = 1234.5};
    ASSERT(isnan(lat_an_field_num(&lat_an_kernel_table.fields[0], &k))); /* name */
    ASSERT_NEAR(lat_an_field_num(&lat_an_kernel_table.fields[1], &k), LAT_KT_MEMORY, 0);

    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    ASSERT(f);
    struct jsonw w;
    jsonw_init(&w, f, false);
    lat_an_row_json(&w, &lat_an_kernel_table, &k);
    ASSERT_RC(jsonw_finish(&w));
    jsonw_fini(&w);
    fclose(f);
    ASSERT_EQ_STR(mem, "{\"name\":\"memcpy\",\"type\":\"MEMORY\",\"count\":2,\"sum_us\":0.000,"
                       "\"mean_us\":1.234,\"max_us\":0.000,\"min_us\":0.000,\"std_us\":0.000}");
    free(mem);

    struct lat_an_op op = {.name = "aten::mm", .input_dims = NULL};
    f = open_memstream(&mem, &n);
    jsonw_init(&w, f, false);
    lat_an_row_json(&w, &lat_an_op_table, &op);
    ASSERT_RC(jsonw_finish(&w));
    jsonw_fini(&w);
    fclose(f);
    ASSERT(strstr(mem, "\"input_dims\":null"));
    free(mem);
}
