/*
 * redact.h - the one redaction of secrets in text latscope writes (issue 32): command lines,
 * URLs (their query and user:pass@), headers and workload descriptions. Every writer that puts
 * a user-given URL, argument or request description into an output (trace's latscope_command,
 * bench JSON/text/CSV, bench merge, report, diff, convert) passes it through here.
 */
#ifndef LAT_CORE_REDACT_H
#define LAT_CORE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

/* A secret-looking name of n bytes: contains TOKEN, KEY, SECRET, PASSWORD, CREDENTIAL, PASSWD
 * or AUTH, case-insensitive (the metadata rule: lat_meta_is_secret forwards here). */
bool lat_secret_name(const char *s, size_t n);

/* Appends s to b with secrets replaced by REDACTED: the value of NAME=VALUE (also inside a URL
 * query or a longer string, up to '&', ',', ';' or a blank) when NAME looks secret, everything
 * after "NAME:" when NAME looks secret (headers: "Authorization: Bearer x", "X-Api-Key: x"), the
 * token after "Bearer " or "Basic ", the password of a URL's user:pass@, and - with hide_next
 * (a command line, one argument a call) - the whole argument after an option "--NAME" that looks
 * secret (--token, --api-key ...): *hide_next carries that to the next call; NULL for a lone
 * string. 0 or -ENOMEM (b may hold a part: reset it). */
int lat_redact_buf(struct lat_buf *b, const char *s, bool *hide_next);

/* s redacted (no hide_next), in b (reset first): b->data, or "REDACTED" when memory ran out
 * (never the original). NULL stays NULL. */
const char *lat_redacted(struct lat_buf *b, const char *s);

#endif
