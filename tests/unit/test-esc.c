/* test-esc.c - core/esc.h: the one escaper of names in text, markdown and CSV output. */
#include "test.h"

#include "core/buf.h"
#include "core/esc.h"
#include "core/table.h"

#include <stdlib.h>

TEST(esc_rule)
{
    const char *in = "a\x1b[31mb\x1b]0;T\x07\r\nc\x01\x7f\xc2\x9bZ\t\xc3\xa9\xc2\xa0";
    const char *want = "a\\x1b[31mb\\x1b]0;T\\x07\\x0d\\nc\\x01\\x7f\\u009bZ\\x09\xc3\xa9\xc2\xa0";
    ASSERT(lat_esc_needed(in));
    ASSERT(!lat_esc_needed("plain \xc3\xa9 \xc2\xa0 text")); /* é and NBSP are not controls */
    ASSERT(!lat_esc_needed(NULL));
    char *d = lat_esc_dup(in);
    ASSERT_EQ_STR(d, want);
    free(d);
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(lat_esc_buf(&b, in));
    ASSERT_RC(buf_putc(&b, 0));
    ASSERT_EQ_STR(b.data, want);
    buf_fini(&b);
    char s[64];
    ASSERT_EQ_STR(lat_esc_str(s, sizeof(s), in), want);
    const char *clean = "clean";
    ASSERT(lat_esc_cell(s, sizeof(s), clean) == clean); /* no copy when nothing to escape */
    ASSERT_EQ_STR(lat_esc_cell(s, sizeof(s), NULL), "");
}

TEST(esc_str_cuts_whole_escapes_and_utf8)
{
    char s[6];
    ASSERT_EQ_STR(lat_esc_str(s, sizeof(s), "ab\x1b"), "ab"); /* "\x1b" does not fit after ab */
    ASSERT_EQ_STR(lat_esc_str(s, sizeof(s), "abcd\xc3\xa9"), "abcd"); /* not half an é */
    ASSERT_EQ_STR(lat_esc_str(s, sizeof(s), "\n\n\n"), "\\n\\n");
}

TEST(esc_table_cells_are_escaped_then_cut)
{
    static const struct lat_tcol cols[] = {{12, LAT_TCOL_LEFT | LAT_TCOL_CUT_END, NULL},
                                           {0, 0, NULL}};
    static const struct lat_table tab = {"", cols, 2};
    struct lat_buf b = LAT_BUF_INIT;
    struct lat_tout o = LAT_TOUT_BUF(&b);
    ASSERT_RC(lat_table_row(&o, &tab, (const char *[]){"k\x1b]0;x\x07\ny", "v\r"}, 2));
    ASSERT_RC(buf_putc(&b, 0));
    ASSERT_EQ_STR(b.data, "k\\x1b]0;x... v\\x0d\n");
    buf_fini(&b);
}
