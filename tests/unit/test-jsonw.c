/* test-jsonw.c - the JSON writer: nesting, separators, escaping, numbers. */
#include "test.h"

#include "core/jsonw.h"

TEST(jsonw_compact_document)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "a");
    jsonw_i64(&w, -5);
    jsonw_key(&w, "b");
    jsonw_arr_begin(&w);
    jsonw_u64(&w, 18446744073709551615ULL);
    jsonw_str(&w, "x\"y\\\n");
    jsonw_null(&w);
    jsonw_bool(&w, true);
    jsonw_arr_end(&w);
    jsonw_key(&w, "e");
    jsonw_obj_begin(&w);
    jsonw_obj_end(&w);
    jsonw_key(&w, "us");
    jsonw_ns_as_us(&w, 1234567);
    jsonw_key(&w, "neg");
    jsonw_ns_as_us(&w, -1500);
    jsonw_obj_end(&w);
    ASSERT_RC(jsonw_finish(&w));
    ASSERT_EQ_STR(w.buf.data, "{\"a\":-5,\"b\":[18446744073709551615,\"x\\\"y\\\\\\n\",null,true],"
                              "\"e\":{},\"us\":1234.567,\"neg\":-1.500}");
    jsonw_fini(&w);
}

TEST(jsonw_invalid_utf8_becomes_replacement)
{
    struct lat_buf b = LAT_BUF_INIT;
    /* valid 2-byte é, a lone continuation byte, a truncated 3-byte sequence, a surrogate */
    ASSERT_RC(json_escape(&b, "\xc3\xa9\x80z\xe2\x82\xed\xa0\x80", 9));
    ASSERT_EQ_STR(b.data, "\"\xc3\xa9\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf"
                          "\xbd\xef\xbf\xbd\"");
    buf_fini(&b);
}

TEST(jsonw_control_chars_and_nan)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_arr_begin(&w);
    jsonw_strn(&w, "\x01\t", 2);
    jsonw_str(&w, "\x7f\xc2\x9b\xc2\xa0"); /* DEL and C1 CSI escaped; NBSP (U+00A0) kept */
    jsonw_double(&w, 0.0 / 0.0, 6);
    jsonw_double(&w, 0.25, 6);
    jsonw_fixed(&w, 2.0 / 3.0, 2);
    jsonw_arr_end(&w);
    ASSERT_RC(jsonw_finish(&w));
    ASSERT_EQ_STR(w.buf.data, "[\"\\u0001\\t\",\"\\u007f\\u009b\xc2\xa0\",null,0.25,0.67]");
    jsonw_fini(&w);
}

TEST(jsonw_unbalanced_is_an_error)
{
    struct jsonw w;
    jsonw_init(&w, NULL, true);
    jsonw_obj_begin(&w);
    ASSERT(jsonw_finish(&w) != 0);
    jsonw_fini(&w);
}

/* str_max: longer values are cut at a character boundary with an ellipsis, keys never */
TEST(jsonw_str_max_cuts_values_at_utf8_boundaries)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    w.str_max = 4;
    jsonw_obj_begin(&w);
    jsonw_key(&w, "long_key");
    jsonw_str(&w, "abcd"); /* exactly the cap: whole */
    jsonw_key(&w, "b");
    jsonw_str(&w, "abcde"); /* one over: cut */
    jsonw_key(&w, "c");
    jsonw_str(&w, "abc\xc3\xa9"); /* é would end at byte 5: cut before it, not inside */
    jsonw_key(&w, "d");
    jsonw_strn(&w, "\"\"\"\"\"", 5); /* escapes are not counted against the cap: 4 quotes kept */
    jsonw_obj_end(&w);
    ASSERT_RC(jsonw_finish(&w));
    ASSERT_RC(buf_putc(&w.buf, 0));
    ASSERT_EQ_STR(w.buf.data,
                  "{\"long_key\":\"abcd\",\"b\":\"abcd\xe2\x80\xa6\",\"c\":\"abc\xe2\x80\xa6\","
                  "\"d\":\"\\\"\\\"\\\"\\\"\xe2\x80\xa6\"}");
    jsonw_fini(&w);
}
