/*
 * cli-doc.c - man pages (roff) and bash/zsh completion scripts made from the same option tables
 * `latscope CMD --help` prints (`latscope help --man`, `help --completion`; docs/install.md).
 *
 * Each page's source is what the command itself prints for --help: the generator runs the
 * command with --help while cli_help_hook is set, so cli_help() hands it the command's struct
 * cli_spec (usage text, option table, footer) instead of printing it. A command that does not
 * print its help through cli_help() (no option table yet) still prints its --help text, which is
 * captured from its stdout: its page shows that text as it is (options preformatted) and its
 * completion lists the options the text's option lines name.
 */
#define PR_FMT "help"
#include "core/buf.h"
#include "core/err.h"
#include "latscope.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One page: a command (or subcommand) and its --help as captured. */
struct doc_page {
    char name[64];       /* "bench", "bench merge"; "" = latscope itself */
    char page[96];       /* "latscope-bench-merge" */
    const char *summary; /* from the command table */
    bool table;          /* its help came through cli_help(): the fields below are set */
    char *usage, *footer;
    struct cli_opt *opts; /* a copy of the table, ended by a zero row */
    size_t nopts;
    char *text; /* everything it printed on stdout for --help */
    char **own; /* the copied strings, freed with the page */
    size_t nown, capown;
};

static struct doc_page *capture_into;

static char *dup_or_null(struct doc_page *p, const char *s)
{
    if (!s) return NULL;
    XGROW(p->own, p->capown, p->nown, 1, 16);
    return p->own[p->nown++] = xstrdup(s);
}

/* cli_help_hook while a page is captured: a deep copy of the spec (its table may live on the
 * command's stack or heap). */
static void on_help(const struct cli_spec *spec)
{
    struct doc_page *p = capture_into;
    if (!p || p->table) return;
    size_t n = 0;
    while (spec->opts[n].lname || spec->opts[n].help)
        n++;
    p->opts = xcalloc(n + 1, sizeof(*p->opts));
    for (size_t i = 0; i < n; i++) {
        p->opts[i] = spec->opts[i];
        p->opts[i].lname = dup_or_null(p, spec->opts[i].lname);
        p->opts[i].arg = dup_or_null(p, spec->opts[i].arg);
        p->opts[i].help = dup_or_null(p, spec->opts[i].help);
    }
    p->nopts = n;
    p->usage = dup_or_null(p, spec->usage);
    p->footer = dup_or_null(p, spec->footer);
    p->table = true;
}

static void page_fini(struct doc_page *p)
{
    for (size_t i = 0; i < p->nown; i++)
        free(p->own[i]);
    free(p->own);
    free(p->opts);
    free(p->text);
    memset(p, 0, sizeof(*p));
}

/* Runs `latscope CMD [SUB] --help` in this process with stdout sent to a temporary file. */
static int capture(struct doc_page *p, const struct lat_cmd *c, const char *sub, char *err,
                   size_t errsz)
{
    FILE *tmp = tmpfile();
    if (!tmp) {
        snprintf(err, errsz, "cannot create a temporary file: %s", strerror(errno));
        return -errno;
    }
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
        int e = errno;
        if (saved >= 0) close(saved);
        fclose(tmp);
        snprintf(err, errsz, "cannot redirect standard output: %s", strerror(e));
        return -e;
    }
    char help[] = "--help", a0[64], a1[64];
    snprintf(a0, sizeof(a0), "%s", c->name);
    snprintf(a1, sizeof(a1), "%s", sub ? sub : "");
    char *av[4] = {a0, sub ? a1 : help, sub ? help : NULL, NULL};
    struct lat_opts o = {0};
    capture_into = p;
    cli_help_hook = on_help;
    int rc = c->fn(sub ? 3 : 2, av, &o);
    fflush(stdout);
    cli_help_hook = NULL;
    capture_into = NULL;
    dup2(saved, STDOUT_FILENO);
    close(saved);
    struct lat_buf b = LAT_BUF_INIT;
    char chunk[4096];
    size_t n;
    rewind(tmp);
    while ((n = fread(chunk, 1, sizeof(chunk), tmp)) > 0)
        if (buf_append(&b, chunk, n) < 0) lat_die_oom();
    fclose(tmp);
    p->text = b.data ? b.data : xstrdup("");
    if (rc != LAT_EXIT_OK) {
        snprintf(err, errsz, "latscope %s --help exited %d", p->name, rc);
        return LAT_E_INTERNAL;
    }
    if (!p->table && !*p->text) {
        snprintf(err, errsz, "latscope %s --help printed nothing", p->name);
        return LAT_E_INTERNAL;
    }
    return 0;
}

/* The pages: latscope itself, every command but `help` and `selftest` (internal), every
 * subcommand. n = 1 + commands + subcommands at most. */
static struct doc_page *pages_make(const struct lat_prog *prog, size_t *np, char *err, size_t errsz,
                                   int *rc)
{
    struct doc_page *ps = xcalloc(1 + prog->ncmds + prog->nsubs, sizeof(*ps));
    size_t n = 0;
    snprintf(ps[n].page, sizeof(ps[n].page), "latscope");
    ps[n++].summary = prog->summary;
    *rc = 0;
    for (size_t i = 0; i < prog->ncmds && !*rc; i++) {
        const struct lat_cmd *c = &prog->cmds[i];
        if (!strcmp(c->name, "help") || !strcmp(c->name, "selftest")) continue;
        struct doc_page *p = &ps[n++];
        snprintf(p->name, sizeof(p->name), "%s", c->name);
        snprintf(p->page, sizeof(p->page), "latscope-%s", c->name);
        p->summary = c->summary;
        *rc = capture(p, c, NULL, err, errsz);
        for (size_t k = 0; k < prog->nsubs && !*rc; k++) {
            const struct lat_subcmd *s = &prog->subs[k];
            if (strcmp(s->cmd, c->name)) continue;
            struct doc_page *q = &ps[n++];
            snprintf(q->name, sizeof(q->name), "%s %s", c->name, s->name);
            snprintf(q->page, sizeof(q->page), "latscope-%s-%s", c->name, s->name);
            q->summary = s->summary;
            *rc = capture(q, c, s->name, err, errsz);
        }
    }
    *np = n;
    return ps;
}

static void pages_free(struct doc_page *ps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        page_fini(&ps[i]);
    free(ps);
}

/* --- roff ------------------------------------------------------------------------------------ */

/* Text in roff: '\' as \e, '-' as \- (an ASCII minus a reader can copy, not a hyphen), a
 * non-ASCII UTF-8 character as \[uXXXX] (troff reads bytes, not UTF-8), a stray byte as
 * U+FFFD. at_start: the text starts an input line, so a leading '.' or '\'' (a request or
 * macro call) is neutralised with \&. */
static void roff_esc(FILE *f, const char *s, size_t n, bool at_start)
{
    if (at_start && n && (s[0] == '.' || s[0] == '\'')) fputs("\\&", f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\')
            fputs("\\e", f);
        else if (c == '-')
            fputs("\\-", f);
        else if (c < 0x80)
            fputc(c == '\t' ? ' ' : c, f);
        else {
            unsigned cp = 0xFFFD;
            size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            if (len > 1 && i + len <= n) {
                cp = c & (0x3Fu >> (len - 1));
                for (size_t k = 1; k < len; k++) {
                    unsigned char d = (unsigned char)s[i + k];
                    if ((d & 0xC0) != 0x80) {
                        cp = 0xFFFD;
                        len = 1;
                        break;
                    }
                    cp = cp << 6 | (d & 0x3F);
                }
            } else {
                len = 1;
            }
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
            fprintf(f, "\\[u%04X]", cp);
            i += len - 1;
        }
    }
}

/* One input line of text (no trailing newline in s). */
static void roff_line(FILE *f, const char *s, size_t n)
{
    roff_esc(f, s, n, true);
    fputc('\n', f);
}

static void roff_str(FILE *f, const char *s)
{
    roff_esc(f, s, strlen(s), false);
}

/* Help text as roff: unindented lines are filled into paragraphs, indented ones (lists,
 * examples, option lines of a text-only help) kept as they are (.nf); a blank line ends a
 * block. */
static void roff_blocks(FILE *f, const char *text)
{
    enum { NONE, PARA, PRE } st = NONE;
    const char *s = text;
    while (s && *s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        size_t lead = 0;
        while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
            lead++;
        if (lead == n) { /* blank */
            if (st == PRE) fputs(".fi\n", f);
            st = NONE;
        } else if (lead > 0) {
            if (st == NONE) fputs(".PP\n", f);
            if (st != PRE) fputs(".nf\n", f);
            roff_line(f, s, n);
            st = PRE;
        } else {
            if (st == PRE) fputs(".fi\n", f);
            if (st == NONE) fputs(".PP\n", f);
            roff_line(f, s, n);
            st = PARA;
        }
        s = e ? e + 1 : NULL;
    }
    if (st == PRE) fputs(".fi\n", f);
}

/* A usage text: its "usage:" line and the indented "latscope ..." lines after it are the
 * SYNOPSIS, the rest is the DESCRIPTION. *rest: where the description starts. */
static void roff_synopsis(FILE *f, const char *usage, const char *name, const char **rest)
{
    const char *s = usage ? usage : "";
    while (*s == '\n')
        s++;
    fputs(".SH SYNOPSIS\n.nf\n", f);
    bool any = false;
    if (!strncmp(s, "usage:", 6)) {
        s += 6;
        for (;;) {
            while (*s == ' ')
                s++;
            const char *e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            size_t cmdlen = strlen("latscope ") + strlen(name);
            if (n >= cmdlen && !strncmp(s, "latscope ", 9) && !strncmp(s + 9, name, cmdlen - 9)) {
                fputs("\\fB", f);
                roff_esc(f, s, cmdlen, true);
                fputs("\\fR", f);
                roff_esc(f, s + cmdlen, n - cmdlen, false);
                fputc('\n', f);
            } else {
                roff_line(f, s, n);
            }
            any = true;
            s = e ? e + 1 : s + n;
            /* a continuation: an indented line that starts with "latscope" */
            const char *t = s;
            while (*t == ' ')
                t++;
            if (t == s || strncmp(t, "latscope", 8)) break;
        }
    }
    if (!any) {
        fprintf(f, "\\fBlatscope ");
        roff_str(f, name);
        fputs("\\fR [OPTIONS]\n", f);
    }
    fputs(".fi\n", f);
    *rest = s;
}

/* "\fB\-o\fR, \fB\-\-output\fR \fIFILE\fR" as --help's label, in roff. */
static void roff_opt_label(FILE *f, const struct cli_opt *o)
{
    if (o->sname && !(o->flags & CLI_OPTVAL)) fprintf(f, "\\fB\\-%c\\fR, ", o->sname);
    fputs("\\fB\\-\\-", f);
    roff_str(f, o->lname);
    fputs("\\fR", f);
    if (o->flags & CLI_OPTVAL) {
        fputs(" [\\fI", f);
        roff_str(f, o->arg ? o->arg : "VALUE");
        fputs("\\fR]", f);
    } else if (o->arg) {
        fputs(" \\fI", f);
        roff_str(f, o->arg);
        fputs("\\fR", f);
    }
    fputc('\n', f);
}

/* The options of a table, as --help lists them: headings as subsections, sub-options
 * indented, -h/--help last. */
static void roff_opts(FILE *f, const struct cli_opt *opts, size_t n)
{
    fputs(".SH OPTIONS\n", f);
    bool sub = false;
    for (size_t i = 0; i < n; i++) {
        const struct cli_opt *o = &opts[i];
        bool is_sub = o->lname && (o->flags & CLI_SUB);
        if (sub && !is_sub) fputs(".RE\n", f);
        if (!sub && is_sub) fputs(".RS 4\n", f);
        sub = is_sub;
        if (!o->lname) {
            fputs(".SS ", f);
            roff_str(f, o->help);
            fputc('\n', f);
            continue;
        }
        fputs(".TP\n", f);
        roff_opt_label(f, o);
        /* the help text filled: its '\n's wrap it for --help's column */
        const char *h = o->help ? o->help : "";
        for (;;) {
            const char *e = strchr(h, '\n');
            size_t len = e ? (size_t)(e - h) : strlen(h);
            while (len && *h == ' ') {
                h++;
                len--;
            }
            roff_line(f, h, len);
            if (!e) break;
            h = e + 1;
        }
    }
    if (sub) fputs(".RE\n", f);
    fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthis help\n", f);
}

static void roff_head(FILE *f, const char *page, const char *summary)
{
    char up[96];
    size_t i = 0;
    for (; page[i] && i + 1 < sizeof(up); i++)
        up[i] = (char)(page[i] >= 'a' && page[i] <= 'z' ? page[i] - 32 : page[i]);
    up[i] = 0;
    fputs(".\\\" Generated by `latscope help --man` from the tables of `latscope --help`;\n"
          ".\\\" do not edit (docs/install.md).\n",
          f);
    fputs(".TH \"", f);
    roff_str(f, up);
    fputs("\" 1 \"\" \"latscope ", f);
    roff_str(f, lat_version);
    fputs("\" \"latscope manual\"\n.SH NAME\n", f);
    roff_str(f, page);
    fputs(" \\- ", f);
    roff_str(f, summary ? summary : "");
    fputc('\n', f);
}

static void roff_see_also(FILE *f, const struct doc_page *ps, size_t n, const struct doc_page *me)
{
    fputs(".SH SEE ALSO\n", f);
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        const struct doc_page *p = &ps[i];
        if (p == me) continue;
        /* latscope(1) lists every page; a command's page latscope(1) and its family */
        if (me->name[0] && p->name[0]) {
            size_t l = strcspn(me->name, " ");
            if (strncmp(p->name, me->name, l) || (p->name[l] && p->name[l] != ' ')) continue;
        }
        fprintf(f, "%s\\fB", first ? "" : ",\n");
        roff_str(f, p->page);
        fputs("\\fR(1)", f);
        first = false;
    }
    fputs("\n.PP\nThe full documentation is in the docs/ directory of latscope's source.\n", f);
}

static void man_top(FILE *f, const struct lat_prog *prog, const struct doc_page *ps, size_t n)
{
    roff_head(f, "latscope", prog->summary);
    fputs(".SH SYNOPSIS\n.nf\n", f);
    roff_line(f, prog->synopsis, strlen(prog->synopsis));
    fputs(".fi\n.SH DESCRIPTION\n", f);
    roff_blocks(f, prog->intro);
    fputs(".SH COMMANDS\n", f);
    for (size_t i = 0; i < prog->ncmds; i++) {
        const struct lat_cmd *c = &prog->cmds[i];
        if (c->hidden) continue;
        fputs(".TP\n\\fB", f);
        roff_str(f, c->name);
        fputs("\\fR\n", f);
        roff_line(f, c->summary, strlen(c->summary));
        for (size_t k = 0; k < n; k++)
            if (!strcmp(ps[k].name, c->name)) {
                fputs(".br\nSee \\fB", f);
                roff_str(f, ps[k].page);
                fputs("\\fR(1).\n", f);
            }
    }
    size_t no = 0;
    while (prog->opts[no].lname || prog->opts[no].help)
        no++;
    roff_opts(f, prog->opts, no);
    fputs(".SH EXIT STATUS\n"
          "0 on success, 1 on a failure, 2 on a usage error; a command may add codes of its own\n"
          "(see its page).\n"
          ".SH ENVIRONMENT\n"
          ".TP\n\\fBNO_COLOR\\fR\nwhen set and not empty: no colour, even on a terminal.\n"
          ".TP\n\\fBLATSCOPE_CUPTI_SO\\fR\nthe capture library \\fBlatscope trace\\fR injects, "
          "instead of the installed one.\n"
          ".SH FILES\n.TP\n",
          f);
    roff_str(f, lat_pkglibdir);
    fputs("/liblatscope\\-cupti.so\n"
          "the CUDA/NVTX capture library of \\fBlatscope trace\\fR, looked for in this order:\n"
          "\\fB$LATSCOPE_CUPTI_SO\\fR, the directory of the latscope binary, \\fB../lib/latscope/"
          "\\fR from it, and this directory (compiled in).\n",
          f);
    roff_see_also(f, ps, n, &ps[0]);
}

static void man_page(FILE *f, const struct doc_page *p, const struct doc_page *ps, size_t n)
{
    roff_head(f, p->page, p->summary);
    const char *rest;
    roff_synopsis(f, p->table ? p->usage : p->text, p->name, &rest);
    fputs(".SH DESCRIPTION\n", f);
    roff_blocks(f, rest);
    if (p->table) {
        roff_opts(f, p->opts, p->nopts);
        if (p->footer && *p->footer) {
            fputs(".SH NOTES\n", f);
            roff_blocks(f, p->footer);
        }
    }
    roff_see_also(f, ps, n, p);
}

static const struct doc_page *page_find(const struct doc_page *ps, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ps[i].page, name) || !strcmp(ps[i].name, name) ||
            (!ps[i].name[0] && !strcmp(name, "latscope")))
            return &ps[i];
    return NULL;
}

int cli_doc_man(FILE *f, const struct lat_prog *prog, const char *name, char *err, size_t errsz)
{
    size_t n;
    int rc;
    struct doc_page *ps = pages_make(prog, &n, err, errsz, &rc);
    if (!rc) {
        const struct doc_page *p = page_find(ps, n, name && *name ? name : "latscope");
        if (!p) {
            snprintf(err, errsz,
                     "no man page '%s' (pages: latscope, latscope-bench, ...: "
                     "a command's name)",
                     name);
            rc = -ENOENT;
        } else if (p == &ps[0]) {
            man_top(f, prog, ps, n);
        } else {
            man_page(f, p, ps, n);
        }
    }
    pages_free(ps, n);
    return rc;
}

int cli_doc_man_dir(const struct lat_prog *prog, const char *dir, char *err, size_t errsz)
{
    size_t n;
    int rc;
    struct doc_page *ps = pages_make(prog, &n, err, errsz, &rc);
    if (!rc && mkdir(dir, 0755) < 0 && errno != EEXIST) {
        rc = -errno;
        snprintf(err, errsz, "%s: %s", dir, strerror(errno));
    }
    for (size_t i = 0; i < n && !rc; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.1", dir, ps[i].page);
        FILE *f = fopen(path, "w");
        if (!f) {
            rc = -errno;
            snprintf(err, errsz, "%s: %s", path, strerror(errno));
            break;
        }
        if (i == 0)
            man_top(f, prog, ps, n);
        else
            man_page(f, &ps[i], ps, n);
        if (ferror(f) | fclose(f)) {
            rc = -EIO;
            snprintf(err, errsz, "%s: write error", path);
        }
    }
    pages_free(ps, n);
    return rc;
}

/* --- completion ------------------------------------------------------------------------------ */

/* Appends word (n bytes) to the space-separated list b unless it is there already. */
static void add_word(struct lat_buf *b, const char *w, size_t n)
{
    for (const char *q = b->data; q && *q;) {
        size_t l = strcspn(q, " ");
        if (l == n && !memcmp(q, w, n)) return;
        q += l;
        while (*q == ' ')
            q++;
    }
    if (buf_printf(b, "%s%.*s", b->len ? " " : "", (int)n, w) < 0) lat_die_oom();
}

/* The length of the long option name at t ("--top" of "--top N"), 0 when t is not one. */
static size_t longopt_at(const char *t)
{
    if (t[0] != '-' || t[1] != '-' || t[2] < 'a' || t[2] > 'z') return 0;
    size_t n = 2;
    while ((t[n] >= 'a' && t[n] <= 'z') || (t[n] >= '0' && t[n] <= '9') || t[n] == '-')
        n++;
    return n;
}

/* The long options of a page, "--a --b ..." in the table's order, no repeats, --help last. A
 * text-only help: the names its option lines start with ("  -o, --output FILE", "  --top N")
 * and those its usage lines show ("usage: latscope bench merge [--format F] ..."). */
static void page_longopts(const struct doc_page *p, struct lat_buf *b)
{
    buf_reset(b);
    if (p->table) {
        for (size_t i = 0; i < p->nopts; i++)
            if (p->opts[i].lname) {
                char w[96];
                int n = snprintf(w, sizeof(w), "--%s", p->opts[i].lname);
                add_word(b, w, (size_t)n < sizeof(w) ? (size_t)n : sizeof(w) - 1);
            }
    } else {
        bool in_usage = false;
        for (const char *s = p->text; s && *s;) {
            const char *e = strchr(s, '\n');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            const char *t = s;
            while (*t == ' ')
                t++;
            in_usage =
                !strncmp(s, "usage:", 6) || (in_usage && t > s && !strncmp(t, "latscope", 8));
            if (in_usage) { /* every --name on a usage line */
                for (size_t i = 0; i + 2 < len; i++)
                    if ((i == 0 || strchr(" [|", s[i - 1])) && longopt_at(s + i))
                        add_word(b, s + i, longopt_at(s + i));
            } else if (t > s) { /* an option line */
                if (t[0] == '-' && t[1] && t[1] != '-' && t[2] == ',' && t[3] == ' ') t += 4;
                size_t n = longopt_at(t);
                if (n) add_word(b, t, n);
            }
            s = e ? e + 1 : NULL;
        }
    }
    add_word(b, "--help", 6);
}

/* Words as one shell word in single quotes. */
static void sh_quote(FILE *f, const char *s, size_t n)
{
    fputc('\'', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            fputs("'\\''", f);
        else
            fputc(s[i], f);
    }
    fputc('\'', f);
}

static void commands_words(FILE *f, const struct lat_prog *prog)
{
    struct lat_buf b = LAT_BUF_INIT;
    for (size_t i = 0; i < prog->ncmds; i++)
        if (!prog->cmds[i].hidden && buf_printf(&b, "%s%s", b.len ? " " : "", prog->cmds[i].name))
            lat_die_oom();
    sh_quote(f, b.data ? b.data : "", b.len);
    buf_fini(&b);
}

static void global_words(FILE *f, const struct lat_prog *prog, struct lat_buf *b)
{
    buf_reset(b);
    for (const struct cli_opt *o = prog->opts; o->lname || o->help; o++) {
        if (!o->lname) continue;
        if (o->sname && buf_printf(b, "%s-%c", b->len ? " " : "", o->sname) < 0) lat_die_oom();
        if (buf_printf(b, "%s--%s", b->len ? " " : "", o->lname) < 0) lat_die_oom();
    }
    if (buf_printf(b, "%s-h --help", b->len ? " " : "") < 0) lat_die_oom();
    sh_quote(f, b->data, b->len);
}

static void completion_bash(FILE *f, const struct lat_prog *prog, const struct doc_page *ps,
                            size_t n)
{
    struct lat_buf b = LAT_BUF_INIT;
    fputs("# bash completion for latscope. Generated by `latscope help --completion bash` from\n"
          "# the option tables of `latscope CMD --help`; do not edit (docs/install.md).\n"
          "_latscope() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} cmd= ci=0 i w words=\n"
          "    # the command: the first word after latscope's own options (which take no value)\n"
          "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
          "        w=${COMP_WORDS[i]}\n"
          "        [[ $w == -* ]] && continue\n"
          "        cmd=$w ci=$i\n"
          "        break\n"
          "    done\n"
          "    if [[ -z $cmd ]]; then\n"
          "        if [[ $cur == -* ]]; then words=",
          f);
    global_words(f, prog, &b);
    fputs("\n        else words=", f);
    commands_words(f, prog);
    fputs("; fi\n"
          "    else\n"
          "        # after `--` (trace -- CMD ...) the words are another program's\n"
          "        for ((i = ci + 1; i < COMP_CWORD; i++)); do\n"
          "            [[ ${COMP_WORDS[i]} == -- ]] && return 0\n"
          "        done\n"
          "        local sub= first=0\n"
          "        ((COMP_CWORD == ci + 1)) && first=1\n"
          "        ((COMP_CWORD > ci + 1)) && sub=${COMP_WORDS[ci + 1]}\n"
          "        case $cmd in\n"
          "        help) ((first)) && words=",
          f);
    commands_words(f, prog);
    fputs(" ;;\n", f);
    for (size_t i = 1; i < n; i++) {
        const struct doc_page *p = &ps[i];
        if (strchr(p->name, ' ')) continue; /* under its command below */
        fprintf(f, "        %s)\n            case $sub in\n", p->name);
        struct lat_buf subs = LAT_BUF_INIT;
        for (size_t k = i + 1; k < n; k++) {
            const char *sp = strchr(ps[k].name, ' ');
            if (!sp || strncmp(ps[k].name, p->name, (size_t)(sp - ps[k].name)) ||
                p->name[sp - ps[k].name])
                continue;
            page_longopts(&ps[k], &b);
            fprintf(f, "            %s) words=", sp + 1);
            sh_quote(f, b.data, b.len);
            fputs(" ;;\n", f);
            if (buf_printf(&subs, "%s%s", subs.len ? " " : "", sp + 1) < 0) lat_die_oom();
        }
        page_longopts(p, &b);
        fputs("            *) words=", f);
        sh_quote(f, b.data, b.len);
        if (subs.len) {
            fputs("\n               ((first)) && [[ $cur != -* ]] && words=", f);
            sh_quote(f, subs.data, subs.len);
        }
        fputs(" ;;\n            esac ;;\n", f);
        buf_fini(&subs);
    }
    fputs("        esac\n"
          "        # a value or an input: the shell's own (file) completion\n"
          "        [[ $cur == -* ]] || [[ $cmd == help ]] || ((first)) || return 0\n"
          "        [[ $cur == -* || $words != *--* ]] || return 0\n"
          "    fi\n"
          "    [[ -n $words ]] || return 0\n"
          "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "}\n"
          "complete -o default -F _latscope latscope\n",
          f);
    buf_fini(&b);
}

/* zsh's _describe wants "word:description" (a ':' in the word escaped). */
static void zsh_item(FILE *f, const char *word, const char *desc)
{
    struct lat_buf b = LAT_BUF_INIT;
    for (const char *s = word; *s; s++)
        if ((*s == ':' ? buf_puts(&b, "\\:") : buf_putc(&b, *s)) < 0) lat_die_oom();
    size_t dl = desc ? strcspn(desc, "\n") : 0;
    if (buf_printf(&b, ":%.*s", (int)dl, desc ? desc : "") < 0) lat_die_oom();
    fputs("        ", f);
    sh_quote(f, b.data, b.len);
    fputc('\n', f);
    buf_fini(&b);
}

/* The options of a page for zsh: each with the first line of its help (a text-only help: the
 * names alone). */
static void zsh_opts(FILE *f, const struct doc_page *p, struct lat_buf *b)
{
    fputs("opts=(\n", f);
    if (p->table) {
        for (size_t i = 0; i < p->nopts; i++) {
            const struct cli_opt *o = &p->opts[i];
            if (!o->lname) continue;
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = p->opts[k].lname && !strcmp(p->opts[k].lname, o->lname);
            if (seen) continue;
            char w[96];
            snprintf(w, sizeof(w), "--%s", o->lname);
            zsh_item(f, w, o->help);
        }
        zsh_item(f, "--help", "this help");
    } else {
        page_longopts(p, b);
        for (const char *s = b->data; s && *s;) {
            size_t l = strcspn(s, " ");
            char w[96];
            snprintf(w, sizeof(w), "%.*s", (int)l, s);
            zsh_item(f, w, NULL);
            s += l;
            while (*s == ' ')
                s++;
        }
    }
    fputs("      ) ;;\n", f);
}

static void completion_zsh(FILE *f, const struct lat_prog *prog, const struct doc_page *ps,
                           size_t n)
{
    struct lat_buf b = LAT_BUF_INIT;
    fputs("#compdef latscope\n"
          "# zsh completion for latscope. Generated by `latscope help --completion zsh` from the\n"
          "# option tables of `latscope CMD --help`; do not edit (docs/install.md).\n"
          "_latscope() {\n"
          "    local -a cmds opts subs\n"
          "    local i ci=0 cmd= sub=\n"
          "    cmds=(\n",
          f);
    for (size_t i = 0; i < prog->ncmds; i++)
        if (!prog->cmds[i].hidden) zsh_item(f, prog->cmds[i].name, prog->cmds[i].summary);
    fputs("    )\n"
          "    for ((i = 2; i < CURRENT; i++)); do\n"
          "        [[ ${words[i]} == -* ]] && continue\n"
          "        cmd=${words[i]} ci=$i\n"
          "        break\n"
          "    done\n"
          "    if [[ -z $cmd ]]; then\n"
          "        if [[ $PREFIX == -* ]]; then\n"
          "            opts=(\n",
          f);
    for (const struct cli_opt *o = prog->opts; o->lname || o->help; o++) {
        if (!o->lname) continue;
        char w[96];
        snprintf(w, sizeof(w), "--%s", o->lname);
        zsh_item(f, w, o->help);
        if (o->sname) {
            snprintf(w, sizeof(w), "-%c", o->sname);
            zsh_item(f, w, o->help);
        }
    }
    zsh_item(f, "--help", "this help");
    fputs("            )\n"
          "            _describe -t options 'latscope option' opts\n"
          "        else\n"
          "            _describe -t commands 'latscope command' cmds\n"
          "        fi\n"
          "        return\n"
          "    fi\n"
          "    for ((i = ci + 1; i < CURRENT; i++)); do\n"
          "        [[ ${words[i]} == -- ]] && { _files; return; }\n"
          "    done\n"
          "    ((CURRENT > ci + 1)) && sub=${words[ci+1]}\n"
          "    if [[ $cmd == help ]]; then\n"
          "        ((CURRENT == ci + 1)) && _describe -t commands 'latscope command' cmds\n"
          "        return\n"
          "    fi\n"
          "    case $cmd in\n",
          f);
    for (size_t i = 1; i < n; i++) {
        const struct doc_page *p = &ps[i];
        if (strchr(p->name, ' ')) continue;
        fprintf(f, "    %s)\n        subs=(\n", p->name);
        for (size_t k = i + 1; k < n; k++) {
            const char *sp = strchr(ps[k].name, ' ');
            if (sp && !strncmp(ps[k].name, p->name, (size_t)(sp - ps[k].name)) &&
                !p->name[sp - ps[k].name])
                zsh_item(f, sp + 1, ps[k].summary);
        }
        fputs("        )\n        case $sub in\n", f);
        for (size_t k = i + 1; k < n; k++) {
            const char *sp = strchr(ps[k].name, ' ');
            if (!sp || strncmp(ps[k].name, p->name, (size_t)(sp - ps[k].name)) ||
                p->name[sp - ps[k].name])
                continue;
            fprintf(f, "        %s) ", sp + 1);
            zsh_opts(f, &ps[k], &b);
        }
        fputs("        *) ", f);
        zsh_opts(f, p, &b);
        fputs("        esac ;;\n", f);
    }
    fputs("    esac\n"
          "    if [[ $PREFIX == -* ]]; then\n"
          "        _describe -t options \"latscope $cmd option\" opts\n"
          "    elif ((CURRENT == ci + 1 && ${#subs})); then\n"
          "        _describe -t commands \"latscope $cmd command\" subs\n"
          "        _files\n"
          "    else\n"
          "        _files\n"
          "    fi\n"
          "}\n"
          "_latscope \"$@\"\n",
          f);
    buf_fini(&b);
}

int cli_doc_completion(FILE *f, const struct lat_prog *prog, const char *shell, char *err,
                       size_t errsz)
{
    if (!shell || (strcmp(shell, "bash") && strcmp(shell, "zsh"))) {
        snprintf(err, errsz, "--completion wants bash or zsh, not '%s'", shell ? shell : "");
        return -EINVAL;
    }
    size_t n;
    int rc;
    struct doc_page *ps = pages_make(prog, &n, err, errsz, &rc);
    if (!rc) {
        if (!strcmp(shell, "bash"))
            completion_bash(f, prog, ps, n);
        else
            completion_zsh(f, prog, ps, n);
    }
    pages_free(ps, n);
    return rc;
}
