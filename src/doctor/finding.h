/*
 * finding.h - builders the rules use to fill a struct doc_finding (internal to src/doctor).
 *
 * Errors are sticky in the report (r->err = -ENOMEM): a rule writes straight through and
 * doctor_run() checks once at the end, the way jsonw does.
 */
#ifndef LAT_DOCTOR_FINDING_H
#define LAT_DOCTOR_FINDING_H

#include "doctor/doctor.h"

struct doc_finding *doc_finding_add(struct doc_report *r, const char *id, int trace);
void doc_set(struct doc_report *r, char **dst, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void doc_kv_num(struct doc_report *r, struct doc_finding *f, const char *key, double v);
void doc_kv_int(struct doc_report *r, struct doc_finding *f, const char *key, int64_t v);
void doc_kv_us(struct doc_report *r, struct doc_finding *f, const char *key, lat_ns ns);
void doc_kv_bool(struct doc_report *r, struct doc_finding *f, const char *key, bool v);
void doc_kv_str(struct doc_report *r, struct doc_finding *f, const char *key, const char *v);
/* Starts a new row of evidence table `table`; following doc_kv_* go into it until row_end. */
void doc_row_begin(struct doc_report *r, struct doc_finding *f, const char *table);
void doc_row_end(struct doc_finding *f);
void doc_example_add(struct doc_report *r, struct doc_finding *f, const struct doc_example *e);
/* Sets saving (µs per step, % of mean step) and the severity that follows from it. */
void doc_saving(struct doc_finding *f, lat_ns per_step, lat_ns mean_step);

#endif
