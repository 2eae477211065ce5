/*
 * log.h - diagnostics on stderr: pr_err/pr_warn/pr_info/pr_dbg.
 *
 * Each .c may define PR_FMT ("bench", "kineto", ...) before including this header so every line
 * carries its module. The level is checked before the arguments are evaluated. Library code logs
 * only through these macros; only cmd-*.c print data for the user (on stdout).
 */
#ifndef LAT_CORE_LOG_H
#define LAT_CORE_LOG_H

#include <stdbool.h>

#ifndef PR_FMT
#define PR_FMT "latscope"
#endif

enum lat_log_level { LAT_LOG_ERR = 0, LAT_LOG_WARN = 1, LAT_LOG_INFO = 2, LAT_LOG_DBG = 3 };

extern int lat_log_level;

void lat_log_set_level(int level);
/* Colour on stderr: true only when stderr is a TTY and NO_COLOR is unset (decided once). */
bool lat_log_color(void);
void lat_log_printf(int level, const char *mod, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define pr_at(lvl, ...)                                                                            \
    do {                                                                                           \
        if (lat_log_level >= (lvl)) lat_log_printf((lvl), PR_FMT, __VA_ARGS__);                    \
    } while (0)
#define pr_err(...)  pr_at(LAT_LOG_ERR, __VA_ARGS__)
#define pr_warn(...) pr_at(LAT_LOG_WARN, __VA_ARGS__)
#define pr_info(...) pr_at(LAT_LOG_INFO, __VA_ARGS__)
#define pr_dbg(...)  pr_at(LAT_LOG_DBG, __VA_ARGS__)

#endif
