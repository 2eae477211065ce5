/*
 * test-cli-doc.c - man pages and completion from option tables (src/cli-doc.c) on a hand-made
 * command table: a command with a cli_spec table, one that prints a text help, a subcommand;
 * roff escaping of text that would otherwise be a request; and the lookup of installed files
 * (src/cli-paths.c).
 */
#include "latscope.h"
#include "test.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

static int fake_on_opt(void *ctx, int id, const char *val)
{
    (void)ctx;
    (void)id;
    (void)val;
    return 0;
}

static const struct cli_opt fake_opts[] = {
    {NULL, 0, NULL, 0, 0, "Group one"},
    {"top", 't', "N", 1, 0, "rows (default 10)\n.starts with a dot, a \\ backslash,\n'quoted"},
    {"sub-opt", 0, NULL, 2, CLI_SUB, "a sub-option"},
    {"opt", 0, "NAME", 3, CLI_OPTVAL, "optional value in \xc2\xb5s"},
    {NULL, 0, NULL, 0, 0, "Group two"},
    {"top", 0, "N", 1, CLI_HELP_ONLY, "the same option listed again"},
    {0},
};

static int cmd_fake(int argc, char **argv, const struct lat_opts *o)
{
    (void)o;
    struct cli_spec spec = {"fake",
                            "usage: latscope fake [OPTIONS] IN\n"
                            "       latscope fake --other\n\n"
                            ".Leading dot line and text\n"
                            "that continues.\n\n"
                            "  an indented example\n",
                            "Exit status: 0 or 3.\n",
                            fake_opts,
                            fake_on_opt,
                            NULL,
                            false};
    struct cli_result r;
    int st;
    if (!cli_run(&spec, argc, argv, &r, &st)) return st;
    cli_result_fini(&r);
    return 0;
}

static int cmd_text(int argc, char **argv, const struct lat_opts *o)
{
    (void)o;
    if (argc > 2 && !strcmp(argv[1], "sub")) {
        printf("usage: latscope text sub [--flag X] IN\n\nThe subcommand.\n");
        return 0;
    }
    printf("usage: latscope text [OPTIONS]\n\nA text help.\n\n"
           "  --port N      the port\n  -q, --quiet   no output\n");
    return 0;
}

static int cmd_hidden(int argc, char **argv, const struct lat_opts *o)
{
    (void)argc;
    (void)argv;
    (void)o;
    printf("usage: latscope hidden\n");
    return 0;
}

static const struct lat_cmd cmds[] = {
    {"fake", cmd_fake, "a command with a table", false, 0},
    {"text", cmd_text, "a command with a text help", false, 0},
    {"secret", cmd_hidden, "a hidden one", true, 0},
    {"help", cmd_hidden, "not a page", false, 0},
};
static const struct lat_subcmd subs[] = {{"text", "sub", "the subcommand"}};
static const struct cli_opt globals[] = {{"verbose", 'v', NULL, 0, 0, "more"}, {0}};
static const struct lat_prog prog = {
    "test program", "latscope [-v] COMMAND", "Intro text.\n", globals, cmds, 4, subs, 1};

/* The generator's output for one call, as a string (freed by the caller). */
static char *man(const char *page, int *rc)
{
    char *out = NULL, err[256] = "";
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    ASSERT(f);
    *rc = cli_doc_man(f, &prog, page, err, sizeof(err));
    fclose(f);
    return out;
}

/* Every line that starts with '.' or '\'' is one of the requests the generator writes. */
static void assert_requests_only(const char *roff)
{
    static const char *const ok[] = {".\\\"", ".TH ", ".SH ", ".SS ", ".TP", ".PP",
                                     ".nf",   ".fi",  ".RS ", ".RE",  ".br"};
    for (const char *s = roff; *s;) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n && (s[0] == '.' || s[0] == '\'')) {
            bool known = false;
            for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]) && !known; i++)
                known = !strncmp(s, ok[i], strlen(ok[i]));
            if (!known) FAIL("a text line reads as a request: %.*s", (int)n, s);
        }
        if (!e) break;
        s = e + 1;
    }
}

TEST(cli_doc_man_from_table)
{
    int rc;
    char *p = man("fake", &rc);
    ASSERT_EQ_I64(rc, 0);
    assert_requests_only(p);
    ASSERT(strstr(p, ".TH \"LATSCOPE\\-FAKE\" 1"));
    ASSERT(strstr(p, ".SH NAME\nlatscope\\-fake \\- a command with a table\n"));
    ASSERT(strstr(p, "\\fBlatscope fake\\fR [OPTIONS] IN\n\\fBlatscope fake\\fR \\-\\-other\n"));
    ASSERT(strstr(p, ".SH DESCRIPTION\n.PP\n\\&.Leading dot line and text\nthat continues.\n"));
    ASSERT(strstr(p, ".PP\n.nf\n  an indented example\n.fi\n"));
    ASSERT(strstr(p, ".SS Group one\n"));
    ASSERT(strstr(p, ".TP\n\\fB\\-t\\fR, \\fB\\-\\-top\\fR \\fIN\\fR\nrows (default 10)\n"
                     "\\&.starts with a dot, a \\e backslash,\n\\&'quoted\n"));
    ASSERT(strstr(p, ".RS 4\n.TP\n\\fB\\-\\-sub\\-opt\\fR\na sub\\-option\n.RE\n"));
    ASSERT(strstr(p, "\\fB\\-\\-opt\\fR [\\fINAME\\fR]\noptional value in \\[u00B5]s\n"));
    ASSERT(strstr(p, ".SS Group two\n.TP\n\\fB\\-\\-top\\fR \\fIN\\fR\n")); /* listed again */
    ASSERT(strstr(p, "\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthis help\n"));
    ASSERT(strstr(p, ".SH NOTES\n.PP\nExit status: 0 or 3.\n"));
    ASSERT(strstr(p, ".SH SEE ALSO\n\\fBlatscope\\fR(1)\n")); /* not the other family */
    free(p);
}

TEST(cli_doc_man_from_text_and_top)
{
    int rc;
    char *p = man("text", &rc);
    ASSERT_EQ_I64(rc, 0);
    assert_requests_only(p);
    ASSERT(strstr(p, "\\fBlatscope text\\fR [OPTIONS]\n"));
    ASSERT(strstr(p, ".nf\n  \\-\\-port N      the port\n  \\-q, \\-\\-quiet   no output\n.fi\n"));
    ASSERT(strstr(p, "\\fBlatscope\\fR(1),\n\\fBlatscope\\-text\\-sub\\fR(1)\n"));
    free(p);
    p = man("text sub", &rc);
    ASSERT_EQ_I64(rc, 0);
    ASSERT(strstr(p, "latscope\\-text\\-sub \\- the subcommand\n"));
    ASSERT(strstr(p, "\\fBlatscope text sub\\fR [\\-\\-flag X] IN\n"));
    free(p);
    p = man("latscope-text-sub", &rc); /* the page's own name works too */
    ASSERT_EQ_I64(rc, 0);
    free(p);
    p = man(NULL, &rc);
    ASSERT_EQ_I64(rc, 0);
    assert_requests_only(p);
    ASSERT(strstr(p, "latscope \\- test program\n"));
    ASSERT(strstr(p, ".SH COMMANDS\n.TP\n\\fBfake\\fR\n"));
    ASSERT(!strstr(p, "\\fBsecret\\fR")); /* hidden: no entry */
    ASSERT(strstr(p, "\\fB\\-v\\fR, \\fB\\-\\-verbose\\fR\nmore\n"));
    ASSERT(strstr(p, "\\fBlatscope\\-fake\\fR(1),\n\\fBlatscope\\-text\\fR(1),\n"
                     "\\fBlatscope\\-text\\-sub\\fR(1),\n\\fBlatscope\\-secret\\fR(1)\n"));
    ASSERT(!strstr(p, "latscope\\-help"));
    free(p);
    p = man("nosuch", &rc);
    ASSERT_EQ_I64(rc, -ENOENT);
    free(p);
}

TEST(cli_doc_completion)
{
    char *out = NULL, err[256] = "";
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    ASSERT_EQ_I64(cli_doc_completion(f, &prog, "bash", err, sizeof(err)), 0);
    fclose(f);
    ASSERT(strstr(out, "words='-v --verbose -h --help'"));
    ASSERT(strstr(out, "else words='fake text help'")); /* no hidden command */
    ASSERT(strstr(out, "        fake)\n            case $sub in\n"
                       "            *) words='--top --sub-opt --opt --help' ;;\n"));
    ASSERT(strstr(out, "            sub) words='--flag --help' ;;\n"
                       "            *) words='--port --quiet --help'\n"
                       "               ((first)) && [[ $cur != -* ]] && words='sub' ;;\n"));
    ASSERT(strstr(out, "complete -o default -F _latscope latscope\n"));
    free(out);
    out = NULL;
    f = open_memstream(&out, &n);
    ASSERT_EQ_I64(cli_doc_completion(f, &prog, "zsh", err, sizeof(err)), 0);
    fclose(f);
    ASSERT(!strncmp(out, "#compdef latscope\n", 18));
    ASSERT(strstr(out, "        '--top:rows (default 10)'\n"));
    ASSERT(strstr(out, "        'sub:the subcommand'\n"));
    free(out);
    f = fopen("/dev/null", "w");
    ASSERT_EQ_I64(cli_doc_completion(f, &prog, "fish", err, sizeof(err)), -EINVAL);
    fclose(f);
    ASSERT(strstr(err, "bash or zsh"));
}

TEST(cli_find_installed_order)
{
    char out[PATH_MAX], tried[4096];
    const char *lib = test_write_file("handmade-lib.so", "x", 1);
    char libpath[PATH_MAX];
    snprintf(libpath, sizeof(libpath), "%s", lib);
    setenv("LATSCOPE_TEST_SO", libpath, 1);
    ASSERT_EQ_I64(lat_find_installed("nosuch-lib.so", "LATSCOPE_TEST_SO", out, sizeof(out), tried,
                                     sizeof(tried)),
                  0);
    char real[PATH_MAX];
    ASSERT(realpath(libpath, real));
    ASSERT_EQ_STR(out, real);
    setenv("LATSCOPE_TEST_SO", "/nonexistent/x.so", 1);
    ASSERT_EQ_I64(lat_find_installed("nosuch-lib.so", "LATSCOPE_TEST_SO", out, sizeof(out), tried,
                                     sizeof(tried)),
                  -ENOENT);
    /* every place, in order: the variable, the binary's directory, ../lib/latscope, compiled */
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    ASSERT(k > 0);
    exe[k] = 0;
    *strrchr(exe, '/') = 0;
    char want[2 * PATH_MAX];
    snprintf(want, sizeof(want),
             "$LATSCOPE_TEST_SO=/nonexistent/x.so (no such file), %s/nosuch-lib.so, ", exe);
    ASSERT(!strncmp(tried, want, strlen(want)));
    const char *lp = strstr(tried, "/lib/latscope/nosuch-lib.so");
    ASSERT(lp);
    char comp[PATH_MAX + 32];
    snprintf(comp, sizeof(comp), "%s/nosuch-lib.so", lat_pkglibdir);
    const char *cp = strstr(tried, comp);
    ASSERT(cp && cp >= lp); /* the compiled-in directory last (or it was ../lib/latscope) */
    unsetenv("LATSCOPE_TEST_SO");
}
