/*
 * shell.c - names from a trace made safe for the commands the doctor prints (its "next" line is
 * meant to be pasted into a shell): POSIX sh quoting, regex escaping for ncu's
 * `--kernel-name regex:`, and file-name stems. A kernel or file name is data from the trace and
 * may hold anything: quotes, `;`, `$(...)`, newlines, raw escape sequences.
 */
#include "doctor/shell.h"
#include "doctor/rules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool sh_plain(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           strchr("_./:=@%+,-", ch) != NULL;
}

static bool is_ctl(unsigned char ch)
{
    return ch < 0x20 || ch == 0x7f;
}

char *doc_sh_quote(const char *s, bool always)
{
    if (!s) s = "";
    size_t n = strlen(s), plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        if (!sh_plain((unsigned char)s[i])) plain = 0;
    if (plain && !always) return strdup(s);
    /* worst case: every byte a quote ('\'' is 4 bytes), plus the two outer quotes */
    char *out = malloc(4 * n + 3);
    if (!out) return NULL;
    size_t o = 0;
    out[o++] = '\'';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            /* inside single quotes everything is literal; a control character would still
             * corrupt the terminal or the pasted line, so it becomes '?' */
            out[o++] = is_ctl(ch) ? '?' : (char)ch;
        }
    }
    out[o++] = '\'';
    out[o] = 0;
    return out;
}

void doc_ncu_name(const char *s, char *out, size_t len)
{
    if (!len) return;
    const char *end = s + strlen(s);
    const char *paren = strchr(s, '(');
    if (paren) end = paren;
    /* strip template args at the end: find the matching '<' of a trailing '>' */
    const char *q = end;
    while (q > s && q[-1] == ' ')
        q--;
    if (q > s && q[-1] == '>') {
        int depth = 0;
        const char *p = q;
        while (p > s) {
            p--;
            if (*p == '>') depth++;
            if (*p == '<' && --depth == 0) break;
        }
        q = p;
    }
    const char *b = q;
    while (b > s && b[-1] != ' ' && b[-1] != ':')
        b--;
    size_t o = 0;
    for (const char *p = b; p < q && o + 3 < len; p++) {
        unsigned char ch = (unsigned char)*p;
        if (is_ctl(ch)) { /* any character matches where the trace had a control byte */
            out[o++] = '.';
            continue;
        }
        if (strchr(".[]()*+?^$|\\{}", ch)) out[o++] = '\\';
        out[o++] = (char)ch;
    }
    out[o] = 0;
    if (!o) {
        /* no function name: the start of the whole name, escaped the same way */
        for (const char *p = s; *p && p - s < 60 && o + 3 < len; p++) {
            unsigned char ch = (unsigned char)*p;
            if (is_ctl(ch)) {
                out[o++] = '.';
                continue;
            }
            if (strchr(".[]()*+?^$|\\{}", ch)) out[o++] = '\\';
            out[o++] = (char)ch;
        }
        out[o] = 0;
    }
}

void doc_file_stem(const char *s, size_t max, char *out, size_t len)
{
    size_t o = 0;
    if (!len) return;
    for (const char *p = s; *p && o + 1 < len && o < max; p++) {
        unsigned char ch = (unsigned char)*p;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            ch == '_' || ch == '-' || (ch == '.' && o > 0))
            out[o++] = (char)ch;
        else if (ch != '\\')
            break;
    }
    out[o] = 0;
    if (!o) snprintf(out, len, "kernel");
}

const char *doc_trace_arg(struct doc_ctx *c)
{
    if (!c->t->path) return "<trace>";
    if (!c->trace_arg && !(c->trace_arg = doc_sh_quote(c->t->path, false))) {
        c->r->err = -ENOMEM;
        return "<trace>";
    }
    return c->trace_arg;
}
