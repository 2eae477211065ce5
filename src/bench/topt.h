/*
 * topt.h - one row of a group of `latscope bench` options (a target's, bench/target.h; the
 * multi-host group, bench/shard.h).
 */
#ifndef LAT_BENCH_TOPT_H
#define LAT_BENCH_TOPT_H

/* One option of a target's group: the fields of the commands' option rows (struct cli_opt in
 * src/latscope.h), which cmd-bench.c copies into its table. A row with only `help` is the
 * group's heading; a row of zeros ends the group. */
struct bench_topt {
    const char *lname; /* long name without "--"; NULL: the heading */
    int sname;         /* short option character, or 0 */
    const char *arg;   /* the value's name in --help ("N", "FILE"); NULL: a flag */
    int id;            /* handed to opt() */
    unsigned flags;    /* 0 (CLI_SUB etc. of latscope.h) */
    const char *help;  /* '\n' starts a continuation line */
};

#endif
