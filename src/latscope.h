/*
 * latscope.h - what the command files share: exit codes, global options, cmd_* entry points
 * and the CLI helpers (dying allocation, option-table help). Library modules never include it.
 */
#ifndef LATSCOPE_H
#define LATSCOPE_H

#include <stdbool.h>
#include <stddef.h>

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
};

/* Subcommands. argv[0] is the subcommand name. Return an enum lat_exit value. */
int cmd_bench(int argc, char **argv, const struct lat_opts *opts);
int cmd_trace(int argc, char **argv, const struct lat_opts *opts);
int cmd_analyze(int argc, char **argv, const struct lat_opts *opts);
int cmd_doctor(int argc, char **argv, const struct lat_opts *opts);
int cmd_report(int argc, char **argv, const struct lat_opts *opts);
int cmd_diff(int argc, char **argv, const struct lat_opts *opts);
int cmd_convert(int argc, char **argv, const struct lat_opts *opts);
int cmd_version(int argc, char **argv, const struct lat_opts *opts);
int cmd_help(int argc, char **argv, const struct lat_opts *opts);
int cmd_selftest(int argc, char **argv, const struct lat_opts *opts);
int cmd_serve_test(int argc, char **argv, const struct lat_opts *opts);

const struct lat_cmd *lat_commands(size_t *n);

/* Parses --format VALUE; returns 0 or -1 for an unknown format (allowed: mask of 1<<fmt). */
int lat_parse_format(const char *s, unsigned allowed, enum lat_format *out);

/* True when argv[i] is -h or --help. */
bool lat_is_help(const char *arg);

struct lat_ingest_set;
struct lat_ingest_opts;
/* cli-load.c: loads a command's trace inputs (files and directories) with ingest_paths() and
 * reports on stderr under module mod: errors, skipped files (warnings), ranks. NULL after an
 * error was printed (exit LAT_EXIT_USAGE); else a set with at least one trace. */
struct lat_ingest_set *lat_load_traces(const char *mod, const char *const *paths, size_t n,
                                       const struct lat_ingest_opts *io);

/* CLI-only allocation: prints and exits(1) on out of memory. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

extern const char lat_version[];

#endif
