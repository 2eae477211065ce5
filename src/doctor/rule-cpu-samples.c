/*
 * rule-cpu-samples.c - CPU-sample traces (`latscope trace --cpu`, py-spy speedscope/raw, perf
 * script): what the sampled threads spent their on-CPU time in, from analyze's CPU summary
 * (analyze/cpu.h, the same numbers `latscope analyze` prints). Shares are of the on-CPU
 * samples; a share of a stack category counts each sample once (exact over every distinct
 * stack). Findings, each at >= cpu_sample_pct of the samples (GC at a quarter of it):
 *   cpu-hot-function    the Python function that is the innermost Python frame of most samples
 *                       (with the native code it calls), else the native function with most
 *                       self samples
 *   cpu-hot-native      a native library class on the stack: BLAS/GEMM, tokenizer, image decode
 *   cpu-interpreter     CPython's own frames as the leaf (eval loop, object API) or GIL waits
 *   cpu-startup         imports and model/session construction (start-up in the profile)
 *   cpu-gc              the garbage collector
 * Traces with fewer than DOC_MIN_CPU_SAMPLES samples are not judged (rules.h). The saving is an
 * upper bound: the samples' share of the trace window (a function that took no time saves at most
 * the time it was sampled in); with no time stamps (collapsed stacks) only the share is known and
 * the saving is not estimated.
 */
#include "analyze/cpu.h"
#include "core/grow.h"
#include "doctor/rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Case-insensitive substring. */
static bool has(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++)
        if (!strncasecmp(s, w, n)) return true;
    return false;
}

static bool any_of(const char *frame, const char *const *words)
{
    for (; *words; words++)
        if (has(frame, *words)) return true;
    return false;
}

static const char *const w_blas[] = {"gemm",  "mkl_",  "libmkl", "openblas", "dnnl",    "onednn",
                                     "blas_", "cblas", "mlas",   "sgemv",    "_conv2d", NULL};
static const char *const w_tok[] = {"tokenizers", "sentencepiece", "tiktoken", "tokeniz",
                                    "wordpiece",  "bpe",           NULL};
static const char *const w_img[] = {"jpeg",       "libpng",       "png_",      "webp",
                                    "imdecode",   "decode_image", "imagefile", "pil/",
                                    "libavcodec", "resize",       NULL};
static const char *const w_gil[] = {
    "take_gil",          "drop_gil", "PyEval_RestoreThread", "PyEval_AcquireThread",
    "PyGILState_Ensure", NULL};
static const char *const w_imp[] = {"_find_and_load", "importlib",    "exec_module", "dlopen",
                                    "_dl_map_object", "_dl_relocate", NULL};
static const char *const w_init[] = {"InferenceSession.__init__",
                                     "_create_inference_session",
                                     "from_pretrained",
                                     "load_state_dict",
                                     "torch.load",
                                     "py:load (",
                                     NULL};
static const char *const w_gc[] = {"gc_collect",
                                   "collect_generations",
                                   "gc_collect_main",
                                   "py:collect (",
                                   "subtract_refs",
                                   "move_unreachable",
                                   NULL};

/* The leaf frame is CPython's own code (not a Python function, not a library). */
static bool interp_leaf(const char *leaf)
{
    if (!strncmp(leaf, "py:", 3)) return false;
    return !strncmp(leaf, "_PyEval", 7) || !strncmp(leaf, "PyEval", 6) ||
           !strncmp(leaf, "_PyObject", 9) || !strncmp(leaf, "PyObject_", 9) ||
           !strncmp(leaf, "_PyFunction", 11) || !strncmp(leaf, "_Py_", 4) ||
           !strncmp(leaf, "PyFrame", 7) || !strncmp(leaf, "_PyFrame", 8) ||
           !strncmp(leaf, "PyDict", 6) || !strncmp(leaf, "_PyDict", 7) ||
           !strncmp(leaf, "PyType", 6) || !strncmp(leaf, "_PyType", 7) ||
           !strncmp(leaf, "PyUnicode", 9) || !strncmp(leaf, "_PyUnicode", 10) ||
           !strncmp(leaf, "PyLong", 6) || !strncmp(leaf, "Py_", 3) || has(leaf, "libpython");
}

enum { C_BLAS, C_TOK, C_IMG, C_GIL, C_INTERP, C_IMPORT, C_INIT, C_GC, NC };

/* Samples per category over every distinct stack (each sample counted once per category). */
static void categorize(const struct lat_cpu_summary *s, uint64_t *n, char (*ex)[160])
{
    for (size_t i = 0; i < s->nstacks; i++) {
        const char *st = s->stacks[i].stack;
        bool hit[NC] = {0};
        const char *leaf = st;
        for (const char *p = st;;) {
            const char *e = strchr(p, ';');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char fr[512];
            if (len >= sizeof(fr)) len = sizeof(fr) - 1;
            memcpy(fr, p, len);
            fr[len] = 0;
            const char *const *lists[] = {w_blas, w_tok, w_img, w_gil, NULL, w_imp, w_init, w_gc};
            for (int c = 0; c < NC; c++)
                if (lists[c] && !hit[c] && any_of(fr, lists[c])) {
                    hit[c] = true;
                    if (!ex[c][0]) snprintf(ex[c], sizeof(ex[c]), "%.159s", fr);
                }
            leaf = p;
            if (!e) break;
            p = e + 1;
        }
        char lf[512];
        snprintf(lf, sizeof(lf), "%s", leaf);
        if (interp_leaf(lf)) {
            hit[C_INTERP] = true;
            if (!ex[C_INTERP][0]) snprintf(ex[C_INTERP], sizeof(ex[C_INTERP]), "%.159s", lf);
        }
        if (hit[C_INIT]) hit[C_IMPORT] = true; /* start-up: imports or model construction */
        for (int c = 0; c < NC; c++)
            if (hit[c]) n[c] += s->stacks[i].samples;
    }
}

/* Share and saving of a sample finding: the share of the on-CPU samples; the saving is that
 * share of the window when the samples have times (an upper bound), else not estimated. */
static void sample_saving(struct doc_ctx *c, struct doc_finding *f, double pct,
                          const struct lat_cpu_summary *s)
{
    lat_ns on = (lat_ns)s->samples * s->period_ns; /* on-CPU time the samples stand for */
    lat_ns per = c->step_mean > 0 && s->period_ns > 0 ? (lat_ns)((double)on * pct / 100.0) : 0;
    if (c->step_mean > 0 && per > c->step_mean) per = c->step_mean;
    doc_saving(f, per, c->step_mean);
    if (per == 0) { /* no times: rank by the share */
        f->saving_pct = pct;
        f->severity = pct >= 20.0 ? DOC_SEV_HIGH : pct >= 5.0 ? DOC_SEV_MEDIUM : DOC_SEV_LOW;
    }
}

static struct doc_finding *add(struct doc_ctx *c, const char *id, double pct,
                               const struct lat_cpu_summary *s, uint64_t n)
{
    struct doc_finding *f = doc_finding_add(c->r, id, c->trace);
    if (!f) return NULL;
    sample_saving(c, f, pct, s);
    doc_set(c->r, &f->saving_method,
            "the share of the on-CPU samples (%llu of %llu) times the on-CPU time they stand "
            "for (samples x sampling period): what the window gains at most if this took no "
            "time; not estimated when the samples have no times (collapsed stacks)",
            (unsigned long long)n, (unsigned long long)s->samples);
    doc_kv_int(c->r, f, "samples", (int64_t)n);
    doc_kv_int(c->r, f, "on_cpu_samples", (int64_t)s->samples);
    doc_kv_num(c->r, f, "share_pct", pct);
    if (s->period_ns > 0) doc_kv_us(c->r, f, "sampling_period_us", s->period_ns);
    return f;
}

DOC_RULE(cpu_samples)
{
    struct lat_cpu_opts o = {.top_n = (size_t)1 << 30, .tid = -1};
    struct lat_cpu_summary s;
    if (lat_cpu_summarize(c->t, &o, &s)) {
        c->r->err = -ENOMEM;
        return;
    }
    if (s.samples < DOC_MIN_CPU_SAMPLES) { /* off-CPU intervals only: no share */
        lat_cpu_summary_fini(&s);
        return;
    }
    const double th = c->o->th.cpu_sample_pct;
    const double tot = (double)s.samples;
    char b1[32];
    uint64_t n[NC] = {0};
    char ex[NC][160] = {{0}};
    categorize(&s, n, ex);
    /* the hottest function: with Python frames, the innermost Python function of each sample
     * (it holds the native code it calls); else the native function with most self samples */
    size_t npy = 0, pycap = 0;
    struct pyf {
        char name[200];
        uint64_t n;
    } *pf = NULL;
    uint64_t py_samples = 0;
    for (size_t i = 0; i < s.nstacks; i++) {
        const char *st = s.stacks[i].stack, *last = NULL;
        for (const char *p = st; p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
            if (!strncmp(p, "py:", 3)) last = p;
        if (!last) continue;
        size_t len = strcspn(last, ";");
        /* "py:f (x.py:12)" -> "py:f (x.py)", as analyze merges Python lines */
        char nm[200];
        if (len >= sizeof(nm)) len = sizeof(nm) - 1;
        memcpy(nm, last, len);
        nm[len] = 0;
        char *colon = strrchr(nm, ':');
        if (len > 1 && nm[len - 1] == ')' && colon && colon > nm + 3) {
            bool digits = colon + 1 < nm + len - 1;
            for (char *q = colon + 1; q < nm + len - 1; q++)
                digits &= isdigit((unsigned char)*q) != 0;
            if (digits) memcpy(colon, ")", 2);
        }
        py_samples += s.stacks[i].samples;
        size_t k = 0;
        while (k < npy && strcmp(pf[k].name, nm))
            k++;
        if (k == npy) {
            if (LAT_GROW(pf, pycap, npy, 1, 16)) {
                c->r->err = -ENOMEM;
                break;
            }
            snprintf(pf[npy].name, sizeof(pf[npy].name), "%s", nm);
            pf[npy++].n = 0;
        }
        pf[k].n += s.stacks[i].samples;
    }
    size_t best = 0;
    for (size_t k = 1; k < npy; k++)
        if (pf[k].n > pf[best].n) best = k;
    bool py = npy > 0;
    const char *hname = py ? pf[best].name : s.nfuncs ? s.funcs[0].name : NULL;
    uint64_t hn = py ? pf[best].n : s.nfuncs ? s.funcs[0].self : 0;
    if (hname && 100.0 * (double)hn / tot >= th) {
        double pct = 100.0 * (double)hn / tot;
        struct doc_finding *f = add(c, "cpu-hot-function", pct, &s, hn);
        if (f) {
            uint64_t self = 0;
            for (size_t i = 0; i < s.nfuncs; i++)
                if (!strcmp(s.funcs[i].name, hname)) self = s.funcs[i].self;
            if (py)
                doc_set(c->r, &f->title,
                        "Python function %s takes %.1f %% of the on-CPU samples (as the "
                        "innermost Python frame, with the native code it calls; in its own "
                        "bytecode %.1f %%)",
                        hname, pct, 100.0 * (double)self / tot);
            else
                doc_set(c->r, &f->title, "Native function %s takes %.1f %% of the on-CPU samples",
                        hname, pct);
            doc_kv_str(c->r, f, "function", hname);
            doc_kv_num(c->r, f, "self_pct", 100.0 * (double)self / tot);
            doc_kv_bool(c->r, f, "python_frame", py);
            if (py)
                doc_kv_num(c->r, f, "samples_with_python_pct", 100.0 * (double)py_samples / tot);
            for (size_t i = 0, shown = 0; i < s.nfuncs && shown < 5; i++) {
                if (!strcmp(s.funcs[i].name, hname)) continue;
                doc_row_begin(c->r, f, "next_functions_by_self");
                doc_kv_str(c->r, f, "function", s.funcs[i].name);
                doc_kv_num(c->r, f, "self_pct", 100.0 * (double)s.funcs[i].self / tot);
                doc_row_end(f);
                shown++;
            }
            doc_set(c->r, &f->recommendation, "%s",
                    py ? "Start with this function: it is where the thread runs. When its time "
                         "is its own bytecode and the object API (small Python operations), "
                         "vectorize it (one numpy/tensor op instead of a loop), move it out of "
                         "the request path or cache its result; when it is a library call, that "
                         "library is the next finding. Without native frames (py-spy without "
                         "--native) a Python frame's samples include every native call under it."
                       : "Start with this native function: find its library (latscope analyze "
                         "lists the stacks through it) and whether the call is needed per "
                         "request; use the library's threads and vectorized paths, or call it "
                         "less often (batch, cache).");
            doc_set(c->r, &f->next_step, "latscope analyze %s   # the stacks through it",
                    doc_trace_arg(c));
        }
    }
    free(pf);
    static const struct {
        int cat;
        const char *what, *todo;
    } natives[] = {
        {C_BLAS, "BLAS/GEMM (matrix math)",
         "It is the model's arithmetic: check the thread count (intra-op threads = physical "
         "cores per process), batch requests so each GEMM is larger, use a lower precision "
         "(bf16/int8 where the CPU supports it) or a smaller model."},
        {C_TOK, "the tokenizer",
         "Tokenize once per request with a fast tokenizer (HF tokenizers' Rust backend, "
         "batch_encode), cache repeated prompts, and keep it out of the model's critical path "
         "(a separate thread or process)."},
        {C_IMG, "image decode/resize",
         "Decode and resize off the request path or faster: a SIMD decoder (libjpeg-turbo, "
         "pillow-simd, torchvision.io.decode_jpeg), decode at the target size (draft mode), "
         "and do it in worker threads or processes."},
    };
    for (size_t k = 0; k < sizeof(natives) / sizeof(*natives); k++) {
        int cat = natives[k].cat;
        double pct = 100.0 * (double)n[cat] / tot;
        if (pct < th) continue;
        struct doc_finding *f = add(c, "cpu-hot-native", pct, &s, n[cat]);
        if (!f) break;
        doc_set(c->r, &f->title, "%s is on the stack in %.1f %% of the on-CPU samples (%s)",
                natives[k].what, pct, ex[cat]);
        doc_kv_str(c->r, f, "library", natives[k].what);
        doc_kv_str(c->r, f, "example_frame", ex[cat]);
        doc_set(c->r, &f->recommendation, "%s", natives[k].todo);
        doc_set(c->r, &f->next_step, "latscope analyze %s   # the stacks through it",
                doc_trace_arg(c));
    }
    double pint = 100.0 * (double)n[C_INTERP] / tot, pgil = 100.0 * (double)n[C_GIL] / tot;
    if (pint >= th || pgil >= th) {
        bool gil = pgil >= pint;
        double pct = gil ? pgil : pint;
        struct doc_finding *f = add(c, "cpu-interpreter", pct, &s, gil ? n[C_GIL] : n[C_INTERP]);
        if (f) {
            doc_set(c->r, &f->title,
                    gil ? "Threads wait for the GIL in %.1f %% of the on-CPU samples (%s)"
                        : "The CPython interpreter itself (eval loop, object API) is the leaf in "
                          "%.1f %% of the on-CPU samples (%s)",
                    pct, ex[gil ? C_GIL : C_INTERP]);
            doc_kv_num(c->r, f, "interpreter_leaf_pct", pint);
            doc_kv_num(c->r, f, "gil_wait_pct", pgil);
            doc_set(c->r, &f->recommendation, "%s",
                    gil ? "Python threads contend for the GIL: run CPU-bound Python in "
                          "processes (multiprocessing, several server workers), keep the work "
                          "in native code that releases the GIL (the framework's ops, numpy on "
                          "large arrays), and keep the request thread's Python short."
                        : "The time is interpretation overhead (many small Python operations): "
                          "vectorize loops (one tensor/numpy op instead of a Python loop), "
                          "compile or export the model so its Python does not run per request, "
                          "and move per-request Python out of the hot path.");
            doc_set(c->r, &f->next_step, "latscope analyze %s   # the stacks above those frames",
                    doc_trace_arg(c));
        }
    }
    double pimp = 100.0 * (double)n[C_IMPORT] / tot;
    if (pimp >= th / 2) {
        struct doc_finding *f = add(c, "cpu-startup", pimp, &s, n[C_IMPORT]);
        if (f) {
            doc_set(c->r, &f->title,
                    "Start-up (imports, loading the model or session) is %.1f %% of the "
                    "on-CPU samples (%s%s)",
                    pimp, ex[C_IMPORT][0] ? ex[C_IMPORT] : ex[C_INIT],
                    ex[C_INIT][0] && ex[C_IMPORT][0] ? ", ..." : "");
            doc_kv_num(c->r, f, "model_init_pct", 100.0 * (double)n[C_INIT] / tot);
            doc_set(c->r, &f->recommendation,
                    "The profile holds start-up, which requests do not pay: profile the steady "
                    "state only (start sampling after warm-up: latscope trace --cpu --delay, or "
                    "py-spy record after the server is up) so the rest of the profile is not "
                    "diluted. If start-up itself matters (cold starts, autoscaling), import "
                    "lazily, load the model once per process and save an optimized model so "
                    "the session does not re-optimize it.");
            doc_set(c->r, &f->next_step, "latscope analyze %s   # the import stacks",
                    doc_trace_arg(c));
        }
    }
    double pgc = 100.0 * (double)n[C_GC] / tot;
    if (pgc >= th / 4) {
        struct doc_finding *f = add(c, "cpu-gc", pgc, &s, n[C_GC]);
        if (f) {
            doc_set(c->r, &f->title,
                    "Python's garbage collector runs in %.1f %% of the on-CPU "
                    "samples (%s)",
                    pgc, ex[C_GC]);
            doc_set(c->r, &f->recommendation,
                    "Allocate fewer container objects per request (reuse buffers, avoid "
                    "building large lists/dicts of small objects), gc.freeze() after start-up "
                    "so long-lived objects are not rescanned, or raise the thresholds "
                    "(gc.set_threshold) for a server whose objects are short-lived.");
            doc_set(c->r, &f->next_step, "latscope analyze %s   # the stacks into the collector",
                    doc_trace_arg(c));
        }
    }
    (void)b1;
    lat_cpu_summary_fini(&s);
}
