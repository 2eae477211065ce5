/*
 * cli.c - helpers shared by the command files: --help detection, --format parsing and the
 * dying allocators (the CLI may die on out-of-memory; library modules return -ENOMEM).
 */
#define PR_FMT "latscope"
#include "core/log.h"
#include "latscope.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lat_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

static const char *const format_names[] = {"text", "json", "csv", "md"};
enum { NFORMATS = sizeof(format_names) / sizeof(format_names[0]) };

int lat_parse_format(const char *s, unsigned allowed, enum lat_format *out)
{
    const char *const *names = format_names;
    for (unsigned i = 0; i < NFORMATS; i++)
        if (s && strcmp(s, names[i]) == 0 && (allowed & (1u << i))) {
            *out = (enum lat_format)i;
            return 0;
        }
    return -1;
}

int cli_bad_value(const struct cli_opt *opts, const char *cmd, int id, const char *val,
                  const char *why)
{
    const char *name = "?";
    for (const struct cli_opt *o = opts; o->lname || o->help; o++)
        if (o->lname && o->id == id) {
            name = o->lname;
            break;
        }
    if (why)
        lat_log_printf(LAT_LOG_ERR, cmd, "--%s: bad value '%s': %s\n", name, val, why);
    else
        lat_log_printf(LAT_LOG_ERR, cmd, "--%s: bad value '%s' (see latscope %s --help)\n", name,
                       val, cmd);
    return -1;
}

int cli_format(const char *cmd, const char *val, unsigned allowed, enum lat_format *out)
{
    if (!lat_parse_format(val, allowed, out)) return 0;
    char list[64] = "";
    unsigned k = 0, n = 0;
    for (unsigned i = 0; i < NFORMATS; i++)
        n += (allowed >> i) & 1u;
    for (unsigned i = 0; i < NFORMATS; i++) {
        if (!((allowed >> i) & 1u)) continue;
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s%s",
                 k == 0       ? ""
                 : k + 1 == n ? " or "
                              : ", ",
                 format_names[i]);
        k++;
    }
    lat_log_printf(LAT_LOG_ERR, cmd, "--format wants %s, not '%s'\n", list, val ? val : "");
    return -1;
}

void lat_die_oom(void)
{
    fputs("latscope: out of memory\n", stderr);
    exit(LAT_EXIT_FAILURE);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("latscope: out of memory\n", stderr);
        exit(LAT_EXIT_FAILURE);
    }
    return p;
}

void *xcalloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p) {
        fputs("latscope: out of memory\n", stderr);
        exit(LAT_EXIT_FAILURE);
    }
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fputs("latscope: out of memory\n", stderr);
        exit(LAT_EXIT_FAILURE);
    }
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

int lat_check_output(const char *cmd, const char *opt, const char *path, const char *consequence)
{
    if (!path || !strcmp(path, "-")) return 0;
    struct stat sb;
    int fd;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            lat_log_printf(LAT_LOG_ERR, cmd, "%s %s: is a directory, give a file name; %s\n", opt,
                           path, consequence);
            return -1;
        }
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0 && errno == ENXIO) return 0; /* a FIFO whose reader comes later */
    } else {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) unlink(path);
    }
    if (fd < 0) {
        lat_log_printf(LAT_LOG_ERR, cmd, "%s %s: cannot write there (%s); %s\n", opt, path,
                       strerror(errno), consequence);
        return -1;
    }
    close(fd);
    return 0;
}
