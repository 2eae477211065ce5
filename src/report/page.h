/*
 * page.h - what every page object of the report's data starts with: {"kind", "path", "title"
 * (the file name of path)}. The page writers (records.c, hlog.c, bench.c, the trace page of
 * cmd-report.c) open the object with it and close it themselves.
 */
#ifndef LAT_REPORT_PAGE_H
#define LAT_REPORT_PAGE_H

struct jsonw;

/* The last component of path ("a/b.json" -> "b.json"; a trailing '/' keeps path). */
const char *rep_base_name(const char *path);

/* Opens the page object: {"kind":kind,"path":path,"title":rep_base_name(path), (left open). */
void rep_page_begin(struct jsonw *w, const char *kind, const char *path);

#endif
