/*
 * main.c - latscope's entry point: global options, the subcommand table, and the stdout check
 * at exit (so `latscope analyze t.json > /full/disk` fails loudly instead of losing results).
 *
 * Each subcommand lives in its own cmd-*.c and owns its option parsing; main only handles
 * options that precede the subcommand (-v, --no-color) and dispatch.
 */
#include "core/log.h"
#include "latscope.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct lat_cmd commands[] = {
    {"bench", cmd_bench, "load-test an inference server and measure latency correctly", false, 0},
    {"trace", cmd_trace, "capture CUDA/NVTX/CPU activity of a program into a Kineto trace", false,
     0},
    {"analyze", cmd_analyze, "where the time goes in a PyTorch/Kineto or Chrome trace", false, 0},
    {"doctor", cmd_doctor, "ranked findings with evidence, savings and the next step", false,
     LAT_EXIT_USAGE},
    {"report", cmd_report, "render a shareable report from traces and bench results", false, 0},
    {"diff", cmd_diff, "compare two runs (before/after)", false, LAT_EXIT_USAGE},
    {"convert", cmd_convert, "write any trace latscope reads as Kineto JSON (or CPU stacks)", false,
     0},
    {"tokenize", cmd_tokenize, "count tokens with a tokenizer.json or a server's tokenize endpoint",
     false, 0},
    {"version", cmd_version, "print the version", false, 0},
    {"help", cmd_help, "show help for latscope or a command", false, 0},
    {"selftest", cmd_selftest, "internal helpers for tests (lint-json, ...)", true, 0},
    {"serve-test", cmd_serve_test, "fixture inference server for tests and the demo", true, 0},
};

/* Subcommands, reached through their command's function: a man page and completion each. */
static const struct lat_subcmd subcommands[] = {
    {"bench", "merge", "merge the JSON results of bench shards into one result"},
    {"serve-test", "openai", "OpenAI-compatible streaming fixture server"},
};

/* The options before COMMAND (parsed by main() below; listed by --help and latscope(1)). */
static const struct cli_opt global_opts[] = {
    {"verbose", 'v', NULL, 0, 0, "more diagnostics on stderr (-vv: debug messages too)"},
    {"no-color", 0, NULL, 0, 0, "no colour, even on a terminal (as NO_COLOR=1)"},
    {"version", 0, NULL, 0, 0, "print the version (as latscope version)"},
    {0},
};

static const struct lat_prog prog = {
    "find out why ML inference is slow",
    "latscope [-v] [--no-color] COMMAND [ARGS...]",
    "latscope finds out why ML inference is slow: measure under load, find where the\n"
    "time goes, explain it, verify the fix.\n",
    global_opts,
    commands,
    sizeof(commands) / sizeof(commands[0]),
    subcommands,
    sizeof(subcommands) / sizeof(subcommands[0]),
};

const struct lat_cmd *lat_commands(size_t *n)
{
    *n = sizeof(commands) / sizeof(commands[0]);
    return commands;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: %s\n\n%s\ncommands:\n", prog.synopsis, prog.intro);
    for (size_t i = 0; i < prog.ncmds; i++)
        if (!prog.cmds[i].hidden)
            fprintf(f, "  %-9s %s\n", prog.cmds[i].name, prog.cmds[i].summary);
    fputc('\n', f);
    cli_help_opts(f, prog.opts);
    fputs("\nRun 'latscope COMMAND --help' for a command's options.\n", f);
}

/* `latscope help --man [CMD [SUB]]`, `help --man-dir DIR`, `help --completion bash|zsh`: the
 * generators of cli-doc.c (run by mk/install.mk; docs/install.md). */
static int help_doc(int argc, char **argv)
{
    char err[512] = "", name[128] = "";
    int rc;
    if (!strcmp(argv[1], "--man")) {
        if (argc > 2)
            snprintf(name, sizeof(name), "%s%s%s", argv[2], argc > 3 ? " " : "",
                     argc > 3 ? argv[3] : "");
        rc = cli_doc_man(stdout, &prog, name, err, sizeof(err));
    } else if (argc != 3) {
        pr_err("%s needs %s\n", argv[1], !strcmp(argv[1], "--man-dir") ? "DIR" : "bash or zsh");
        return LAT_EXIT_USAGE;
    } else if (!strcmp(argv[1], "--man-dir")) {
        rc = cli_doc_man_dir(&prog, argv[2], err, sizeof(err));
    } else {
        rc = cli_doc_completion(stdout, &prog, argv[2], err, sizeof(err));
    }
    if (rc) {
        pr_err("%s\n", err);
        return rc == -EINVAL || rc == -ENOENT ? LAT_EXIT_USAGE : LAT_EXIT_FAILURE;
    }
    return LAT_EXIT_OK;
}

int cmd_help(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && (!strcmp(argv[1], "--man") || !strcmp(argv[1], "--man-dir") ||
                     !strcmp(argv[1], "--completion")))
        return help_doc(argc, argv);
    if (argc > 1 && !lat_is_help(argv[1])) {
        size_t n;
        const struct lat_cmd *cmds = lat_commands(&n);
        for (size_t i = 0; i < n; i++)
            if (strcmp(cmds[i].name, argv[1]) == 0 && cmds[i].fn != cmd_help) {
                char help[] = "--help";
                char *av[] = {argv[1], help, NULL};
                return cmds[i].fn(2, av, opts);
            }
        pr_err("unknown command '%s'\n", argv[1]);
        usage(stderr);
        return LAT_EXIT_USAGE;
    }
    usage(stdout);
    return LAT_EXIT_OK;
}

/* Flushes and checks stdout: a write error (EPIPE aside) turns success into failure, exit
 * status fail (LAT_EXIT_FAILURE, or the command's write_error_exit). */
static int check_stdout(int rc, int fail)
{
    if (!fail) fail = LAT_EXIT_FAILURE;
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (errno == EPIPE) return rc;
        pr_err("writing standard output: %s\n", strerror(errno ? errno : EIO));
        return fail;
    }
    if (fclose(stdout) != 0 && errno != EPIPE && errno != EBADF) {
        pr_err("closing standard output: %s\n", strerror(errno));
        return fail;
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct lat_opts opts = {0};
    const char *nc = getenv("NO_COLOR");
    int i = 1;

    opts.color = isatty(STDOUT_FILENO) && !(nc && *nc);
    opts.progress = isatty(STDERR_FILENO);
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
            opts.verbose++;
        else if (strcmp(argv[i], "-vv") == 0)
            opts.verbose += 2;
        else if (strcmp(argv[i], "--no-color") == 0)
            opts.color = false;
        else if (lat_is_help(argv[i])) {
            usage(stdout);
            return check_stdout(LAT_EXIT_OK, 0);
        } else if (strcmp(argv[i], "--version") == 0) {
            return check_stdout(cmd_version(1, argv + i, &opts), 0);
        } else {
            pr_err("unknown option '%s'\n", argv[i]);
            usage(stderr);
            return LAT_EXIT_USAGE;
        }
    }
    lat_log_set_level(LAT_LOG_WARN + opts.verbose);
    if (i >= argc) {
        usage(stderr);
        return LAT_EXIT_USAGE;
    }
    size_t n;
    const struct lat_cmd *cmds = lat_commands(&n);
    for (size_t k = 0; k < n; k++)
        if (strcmp(cmds[k].name, argv[i]) == 0)
            return check_stdout(cmds[k].fn(argc - i, argv + i, &opts), cmds[k].write_error_exit);
    pr_err("unknown command '%s'; run 'latscope help'\n", argv[i]);
    return LAT_EXIT_USAGE;
}
