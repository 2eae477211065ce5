/*
 * esc.h - the one escaper of trace- and result-provided text (kernel, op and layer names, URLs,
 * workloads, paths) for every text, markdown and CSV output: a name can never move the
 * cursor, set the terminal title, ring the bell or forge an output line.
 *
 * Rule: a newline becomes the two characters \n; every other C0 control byte (0x00-0x1f, so
 * ESC, BEL, CR, TAB), DEL (0x7f) becomes \xHH (lower-case hex); a C1 control encoded in UTF-8
 * (U+0080-U+009F, bytes C2 80..C2 9F: 8-bit CSI/OSC for some terminals) becomes \u00HH. Every
 * other byte, valid UTF-8 or not, is kept. JSON output does not use this (the JSON writer
 * escapes), nor does HTML (report/html.h).
 */
#ifndef LAT_CORE_ESC_H
#define LAT_CORE_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lat_buf;

/* Whether s (NULL: no) holds a byte the rule changes. */
bool lat_esc_needed(const char *s);
/* Appends s escaped (NULL as ""). 0 or -ENOMEM. */
int lat_esc_buf(struct lat_buf *b, const char *s);
/* s escaped into dst[0..len) (NUL-terminated, cut before an escape or UTF-8 sequence that does
 * not fit); returns dst. */
char *lat_esc_str(char *dst, size_t len, const char *s);
/* s itself when it needs no escape (any length), else lat_esc_str(dst, len, s). */
const char *lat_esc_cell(char *dst, size_t len, const char *s);
/* Writes s escaped to f; what fputs returns. */
int lat_esc_fputs(const char *s, FILE *f);
/* A malloc'd escaped copy of s (NULL on ENOMEM). */
char *lat_esc_dup(const char *s);

#endif
