/*
 * shell.h - quoting of trace-provided names in the doctor's printed commands (shell.c).
 */
#ifndef LAT_DOCTOR_SHELL_H
#define LAT_DOCTOR_SHELL_H

#include <stdbool.h>
#include <stddef.h>

/* s quoted for POSIX sh (malloc'd, NULL on ENOMEM): as is when it holds only [A-Za-z0-9_./:=@%+,-]
 * and `always` is false, else in single quotes with each ' written '\''; control characters
 * become '?'. */
char *doc_sh_quote(const char *s, bool always);

/* The kernel's function name as ncu --kernel-name-base=function sees it (no return type,
 * template arguments or parameters), regex-escaped, control bytes as '.', for
 * `--kernel-name regex:` (quote the result with doc_sh_quote before printing it in a command). */
void doc_ncu_name(const char *kernel, char *out, size_t len);

/* The leading [A-Za-z0-9_.-] characters of s (at most max; backslashes skipped), or "kernel":
 * safe as a file name in a command without quoting. */
void doc_file_stem(const char *s, size_t max, char *out, size_t len);

#endif
