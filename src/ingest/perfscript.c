/*
 * perfscript.c - `perf script` text (perf record [-g] ...; perf script > out.txt).
 *
 * A sample is a header line, "COMM  [PID/]TID [CPU] SECS.FRAC: [PERIOD] EVENT: [ADDR SYM (DSO)]",
 * followed (with callchains) by one indented frame line per frame, leaf first, "ADDR SYM+OFF
 * (DSO)", and a blank line. Without callchains the header carries the sampled IP itself. '#'
 * lines (--header) are skipped. Without callchains (perf record without -g) a sample is its
 * header line alone, COMM right-aligned (the line starts with blanks) and no blank line between
 * samples: after a header that carried its IP, an indented line is the next header. Each sample
 * becomes one CPU sample (stacks.h) at its time (perf's clock, in ns; a TID-only header gives pid
 * -1), thread named by COMM. Frames, reversed to root first: "SYM" (its +0x offset dropped), kernel
 * frames "SYM_[k]", "[unknown]" symbols as
 * "[dso basename]" ("[unknown]" when the dso is unknown too), CPython 3.12 perf trampolines
 * "py::f:/x.py" as "py:f (/x.py)". When every sample has the same period of a cpu-clock /
 * task-clock event (ns), the rate goes to the metadata latscope_cpu_sample_hz.
 */
#include "core/err.h"
#include "core/grow.h"
#include "ingest/formats.h"
#include "ingest/stacks.h"
#include "model/pyframe.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHAT "`perf script` text"
#define TODO "pass the unmodified output of `perf script` (after `perf record -g`)"

/* "NAME: WHAT, why" into err (stacks.h); returns rc */
#define fail(err, errsz, nm, rc, ...) stk_fail(err, errsz, nm, WHAT, rc, __VA_ARGS__)

static bool all_digits(const char *s, size_t n)
{
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return false;
    return true;
}

/* One frame of a sample (offsets into the sample's frame buffer). */
struct frame {
    size_t off, len;
};

struct sample {
    bool open;
    bool header_ip; /* the header carried the sampled IP (perf record without -g): no frames follow
                     */
    int64_t pid, tid;
    lat_ns ts;
    char comm[64];
    size_t ncomm;
    struct lat_buf names; /* frame names, back to back, leaf first */
    struct frame *fr;
    size_t nfr, frcap;
};

static int add_frame(struct sample *s, const char *name, size_t n)
{
    int rc = LAT_GROW(s->fr, s->frcap, s->nfr, 1, 64);
    if (rc) return rc;
    s->fr[s->nfr].off = s->names.len;
    s->fr[s->nfr].len = n;
    if (n && buf_append(&s->names, name, n)) return -ENOMEM;
    s->nfr++;
    return 0;
}

/* "ADDR SYM+0xOFF (DSO)" (leading blanks gone) -> the frame's name. false: not a frame. */
static int parse_frame(struct sample *s, const char *l, size_t n, bool *is_frame, bool *dso_seen)
{
    *is_frame = false;
    size_t i = 0;
    while (i < n && isxdigit((unsigned char)l[i]))
        i++;
    if (!i || (i < n && l[i] != ' ' && l[i] != '\t')) return 0;
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    const char *sym = l + i, *dso = NULL;
    size_t sl = n - i, dl = 0;
    if (sl && sym[sl - 1] == ')') {
        for (size_t k = sl - 1; k-- > 0;) {
            if (sym[k] == '(' && (k == 0 || sym[k - 1] == ' ')) {
                dso = sym + k + 1;
                dl = sl - k - 2;
                sl = k ? k - 1 : 0;
                break;
            }
        }
    }
    if (dso) *dso_seen = true;
    /* SYM+0x1f -> SYM */
    for (size_t k = sl; k >= 4; k--) {
        if (sym[k - 1] == 'x' && sym[k - 2] == '0' && sym[k - 3] == '+' && k < sl) {
            sl = k - 3;
            break;
        }
        if (!isxdigit((unsigned char)sym[k - 1])) break;
    }
    *is_frame = true;
    bool kernel = dso && dl >= 7 && !memcmp(dso, "[kernel", 7);
    bool unknown = !sl || (sl == 9 && !memcmp(sym, "[unknown]", 9));
    char tmp[600];
    if (unknown) {
        if (!dso || !dl || (dl == 9 && !memcmp(dso, "[unknown]", 9))) {
            if (kernel) return add_frame(s, "[unknown]_[k]", 13);
            return add_frame(s, "[unknown]", 9);
        }
        if (kernel) return add_frame(s, "[unknown]_[k]", 13);
        const char *b = memrchr(dso, '/', dl);
        if (b) {
            dl -= (size_t)(b + 1 - dso);
            dso = b + 1;
        }
        if (dl + 2 >= sizeof(tmp)) return add_frame(s, "[unknown]", 9);
        tmp[0] = '[';
        memcpy(tmp + 1, dso, dl);
        tmp[dl + 1] = ']';
        return add_frame(s, tmp, dl + 2);
    }
    if (kernel && sl + 4 < sizeof(tmp)) {
        memcpy(tmp, sym, sl);
        memcpy(tmp + sl, "_[k]", 4);
        return add_frame(s, tmp, sl + 4);
    }
    if (sl > 4 && !memcmp(sym, "py::", 4)) { /* CPython 3.12+ perf trampoline: py::f:FILE */
        const char *c = memchr(sym + 4, ':', sl - 4);
        if (c && sl + 8 < sizeof(tmp)) {
            size_t fl = (size_t)(c - (sym + 4)), pl = sl - 4 - fl - 1;
            size_t k = lat_py_frame_name(tmp, sizeof(tmp), sym + 4, fl, c + 1, pl, -1);
            if (k < sizeof(tmp)) return add_frame(s, tmp, k);
        }
    }
    return add_frame(s, sym, sl);
}

/* Header "COMM [PID/]TID [CPU] SECS.FRAC: [PERIOD] EVENT: rest". Returns true when it is one;
 * rest and nrest: what follows the event (an IP without callchains, or tracepoint fields). */
static bool parse_header(struct sample *s, const char *l, size_t n, uint64_t *period,
                         const char **ev, size_t *nev, const char **rest, size_t *nrest)
{
    /* the time: the first blank-separated token "digits.digits:" */
    size_t i = 0, ts0 = 0, ts1 = 0;
    bool found = false;
    while (i < n && !found) {
        while (i < n && (l[i] == ' ' || l[i] == '\t'))
            i++;
        size_t a = i;
        while (i < n && l[i] != ' ' && l[i] != '\t')
            i++;
        if (i - a >= 4 && l[i - 1] == ':') {
            const char *dot = memchr(l + a, '.', i - a - 1);
            if (dot && all_digits(l + a, (size_t)(dot - (l + a))) &&
                all_digits(dot + 1, (size_t)(l + i - 1 - (dot + 1)))) {
                ts0 = a;
                ts1 = i;
                found = true;
            }
        }
    }
    if (!found) return false;
    /* the time in ns, exactly */
    const char *dot = memchr(l + ts0, '.', ts1 - ts0);
    size_t ns = (size_t)(dot - (l + ts0));
    if (ns > 9) return false; /* seconds below 10^9: ns fit int64 and LAT_TS_MAX */
    int64_t secs = 0, frac = 0;
    for (size_t k = 0; k < ns; k++)
        secs = secs * 10 + (l[ts0 + k] - '0');
    size_t fd = 0;
    for (const char *p = dot + 1; p < l + ts1 - 1 && fd < 9; p++, fd++)
        frac = frac * 10 + (*p - '0');
    for (; fd < 9; fd++)
        frac *= 10;
    s->ts = secs * 1000000000 + frac;
    /* before the time: COMM [PID/]TID [[CPU]] */
    size_t e = ts0;
    while (e && (l[e - 1] == ' ' || l[e - 1] == '\t'))
        e--;
    size_t b = e;
    while (b && l[b - 1] != ' ' && l[b - 1] != '\t')
        b--;
    if (e > b && l[b] == '[' && l[e - 1] == ']') { /* [CPU] */
        e = b;
        while (e && (l[e - 1] == ' ' || l[e - 1] == '\t'))
            e--;
        b = e;
        while (b && l[b - 1] != ' ' && l[b - 1] != '\t')
            b--;
    }
    s->pid = s->tid = -1;
    const char *slash = memchr(l + b, '/', e - b);
    size_t cend = e;
    if (slash && all_digits(l + b, (size_t)(slash - (l + b))) &&
        all_digits(slash + 1, (size_t)(l + e - slash - 1)) && e - b < 40) {
        s->pid = strtoll(l + b, NULL, 10);
        s->tid = strtoll(slash + 1, NULL, 10);
        cend = b;
    } else if (all_digits(l + b, e - b) && e - b < 20) {
        s->tid = strtoll(l + b, NULL, 10);
        cend = b;
    }
    while (cend && (l[cend - 1] == ' ' || l[cend - 1] == '\t'))
        cend--;
    size_t cb = 0;
    while (cb < cend && (l[cb] == ' ' || l[cb] == '\t'))
        cb++;
    s->ncomm = cend - cb < sizeof(s->comm) ? cend - cb : sizeof(s->comm) - 1;
    memcpy(s->comm, l + cb, s->ncomm);
    /* after the time: [PERIOD] EVENT: */
    i = ts1;
    *period = 0;
    *ev = NULL;
    *nev = 0;
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    size_t a = i;
    while (i < n && l[i] != ' ' && l[i] != '\t')
        i++;
    if (all_digits(l + a, i - a) && i - a < 20) {
        *period = strtoull(l + a, NULL, 10);
        while (i < n && (l[i] == ' ' || l[i] == '\t'))
            i++;
        a = i;
        while (i < n && l[i] != ' ' && l[i] != '\t')
            i++;
    }
    if (i > a && l[i - 1] == ':') {
        *ev = l + a;
        *nev = i - a - 1;
    }
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    *rest = l + i;
    *nrest = n - i;
    return true;
}

struct evcount {
    char name[48];
    uint64_t n;
};

static int flush(struct stk_build *b, struct sample *s)
{
    if (!s->open) return 0;
    s->open = false;
    stk_reset(b);
    int rc;
    for (size_t k = s->nfr; k-- > 0;)
        if ((rc = stk_push(b, s->names.data + s->fr[k].off, s->fr[k].len))) return rc;
    uint32_t track;
    if ((rc = stk_track(b, s->pid, s->tid, s->comm, s->ncomm, &track))) return rc;
    return stk_emit(b, track, s->ts, 1);
}

int ingest_perf_script_load(struct ingest_src *src, const char *name,
                            const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                            size_t errsz)
{
    const char *nm = name ? name : "(input)";
    *out = NULL;
    struct stk_build b;
    struct stk_lines L;
    struct sample s = {0};
    stk_lines_init(&L, src);
    int rc = stk_init(&b, &ingest_fmt_perf_script);
    char why[256] = "";
    struct evcount evs[8];
    size_t nevs = 0;
    uint64_t period = 0, other_events = 0;
    bool same_period = true, dso_seen = false;
    const char *line;
    size_t len;
    if (rc) goto oom;
    while ((rc = stk_line(&L, &line, &len, why, sizeof(why))) == 1) {
        size_t i = 0;
        while (i < len && (line[i] == ' ' || line[i] == '\t'))
            i++;
        if (i == len) { /* blank: the end of a sample */
            if ((rc = flush(&b, &s))) goto emit_err;
            continue;
        }
        if (i == 0 && line[0] == '#') continue;
        if (i > 0 && s.open && s.header_ip) {
            /* without -g each sample is one line, its COMM right-aligned (indented): the next
             * header; any other indented line (srcline, ...) is not a frame: skipped */
            struct sample probe = {0};
            uint64_t pp;
            const char *pe, *pr;
            size_t pne, pnr;
            if (!parse_header(&probe, line, len, &pp, &pe, &pne, &pr, &pnr) || !pe) continue;
        } else if (i > 0 && s.open) { /* a frame of the open sample */
            bool fr, had = dso_seen;
            if ((rc = parse_frame(&s, line + i, len - i, &fr, &dso_seen))) goto oom;
            /* a file whose frames have "(dso)" ending in a frame without one: cut short */
            if (L.unterminated && had && fr && line[len - 1] != ')') {
                rc = fail(err, errsz, nm, LAT_E_TRUNCATED,
                          "the last line (%llu) is cut in the middle of a frame: the file is "
                          "cut short; run `perf script` again and let it finish",
                          (unsigned long long)L.lineno);
                goto out;
            }
            continue; /* other indented lines (srcline, brstack...) are not frames: skipped */
        }
        uint64_t per;
        const char *ev, *rest;
        size_t nev, nrest;
        if ((rc = flush(&b, &s))) goto emit_err;
        s.nfr = 0;
        s.names.len = 0;
        if (!parse_header(&s, line, len, &per, &ev, &nev, &rest, &nrest) || !ev) {
            if (L.unterminated && L.lineno > 1) { /* a good line before it */
                rc = fail(err, errsz, nm, LAT_E_TRUNCATED,
                          "the last line (%llu) is cut short; run `perf script` again and let it "
                          "finish",
                          (unsigned long long)L.lineno);
            } else {
                rc = fail(err, errsz, nm, LAT_E_NOT_TRACE,
                          "line %llu is neither a sample header ('COMM TID TIME: [PERIOD] EVENT:') "
                          "nor an indented frame; %s",
                          (unsigned long long)L.lineno, TODO);
            }
            goto out;
        }
        s.open = true;
        s.header_ip = false;
        if (!nevs && !other_events) period = per; /* the first header */
        if (per != period) same_period = false;
        size_t k = 0;
        while (k < nevs && (strlen(evs[k].name) != nev || memcmp(evs[k].name, ev, nev)))
            k++;
        if (k == nevs && nevs < sizeof(evs) / sizeof(evs[0]) && nev < sizeof(evs[0].name)) {
            memcpy(evs[k].name, ev, nev);
            evs[k].name[nev] = 0;
            evs[k].n = 0;
            nevs++;
        }
        if (k < nevs)
            evs[k].n++;
        else
            other_events++;
        if (nrest) { /* no callchain: the IP on the header line */
            bool fr;
            if ((rc = parse_frame(&s, rest, nrest, &fr, &dso_seen))) goto oom;
            if (!fr) s.nfr = 0; /* tracepoint fields, not a frame */
            s.header_ip = fr;
        }
    }
    if (rc < 0) {
        if (rc == -ENOMEM) goto oom;
        rc = fail(err, errsz, nm, rc, "%s", why[0] ? why : lat_strerror(rc));
        goto out;
    }
    if ((rc = flush(&b, &s))) goto emit_err;
    if (!L.bytes) {
        rc = fail(err, errsz, nm, LAT_E_NOT_TRACE,
                  "empty file (0 bytes): `perf script` found no sample (was perf.data empty, or "
                  "the output redirected before perf finished?); record again");
        goto out;
    }
    if (!b.samples) {
        rc = fail(err, errsz, nm, LAT_E_NOT_TRACE, "no sample in the file; %s", TODO);
        goto out;
    }
    /* metadata: what was read */
    {
        struct lat_buf m = LAT_BUF_INIT;
        int e = buf_printf(&m,
                           "{\"format\":\"perf-script\",\"timestamps\":true,\"clock\":\"perf\","
                           "\"samples\":%llu,\"events\":{",
                           (unsigned long long)b.samples);
        for (size_t k = 0; k < nevs && !e; k++) {
            e = buf_putc(&m, k ? ',' : '"');
            if (k && !e) e = buf_putc(&m, '"');
            for (const char *p = evs[k].name; *p && !e; p++)
                e = (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) ? buf_putc(&m, '_')
                                                                          : buf_putc(&m, *p);
            if (!e) e = buf_printf(&m, "\":%llu", (unsigned long long)evs[k].n);
        }
        if (!e && other_events)
            e = buf_printf(&m, "%s\"(other)\":%llu", nevs ? "," : "",
                           (unsigned long long)other_events);
        if (!e) e = buf_printf(&m, "},\"period\":");
        if (!e)
            e = same_period ? buf_printf(&m, "%llu}", (unsigned long long)period)
                            : buf_puts(&m, "null}");
        if (e || (rc = stk_meta(&b, "latscope_stacks", m.data))) {
            buf_fini(&m);
            goto oom;
        }
        buf_fini(&m);
    }
    if (same_period && period && nevs == 1 && !other_events &&
        (!strcmp(evs[0].name, "cpu-clock") || !strcmp(evs[0].name, "task-clock") ||
         !strncmp(evs[0].name, "cpu-clock:", 10) || !strncmp(evs[0].name, "task-clock:", 11))) {
        uint64_t hz = (1000000000ull + period / 2) / period;
        char v[24];
        snprintf(v, sizeof(v), "%llu", (unsigned long long)hz);
        if (hz >= 1 && hz <= 100000 && (rc = stk_meta(&b, "latscope_cpu_sample_hz", v))) goto oom;
    }
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
emit_err:
    if (rc == LAT_E_OVERFLOW) {
        rc = fail(err, errsz, nm, rc, "more than %llu samples (line %llu): too many to load",
                  (unsigned long long)STK_MAX_SAMPLES, (unsigned long long)L.lineno);
        goto out;
    }
oom:
    rc = fail(err, errsz, nm, rc ? rc : -ENOMEM, "%s", lat_strerror(rc ? rc : -ENOMEM));
out:
    buf_fini(&s.names);
    free(s.fr);
    stk_lines_fini(&L);
    stk_fini(&b);
    src_close(src);
    return rc;
}

/* CPU stack samples, no framework */
const struct lat_trace_format ingest_fmt_perf_script = {.name = "perf-script", .fw = LAT_FW_NONE};

/* ---- sniffing (ingest.c's format table) ---- */

/* One `perf script` sample header in h[i..end): a "digits.digits:" token (the time) and, after
 * it and an optional period, an event token ending in ':'. */
static bool perf_header(const unsigned char *h, size_t i, size_t end)
{
    for (size_t j = i; j + 2 < end; j++) {
        if (!isdigit(h[j]) || (j > i && h[j - 1] != ' ' && h[j - 1] != '\t')) continue;
        size_t k = j;
        while (k < end && isdigit(h[k]))
            k++;
        if (k >= end || h[k] != '.') continue;
        size_t d = ++k;
        while (k < end && isdigit(h[k]))
            k++;
        if (k == d || k >= end || h[k] != ':') continue;
        k++;
        for (int tok = 0; tok < 2; tok++) { /* [PERIOD] EVENT: */
            while (k < end && (h[k] == ' ' || h[k] == '\t'))
                k++;
            size_t a = k;
            while (k < end && h[k] != ' ' && h[k] != '\t')
                k++;
            if (k > a + 1 && h[k - 1] == ':') return true;
            bool num = k > a;
            for (size_t q = a; q < k; q++)
                num = num && isdigit(h[q]);
            if (!num) return false;
        }
        return false;
    }
    return false;
}

/* `perf script`: "comm  pid[/tid] [cpu] secs.usecs: [period] event:" then indented frames (or,
 * without callchains, the next sample's header); or a name perf-script files get, when the
 * content cannot say (an empty file). */
bool ingest_sniff_perf_script(const unsigned char *h, size_t n, const char *path)
{
    bool named = ingest_has_suffix(path, ".perf-script") ||
                 ingest_has_suffix(path, ".perf-script.txt") ||
                 ingest_has_suffix(path, ".perf-script.gz") ||
                 ingest_has_suffix(path, ".perf-script.txt.gz");
    if (n == 0 || (named && !ingest_looks_json(h, n)))
        return named; /* its reader says what is wrong */
    if (!ingest_looks_text(h, n > 4096 ? 4096 : n) || ingest_looks_json(h, n)) return false;
    size_t i = 0;
    while (i < n && h[i] == '#') /* perf script --header lines */
        while (i < n && h[i++] != '\n') {
        }
    size_t end = i;
    while (end < n && h[end] != '\n')
        end++;
    if (end >= n || !perf_header(h, i, end)) return false;
    /* the next line: a frame ("\t  addr sym (dso)"), or another header */
    size_t j = end + 1;
    if (j >= n) return false;
    size_t e2 = j;
    while (e2 < n && h[e2] != '\n')
        e2++;
    /* without -g the next header, its COMM right-aligned: maybe indented */
    if (perf_header(h, j, e2)) return true;
    if (h[j] != '\t' && h[j] != ' ') return false;
    while (j < n && (h[j] == '\t' || h[j] == ' '))
        j++;
    return j < n && isxdigit(h[j]);
}
