/*
 * base64.h - RFC 4648 base64, standard alphabet, '=' padding, no line breaks (what the
 * HdrHistogram interval log uses).
 */
#ifndef LAT_HIST_BASE64_H
#define LAT_HIST_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Characters base64_encode() writes for n input bytes (no NUL). */
size_t base64_encoded_len(size_t n);
/* Upper bound of the bytes base64_decode() writes for n characters. */
size_t base64_decoded_max(size_t n);
/* Encodes in[0..n) into out (base64_encoded_len(n) + 1 bytes: NUL-terminated). Returns the
 * number of characters written. */
size_t base64_encode(const uint8_t *in, size_t n, char *out);
/* Decodes n characters (length a multiple of 4; '=' only as the last one or two). Writes at
 * most cap bytes to out and the count to *out_len. Returns 0, LAT_E_USAGE (bad character,
 * length or padding) or LAT_E_OVERFLOW (cap too small). */
int base64_decode(const char *in, size_t n, uint8_t *out, size_t cap, size_t *out_len);

#endif
