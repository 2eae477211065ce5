/*
 * sha256.h - SHA-256 (FIPS 180-4), one-shot. The report page's Content-Security-Policy names its
 * inline script and style by their hashes ('sha256-<base64>', src/report/html.c).
 */
#ifndef LAT_CORE_SHA256_H
#define LAT_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define LAT_SHA256_LEN 32

/* The digest of p[0..n) into out. */
void lat_sha256(const void *p, size_t n, uint8_t out[LAT_SHA256_LEN]);

#endif
