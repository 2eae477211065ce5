/*
 * test-table.c - core/table.c, the text-table renderer: alignment, separators, indent, the two
 * cuts (never inside a UTF-8 sequence), short rows, and the same bytes to a FILE and a buffer.
 */
#include "core/table.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const struct lat_tcol cols[] = {
    {4, 0, NULL},
    {8, LAT_TCOL_LEFT | LAT_TCOL_CUT_END, NULL},
    {8, LAT_TCOL_LEFT | LAT_TCOL_CUT_START, "|"},
    {0, LAT_TCOL_LEFT, "  "},
};
static const struct lat_table tab = {"> ", cols, 4};

static char *row_file(const char *const *cells, size_t n)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    struct lat_tout o = LAT_TOUT_FILE(f);
    lat_table_row(&o, &tab, cells, n);
    fclose(f);
    return s;
}

static void check(const char *const *cells, size_t n, const char *want)
{
    struct lat_buf b = LAT_BUF_INIT;
    struct lat_tout o = LAT_TOUT_BUF(&b);
    ASSERT_RC(lat_table_row(&o, &tab, cells, n));
    ASSERT_EQ_STR(b.data, want);
    char *s = row_file(cells, n);
    ASSERT_EQ_STR(s, want);
    free(s);
    buf_fini(&b);
}

TEST(table_aligns_cuts_and_separates)
{
    check((const char *const[]){"7", "ab", "cd", "free text"}, 4,
          ">    7 ab      |cd        free text\n");
    /* too long: the start kept in the second column, the end in the third */
    check((const char *const[]){"12345", "abcdefghij", "abcdefghij", ""}, 4,
          "> 12345 abcde...|...fghij  \n");
    /* exactly the width: not cut */
    check((const char *const[]){"1", "abcdefgh", "abcdefgh", "x"}, 4,
          ">    1 abcdefgh|abcdefgh  x\n");
    /* a short row (a total line), a NULL cell */
    check((const char *const[]){"9", NULL}, 2, ">    9         \n");
}

TEST(table_cuts_never_split_utf8)
{
    /* "é" is 2 bytes: a cut at byte 5 would split it; the cell is padded back to 8 bytes */
    check((const char *const[]){"1", "abcd\xc3\xa9xyz",
                                "xyz\xc3\xa9"
                                "abcd",
                                ""},
          4, ">    1 abcd... |...abcd   \n");
    /* the printf spellings the old renderers used give the same bytes for ASCII */
    check((const char *const[]){"1", "abcdefghijk", "abcdefghijk", ""}, 4,
          ">    1 abcde...|...ghijk  \n");
}
