/*
 * folded.c - collapsed ("folded") stacks: one line per distinct stack, "root;...;leaf COUNT",
 * as py-spy `record --format raw`, Brendan Gregg's stackcollapse-*.pl, inferno and `latscope
 * trace --cpu --folded` write them.
 *
 * Each line becomes COUNT samples of its stack (stacks.h: the same model as `trace --cpu`): one
 * event of weight COUNT, never COUNT events, so a file's memory is O(its lines), whatever the
 * counts (their sum is at most STK_MAX_WEIGHT).
 * py-spy decorations are understood: a first frame "thread (TID)" / "thread (TID): NAME" (-t)
 * is the thread, not a frame (py-spy --subprocesses' "process PID:..." too), Python frames
 * "func (file.py:line)" become "py:func (file.py:line)", native ones (--native) "sym (lib.so)"
 * the symbol, "0x7f.. (lib.so)" "[lib.so]". Other frames are kept as they are.
 *
 * The format has NO timestamps: every sample is put at ts 0 and the period is unknown (the
 * metadata "latscope_stacks" says "timestamps": false). Counts, shares, top functions/stacks and
 * the flame graph are exact; time-based views (steps, timelines, on-CPU seconds, GPU-idle
 * windows) do not apply.
 */
#include "core/err.h"
#include "ingest/formats.h"
#include "ingest/stacks.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHAT "collapsed stacks (py-spy raw / stackcollapse)"
#define TODO                                                                                       \
    "pass the file `py-spy record --format raw` or stackcollapse-*.pl wrote, unmodified (lines "   \
    "'frame;frame;frame COUNT')"

static bool digits(const char *s, size_t n)
{
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

/* "thread (123)", "thread (0x7F..): MainThread" -> tid and the name after ": ". */
static bool thread_frame(const char *f, size_t n, int64_t *tid, const char **name, size_t *nl)
{
    if (n < 10 || memcmp(f, "thread (", 8)) return false;
    const char *close = memchr(f + 8, ')', n - 8);
    if (!close) return false;
    char num[32];
    size_t k = (size_t)(close - (f + 8));
    if (!k || k >= sizeof(num)) return false;
    memcpy(num, f + 8, k);
    num[k] = 0;
    char *end;
    long long v = strtoll(num, &end, 0);
    if (*end) return false;
    *tid = v;
    size_t rest = n - (size_t)(close + 1 - f);
    *name = NULL;
    *nl = 0;
    if (rest >= 2 && close[1] == ':' && close[2] == ' ') {
        *name = close + 3;
        *nl = rest - 2;
    } else if (rest) {
        return false;
    }
    return true;
}

/* "process 123:"python x.py"" (py-spy --subprocesses) -> pid. */
static bool process_frame(const char *f, size_t n, int64_t *pid)
{
    if (n < 9 || memcmp(f, "process ", 8) || f[8] < '0' || f[8] > '9') return false;
    long long v = 0;
    size_t i = 8;
    while (i < n && f[i] >= '0' && f[i] <= '9' && v < (1LL << 50))
        v = v * 10 + (f[i++] - '0');
    if (i < n && f[i] != ':' && f[i] != ' ') return false;
    *pid = v;
    return true;
}

/* "NAME: WHAT, why" into err (stacks.h); returns rc */
#define fail(err, errsz, nm, rc, ...) stk_fail(err, errsz, nm, WHAT, rc, __VA_ARGS__)

int ingest_folded_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, char *err, size_t errsz)
{
    const char *nm = name ? name : "(input)";
    *out = NULL;
    struct stk_build b;
    struct stk_lines L;
    stk_lines_init(&L, src);
    int rc = stk_init(&b, &ingest_fmt_collapsed_stacks);
    char why[256] = "";
    uint64_t lines = 0;
    bool threads = false;
    const char *line;
    size_t len;
    if (rc) goto oom;
    while ((rc = stk_line(&L, &line, &len, why, sizeof(why))) == 1) {
        size_t s = len;
        while (s && (line[s - 1] == ' ' || line[s - 1] == '\t'))
            s--;
        if (!s) continue; /* blank line */
        size_t sp = s;
        while (sp && line[sp - 1] != ' ' && line[sp - 1] != '\t')
            sp--;
        if (!digits(line + sp, s - sp) || s - sp > 19) {
            if (L.unterminated && L.lineno > 1) { /* a good line before it */
                rc = fail(err, errsz, nm, LAT_E_TRUNCATED,
                          "the last line (%llu) has no sample count: the file is cut short; "
                          "record again and let the profiler finish writing it",
                          (unsigned long long)L.lineno);
            } else {
                rc = fail(err, errsz, nm, LAT_E_NOT_TRACE,
                          "line %llu does not end in a sample count; %s",
                          (unsigned long long)L.lineno, TODO);
            }
            goto out;
        }
        uint64_t count = strtoull(line + sp, NULL, 10);
        size_t e = sp;
        while (e && (line[e - 1] == ' ' || line[e - 1] == '\t'))
            e--;
        stk_reset(&b);
        int64_t pid = -1, tid = -1;
        const char *tname = NULL;
        size_t tnl = 0;
        size_t i = 0;
        bool first = true;
        while (i < e) {
            const char *semi = memchr(line + i, ';', e - i);
            size_t fe = semi ? (size_t)(semi - line) : e;
            const char *f = line + i;
            size_t fl = fe - i;
            int64_t v;
            if (first && process_frame(f, fl, &v)) {
                pid = v;
            } else if (b.nframes == 0 && tid < 0 && thread_frame(f, fl, &v, &tname, &tnl)) {
                tid = v;
                threads = true;
            } else if ((rc = stk_push_pyspy(&b, f, fl))) {
                goto oom;
            }
            first = false;
            i = fe + 1;
        }
        uint32_t track;
        if ((rc = stk_track(&b, pid, tid, tname, tnl, &track))) goto oom;
        if ((rc = stk_emit(&b, track, 0, count))) {
            if (rc == LAT_E_OVERFLOW) {
                rc = fail(err, errsz, nm, rc,
                          "line %llu: count %llu makes more than %llu samples (2^53) or the file "
                          "has more than %llu lines: split the file",
                          (unsigned long long)L.lineno, (unsigned long long)count, STK_MAX_WEIGHT,
                          (unsigned long long)STK_MAX_SAMPLES);
                goto out;
            }
            goto oom;
        }
        lines++;
    }
    if (rc < 0) {
        if (rc == -ENOMEM) goto oom;
        rc = fail(err, errsz, nm, rc, "%s", why[0] ? why : lat_strerror(rc));
        goto out;
    }
    if (!L.bytes) {
        rc = fail(err, errsz, nm, LAT_E_NOT_TRACE,
                  "empty file (0 bytes): the profiler wrote no sample (py-spy writes the file when "
                  "it stops: was it killed, or did the program exit before the first sample?); "
                  "record again");
        goto out;
    }
    if (!b.samples) {
        rc = fail(err, errsz, nm, LAT_E_NOT_TRACE, "no samples (every count is 0 or no line); %s",
                  TODO);
        goto out;
    }
    char meta[200];
    snprintf(meta, sizeof(meta),
             "{\"format\":\"collapsed-stacks\",\"timestamps\":false,\"samples\":%llu,\"lines\":"
             "%llu,\"threads\":%s}",
             (unsigned long long)b.samples, (unsigned long long)lines, threads ? "true" : "false");
    if ((rc = stk_meta(&b, "latscope_stacks", meta))) goto oom;
    if (opts && opts->stats) {
        opts->stats->input_events += b.events;
        opts->stats->json_bytes += L.bytes;
        opts->stats->raw_bytes += src_raw_done(src);
        opts->stats->gzip = src_is_gzip(src);
    }
    if (name && !(b.t->path = strdup(name))) goto oom;
    *out = b.t;
    b.t = NULL;
    rc = 0;
    goto out;
oom:
    rc = fail(err, errsz, nm, rc ? rc : -ENOMEM, "%s", lat_strerror(rc ? rc : -ENOMEM));
out:
    stk_lines_fini(&L);
    stk_fini(&b);
    src_close(src);
    return rc;
}

/* CPU stack samples, no framework */
const struct lat_trace_format ingest_fmt_collapsed_stacks = {.name = "collapsed-stacks",
                                                             .fw = LAT_FW_NONE};

/* ---- sniffing (ingest.c's format table) ---- */

/* Collapsed stacks (py-spy --format raw, stackcollapse-*.pl): "a;b;c COUNT" lines: the first
 * complete lines (up to 8) all end in " COUNT" and one has a ';' (or the name says .folded /
 * .collapsed: then also an empty file, for its reader to explain). */
bool ingest_sniff_collapsed(const unsigned char *h, size_t n, const char *path)
{
    bool named = ingest_has_suffix(path, ".folded") || ingest_has_suffix(path, ".collapsed") ||
                 ingest_has_suffix(path, ".folded.gz") || ingest_has_suffix(path, ".collapsed.gz");
    if (n == 0 || named) return named; /* its reader says what is wrong */
    /* "[unknown];main 3" starts like a JSON array, but no JSON value starts with a letter
     * other than t/f/n */
    size_t j;
    int c = ingest_first_char(h, n, &j);
    if (c == '{') return false;
    if (c == '[') {
        int d = j + 1 < n ? ingest_first_char(h + j + 1, n - j - 1, NULL) : -1;
        if (d < 0 || strchr("{[\"]-0123456789tfn", d)) return false;
    }
    if (!ingest_looks_text(h, n > 4096 ? 4096 : n)) return false;
    size_t i = 0, lines = 0;
    bool semi = false;
    while (i < n && lines < 8) {
        const unsigned char *nl = memchr(h + i, '\n', n - i);
        if (!nl) break;
        size_t e = (size_t)(nl - h);
        if (e > i && h[e - 1] == '\r') e--;
        if (e > i) {
            size_t d = e;
            while (d > i && isdigit(h[d - 1]))
                d--;
            if (d == e || d == i || h[d - 1] != ' ') return false;
            semi = semi || memchr(h + i, ';', d - i) != NULL;
            lines++;
        }
        i = (size_t)(nl - h) + 1;
    }
    return lines && semi;
}
