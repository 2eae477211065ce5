/*
 * cli-opts.c - one option parser for the commands: a table of options (struct cli_opt) drives
 * getopt_long and the options part of --help.
 *
 * Every command then accepts the same spellings: `--opt value`, `--opt=value`, an unambiguous
 * prefix (`--pre` for `--pretty`), `-o value`, `-ovalue`, options before or after the
 * positional arguments (unless the command stops at the first one, like `trace CMD`), and `--`
 * ending the options. Errors name the option and the command's --help.
 */
#define PR_FMT "latscope"
#include "core/log.h"
#include "latscope.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { CLI_ID_BASE = 0x1000, CLI_HELP_ID = 0x0fff };

static size_t count_opts(const struct cli_opt *t)
{
    size_t n = 0;
    while (t[n].lname || t[n].help)
        n++;
    return n;
}

/* More than one long option starts with name (up to a '='): getopt_long's ambiguous prefix. */
static bool ambiguous(const struct cli_opt *t, size_t n, const char *name)
{
    size_t len = strcspn(name, "=");
    unsigned hits = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i].lname && !(t[i].flags & CLI_HELP_ONLY) && !strncmp(t[i].lname, name, len)) {
            if (strlen(t[i].lname) == len) return false; /* an exact name is never ambiguous */
            hits++;
        }
    return hits > 1;
}

int cli_parse(const struct cli_spec *spec, int argc, char **argv, struct cli_result *res)
{
    size_t n = count_opts(spec->opts);
    struct option *lo = xcalloc(n + 2, sizeof(*lo));
    char *shorts = xmalloc(3 * n + 8);
    size_t nl = 0, ns = 0;
    shorts[ns++] = spec->stop_at_positional ? '+' : '-';
    shorts[ns++] = ':';
    shorts[ns++] = 'h';
    for (size_t i = 0; i < n; i++) {
        const struct cli_opt *o = &spec->opts[i];
        if (!o->lname || (o->flags & CLI_HELP_ONLY)) continue; /* a heading, a repeated row */
        lo[nl].name = o->lname;
        lo[nl].has_arg = (o->flags & CLI_OPTVAL) ? optional_argument
                         : o->arg                ? required_argument
                                                 : no_argument;
        lo[nl].val = CLI_ID_BASE + (int)i;
        nl++;
        if (o->sname) {
            shorts[ns++] = (char)o->sname;
            if (o->arg) shorts[ns++] = ':';
        }
    }
    lo[nl++] = (struct option){"help", no_argument, NULL, CLI_HELP_ID};
    lo[nl] = (struct option){0};
    shorts[ns] = 0;

    memset(res, 0, sizeof(*res));
    res->pos = xcalloc((size_t)argc + 1, sizeof(*res->pos));
    int rc = 0;
    opterr = 0;
    optind = 0; /* glibc: full re-initialisation, so a second parse in one process works */
    for (;;) {
        int li = -1;
        int c = getopt_long(argc, argv, shorts, lo, &li);
        if (c == -1) break;
        if (c == 1) { /* a positional argument where options may still follow */
            res->pos[res->npos++] = optarg;
            continue;
        }
        if (c == 'h' || c == CLI_HELP_ID) {
            rc = CLI_HELP;
            break;
        }
        if (c == '?' || c == ':') {
            const char *bad = argv[optind - 1];
            char sopt[3] = {'-', (char)optopt, 0};
            if (optopt && optopt < CLI_ID_BASE && strncmp(bad, "--", 2) != 0) bad = sopt;
            if (c == ':') {
                const char *arg = "a value";
                if (optopt >= CLI_ID_BASE) arg = spec->opts[optopt - CLI_ID_BASE].arg;
                for (size_t i = 0; optopt < CLI_ID_BASE && i < n; i++)
                    if (spec->opts[i].sname == optopt) arg = spec->opts[i].arg;
                lat_log_printf(LAT_LOG_ERR, spec->cmd,
                               "%s needs %s (the option needs a value; see latscope %s --help)\n",
                               bad, arg, spec->cmd);
            } else if (!strncmp(bad, "--", 2) && ambiguous(spec->opts, n, bad + 2)) {
                lat_log_printf(LAT_LOG_ERR, spec->cmd,
                               "ambiguous option '%s': more than one option starts so (see "
                               "latscope %s --help)\n",
                               bad, spec->cmd);
            } else {
                lat_log_printf(LAT_LOG_ERR, spec->cmd,
                               "unknown option '%s' (see latscope %s --help)\n", bad, spec->cmd);
            }
            rc = CLI_ERROR;
            break;
        }
        size_t idx = n;
        if (c >= CLI_ID_BASE)
            idx = (size_t)(c - CLI_ID_BASE);
        else
            for (size_t i = 0; i < n; i++)
                if (spec->opts[i].lname && spec->opts[i].sname == c) idx = i;
        if (idx >= n) { /* cannot happen: getopt returns only what the table holds */
            rc = CLI_ERROR;
            break;
        }
        const struct cli_opt *o = &spec->opts[idx];
        const char *val = o->arg ? optarg : NULL;
        struct stat st;
        if ((o->flags & CLI_OPTVAL) && !val && optind < argc && argv[optind][0] != '-' &&
            stat(argv[optind], &st) != 0)
            val = argv[optind++]; /* `--opt NAME`: the next argument, not an input */
        if (spec->on_opt(spec->ctx, o->id, val) < 0) {
            rc = CLI_ERROR;
            break;
        }
    }
    if (rc == 0 && optind > 1 && optind <= argc && strcmp(argv[optind - 1], "--") == 0) {
        res->dashdash = true;
        res->after_dashdash = res->npos;
    }
    res->rest = optind;
    if (rc == 0)
        for (int i = optind; i < argc; i++)
            res->pos[res->npos++] = argv[i];
    free(lo);
    free(shorts);
    if (rc) {
        free(res->pos);
        res->pos = NULL;
        res->npos = 0;
    }
    return rc;
}

bool cli_run(const struct cli_spec *spec, int argc, char **argv, struct cli_result *res,
             int *status)
{
    int rc = cli_parse(spec, argc, argv, res);
    if (!rc) return true;
    if (rc == CLI_HELP) {
        cli_help(stdout, spec);
        *status = LAT_EXIT_OK;
    } else {
        *status = LAT_EXIT_USAGE;
    }
    return false;
}

void cli_result_fini(struct cli_result *res)
{
    free(res->pos);
    res->pos = NULL;
    res->npos = 0;
}

/* "  -o, --output FILE" or "  --top N" (sub-options two more spaces in). */
static int opt_label(char *b, size_t bs, const struct cli_opt *o)
{
    const char *ind = (o->flags & CLI_SUB) ? "    " : "  ";
    if (o->flags & CLI_OPTVAL)
        return snprintf(b, bs, "%s--%s [%s]", ind, o->lname, o->arg ? o->arg : "VALUE");
    if (o->sname)
        return snprintf(b, bs, "%s-%c, --%s%s%s", ind, o->sname, o->lname, o->arg ? " " : "",
                        o->arg ? o->arg : "");
    return snprintf(b, bs, "%s--%s%s%s", ind, o->lname, o->arg ? " " : "", o->arg ? o->arg : "");
}

void (*cli_help_hook)(const struct cli_spec *spec);

void cli_help_opts(FILE *f, const struct cli_opt *opts)
{
    enum { COL = 24 };
    bool any_heading = false;
    for (const struct cli_opt *o = opts; o->lname || o->help; o++)
        if (!o->lname) any_heading = true;
    if (!any_heading) fputs("options:\n", f);
    for (const struct cli_opt *o = opts; o->lname || o->help; o++) {
        if (!o->lname) { /* a heading */
            fprintf(f, "%s%s:\n", o == opts ? "" : "\n", o->help);
            continue;
        }
        char label[128];
        int w = opt_label(label, sizeof(label), o);
        fputs(label, f);
        const char *h = o->help ? o->help : "";
        if (w + 2 > COL) {
            fputc('\n', f);
            w = 0;
        }
        /* the help text, its '\n's starting continuation lines in the same column */
        for (;;) {
            const char *nl = strchr(h, '\n');
            fprintf(f, "%*s%.*s\n", COL - w, "", nl ? (int)(nl - h) : (int)strlen(h), h);
            if (!nl) break;
            h = nl + 1;
            w = 0;
        }
    }
    fprintf(f, "  -h, --help%*sthis help\n", COL - 12, "");
}

void cli_help(FILE *f, const struct cli_spec *spec)
{
    if (cli_help_hook) {
        cli_help_hook(spec);
        return;
    }
    if (spec->usage) fputs(spec->usage, f);
    cli_help_opts(f, spec->opts);
    if (spec->footer) {
        fputc('\n', f);
        fputs(spec->footer, f);
    }
}

int cli_int(const char *cmd, const char *opt, const char *val, long long lo, long long hi,
            long long *out)
{
    char *end;
    long long v = 0;
    if (val && *val) {
        errno = 0;
        v = strtoll(val, &end, 10);
    }
    if (!val || !*val || *end || errno || v < lo || v > hi) {
        lat_log_printf(LAT_LOG_ERR, cmd, "--%s wants a number (%lld..%lld), not '%s'\n", opt, lo,
                       hi, val ? val : "");
        return -1;
    }
    *out = v;
    return 0;
}
