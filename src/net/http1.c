/*
 * http1.c - HTTP/1.1 request builder, URL parser and incremental response parser.
 *
 * The response parser is a state machine over whatever recv() returned. Status, header,
 * chunk-size and trailer lines are gathered with memchr into one fixed line buffer (the only
 * copy; body bytes are never copied), so a response split at any byte parses exactly like one
 * that arrived whole; tests feed every split point. Limits (line length, total header bytes,
 * header count, chunk size) turn hostile input into LAT_E_HTTP_PARSE, never into unbounded
 * work. We are lenient where real servers are sloppy (bare LF line ends, empty lines before a
 * status line, extra spaces around header values) and strict where framing is at stake
 * (Content-Length syntax and duplicates, chunk sizes, obsolete line folding).
 * Framing follows RFC 9112 §6: 1xx responses are skipped; HEAD, 204 and 304 have no body;
 * chunked wins over Content-Length; otherwise the body runs to EOF.
 * Threading: a parser belongs to one connection; no globals.
 */
#include "net/http1.h"

#include "core/err.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum {
    ST_STATUS = 0,
    ST_HEADERS,
    ST_BODY_LENGTH,
    ST_BODY_EOF,
    ST_CHUNK_SIZE,
    ST_CHUNK_DATA,
    ST_CHUNK_END,
    ST_TRAILERS,
    ST_DONE,
};

#define HTTP1_MAX_HEADERS 256
#define HTTP1_MAX_CHUNK   (1ull << 40)

void http1_resp_init(struct http1_resp *r, bool head_request, const struct http1_cb *cb, void *ud)
{
    /* The line buffer needs no clearing: line_len says how much of it is valid. */
    memset(r, 0, offsetof(struct http1_resp, line));
    r->cb = cb;
    r->ud = ud;
    r->head = head_request;
    r->content_length = -1;
    r->state = ST_STATUS;
}

static ssize_t bad(struct http1_resp *r, const char *why)
{
    r->error = why;
    return LAT_E_HTTP_PARSE;
}

static bool is_tchar(unsigned char c)
{
    return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int parse_status(struct http1_resp *r, const char *s, size_t n)
{
    /* HTTP/1.x SP 3DIGIT [SP reason] */
    if (n < 12 || memcmp(s, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)s[7]) || s[8] != ' ')
        return -1;
    if (!isdigit((unsigned char)s[9]) || !isdigit((unsigned char)s[10]) ||
        !isdigit((unsigned char)s[11]))
        return -1;
    if (n > 12 && s[12] != ' ') return -1;
    r->minor = s[7] - '0';
    r->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
    if (r->status < 100 || r->status > 599) return -1;
    /* HTTP/1.0 closes unless the server says keep-alive (seen in the headers). */
    r->conn_close = r->minor == 0;
    return 0;
}

/* True when the comma-separated list v contains token tok (case-insensitive). */
static bool list_has(const char *v, size_t n, const char *tok)
{
    size_t tl = strlen(tok), i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t j = i;
        while (j < n && v[j] != ',')
            j++;
        size_t e = j;
        while (e > i && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e - i == tl && strncasecmp(v + i, tok, tl) == 0) return true;
        i = j;
    }
    return false;
}

/* True when the last transfer coding in v is "chunked". */
static bool last_is_chunked(const char *v, size_t n)
{
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    size_t i = n;
    while (i > 0 && v[i - 1] != ',')
        i--;
    while (i < n && (v[i] == ' ' || v[i] == '\t'))
        i++;
    return n - i == 7 && strncasecmp(v + i, "chunked", 7) == 0;
}

static ssize_t parse_header(struct http1_resp *r, char *s, size_t n, bool trailer)
{
    if (n && (s[0] == ' ' || s[0] == '\t')) return bad(r, "obsolete header line folding");
    size_t c = 0;
    while (c < n && s[c] != ':') {
        if (!is_tchar((unsigned char)s[c])) return bad(r, "invalid character in header name");
        c++;
    }
    if (c == n || c == 0) return bad(r, "header line without a name and ':'");
    size_t vs = c + 1, ve = n;
    while (vs < ve && (s[vs] == ' ' || s[vs] == '\t'))
        vs++;
    while (ve > vs && (s[ve - 1] == ' ' || s[ve - 1] == '\t'))
        ve--;
    const char *v = s + vs;
    size_t vl = ve - vs;
    if (++r->nheaders > HTTP1_MAX_HEADERS) return bad(r, "too many header fields");
    if (!trailer) {
        if (c == 14 && strncasecmp(s, "content-length", 14) == 0) {
            if (vl == 0 || vl > 18) return bad(r, "invalid Content-Length");
            int64_t cl = 0;
            for (size_t i = 0; i < vl; i++) {
                if (!isdigit((unsigned char)v[i])) return bad(r, "invalid Content-Length");
                cl = cl * 10 + (v[i] - '0');
            }
            if (r->content_length >= 0 && r->content_length != cl)
                return bad(r, "conflicting Content-Length headers");
            r->content_length = cl;
        } else if (c == 17 && strncasecmp(s, "transfer-encoding", 17) == 0) {
            r->mode = last_is_chunked(v, vl) ? HTTP1_BODY_CHUNKED : HTTP1_BODY_EOF;
        } else if (c == 10 && strncasecmp(s, "connection", 10) == 0) {
            if (list_has(v, vl, "close"))
                r->conn_close = true;
            else if (list_has(v, vl, "keep-alive"))
                r->conn_close = false;
        }
    }
    if (r->cb && r->cb->on_header) r->cb->on_header(r->ud, s, c, v, vl);
    return 0;
}

/* Decides the body framing once the header block is complete (RFC 9112 §6.3). */
static void headers_complete(struct http1_resp *r, lat_ns t)
{
    r->headers_done = true;
    r->t_headers = t;
    if (r->head || r->status == 204 || r->status == 304) {
        r->mode = HTTP1_BODY_NONE;
        r->state = ST_DONE;
    } else if (r->mode == HTTP1_BODY_CHUNKED) {
        r->state = ST_CHUNK_SIZE;
    } else if (r->mode == HTTP1_BODY_EOF) {
        /* A transfer coding other than chunked: length unknown, ends at close. */
        r->conn_close = true;
        r->state = ST_BODY_EOF;
    } else if (r->content_length >= 0) {
        r->mode = HTTP1_BODY_LENGTH;
        r->remaining = (uint64_t)r->content_length;
        r->state = r->remaining ? ST_BODY_LENGTH : ST_DONE;
    } else {
        r->mode = HTTP1_BODY_EOF;
        r->conn_close = true;
        r->state = ST_BODY_EOF;
    }
    if (r->state == ST_DONE) {
        r->done = true;
        r->t_end = t;
    }
}

static ssize_t parse_chunk_size(struct http1_resp *r, const char *s, size_t n)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && isxdigit((unsigned char)s[i])) {
        int d =
            isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10);
        v = v * 16 + (uint64_t)d;
        if (v > HTTP1_MAX_CHUNK) return bad(r, "chunk size too large");
        i++;
    }
    if (i == 0) return bad(r, "missing chunk size");
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < n && s[i] != ';') return bad(r, "invalid character after chunk size");
    /* Chunk extensions (";name=value") are allowed and ignored. */
    r->remaining = v;
    r->state = v ? ST_CHUNK_DATA : ST_TRAILERS;
    return 0;
}

/* One complete line (CR stripped) in the current state. */
static ssize_t on_line(struct http1_resp *r, char *s, size_t n, lat_ns t)
{
    switch (r->state) {
    case ST_STATUS:
        if (n == 0) return 0; /* tolerate empty lines before the status line */
        if (parse_status(r, s, n) < 0) return bad(r, "invalid status line");
        r->state = ST_HEADERS;
        return 0;
    case ST_HEADERS:
        if (n) return parse_header(r, s, n, false);
        if (r->status < 200) {
            /* 1xx: informational, another status line follows. 101 would switch protocols,
             * which a load generator never asks for. */
            if (r->status == 101) return bad(r, "unexpected 101 Switching Protocols");
            const struct http1_cb *cb = r->cb;
            void *ud = r->ud;
            bool head = r->head;
            lat_ns t_first = r->t_first;
            http1_resp_init(r, head, cb, ud);
            r->t_first = t_first;
            return 0;
        }
        headers_complete(r, t);
        return 0;
    case ST_CHUNK_SIZE:
        return parse_chunk_size(r, s, n);
    case ST_CHUNK_END:
        if (n) return bad(r, "chunk data longer than its size");
        r->state = ST_CHUNK_SIZE;
        return 0;
    case ST_TRAILERS:
        if (n) return parse_header(r, s, n, true);
        r->state = ST_DONE;
        r->done = true;
        r->t_end = t;
        return 0;
    default:
        return bad(r, "internal: line in a body state");
    }
}

static bool line_state(int st)
{
    return st == ST_STATUS || st == ST_HEADERS || st == ST_CHUNK_SIZE || st == ST_CHUNK_END ||
           st == ST_TRAILERS;
}

ssize_t http1_resp_feed(struct http1_resp *r, const char *p, size_t n, lat_ns t_recv)
{
    size_t i = 0;
    if (n && !r->t_first) r->t_first = t_recv;
    while (i < n && r->state != ST_DONE) {
        if (line_state(r->state)) {
            const char *nl = memchr(p + i, '\n', n - i);
            size_t seg = nl ? (size_t)(nl - (p + i)) : n - i;
            if (r->line_len + seg > HTTP1_LINE_MAX - 1) return bad(r, "header line too long");
            if (r->state == ST_STATUS || r->state == ST_HEADERS || r->state == ST_TRAILERS) {
                r->header_bytes += (uint32_t)seg + (nl ? 1 : 0);
                if (r->header_bytes > HTTP1_HEADERS_MAX) return bad(r, "header block too large");
            }
            memcpy(r->line + r->line_len, p + i, seg);
            r->line_len += (uint32_t)seg;
            i += seg;
            /* Garbage instead of a status line: say so now rather than waiting for a LF that
             * may never come. */
            if (r->state == ST_STATUS) {
                size_t k = 0;
                while (k < r->line_len && (r->line[k] == '\r'))
                    k++;
                size_t m = r->line_len - k < 5 ? r->line_len - k : 5;
                if (m && memcmp(r->line + k, "HTTP/", m) != 0)
                    return bad(r, "not an HTTP response");
            }
            if (!nl) break;
            i++; /* the LF */
            size_t len = r->line_len;
            if (len && r->line[len - 1] == '\r') len--;
            r->line[len] = '\0';
            r->line_len = 0;
            ssize_t rc = on_line(r, r->line, len, t_recv);
            if (rc < 0) return rc;
            continue;
        }
        size_t take = n - i;
        if (r->state == ST_BODY_LENGTH || r->state == ST_CHUNK_DATA) {
            if (take > r->remaining) take = (size_t)r->remaining;
            r->remaining -= take;
        }
        r->body_bytes += take;
        if (r->cb && r->cb->on_body) r->cb->on_body(r->ud, p + i, take, t_recv);
        i += take;
        if (r->state == ST_BODY_LENGTH && r->remaining == 0) {
            r->state = ST_DONE;
            r->done = true;
            r->t_end = t_recv;
        } else if (r->state == ST_CHUNK_DATA && r->remaining == 0) {
            r->state = ST_CHUNK_END;
        }
    }
    return (ssize_t)i;
}

int http1_resp_eof(struct http1_resp *r, lat_ns t)
{
    if (r->done) return 0;
    if (r->state == ST_BODY_EOF) {
        r->state = ST_DONE;
        r->done = true;
        r->t_end = t;
        return 0;
    }
    r->error = r->t_first ? "connection closed before the response was complete"
                          : "connection closed before any response byte";
    return LAT_E_TRUNCATED;
}

static bool has_header(const char *const *h, size_t n, const char *name)
{
    size_t l = strlen(name);
    for (size_t i = 0; i < n; i++)
        if (strncasecmp(h[i], name, l) == 0 && h[i][l] == ':') return true;
    return false;
}

int http1_build_request(struct lat_buf *out, const char *method, const char *host, const char *path,
                        const char *const *headers, size_t nheaders, const void *body,
                        size_t body_len)
{
    for (size_t i = 0; i < nheaders; i++) {
        const char *c = strchr(headers[i], ':');
        if (!c || c == headers[i] || strpbrk(headers[i], "\r\n")) return LAT_E_USAGE;
    }
    if (!method[0] || strpbrk(method, " \r\n") || strpbrk(path, " \r\n")) return LAT_E_USAGE;
    int rc = buf_printf(out, "%s %s HTTP/1.1\r\n", method, path);
    if (!rc && !has_header(headers, nheaders, "host")) rc = buf_printf(out, "Host: %s\r\n", host);
    if (!rc && !has_header(headers, nheaders, "user-agent"))
        rc = buf_puts(out, "User-Agent: latscope\r\n");
    for (size_t i = 0; !rc && i < nheaders; i++)
        rc = buf_printf(out, "%s\r\n", headers[i]);
    bool want_len = body || strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
                    strcmp(method, "PATCH") == 0;
    if (!rc && want_len && !has_header(headers, nheaders, "content-length"))
        rc = buf_printf(out, "Content-Length: %zu\r\n", body ? body_len : 0);
    if (!rc) rc = buf_puts(out, "\r\n");
    if (!rc && body && body_len) rc = buf_append(out, body, body_len);
    return rc;
}

static int url_parse(const char *url, struct http1_url *u, bool grpc_ok, const char **why)
{
    memset(u, 0, sizeof(*u));
    const char *p;
    if (strncasecmp(url, "http://", 7) == 0) {
        p = url + 7;
    } else if (strncasecmp(url, "https://", 8) == 0) {
        p = url + 8;
        u->tls = true;
    } else if (grpc_ok && strncasecmp(url, "grpc://", 7) == 0) {
        p = url + 7; /* gRPC over plain HTTP/2 (h2c): bench --target kserve */
        u->grpc = true;
    } else {
        *why = grpc_ok ? "URL must start with http://, https:// or grpc://"
                       : "URL must start with http:// or https://";
        return LAT_E_USAGE;
    }
    size_t auth = strcspn(p, "/?#");
    if (memchr(p, '@', auth)) {
        *why = "credentials in the URL (user:password@host) are not supported; send them as a "
               "header, e.g. -H 'Authorization: Basic BASE64(user:password)'";
        return LAT_E_USAGE;
    }
    const char *hs = p, *he, *pe = NULL;
    if (*p == '[') {
        he = strchr(p, ']');
        if (!he) {
            *why = "unterminated [IPv6] address in URL";
            return LAT_E_USAGE;
        }
        hs = p + 1;
        p = he + 1;
    } else {
        while (*p && *p != ':' && *p != '/' && *p != '?')
            p++;
        he = p;
    }
    if (he == hs) {
        *why = "URL has no host";
        return LAT_E_USAGE;
    }
    if ((size_t)(he - hs) >= sizeof(u->host)) {
        *why = "host name too long";
        return LAT_E_USAGE;
    }
    memcpy(u->host, hs, (size_t)(he - hs));
    if (*p == ':') {
        const char *ps = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        pe = p;
        long port = 0;
        for (const char *q = ps; q < pe && q - ps <= 5; q++) /* no overflow on long runs */
            port = port * 10 + (*q - '0');
        if (pe == ps || pe - ps > 5 || port < 1 || port > 65535) {
            *why = "invalid port in URL";
            return LAT_E_USAGE;
        }
        snprintf(u->port, sizeof(u->port), "%ld", port);
    } else {
        snprintf(u->port, sizeof(u->port), "%s", u->tls ? "443" : u->grpc ? "8001" : "80");
    }
    if (*p && *p != '/' && *p != '?') {
        *why = "unexpected character after host:port in URL";
        return LAT_E_USAGE;
    }
    size_t hpl = (size_t)(p - (url + (u->tls ? 8 : 7)));
    memcpy(u->hostport, url + (u->tls ? 8 : 7), hpl);
    if (*p == '/') {
        snprintf(u->path, sizeof(u->path), "%s", p);
    } else {
        snprintf(u->path, sizeof(u->path), "/%s", p); /* "?q" -> "/?q", "" -> "/" */
    }
    if (strlen(p) + 1 >= sizeof(u->path) || strpbrk(u->path, " \r\n\t")) {
        *why = "URL path too long or contains whitespace";
        return LAT_E_USAGE;
    }
    return 0;
}

int http1_url_parse(const char *url, struct http1_url *u, const char **why)
{
    return url_parse(url, u, false, why);
}

int http1_url_parse_grpc(const char *url, struct http1_url *u, const char **why)
{
    return url_parse(url, u, true, why);
}
