/*
 * latscope.h - what the command files share: exit codes, global options, cmd_* entry points
 * and the CLI helpers (dying allocation, option-table help). Library modules never include it.
 */
#ifndef LATSCOPE_H
#define LATSCOPE_H

#include "core/features.h"
#include "core/grow.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum lat_exit {
    LAT_EXIT_OK = 0,
    LAT_EXIT_FAILURE = 1,
    LAT_EXIT_USAGE = 2,
};

/* Output formats shared by commands that offer --format. */
enum lat_format { LAT_FMT_TEXT = 0, LAT_FMT_JSON, LAT_FMT_CSV, LAT_FMT_MD };

/* Global options, parsed by main.c before the subcommand. */
struct lat_opts {
    int verbose;   /* -v count */
    bool color;    /* stdout is a TTY and NO_COLOR is unset */
    bool progress; /* stderr is a TTY: show progress lines */
};

struct lat_cmd {
    const char *name;
    int (*fn)(int argc, char **argv, const struct lat_opts *opts);
    const char *summary;
    bool hidden;
    /* Exit status when stdout cannot be written (main.c's check at exit); 0: LAT_EXIT_FAILURE.
     * A command whose exit 1 is a verdict (diff's --fail-if, doctor's --fail-on) sets
     * LAT_EXIT_USAGE, the status its page gives for a failure to write, so a full disk never
     * reads as "a rule fired". */
    int write_error_exit;
};

/* Subcommands. argv[0] is the subcommand name. Return an enum lat_exit value. */
int cmd_bench(int argc, char **argv, const struct lat_opts *opts);
/* `latscope bench merge RESULT.json...` (src/cmd-bench-merge.c), reached through cmd_bench. */
int cmd_bench_merge(int argc, char **argv, const struct lat_opts *opts);
int cmd_trace(int argc, char **argv, const struct lat_opts *opts);
int cmd_analyze(int argc, char **argv, const struct lat_opts *opts);
int cmd_doctor(int argc, char **argv, const struct lat_opts *opts);
int cmd_report(int argc, char **argv, const struct lat_opts *opts);
int cmd_diff(int argc, char **argv, const struct lat_opts *opts);
int cmd_convert(int argc, char **argv, const struct lat_opts *opts);
int cmd_tokenize(int argc, char **argv, const struct lat_opts *opts);
int cmd_version(int argc, char **argv, const struct lat_opts *opts);
int cmd_help(int argc, char **argv, const struct lat_opts *opts);
int cmd_selftest(int argc, char **argv, const struct lat_opts *opts);
int cmd_serve_test(int argc, char **argv, const struct lat_opts *opts);

const struct lat_cmd *lat_commands(size_t *n);

/* A subcommand reached through its command's function (`bench merge`: cmd_bench with argv[1]
 * "merge"). */
struct lat_subcmd {
    const char *cmd, *name, *summary;
};
/* What main.c knows of latscope as a whole: `latscope --help` and latscope(1) are made of it. */
struct lat_prog {
    const char *summary;        /* one line (latscope(1)'s NAME) */
    const char *synopsis;       /* "latscope [-v] [--no-color] COMMAND [ARGS...]" */
    const char *intro;          /* what latscope is, before the command list */
    const struct cli_opt *opts; /* the options before COMMAND */
    const struct lat_cmd *cmds;
    size_t ncmds;
    const struct lat_subcmd *subs;
    size_t nsubs;
};
/* cli-doc.c (docs/install.md): man pages and completion scripts from the tables each command's
 * --help prints. cli_doc_man: one page in roff (name "latscope", "bench", "bench merge" or
 * "latscope-bench-merge"); cli_doc_man_dir: every page as DIR/PAGE.1; cli_doc_completion:
 * shell "bash" or "zsh". 0, or an error (-errno, LAT_E_*) with err set. */
int cli_doc_man(FILE *f, const struct lat_prog *prog, const char *name, char *err, size_t errsz);
int cli_doc_man_dir(const struct lat_prog *prog, const char *dir, char *err, size_t errsz);
int cli_doc_completion(FILE *f, const struct lat_prog *prog, const char *shell, char *err,
                       size_t errsz);

/* Parses --format VALUE; returns 0 or -1 for an unknown format (allowed: mask of 1<<fmt). */
int lat_parse_format(const char *s, unsigned allowed, enum lat_format *out);

/* An output path checked before any work: writable (created and removed again when new), not a
 * directory; '-' and NULL pass. -1 after printing "OPT PATH: why; CONSEQUENCE" under cmd. */
int lat_check_output(const char *cmd, const char *opt, const char *path, const char *consequence);

/* True when argv[i] is -h or --help. */
bool lat_is_help(const char *arg);

/* cli-opts.c: the option parser every command uses. A command describes its options in a table
 * (ended by a row of zeros; a row with only `help` is a heading in --help) and handles each
 * parsed option in on_opt(ctx, id, value): value is NULL for a flag; return 0, or -1 after
 * printing why the value is wrong. `--opt value`, `--opt=value`, unambiguous prefixes, short
 * options and `--` work the same in every command; -h/--help is built in. */
enum {
    CLI_SUB = 1u << 0, /* cli_opt.flags: a sub-option, indented under the one before */
    /* an optional value: `--opt=V`, or the next argument when it is not an option and not an
     * existing file or directory (so `--opt TRACE` keeps TRACE an input); else NULL */
    CLI_OPTVAL = 1u << 1,
    /* listed in --help only: the option is an earlier row of the same long name (bench lists
     * --model under kserve and openai); getopt gets the earlier row */
    CLI_HELP_ONLY = 1u << 2,
};
struct cli_opt {
    const char *lname; /* long name without "--"; NULL: a heading row */
    int sname;         /* short option character, or 0 */
    const char *arg;   /* the value's name in --help ("N", "FILE"); NULL: a flag */
    int id;            /* handed to on_opt */
    unsigned flags;    /* CLI_SUB */
    const char *help;  /* '\n' starts a continuation line */
};
struct cli_spec {
    const char *cmd;    /* "analyze": prefixes error messages */
    const char *usage;  /* --help text before the options (usage line, description, blank line) */
    const char *footer; /* --help text after them (exit status...), or NULL */
    const struct cli_opt *opts;
    int (*on_opt)(void *ctx, int id, const char *val);
    void *ctx;
    bool stop_at_positional; /* the first positional argument ends the options (trace CMD...) */
};
struct cli_result {
    const char **pos; /* the positional arguments, in order */
    size_t npos;
    bool dashdash; /* a `--` ended the options: pos[after_dashdash..] came after it */
    size_t after_dashdash;
    int rest; /* argv[rest..argc): the arguments after the options (with stop_at_positional:
               * all positional ones, in place) */
};
enum { CLI_HELP = 1, CLI_ERROR = -1 };
/* 0 (res filled: free with cli_result_fini), CLI_HELP (-h/--help seen: print cli_help), or
 * CLI_ERROR (the error was printed: exit LAT_EXIT_USAGE). */
int cli_parse(const struct cli_spec *spec, int argc, char **argv, struct cli_result *res);
void cli_result_fini(struct cli_result *res);
void cli_help(FILE *f, const struct cli_spec *spec);
/* The options part of cli_help(): the rows ("options:" first when the table has no heading),
 * then -h/--help. */
void cli_help_opts(FILE *f, const struct cli_opt *opts);
/* When set, cli_help() hands the spec to it instead of printing: cli-doc.c reads a command's
 * table this way (the same table its --help prints). */
extern void (*cli_help_hook)(const struct cli_spec *spec);
/* What every command does first: cli_parse(), then --help printed on stdout or the error exit.
 * True: go on (res filled: free with cli_result_fini). False: return *status (LAT_EXIT_OK after
 * --help, LAT_EXIT_USAGE after the printed error), res needs no freeing. */
bool cli_run(const struct cli_spec *spec, int argc, char **argv, struct cli_result *res,
             int *status);
/* A --format value among `allowed` (mask of 1 << LAT_FMT_*): 0, or -1 after printing
 * "--format wants text, json or md, not 'VALUE'" under cmd (the names allowed, in enum order). */
int cli_format(const char *cmd, const char *val, unsigned allowed, enum lat_format *out);
/* A wrong option value: -1 after "CMD: error: --OPT: bad value 'V': why" (why NULL: "(see
 * latscope CMD --help)"), OPT the long name of option id in the table opts: the wording
 * cli_parse's own errors use, for a command's on_opt callback (serve-test, serve-test openai). */
int cli_bad_value(const struct cli_opt *opts, const char *cmd, int id, const char *val,
                  const char *why);
/* An integer option value in lo..hi; -1 after printing "--opt wants a number (lo..hi)". */
int cli_int(const char *cmd, const char *opt, const char *val, long long lo, long long hi,
            long long *out);

struct lat_ingest_set;
struct lat_ingest_opts;
/* cli-load.c: loads a command's trace inputs (files and directories) with ingest_paths() and
 * reports on stderr under module mod: errors, skipped files (warnings), ranks. NULL after an
 * error was printed (exit LAT_EXIT_USAGE); else a set with at least one trace. */
struct lat_ingest_set *lat_load_traces(const char *mod, const char *const *paths, size_t n,
                                       const struct lat_ingest_opts *io);
/* The traces of set that loaded, in input order, in a new array (the set keeps owning them),
 * each with ingest's rank: a directory's file the directory's rank (distributedInfo.rank, 0
 * without one), a named file its own (-1 when it has none). *n: how many. */
struct lat_trace **lat_set_traces(struct lat_ingest_set *set, size_t *n);
/* Ranks of files given one by one (analyze, diff, report's diff pages): a missing rank is the
 * trace's position among the timeline inputs; kernel profiles (ncu) are no rank of the job and
 * are numbered after the ranks, never a duplicate. -1 after printing under mod when two
 * timelines have one rank. */
int lat_number_ranks(const char *mod, struct lat_trace **traces, size_t n);
/* One input loaded as `latscope diff` loads a side: lat_load_traces of path, its traces
 * (lat_set_traces) numbered by lat_number_ranks. NULL after an error (printed under mod), else
 * the set and *traces[0..*n) (free the array, then the set). With why: quiet, the error in
 * why[0..whysz) (a second load of an input that was loaded and reported once: report's diff pages).
 */
struct lat_ingest_set *lat_load_ranked(const char *mod, const char *path,
                                       struct lat_trace ***traces, size_t *n, char *why,
                                       size_t whysz);
/* The same inputs and messages, streamed (ingest_paths_each): fn(ctx, set, i) for each file i
 * that loaded, `batch` files in memory at a time; the trace is freed after fn unless fn takes
 * it. NULL after an error was printed (a failing fn prints its own; *rc its code), else the set
 * (paths, statuses; no traces) with at least one file that loaded. quiet: no warnings about
 * skipped files (a second walk over the same inputs). */
typedef int (*lat_walk_fn)(void *ctx, struct lat_ingest_set *set, size_t i);
struct lat_ingest_set *lat_walk_traces(const char *mod, const char *const *paths, size_t n,
                                       const struct lat_ingest_opts *io, size_t batch,
                                       lat_walk_fn fn, void *ctx, bool quiet, int *rc);

/* cli-mpi.c: `mpirun -n N latscope analyze` (Open MPI builds; elsewhere lat_mpi_start fails).
 * lat_mpi_env_size: the launcher's world size (1 when not under mpirun) and this rank, from its
 * environment, with or without MPI. lat_mpi_start: MPI_Init; a process that then exits with an
 * error aborts the job (no rank waits forever). lat_mpi_max: MAX over the ranks. The gathers:
 * every rank's bytes, in rank order, on every rank or on rank 0 (*offs: size + 1 offsets);
 * 0 or -1. */
int lat_mpi_env_size(int *rank);
int lat_mpi_start(int *rank, int *size);
void lat_mpi_stop(void);
int lat_mpi_max(int v);
int lat_mpi_allgather(const void *b, size_t n, char **out, size_t **offs);
int lat_mpi_gather0(const void *b, size_t n, char **out, size_t **offs);

/* CLI-only allocation: prints and exits(1) on out of memory. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* LAT_GROW (core/grow.h) for the command layer: on failure (out of memory, a size that does not
 * fit) it dies as xrealloc does. */
#define XGROW(arr, cap, n, k, min) ((void)(LAT_GROW(arr, cap, n, k, min) && (lat_die_oom(), 0)))
__attribute__((noreturn)) void lat_die_oom(void);

/* lat_version: core/features.h */

/* cli-paths.c: a file latscope installs beside itself (liblatscope-cupti.so), looked up in the
 * one order of docs/install.md: $env (when set), the binary's directory, ../lib/latscope from it,
 * lat_pkglibdir (PREFIX/lib/latscope compiled in by mk/install.mk). 0 with *out its real path,
 * or -ENOENT with *tried the places looked at ("A, B, C"). */
int lat_find_installed(const char *name, const char *env, char *out, size_t len, char *tried,
                       size_t triedsz);
extern const char lat_pkglibdir[];

#endif
