/*
 * page.c - the start of every report page object (page.h).
 */
#include "report/page.h"

#include "core/jsonw.h"

#include <string.h>

const char *rep_base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

void rep_page_begin(struct jsonw *w, const char *kind, const char *path)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "kind");
    jsonw_str(w, kind);
    jsonw_key(w, "path");
    jsonw_str(w, path);
    jsonw_key(w, "title");
    jsonw_str(w, rep_base_name(path));
}
