/*
 * ort.c - ONNX Runtime profiles (SessionOptions.enable_profiling, onnxruntime_profile_*.json).
 *
 * The file is a JSON array of Chrome-trace-like ph X events, cat "Session" (model_loading_uri /
 * model_loading_array, session_initialization, model_run, SequentialExecutor::Execute) or
 * "Node" (<node>_kernel_time; ORT <= 1.20 also <node>_fence_before / _fence_after), written in
 * END-TIME order (docs/trace-input.md, ../shared/docs/trace-formats.md section 3).
 *
 * Parsing is the Kineto/Chrome reader's (kineto.c: the same tokenizer, args, time bounds and
 * drop accounting); this file turns the generic events into the model's ORT meaning:
 *   - events sorted by ts (the file's end-time order would break nesting);
 *   - Node <n>_kernel_time -> LAT_EV_CPU_OP named <n> (the optimized graph's node name), args
 *     op_name / provider / node_index / shapes / sizes / mem_* / thread_scheduling_stats kept;
 *   - Node <n>_fence_before/_after (0 µs markers, args {op_name}) folded into their node: left
 *     out of the events and counted in the metadata key "ort_fence_events_folded";
 *   - Session model_run -> LAT_EV_USER_ANNOTATION with LAT_EVF_STEP, step = its index in ts
 *     order (one inference = one step); other Session events -> user annotations (regions);
 *   - tracks are the (pid, tid) of the file (ORT_PARALLEL puts nodes on a second tid).
 * A 0-byte file with an ORT-style name gets an error that says why ORT leaves one.
 */
#include "core/err.h"
#include "ingest/formats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, size_t l, const char *suf, size_t k)
{
    return l >= k && memcmp(s + l - k, suf, k) == 0;
}

/* Renames event i to its name minus the last k bytes. The name is copied first: interning
 * may grow the string table the name lives in. */
static int strip_name(struct lat_trace *t, size_t i, size_t k)
{
    const char *s = lat_trace_str(t, t->ev.name[i]);
    size_t l = strlen(s) - k;
    char small[256], *copy = l < sizeof(small) ? small : malloc(l + 1);
    if (!copy) return -ENOMEM;
    memcpy(copy, s, l);
    copy[l] = 0;
    uint32_t id;
    int rc = lat_trace_intern(t, copy, l, &id);
    if (copy != small) free(copy);
    if (rc) return rc;
    t->ev.name[i] = id;
    return 0;
}

static int ort_convert(struct lat_trace *t)
{
    int rc = lat_trace_sort(t);
    if (rc) return rc;
    uint32_t id_session = strtab_find(&t->strs, "Session", 7);
    uint32_t id_node = strtab_find(&t->strs, "Node", 4);
    uint64_t fences = 0;
    int32_t run = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        uint32_t cat = t->ev.cat[i];
        const char *name = lat_trace_str(t, t->ev.name[i]);
        size_t l = strlen(name);
        if (cat == id_node && id_node != UINT32_MAX) {
            if (ends_with(name, l, "_fence_before", 13) || ends_with(name, l, "_fence_after", 12)) {
                t->ev.flags[i] |= LAT_EVF_READER_TMP;
                fences++;
                continue;
            }
            t->ev.kind[i] = LAT_EV_CPU_OP;
            if (ends_with(name, l, "_kernel_time", 12) && l > 12 && (rc = strip_name(t, i, 12)))
                return rc;
        } else if (cat == id_session && id_session != UINT32_MAX) {
            t->ev.kind[i] = LAT_EV_USER_ANNOTATION;
            if (!strcmp(name, "model_run")) {
                t->ev.flags[i] |= LAT_EVF_STEP;
                t->ev.step[i] = run < INT32_MAX ? run++ : run;
            }
        }
    }
    if (fences) {
        lat_trace_remove_flagged(t, LAT_EVF_READER_TMP);
        char num[32];
        int n = snprintf(num, sizeof(num), "%llu", (unsigned long long)fences);
        uint32_t k, v;
        if ((rc = lat_trace_intern(t, "ort_fence_events_folded", 23, &k)) ||
            (rc = lat_trace_intern(t, num, (size_t)n, &v)) || (rc = lat_trace_add_meta(t, k, v)))
            return rc;
    }
    return 0;
}

bool ingest_ort_name(const char *path)
{
    /* <prefix>_YYYY-MM-DD_HH-MM-SS[_mmm].json: the name EndProfiling() writes */
    if (!path) return false;
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t l = strlen(b);
    if (l < 25 || strcmp(b + l - 5, ".json") != 0) return false;
    for (const char *p = b; (p = strchr(p, '_')) != NULL; p++) {
        static const char pat[] = "_dddd-dd-dd_dd-dd-dd";
        size_t j = 0;
        for (; pat[j] && p[j]; j++)
            if (pat[j] == 'd' ? (p[j] < '0' || p[j] > '9') : p[j] != pat[j]) break;
        if (!pat[j] &&
            (!strcmp(p + j, ".json") || (p[j] == '_' && p[j + 1] >= '0' && p[j + 1] <= '9')))
            return true;
    }
    return strstr(b, "onnxruntime_profile") != NULL;
}

int ingest_ort_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                    struct lat_trace **out, char *err, size_t errsz)
{
    const char *head = NULL;
    size_t n = 0;
    char ebuf[200] = "";
    const char *nm = name ? name : "(input)";
    *out = NULL;
    if (src_peek(src, &head, &n, ebuf, sizeof(ebuf)) == 0 && n == 0 && !src_is_gzip(src)) {
        src_close(src);
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: empty ONNX Runtime profile (0 bytes): ORT leaves an empty profile when "
                     "the model fails to load or the process exits before the session is "
                     "released; fix the load error (see ORT's log) or call "
                     "session.end_profiling() before exit, then profile again",
                     nm);
        return LAT_E_NOT_TRACE;
    }
    struct lat_trace *t = NULL;
    bool ort = false;
    int rc = ingest_kineto_load(src, name, opts, &t, &ort, err, errsz); /* closes src */
    if (rc) return rc;
    if (!ort) { /* sniffed as ORT, parsed as something
                                                         else: keep what the reader found */
        *out = t;
        return 0;
    }
    rc = ingest_ort_finish(t, nm, err, errsz);
    if (rc) return rc;
    *out = t;
    return 0;
}

int ingest_ort_finish(struct lat_trace *t, const char *name, char *err, size_t errsz)
{
    int rc = ort_convert(t);
    if (rc) {
        lat_trace_free(t);
        if (err && errsz) snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
        return rc;
    }
    lat_trace_set_format(t, &ingest_fmt_ort);
    return 0;
}

const struct lat_trace_format ingest_fmt_ort = {
    .name = "ort",
    .what = "an ONNX Runtime profile",
    .fw = LAT_FW_ORT,
    .caps = LAT_FCAP_RUNS | LAT_FCAP_ORT_NODES | LAT_FCAP_NO_PYTHON | LAT_FCAP_COLD_FIRST_RUN,
    .file_noun = "profile",
    .na_gpu_timeline = "no GPU kernel event in the profile: a CPU execution provider",
    .na_steps = "no ProfilerStep: model_run per run is in the ONNX Runtime section",
};

/* ---- sniffing (ingest.c's format table) ---- */

/* ONNX Runtime profile: a JSON array whose first event has "cat" "Session" or "Node"; or a
 * 0-byte file with the name ORT writes (its reader explains the empty profile). */
bool ingest_sniff_ort(const unsigned char *h, size_t n, const char *path)
{
    size_t i;
    if (n == 0) return ingest_ort_name(path);
    if (ingest_first_char(h, n, &i) != '[') return false;
    size_t j = i + 1;
    if (ingest_first_char(h + j, n - j, &i) != '{') return false;
    j += i;
    size_t lim = n - j < 512 ? n - j : 512; /* within the first object's first members */
    const unsigned char *c = memmem(h + j, lim, "\"cat\"", 5);
    if (!c) return false;
    size_t k = (size_t)(c - h) + 5;
    while (k < n && (h[k] == ' ' || h[k] == '\t' || h[k] == ':'))
        k++;
    return (n - k >= 9 && !memcmp(h + k, "\"Session\"", 9)) ||
           (n - k >= 6 && !memcmp(h + k, "\"Node\"", 6));
}
