/*
 * html.h - writing the report page: HTML text escaping, JSON safe inside a <script> element,
 * and the page assembly from the template (src/report/report.html + report.js + report.css,
 * turned into C arrays at build time by mk/report.mk).
 *
 * Safety contract: nothing taken from an input (names, paths, metadata, bench JSON) can end the
 * element it is written into. Text goes through rep_html_text (& < > " ' escaped, control
 * characters replaced); data goes into <script type="application/json"> through
 * rep_json_for_script, which turns every < > & and U+2028/U+2029 into \u escapes, so the
 * element can only end at the page's own </script>. Defence in depth: the page's
 * Content-Security-Policy allows only the one inline script and the one inline style whose
 * SHA-256 it names (computed when the page is written, core/sha256.h), no 'unsafe-inline': a
 * script that an escaping slip let in would not run.
 */
#ifndef LAT_REPORT_HTML_H
#define LAT_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"

/* Every string the page's data holds is cut to at most this many bytes (jsonw's str_max, with
 * an ellipsis): a 20 MB kernel name costs 4 KB per copy, not 20 MB. The page shows names up to
 * 256 characters (report.js NAME_SHOW) and the cut name on hover. */
#define REP_STR_MAX 4096

/* Appends s[0..n) escaped for HTML text and attribute values. 0 or -ENOMEM. */
int rep_html_text(struct lat_buf *b, const char *s, size_t n);

/* Appends the JSON text json[0..n) (valid JSON: < > & appear only inside strings) with < > &
 * and U+2028/U+2029 written as \u escapes, and any raw control character inside a string
 * escaped, so it parses to the same value and cannot close a <script> element; line breaks
 * between tokens become spaces (the data is one line). 0 or -ENOMEM. */
int rep_json_for_script(struct lat_buf *b, const char *json, size_t n);

/* Writes the whole page to f: the template with the title, the data (a JSON document, escaped
 * with rep_json_for_script), the script and the styles inlined, and their hashes in the CSP.
 * 0, -ENOMEM or -EIO. */
int rep_page_write(FILE *f, const char *title, const char *json, size_t n);

/* The inlined template and script, for tests. */
extern const unsigned char rep_report_html[];
extern const unsigned int rep_report_html_len;
extern const unsigned char rep_report_js[];
extern const unsigned int rep_report_js_len;
extern const unsigned char rep_report_css[];
extern const unsigned int rep_report_css_len;

#endif
