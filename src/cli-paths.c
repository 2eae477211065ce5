/*
 * cli-paths.c - where latscope finds the files installed beside it (liblatscope-cupti.so), in
 * the one order docs/install.md documents:
 *
 *   1. the environment variable the caller names (LATSCOPE_CUPTI_SO), when set;
 *   2. the directory of the running binary (/proc/self/exe): the build tree, build/;
 *   3. ../lib/latscope/ from that directory: an installed tree (PREFIX/bin -> PREFIX/lib/latscope),
 *      wherever it was moved or staged (DESTDIR);
 *   4. the library directory compiled in (LAT_PKGLIBDIR, PREFIX/lib/latscope of the build, set by
 *      mk/install.mk): a binary copied out of its tree.
 */
#include "latscope.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LAT_PKGLIBDIR
#define LAT_PKGLIBDIR "/usr/local/lib/latscope"
#endif
const char lat_pkglibdir[] = LAT_PKGLIBDIR;

static bool is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Appends "SEP what" to the list of places tried (cut, never overrun, when it is full). */
static void tried_add(char *tried, size_t tsz, const char *what)
{
    if (!tried || !tsz) return;
    size_t n = strlen(tried);
    if (n + 1 >= tsz) return;
    snprintf(tried + n, tsz - n, "%s%s", n ? ", " : "", what);
}

/* A candidate: found -> *out is its real path. */
static bool try_path(const char *p, char *out, size_t len, char *tried, size_t tsz)
{
    char r[PATH_MAX];
    if (is_file(p) && realpath(p, r) && strlen(r) < len) {
        memcpy(out, r, strlen(r) + 1);
        return true;
    }
    tried_add(tried, tsz, p);
    return false;
}

int lat_find_installed(const char *name, const char *env, char *out, size_t len, char *tried,
                       size_t triedsz)
{
    char p[PATH_MAX + 64];
    if (tried && triedsz) tried[0] = 0;
    const char *ev = env ? getenv(env) : NULL;
    if (ev && *ev) {
        if (try_path(ev, out, len, NULL, 0)) return 0;
        snprintf(p, sizeof(p), "$%s=%s (no such file)", env, ev);
        tried_add(tried, triedsz, p);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash = NULL;
    if (n > 0) {
        exe[n] = 0;
        slash = strrchr(exe, '/');
    }
    char up[PATH_MAX + 8] = "";
    if (slash) {
        *slash = 0;
        snprintf(p, sizeof(p), "%s/%s", exe, name);
        if (try_path(p, out, len, tried, triedsz)) return 0;
        /* EXEDIR/.. named by its real path, so the list reads as plain directories */
        snprintf(p, sizeof(p), "%s/..", exe);
        if (!realpath(p, up)) snprintf(up, sizeof(up), "%s/..", exe);
        snprintf(p, sizeof(p), "%s/lib/latscope/%s", strcmp(up, "/") ? up : "", name);
        if (try_path(p, out, len, tried, triedsz)) return 0;
    } else {
        tried_add(tried, triedsz, "(the binary's own directory: /proc/self/exe unreadable)");
    }
    char cdir[PATH_MAX + 32];
    snprintf(cdir, sizeof(cdir), "%s/lib/latscope", strcmp(up, "/") ? up : "");
    if (!*up || strcmp(cdir, lat_pkglibdir) != 0) { /* not the directory step 3 just tried */
        snprintf(p, sizeof(p), "%s/%s", lat_pkglibdir, name);
        if (try_path(p, out, len, tried, triedsz)) return 0;
    }
    return -ENOENT;
}
