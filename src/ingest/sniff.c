/*
 * sniff.c - the byte tests the readers' sniffers share (formats.h): ingest.c's format table
 * calls each reader's sniff function on the first (decompressed) bytes and the file name.
 */
#include "ingest/formats.h"

#include <string.h>
#include <strings.h>

bool ingest_has_suffix(const char *path, const char *suf)
{
    if (!path) return false;
    size_t l = strlen(path), k = strlen(suf);
    return l >= k && strcasecmp(path + l - k, suf) == 0;
}

/* First byte after whitespace (and a UTF-8 BOM), or -1. */
int ingest_first_char(const unsigned char *h, size_t n, size_t *at)
{
    size_t i = 0;
    if (n >= 3 && h[0] == 0xef && h[1] == 0xbb && h[2] == 0xbf) i = 3;
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
        i++;
    if (at) *at = i;
    return i < n ? h[i] : -1;
}

bool ingest_looks_json(const unsigned char *h, size_t n)
{
    int c = ingest_first_char(h, n, NULL);
    return c == '{' || c == '[';
}

/* Printable text (ASCII or UTF-8 bytes, tabs and newlines) in the first n bytes. */
bool ingest_looks_text(const unsigned char *h, size_t n)
{
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (h[i] < 0x20 && h[i] != '\t' && h[i] != '\n' && h[i] != '\r') return false;
    return true;
}

/* The first member name of a JSON object/array-of-objects document, in key[0..ksz). */
bool ingest_first_key(const unsigned char *h, size_t n, bool in_array, char *key, size_t ksz)
{
    size_t i, j = 0;
    int c = ingest_first_char(h, n, &i);
    if (in_array) {
        if (c != '[') return false;
        j = i + 1;
        c = ingest_first_char(h + j, n - j, &i);
    }
    if (c != '{') return false;
    j += i + 1;
    if (ingest_first_char(h + j, n - j, &i) != '"') return false;
    j += i + 1;
    size_t k = 0;
    while (j < n && h[j] != '"' && k + 1 < ksz)
        key[k++] = (char)h[j++];
    key[k] = 0;
    return j < n && h[j] == '"';
}
