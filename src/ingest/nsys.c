/*
 * nsys.c - Nsight Systems `nsys export --type sqlite` files, read with the packaged SQLite
 * library (libsqlite3; built without it, the reader says so). The bytes come from the source
 * (plain, gzip or memory) into one buffer that SQLite opens read-only in memory
 * (sqlite3_deserialize): no temporary file, and a corrupt or truncated file is SQLite's error,
 * never a crash. Tables (docs/trace-input.md): StringIds, CUPTI_ACTIVITY_KIND_KERNEL / RUNTIME
 * / MEMCPY / MEMSET / SYNCHRONIZATION, NVTX_EVENTS, OSRT_API, TARGET_INFO_GPU,
 * TARGET_INFO_SESSION_START_TIME, ThreadNames, PROCESSES, COMPOSITE_EVENTS + SAMPLING_CALLCHAINS
 * (CPU samples), the ENUM_* tables that name copy kinds, memory kinds, sync types, event
 * classes and NVTX event types (nsys-map.h); each optional (nsys writes a table
 * only when it has data), and columns an older schema lacks read as NULL. Rows become events
 * in nsys-map.c.
 */
#include "core/err.h"
#include "core/grow.h"
#include "ingest/formats.h"
#include "ingest/nsys-map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LAT_HAVE_SQLITE3
#include <sqlite3.h>

struct nx {
    sqlite3 *db;
    const char *name;
    bool gz;
    char *err;
    size_t errsz;
};

static int nx_fail(struct nx *x, int rc, const char *what)
{
    if (x->err && x->errsz)
        snprintf(x->err, x->errsz, "%s: %san SQLite database that SQLite cannot read (%s: %s)%s",
                 x->name, x->gz ? "gzip of " : "", what, sqlite3_errmsg(x->db),
                 rc == LAT_E_NOT_TRACE
                     ? "; truncated or corrupt? re-export it with `nsys export --type sqlite FILE`"
                     : "");
    return rc;
}

/* The whole (decompressed) input in one sqlite3_malloc64 buffer. */
static int slurp(struct ingest_src *src, unsigned char **out, sqlite3_int64 *len, char *ebuf,
                 size_t esz)
{
    unsigned char *buf = NULL;
    sqlite3_uint64 n = 0, cap = 0;
    const char *d;
    size_t k;
    int rc;
    while ((rc = src_next(src, &d, &k, ebuf, esz)) > 0) {
        if (n + k > cap) {
            sqlite3_uint64 c = cap ? cap * 2 : 1u << 20;
            while (c < n + k)
                c *= 2;
            unsigned char *p = sqlite3_realloc64(buf, c);
            if (!p) {
                sqlite3_free(buf);
                return -ENOMEM;
            }
            buf = p;
            cap = c;
        }
        memcpy(buf + n, d, k);
        n += k;
    }
    if (rc < 0) {
        sqlite3_free(buf);
        return rc;
    }
    *out = buf;
    *len = (sqlite3_int64)n;
    return 0;
}

static bool has_table(sqlite3 *db, const char *tab)
{
    sqlite3_stmt *st;
    bool yes = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1,
                           &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, tab, -1, SQLITE_STATIC);
    yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

static bool has_col(sqlite3 *db, const char *tab, const char *col)
{
    sqlite3_stmt *st;
    bool yes = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, tab, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

static int64_t col_i(sqlite3_stmt *st, int i)
{
    int ty = sqlite3_column_type(st, i);
    if (ty == SQLITE_INTEGER) return sqlite3_column_int64(st, i);
    if (ty == SQLITE_FLOAT) {
        double d = sqlite3_column_double(st, i);
        return d >= -9.2e18 && d <= 9.2e18 ? (int64_t)d : NSYS_NONE;
    }
    return NSYS_NONE;
}

/* The columns every row query selects, in this order (then the name); "" = none. */
enum {
    C_START,
    C_END,
    C_DEVICE,
    C_STREAM,
    C_CORR,
    C_GTID,
    C_CLASS,
    C_ETYPE,
    C_DOMAIN,
    C_BYTES,
    C_COPY,
    C_SRC,
    C_DST,
    C_MEM,
    C_SYNC,
    C_GX,
    C_GY,
    C_GZ,
    C_BX,
    C_BY,
    C_BZ,
    C_REGS,
    C_SMEM,
    C_COUNT
};

static const char *const colname[C_COUNT] = {"start",
                                             "end",
                                             "deviceId",
                                             "streamId",
                                             "correlationId",
                                             "",
                                             "eventClass",
                                             "eventType",
                                             "domainId",
                                             "bytes",
                                             "copyKind",
                                             "srcKind",
                                             "dstKind",
                                             "memKind",
                                             "syncType",
                                             "gridX",
                                             "gridY",
                                             "gridZ",
                                             "blockX",
                                             "blockY",
                                             "blockZ",
                                             "registersPerThread",
                                             ""};

static int read_table(struct nx *x, struct nsys_map *m, enum nsys_tab tab, const char *table,
                      const char *gid_col, const char *name_join, bool nvtx_text)
{
    if (!has_table(x->db, table)) return 0;
    char sql[2048];
    size_t o = 0;
    o += (size_t)snprintf(sql + o, sizeof(sql) - o, "SELECT ");
    for (int c = 0; c < C_COUNT; c++) {
        const char *cn = c == C_GTID ? gid_col : colname[c];
        bool ok = cn[0] && has_col(x->db, table, cn);
        if (c == C_SMEM) {
            bool a = has_col(x->db, table, "staticSharedMemory"),
                 b = has_col(x->db, table, "dynamicSharedMemory");
            o += (size_t)snprintf(sql + o, sizeof(sql) - o, "%s, ",
                                  a && b ? "T.staticSharedMemory + T.dynamicSharedMemory" : "NULL");
            continue;
        }
        o += (size_t)snprintf(sql + o, sizeof(sql) - o, ok ? "T.\"%s\", " : "NULL, ", cn);
    }
    bool join = name_join && has_col(x->db, table, name_join) && has_table(x->db, "StringIds");
    bool text = nvtx_text && has_col(x->db, table, "text");
    if (text && join)
        o += (size_t)snprintf(sql + o, sizeof(sql) - o, "COALESCE(T.text, S.value)");
    else if (text)
        o += (size_t)snprintf(sql + o, sizeof(sql) - o, "T.text");
    else if (join)
        o += (size_t)snprintf(sql + o, sizeof(sql) - o, "S.value");
    else
        o += (size_t)snprintf(sql + o, sizeof(sql) - o, "NULL");
    o += (size_t)snprintf(sql + o, sizeof(sql) - o, " FROM \"%s\" AS T", table);
    if (join)
        o += (size_t)snprintf(sql + o, sizeof(sql) - o,
                              " LEFT JOIN StringIds AS S ON S.id = T.\"%s\"", name_join);
    if (o >= sizeof(sql)) return LAT_E_INTERNAL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nx_fail(x, LAT_E_NOT_TRACE, table);
    int rc, src;
    struct nsys_row r;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        nsys_row_clear(&r, tab);
        int64_t v[C_COUNT];
        for (int c = 0; c < C_COUNT; c++)
            v[c] = col_i(st, c);
        r.start = v[C_START];
        r.end = v[C_END];
        r.device = v[C_DEVICE];
        r.stream = v[C_STREAM];
        r.correlation = v[C_CORR];
        r.gtid = v[C_GTID];
        r.event_class = v[C_CLASS];
        r.event_type = v[C_ETYPE];
        r.domain = v[C_DOMAIN];
        r.bytes = v[C_BYTES];
        r.copy_kind = v[C_COPY];
        r.src_kind = v[C_SRC];
        r.dst_kind = v[C_DST];
        r.mem_kind = v[C_MEM];
        r.sync_type = v[C_SYNC];
        r.grid[0] = v[C_GX];
        r.grid[1] = v[C_GY];
        r.grid[2] = v[C_GZ];
        r.block[0] = v[C_BX];
        r.block[1] = v[C_BY];
        r.block[2] = v[C_BZ];
        r.regs = v[C_REGS];
        r.smem = v[C_SMEM];
        if (sqlite3_column_type(st, C_COUNT) == SQLITE_TEXT) {
            r.name = (const char *)sqlite3_column_text(st, C_COUNT);
            r.name_len = (size_t)sqlite3_column_bytes(st, C_COUNT);
        }
        if ((rc = nsys_map_row(m, &r))) {
            sqlite3_finalize(st);
            return rc;
        }
    }
    sqlite3_finalize(st);
    if (src != SQLITE_DONE) return nx_fail(x, LAT_E_NOT_TRACE, table);
    return 0;
}

/* (key, name) pairs of a metadata query into fn. */
static int read_names(struct nx *x, struct nsys_map *m, const char *table, const char *sql,
                      int (*fn)(struct nsys_map *, int64_t, const char *, size_t))
{
    if (!has_table(x->db, table)) return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK) return 0; /* names only */
    int rc = 0, s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t key = col_i(st, 0);
        if (key == NSYS_NONE || sqlite3_column_type(st, 1) != SQLITE_TEXT) continue;
        if ((rc = fn(m, key, (const char *)sqlite3_column_text(st, 1),
                     (size_t)sqlite3_column_bytes(st, 1))))
            break;
    }
    sqlite3_finalize(st);
    if (!rc && s != SQLITE_DONE && s != SQLITE_ROW) return nx_fail(x, LAT_E_NOT_TRACE, table);
    return rc;
}

/* CPU samples: COMPOSITE_EVENTS (start, globalTid) with their SAMPLING_CALLCHAINS frames
 * (stackDepth 0 = the leaf), joined root-first. Rows come ordered by sample id and depth, so
 * one pass builds each stack. */
static int read_samples(struct nx *x, struct nsys_map *m)
{
    if (!has_table(x->db, "COMPOSITE_EVENTS") || !has_table(x->db, "SAMPLING_CALLCHAINS") ||
        !has_table(x->db, "StringIds"))
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(x->db,
                           "SELECT C.id, C.start, C.globalTid, S.value FROM COMPOSITE_EVENTS AS C "
                           "LEFT JOIN SAMPLING_CALLCHAINS AS K ON K.id = C.id LEFT JOIN "
                           "StringIds AS S ON S.id = K.symbol ORDER BY C.id, K.stackDepth DESC",
                           -1, &st, NULL) != SQLITE_OK)
        return nx_fail(x, LAT_E_NOT_TRACE, "COMPOSITE_EVENTS");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int64_t cur = NSYS_NONE, start = NSYS_NONE, gtid = NSYS_NONE;
    bool have = false;
    int s, rc = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = col_i(st, 0);
        if (have && id != cur) {
            if ((rc = nsys_map_sample(m, start, gtid, buf, len))) break;
            len = 0;
        }
        have = true;
        cur = id;
        start = col_i(st, 1);
        gtid = col_i(st, 2);
        if (sqlite3_column_type(st, 3) != SQLITE_TEXT) continue;
        const char *f = (const char *)sqlite3_column_text(st, 3);
        size_t fl = (size_t)sqlite3_column_bytes(st, 3);
        if ((rc = LAT_GROW(buf, cap, len, fl + 2, 4096))) break;
        if (len) buf[len++] = ';';
        memcpy(buf + len, f, fl);
        len += fl;
    }
    if (!rc && have && s == SQLITE_DONE) rc = nsys_map_sample(m, start, gtid, buf, len);
    free(buf);
    sqlite3_finalize(st);
    if (!rc && s != SQLITE_DONE && s != SQLITE_ROW)
        return nx_fail(x, LAT_E_NOT_TRACE, "COMPOSITE_EVENTS");
    return rc;
}

static int read_gpus(struct nx *x, struct lat_trace *t)
{
    static const char *const cols[] = {"id",
                                       "name",
                                       "computeMajor",
                                       "computeMinor",
                                       "smCount",
                                       "maxThreadsPerBlock",
                                       "maxWarpsPerSm",
                                       "maxRegistersPerBlock",
                                       "maxRegistersPerSm",
                                       "threadsPerWarp",
                                       "maxShmemPerBlock",
                                       "maxShmemPerSm",
                                       "totalMemory"};
    enum { N = sizeof(cols) / sizeof(cols[0]) };
    if (!has_table(x->db, "TARGET_INFO_GPU") || !has_col(x->db, "TARGET_INFO_GPU", "id")) return 0;
    char sql[1024];
    size_t o = (size_t)snprintf(sql, sizeof(sql), "SELECT ");
    for (size_t i = 0; i < N; i++)
        o +=
            (size_t)snprintf(sql + o, sizeof(sql) - o,
                             has_col(x->db, "TARGET_INFO_GPU", cols[i]) ? "\"%s\"%s" : "NULL%.0s%s",
                             cols[i], i + 1 < N ? ", " : "");
    snprintf(sql + o, sizeof(sql) - o, " FROM TARGET_INFO_GPU");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK)
        return nx_fail(x, LAT_E_NOT_TRACE, "TARGET_INFO_GPU");
    int s, rc = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t v[N];
        for (size_t i = 0; i < N; i++)
            v[i] = col_i(st, (int)i);
        if (v[0] < 0 || v[0] > INT32_MAX) continue;
#define I32(k) (v[k] >= 0 && v[k] <= INT32_MAX ? (int32_t)v[k] : -1)
        struct lat_device d = {.id = (int32_t)v[0],
                               .compute_major = I32(2),
                               .compute_minor = I32(3),
                               .num_sms = I32(4),
                               .max_threads_per_block = I32(5),
                               .regs_per_block = I32(7),
                               .regs_per_sm = I32(8),
                               .warp_size = I32(9),
                               .shared_mem_per_block = v[10] >= 0 ? v[10] : -1,
                               .shared_mem_per_sm = v[11] >= 0 ? v[11] : -1,
                               .total_global_mem = v[12] >= 0 ? v[12] : -1};
        d.max_threads_per_sm =
            v[6] >= 0 && v[9] > 0 && v[6] <= INT32_MAX / v[9] ? (int32_t)(v[6] * v[9]) : -1;
#undef I32
        if (sqlite3_column_type(st, 1) == SQLITE_TEXT &&
            lat_trace_intern(t, (const char *)sqlite3_column_text(st, 1),
                             (size_t)sqlite3_column_bytes(st, 1), &d.name)) {
            rc = -ENOMEM;
            break;
        }
        if (lat_trace_add_device(t, &d)) {
            rc = -ENOMEM;
            break;
        }
    }
    sqlite3_finalize(st);
    if (!rc && s != SQLITE_DONE && s != SQLITE_ROW)
        return nx_fail(x, LAT_E_NOT_TRACE, "TARGET_INFO_GPU");
    return rc;
}

static void read_start_time(struct nx *x, struct lat_trace *t)
{
    sqlite3_stmt *st;
    if (!has_table(x->db, "TARGET_INFO_SESSION_START_TIME") ||
        sqlite3_prepare_v2(x->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int64_t v = col_i(st, 0);
        if (v > 0) t->base_time_ns = v;
    }
    sqlite3_finalize(st);
}

/* An nsys export: StringIds plus one of the tables nsys writes. */
static bool is_nsys(sqlite3 *db)
{
    static const char *const marks[] = {"META_DATA_EXPORT",
                                        "CUPTI_ACTIVITY_KIND_KERNEL",
                                        "CUPTI_ACTIVITY_KIND_RUNTIME",
                                        "NVTX_EVENTS",
                                        "OSRT_API",
                                        "TARGET_INFO_SESSION_START_TIME",
                                        "ThreadNames"};
    if (!has_table(db, "StringIds")) return false;
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
        if (has_table(db, marks[i])) return true;
    return false;
}

/* The ENUM_* tables that name the rows' numbers (nsys-map.h); schema 2.x has none. A table
 * without the id and name columns is left out (the built-in names stand). */
static int read_enums(struct nx *x, struct nsys_map *m)
{
    for (int w = 0; w < NSYS_ENUM_COUNT; w++) {
        const char *tab = nsys_enum_table[w];
        if (!has_table(x->db, tab) || !has_col(x->db, tab, "id") || !has_col(x->db, tab, "name"))
            continue;
        char sql[160];
        snprintf(sql, sizeof(sql), "SELECT id, name, %s FROM \"%s\" ORDER BY rowid",
                 has_col(x->db, tab, "label") ? "label" : "NULL", tab);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK)
            return nx_fail(x, LAT_E_NOT_TRACE, tab);
        int s, rc = 0;
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
            if (sqlite3_column_type(st, 1) != SQLITE_TEXT) continue;
            bool lab = sqlite3_column_type(st, 2) == SQLITE_TEXT;
            if ((rc = nsys_map_enum(m, (enum nsys_enum)w, col_i(st, 0),
                                    (const char *)sqlite3_column_text(st, 1),
                                    (size_t)sqlite3_column_bytes(st, 1),
                                    lab ? (const char *)sqlite3_column_text(st, 2) : NULL,
                                    lab ? (size_t)sqlite3_column_bytes(st, 2) : 0)))
                break;
        }
        sqlite3_finalize(st);
        if (rc) return rc;
        if (s != SQLITE_DONE && s != SQLITE_ROW) return nx_fail(x, LAT_E_NOT_TRACE, tab);
    }
    return 0;
}

static int nsys_read(struct nx *x, struct lat_trace *t)
{
    struct nsys_map m;
    int rc = nsys_map_init(&m, t);
    if (rc) goto out;
    /* the numbers' names, then the names: the rows refer to them */
    if ((rc = read_enums(x, &m))) goto out;
    char dom_sql[128];
    int64_t dom_type = nsys_map_enum_id(&m, NSYS_ENUM_ETYPE, "NvtxDomainCreate");
    snprintf(dom_sql, sizeof(dom_sql),
             "SELECT domainId, text FROM NVTX_EVENTS WHERE eventType = %lld",
             (long long)(dom_type == NSYS_NONE ? -1 : dom_type));
    if ((rc = read_names(x, &m, "NVTX_EVENTS", dom_sql, nsys_map_domain)) ||
        (rc = read_names(x, &m, "ThreadNames",
                         "SELECT T.globalTid, S.value FROM ThreadNames AS T JOIN StringIds AS S "
                         "ON S.id = T.nameId",
                         nsys_map_thread)) ||
        (rc = read_names(x, &m, "PROCESSES", "SELECT globalPid, name FROM PROCESSES",
                         nsys_map_process)))
        goto out;
    if ((rc = read_table(x, &m, NSYS_KERNEL, "CUPTI_ACTIVITY_KIND_KERNEL", "globalPid",
                         "demangledName", false)) ||
        (rc = read_table(x, &m, NSYS_RUNTIME, "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid", "nameId",
                         false)) ||
        (rc = read_table(x, &m, NSYS_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY", "globalPid", NULL,
                         false)) ||
        (rc = read_table(x, &m, NSYS_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET", "globalPid", NULL,
                         false)) ||
        (rc = read_table(x, &m, NSYS_SYNC, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "globalPid", NULL,
                         false)) ||
        (rc = read_table(x, &m, NSYS_NVTX, "NVTX_EVENTS", "globalTid", "textId", true)) ||
        (rc = read_table(x, &m, NSYS_OSRT, "OSRT_API", "globalTid", "nameId", false)) ||
        (rc = read_samples(x, &m)) || (rc = read_gpus(x, t)))
        goto out;
    read_start_time(x, t);
    rc = nsys_map_finish(&m);
    if (!rc) { /* most rows without usable times: the model's one rule */
        char why[400];
        rc = lat_drops_check(t->drops, t->dropped, t->dropped + t->ev.n, "rows",
                             "start and end must be integer ns, no end before its start; export "
                             "it again with `nsys export --type sqlite FILE`",
                             why, sizeof(why));
        if (rc && x->err && x->errsz) snprintf(x->err, x->errsz, "%s: %s", x->name, why);
    }
out:
    nsys_map_fini(&m);
    if (rc == -ENOMEM && x->err && x->errsz)
        snprintf(x->err, x->errsz, "%s: out of memory", x->name);
    return rc;
}

int ingest_nsys_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                     struct lat_trace **out, char *err, size_t errsz)
{
    (void)opts;
    struct nx x = {.name = name, .err = err, .errsz = errsz};
    unsigned char *buf = NULL;
    sqlite3_int64 len = 0;
    char ebuf[200] = "";
    bool gz = x.gz = src_is_gzip(src);
    int rc = slurp(src, &buf, &len, ebuf, sizeof(ebuf));
    src_close(src);
    if (rc) {
        if (err && errsz) snprintf(err, errsz, "%s: %s", name, ebuf[0] ? ebuf : lat_strerror(rc));
        return rc;
    }
    if (sqlite3_open_v2(":memory:", &x.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_free(buf);
        rc = x.db ? LAT_E_INTERNAL : -ENOMEM;
        if (err && errsz) snprintf(err, errsz, "%s: cannot start SQLite", name);
        sqlite3_close(x.db);
        return rc;
    }
    /* a hostile file: no triggers or views run, no schema tricks */
    sqlite3_db_config(x.db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(x.db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    rc = sqlite3_deserialize(x.db, "main", buf, len, len,
                             SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) { /* buf is freed by SQLite */
        rc = nx_fail(&x, LAT_E_NOT_TRACE, "open");
        sqlite3_close(x.db);
        return rc;
    }
    /* the schema is read here: a corrupt header or file fails now */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(x.db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) !=
            SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        if (st) sqlite3_finalize(st);
        rc = nx_fail(&x, LAT_E_NOT_TRACE, "reading its schema");
        sqlite3_close(x.db);
        return rc;
    }
    sqlite3_finalize(st);
    if (!is_nsys(x.db)) {
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: %san SQLite database, but not an Nsight Systems export (no StringIds "
                     "and CUPTI_ACTIVITY_KIND_*/NVTX_EVENTS/OSRT_API tables); latscope reads "
                     "`nsys export --type sqlite FILE` files and Kineto/Chrome trace JSON",
                     name, gz ? "gzip of " : "");
        sqlite3_close(x.db);
        return LAT_E_NOT_TRACE;
    }
    struct lat_trace *t;
    if (lat_trace_new(&t)) {
        sqlite3_close(x.db);
        if (err && errsz) snprintf(err, errsz, "%s: out of memory", name);
        return -ENOMEM;
    }
    rc = nsys_read(&x, t);
    sqlite3_close(x.db);
    if (!rc && name && !(t->path = strdup(name))) rc = -ENOMEM;
    if (rc) {
        lat_trace_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

#else /* !LAT_HAVE_SQLITE3 */

int ingest_nsys_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                     struct lat_trace **out, char *err, size_t errsz)
{
    (void)opts;
    (void)out;
    src_close(src);
    if (err && errsz)
        snprintf(err, errsz,
                 "%s: an SQLite database (an `nsys export --type sqlite` file?); this latscope was "
                 "built without SQLite: install libsqlite3-dev (scripts/deps.sh) and rebuild to "
                 "read Nsight Systems exports",
                 name);
    return LAT_E_NOT_TRACE;
}

#endif

/* ---- sniffing (ingest.c's format table) ---- */

bool ingest_sniff_sqlite(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    return n >= 16 && memcmp(h, "SQLite format 3", 16) == 0; /* 15 chars and the NUL */
}
