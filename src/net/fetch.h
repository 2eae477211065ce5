/*
 * fetch.h - one blocking HTTP/1.1 exchange on a fresh connection, for setup-time requests
 * (KServe model metadata, Triton statistics), never for measured load.
 */
#ifndef LAT_NET_FETCH_H
#define LAT_NET_FETCH_H

#include "core/buf.h"
#include "core/clock.h"
#include "net/conn.h"

/*
 * Sends the request bytes req[0..len) to t, reads the whole response (at most 16 MiB of body)
 * into *body (appended), stores the status in *status. Gives up after timeout_ns.
 * Returns 0, -ETIMEDOUT, -errno, LAT_E_HTTP_PARSE / LAT_E_TRUNCATED or -EFBIG.
 */
int http_fetch(const struct conn_target *t, const char *req, size_t len, lat_ns timeout_ns,
               int *status, struct lat_buf *body);

#endif
