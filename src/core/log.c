/*
 * log.c - leveled diagnostics on stderr.
 *
 * Lines look like "latscope: kineto: error: <message>"; code without a module of its own (PR_FMT
 * left at "latscope") gets "latscope: error: <message>", never the program name twice. Errors
 * and warnings are always shown;
 * -v raises the level to info, -vv to debug. Colour is used only when stderr is a TTY and the
 * NO_COLOR environment variable is not set (https://no-color.org). Thread-safe in the sense
 * that each call is a single vfprintf-sized write into a local buffer, then one fputs.
 */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lat_log_level = LAT_LOG_WARN;

void lat_log_set_level(int level)
{
    lat_log_level = level;
}

bool lat_log_color(void)
{
    static int color = -1;
    if (color < 0) {
        const char *nc = getenv("NO_COLOR");
        color = isatty(STDERR_FILENO) && !(nc && *nc);
    }
    return color;
}

void lat_log_printf(int level, const char *mod, const char *fmt, ...)
{
    static const char *names[] = {"error", "warning", "info", "debug"};
    static const char *colors[] = {"\033[1;31m", "\033[1;33m", "", "\033[2m"};
    char msg[4096];
    va_list ap;
    int n;

    if (level < 0 || level > LAT_LOG_DBG) level = LAT_LOG_DBG;
    va_start(ap, fmt);
    n = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (n < 0) return;
    /* Callers usually end their message with "\n"; add one when they did not. */
    const char *nl = (n > 0 && (size_t)n < sizeof(msg) && msg[n - 1] == '\n') ? "" : "\n";
    /* The program name is always the prefix: a module named after it is not repeated. */
    const char *sep = ": ";
    if (!mod || !*mod || !strcmp(mod, "latscope")) mod = sep = "";
    if (lat_log_color() && colors[level][0])
        fprintf(stderr, "latscope: %s%s%s%s:\033[0m %s%s", mod, sep, colors[level], names[level],
                msg, nl);
    else
        fprintf(stderr, "latscope: %s%s%s: %s%s", mod, sep, names[level], msg, nl);
}
