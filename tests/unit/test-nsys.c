/* test-nsys.c - the Nsight Systems reader: the rows -> model mapping (src/ingest/nsys-map.c)
 * on hand-made rows, and whole databases (src/ingest/nsys.c) built here with SQLite: a small
 * export read back, and 0-byte, truncated, corrupted and non-nsys SQLite files failing with
 * a clear message and no crash. */
#include "test.h"

#include "core/err.h"
#include "ingest/ingest.h"
#include "ingest/nsys-map.h"
#include "model/events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LAT_HAVE_SQLITE3
#include <sqlite3.h>
#endif

static size_t find_ev(const struct lat_trace *t, const char *name)
{
    for (size_t i = 0; i < t->ev.n; i++)
        if (!strcmp(lat_trace_str(t, t->ev.name[i]), name)) return i;
    return SIZE_MAX;
}

TEST(nsys_api_name_strips_version_suffix)
{
    static const struct {
        const char *in;
        size_t want;
    } c[] = {{"cudaLaunchKernel_v7000", 16},
             {"cudaMalloc_v3020", 10},
             {"cudaFoo_v11000", 7},
             {"cuMemcpyHtoD_v2", 15},
             {"cuLaunchKernel", 14},
             {"_v1234", 6},
             {"x_v123", 6},
             {"", 0}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        if (nsys_api_name_len(c[i].in, strlen(c[i].in)) != c[i].want)
            FAIL("%s: %zu, want %zu", c[i].in, nsys_api_name_len(c[i].in, strlen(c[i].in)),
                 c[i].want);
}

/* the export's ENUM tables over the built-in numbers: matched by symbol, a renumbered value
 * keeps its meaning, an unknown symbol is shown by its label, numbers the table lacks are
 * unknown once the tables differ; without tables the built-in numbers */
TEST(nsys_map_enum_tables_by_symbol)
{
    struct lat_trace *t;
    struct nsys_map m;
    struct nsys_row r;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT_RC(nsys_map_init(&m, t));
    ASSERT_EQ_I64(nsys_map_enum_id(&m, NSYS_ENUM_ETYPE, "NvtxDomainCreate"), 75);
#define EN(w, id, sym, lab) ASSERT_RC(nsys_map_enum(&m, w, id, sym, strlen(sym), lab, strlen(lab)))
    EN(NSYS_ENUM_MEMCPY, 1, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host");
    EN(NSYS_ENUM_MEMCPY, 2, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device");
    EN(NSYS_ENUM_MEMCPY, 2, "CUDA_MEMCPY_KIND_PTOP", "ignored: 2 is defined");
    EN(NSYS_ENUM_MEMCPY, 300, "CUDA_MEMCPY_KIND_NEW", "New-Kind");
    EN(NSYS_ENUM_CLASS, 5, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver");
    EN(NSYS_ENUM_ETYPE, 90, "NvtxDomainCreate", "");
#undef EN
    ASSERT_EQ_I64(nsys_map_enum_id(&m, NSYS_ENUM_ETYPE, "NvtxDomainCreate"), 90);
    ASSERT_EQ_I64(nsys_map_enum_id(&m, NSYS_ENUM_ETYPE, "NvtxMark"), NSYS_NONE);
    ASSERT_EQ_U64(m.enum_differ, 4);
    int64_t kinds[] = {2, 1, 300, 8};
    for (size_t i = 0; i < 4; i++) {
        nsys_row_clear(&r, NSYS_MEMCPY);
        r.start = 10, r.end = 20, r.device = 0, r.stream = 7, r.copy_kind = kinds[i];
        ASSERT_RC(nsys_map_row(&m, &r));
    }
    nsys_row_clear(&r, NSYS_RUNTIME);
    r.start = 1, r.end = 2, r.event_class = 5, r.name = "cuLaunchKernel", r.name_len = 14;
    ASSERT_RC(nsys_map_row(&m, &r));
    r.event_class = 1; /* the built-in driver number, not in this export's table */
    ASSERT_RC(nsys_map_row(&m, &r));
    ASSERT_RC(nsys_map_finish(&m));
    ASSERT_EQ_U64(t->ev.n, 6);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), "Memcpy HtoD");
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[1]), "Memcpy DtoH");
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[2]), "Memcpy New-Kind");
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[3]), "Memcpy Unknown"); /* 8: not in the table */
    ASSERT_EQ_I64(t->ev.kind[4], LAT_EV_DRIVER);
    ASSERT_EQ_I64(t->ev.kind[5], LAT_EV_RUNTIME);
    const char *meta = ingest_meta_get(t, "nsys_enums");
    ASSERT(meta && strstr(meta, "\"source\": \"export\"") && strstr(meta, "\"differ\": 4"));
    ASSERT(strstr(meta, "\"first_differ\": \"ENUM_CUDA_MEMCPY_OPER: CUDA_MEMCPY_KIND_DTOH = 1 "
                        "(built-in 2)\""));
    nsys_map_fini(&m);
    lat_trace_free(t);
}

TEST(nsys_map_rows_like_kineto)
{
    struct lat_trace *t;
    struct nsys_map m;
    struct nsys_row r;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT_RC(nsys_map_init(&m, t));
    int64_t gtid = (INT64_C(77) << 24) | 78; /* pid 77, tid 78 (+ a vm id above bit 48) */
    gtid |= INT64_C(1) << 48;
    ASSERT_RC(nsys_map_thread(&m, gtid, "main", 4));
    ASSERT_RC(nsys_map_process(&m, (INT64_C(77) << 24) | (INT64_C(1) << 48), "app", 3));
    ASSERT_RC(nsys_map_domain(&m, 5, "mydomain", 8));

    nsys_row_clear(&r, NSYS_RUNTIME);
    r.start = 100, r.end = 110, r.gtid = gtid, r.correlation = 9, r.event_class = 0;
    r.name = "cudaLaunchKernel_v7000", r.name_len = strlen(r.name);
    ASSERT_RC(nsys_map_row(&m, &r));
    r.event_class = 1, r.name = "cuLaunchKernel", r.name_len = 14, r.correlation = 10;
    ASSERT_RC(nsys_map_row(&m, &r));

    nsys_row_clear(&r, NSYS_KERNEL);
    r.start = 120, r.end = 150, r.device = 2, r.stream = 7, r.correlation = 9;
    r.grid[0] = 4, r.grid[1] = 1, r.grid[2] = 1, r.block[0] = 256, r.block[1] = 1, r.block[2] = 1;
    r.name = "void k<int>(int)", r.name_len = strlen(r.name);
    ASSERT_RC(nsys_map_row(&m, &r));

    nsys_row_clear(&r, NSYS_MEMCPY);
    r.start = 200, r.end = 260, r.device = 2, r.stream = 7, r.bytes = 4096, r.copy_kind = 1;
    r.src_kind = 0, r.dst_kind = 2;
    ASSERT_RC(nsys_map_row(&m, &r));
    nsys_row_clear(&r, NSYS_MEMSET);
    r.start = 300, r.end = 301, r.device = 2, r.stream = 7, r.bytes = 64, r.mem_kind = 2;
    ASSERT_RC(nsys_map_row(&m, &r));
    nsys_row_clear(&r, NSYS_SYNC);
    r.start = 400, r.end = 450, r.device = 2, r.stream = 0xFFFFFFFFll, r.sync_type = 4;
    ASSERT_RC(nsys_map_row(&m, &r));

    nsys_row_clear(&r, NSYS_NVTX);
    r.start = 90, r.end = 500, r.gtid = gtid, r.event_type = 59, r.domain = 5;
    r.name = "step", r.name_len = 4;
    ASSERT_RC(nsys_map_row(&m, &r));
    r.event_type = 34, r.end = NSYS_NONE, r.domain = 0, r.name = "here", r.name_len = 4;
    ASSERT_RC(nsys_map_row(&m, &r));
    r.event_type = 75; /* a domain definition: metadata, no event */
    ASSERT_RC(nsys_map_row(&m, &r));

    nsys_row_clear(&r, NSYS_OSRT);
    r.start = 10, r.end = 20, r.gtid = gtid, r.name = "ioctl", r.name_len = 5;
    ASSERT_RC(nsys_map_row(&m, &r));

    /* bad times: counted drops, never events */
    nsys_row_clear(&r, NSYS_KERNEL);
    r.start = 10, r.end = 5, r.device = 0, r.stream = 1;
    ASSERT_RC(nsys_map_row(&m, &r));
    r.start = INT64_MAX, r.end = INT64_MAX;
    ASSERT_RC(nsys_map_row(&m, &r));
    r.start = -(INT64_C(1) << 59), r.end = INT64_MAX;
    ASSERT_RC(nsys_map_row(&m, &r));
    r.start = NSYS_NONE;
    ASSERT_RC(nsys_map_row(&m, &r));
    ASSERT_RC(nsys_map_finish(&m));

    ASSERT_EQ_I64(t->ev.n, 9);
    ASSERT_EQ_U64(t->dropped, 4);
    ASSERT_EQ_U64(t->drops_gpu, 4);
    ASSERT_EQ_U64(t->drops[LAT_DROP_NEG_DUR], 1);
    ASSERT_EQ_U64(t->drops[LAT_DROP_TS_RANGE], 1);
    ASSERT_EQ_U64(t->drops[LAT_DROP_DUR_RANGE], 1);
    ASSERT_EQ_U64(t->drops[LAT_DROP_NO_TS], 1);
    ASSERT_EQ_STR(t->format, "nsys");

    size_t i = find_ev(t, "cudaLaunchKernel");
    ASSERT(i != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_RUNTIME);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.cat[i]), "cuda_runtime");
    ASSERT_EQ_I64(t->ev.correlation[i], 9);
    ASSERT_EQ_I64(t->ev.ts[i], 100);
    ASSERT_EQ_I64(t->ev.dur[i], 10);
    const struct lat_track *tr = &t->tracks[t->ev.track[i]];
    ASSERT_EQ_I64(tr->pid, 77);
    ASSERT_EQ_I64(tr->tid, 78);
    ASSERT(!tr->gpu);
    ASSERT_EQ_STR(lat_trace_str(t, tr->tid_label), "main");
    ASSERT_EQ_STR(lat_trace_str(t, tr->pid_label), "app");
    i = find_ev(t, "cuLaunchKernel");
    ASSERT(i != SIZE_MAX && t->ev.kind[i] == LAT_EV_DRIVER);

    i = find_ev(t, "void k<int>(int)");
    ASSERT(i != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_KERNEL);
    ASSERT(t->ev.flags[i] & LAT_EVF_GPU);
    ASSERT_EQ_I64(t->ev.device[i], 2);
    ASSERT_EQ_I64(t->ev.stream[i], 7);
    tr = &t->tracks[t->ev.track[i]];
    ASSERT(tr->gpu && tr->pid == 2 && tr->tid == 7);
    const struct lat_arg *a = lat_trace_arg(t, i, "grid");
    ASSERT(a && a->type == LAT_ARG_RAW);
    ASSERT_EQ_STR(lat_trace_str(t, a->str), "[4, 1, 1]");

    i = find_ev(t, "Memcpy HtoD (Pageable -> Device)");
    ASSERT(i != SIZE_MAX);
    int64_t v;
    ASSERT(lat_trace_arg_int(t, i, "bytes", &v) && v == 4096);
    ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_MEMCPY);
    i = find_ev(t, "Memset (Device)");
    ASSERT(i != SIZE_MAX && t->ev.kind[i] == LAT_EV_MEMSET);
    i = find_ev(t, "Context Sync");
    ASSERT(i != SIZE_MAX && t->ev.kind[i] == LAT_EV_SYNC);
    ASSERT_EQ_I64(t->ev.stream[i], -1);

    i = find_ev(t, "step");
    ASSERT(i != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_USER_ANNOTATION);
    ASSERT_EQ_I64(t->ev.dur[i], 410);
    a = lat_trace_arg(t, i, "domain");
    ASSERT(a && a->type == LAT_ARG_STR);
    ASSERT_EQ_STR(lat_trace_str(t, a->str), "mydomain");
    i = find_ev(t, "here");
    ASSERT(i != SIZE_MAX && t->ev.kind[i] == LAT_EV_INSTANT && t->ev.dur[i] == 0);
    i = find_ev(t, "ioctl");
    ASSERT(i != SIZE_MAX && t->ev.kind[i] == LAT_EV_OTHER);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.cat[i]), "os_runtime");
    nsys_map_fini(&m);
    lat_trace_free(t);
}

#if LAT_HAVE_SQLITE3
/* A small export with the tables and columns of nsys 2024.5 (a subset), as bytes. */
static unsigned char *make_db(const char *extra_sql, sqlite3_int64 *len)
{
    static const char sql[] =
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'cudaLaunchKernel_v7000'),(2,'kern(float*)'),"
        "(3,'cudaMemcpy_v3020'),(4,'main-thread'),(5,'ioctl');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER,"
        " callchainId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000,1010,0,(3<<24)|4,1,1,0,NULL),"
        "(2000,2600,0,(3<<24)|4,2,3,0,NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
        " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
        " demangledName INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER,"
        " blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER,"
        " staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1020,1520,0,1,7,1,3<<24,2,2,8,1,1,128,1,1,"
        "32,0,1024);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER,"
        " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
        " bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(2100,2500,0,1,7,2,3<<24,1048576,2,2,0);"
        "CREATE TABLE OSRT_API(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
        " nameId INTEGER, returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER);"
        "INSERT INTO OSRT_API VALUES(500,900,27,(3<<24)|4,5,0,0,1);"
        "CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);"
        "INSERT INTO ThreadNames VALUES(4,0,(3<<24)|4);"
        "CREATE TABLE TARGET_INFO_GPU(vmId INTEGER, id INTEGER, name TEXT, smCount INTEGER,"
        " computeMajor INTEGER, computeMinor INTEGER, cuDevice INTEGER);"
        "INSERT INTO TARGET_INFO_GPU VALUES(0,0,'Test GPU',108,8,0,3);"
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT,"
        " localTime TEXT);"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1696392839587175550,'','');";
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return NULL;
    unsigned char *out = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK &&
        (!extra_sql || sqlite3_exec(db, extra_sql, NULL, NULL, NULL) == SQLITE_OK))
        out = sqlite3_serialize(db, "main", len, 0);
    sqlite3_close(db);
    return out;
}

TEST(nsys_reads_a_small_export)
{
    sqlite3_int64 n;
    unsigned char *db = make_db(NULL, &n);
    ASSERT(db);
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(db, (size_t)n, "small.sqlite", NULL, &t, err, sizeof(err));
    if (rc) FAIL("%s", err);
    ASSERT_EQ_STR(t->format, "nsys");
    ASSERT_EQ_I64(t->ev.n, 5);
    ASSERT_EQ_I64(t->base_time_ns, INT64_C(1696392839587175550));
    ASSERT_EQ_I64(t->ndevices, 1);
    ASSERT_EQ_I64(t->devices[0].num_sms, 108);
    ASSERT_EQ_STR(lat_trace_str(t, t->devices[0].name), "Test GPU");
    size_t k = find_ev(t, "kern(float*)"), l = find_ev(t, "cudaLaunchKernel");
    ASSERT(k != SIZE_MAX && l != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.correlation[k], t->ev.correlation[l]);
    ASSERT_EQ_I64(t->ev.dur[k], 500);
    int64_t v;
    ASSERT(lat_trace_arg_int(t, k, "shared memory", &v) && v == 1024);
    size_t c = find_ev(t, "Memcpy DtoH (Device -> Pageable)");
    ASSERT(c != SIZE_MAX && lat_trace_arg_int(t, c, "bytes", &v) && v == 1048576);
    ASSERT(find_ev(t, "cudaMemcpy") != SIZE_MAX);
    size_t o = find_ev(t, "ioctl");
    ASSERT(o != SIZE_MAX);
    ASSERT_EQ_STR(lat_trace_str(t, t->tracks[t->ev.track[o]].tid_label), "main-thread");
    lat_trace_free(t);
    sqlite3_free(db);
}

/* CPU samples: COMPOSITE_EVENTS with SAMPLING_CALLCHAINS (depth 0 = leaf), one without a
 * callchain, frames stored out of order: root-first stacks, on the sampled thread. */
TEST(nsys_cpu_samples_as_latscope_records_them)
{
    sqlite3_int64 n;
    unsigned char *db = make_db(
        "INSERT INTO StringIds VALUES(10,'main'),(11,'compute'),(12,'memcpy_impl');"
        "CREATE TABLE COMPOSITE_EVENTS(id INTEGER PRIMARY KEY, start INTEGER, cpu INTEGER,"
        " threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER);"
        "INSERT INTO COMPOSITE_EVENTS VALUES(1,3000,0,1,(3<<24)|4,0),(2,4000,0,1,(3<<24)|4,0),"
        "(3,5000,1,1,(3<<24)|9,0);"
        "CREATE TABLE SAMPLING_CALLCHAINS(id INTEGER, symbol INTEGER, module INTEGER,"
        " kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER,"
        " originalIP INTEGER, unwindMethod INTEGER, stackDepth INTEGER);"
        "INSERT INTO SAMPLING_CALLCHAINS VALUES(1,10,0,0,0,0,0,0,0,2),(1,12,0,0,0,0,0,0,0,0),"
        "(1,11,0,0,0,0,0,0,0,1),(2,11,0,0,0,0,0,0,0,0),(2,10,0,0,0,0,0,0,0,1);",
        &n);
    ASSERT(db);
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(db, (size_t)n, "small.sqlite", NULL, &t, err, sizeof(err));
    if (rc) FAIL("%s", err);
    ASSERT_EQ_I64(t->ev.n, 5 + 3);
    const char *want[3] = {"main;compute;memcpy_impl", "main;compute", "[unknown]"};
    const char *leaf[3] = {"memcpy_impl", "compute", "[unknown]"};
    size_t k = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) continue;
        ASSERT(k < 3);
        const struct lat_arg *a = lat_trace_arg(t, i, "stack");
        ASSERT(a && a->type == LAT_ARG_STR);
        ASSERT_EQ_STR(lat_trace_str(t, a->str), want[k]);
        ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[i]), leaf[k]);
        ASSERT_EQ_I64(t->ev.ts[i], 3000 + 1000 * (int64_t)k);
        ASSERT_EQ_I64(t->tracks[t->ev.track[i]].tid, k == 2 ? 9 : 4);
        ASSERT_EQ_I64(t->tracks[t->ev.track[i]].pid, 3);
        k++;
    }
    ASSERT_EQ_U64(k, 3);
    lat_trace_free(t);
    sqlite3_free(db);
}

/* Every prefix length class and a sweep of corrupted bytes: an error with a message (or, for
 * a corruption SQLite does not notice, a trace), never a crash; runs under the sanitizers. */
TEST(nsys_bad_sqlite_files_fail_cleanly)
{
    sqlite3_int64 n;
    unsigned char *db = make_db(NULL, &n);
    ASSERT(db);
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    /* 0 bytes: the front says empty */
    ASSERT(ingest_mem(db, 0, "z.sqlite", NULL, &t, err, sizeof(err)) != 0);
    ASSERT(t == NULL && strstr(err, "z.sqlite"));
    /* truncated */
    size_t cuts[] = {16, 17, 100, 512, 1024, (size_t)n / 2, (size_t)n - 1};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        err[0] = '\0';
        int rc = ingest_mem(db, cuts[i], "cut.sqlite", NULL, &t, err, sizeof(err));
        if (rc == 0) {
            lat_trace_free(t); /* a cut SQLite did not need (free pages at the end) */
            continue;
        }
        ASSERT_EQ_I64(rc, LAT_E_NOT_TRACE);
        if (!strstr(err, "cut.sqlite: an SQLite database")) FAIL("cut %zu: %s", cuts[i], err);
    }
    ASSERT(ingest_mem(db, (size_t)n / 2, "h.sqlite", NULL, &t, err, sizeof(err)) != 0);
    ASSERT(strstr(err, "truncated or corrupt?"));
    /* corrupted bytes across the file */
    unsigned char *bad = malloc((size_t)n);
    ASSERT(bad);
    size_t fails = 0;
    for (size_t at = 16; at < (size_t)n; at += 97) {
        memcpy(bad, db, (size_t)n);
        for (size_t j = at; j < at + 8 && j < (size_t)n; j++)
            bad[j] ^= 0xA5;
        int rc = ingest_mem(bad, (size_t)n, "bad.sqlite", NULL, &t, err, sizeof(err));
        if (rc == 0)
            lat_trace_free(t);
        else if (!strstr(err, "bad.sqlite:"))
            FAIL("at %zu: %s", at, err);
        else
            fails++;
    }
    ASSERT(fails > 0);
    free(bad);
    sqlite3_free(db);

    /* an SQLite file that is not an nsys export */
    sqlite3 *o;
    ASSERT(sqlite3_open(":memory:", &o) == SQLITE_OK);
    ASSERT(sqlite3_exec(o, "CREATE TABLE t(a); INSERT INTO t VALUES(1);", NULL, NULL, NULL) ==
           SQLITE_OK);
    unsigned char *other = sqlite3_serialize(o, "main", &n, 0);
    sqlite3_close(o);
    ASSERT(other);
    ASSERT_EQ_I64(ingest_mem(other, (size_t)n, "o.sqlite", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "o.sqlite: an SQLite database, but not an Nsight Systems export"));
    sqlite3_free(other);

    /* a table with a view in its place, and a wrong column type: no crash, counted or read */
    db = make_db("CREATE VIEW NVTX_EVENTS AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 "
                 "FROM c) SELECT x AS start FROM c;"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES('a','b',0,1,7,1,0,2,2,1,1,1,1,1,1,"
                 "1,0,0);",
                 &n);
    ASSERT(db);
    int rc = ingest_mem(db, (size_t)n, "v.sqlite", NULL, &t, err, sizeof(err));
    if (rc) FAIL("%s", err);
    ASSERT_EQ_I64(t->ev.n, 5); /* the view is not read; the text times are dropped */
    ASSERT_EQ_U64(t->drops[LAT_DROP_NO_TS], 1);
    lat_trace_free(t);
    sqlite3_free(db);
}
#endif

/* `nsys stats --format csv` reports (ingest/nsys-csv.c): each kind read, with nsys's preamble
 * lines and any --timeunit; the report named by the preamble where it has one */
TEST(nsys_stats_csv_reports_load)
{
    static const struct {
        const char *csv, *report;
        size_t events;
        const char *first; /* name of event 0 */
        int64_t ts0, dur0;
    } c[] = {
        {"Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
         "NumChild,RangeId,ParentId,RangeStack,NameTree\n1,2,1,0,1,main,1,1,0,0,1,,:1,main\n",
         "nvtx_pushpop_trace", 1, "main", 1, 1},
        {"Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),"
         "Name\n52.8,301652956,1312,229918.4,1,1,1,1,cudaDeviceSynchronize\n",
         "cuda_api_sum", 1, "cudaDeviceSynchronize", 0, 0},
        {"\nProcessing [x.sqlite] with [/r/cuda_gpu_kern_sum.py]... \n\n Time (%),Total Time "
         "(ms),Instances,Avg (ms),Med (ms),Min (ms),Max (ms),StdDev (ms),Name\n1,2,3,4,5,6,7,8,k\n",
         "cuda_gpu_kern_sum", 1, "k", 0, 0},
        {"Start (us),Duration (us),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
         "DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,"
         "Name\n1.5,2,3,1,1,1,1,1,1,1,0,0,,,,,GPU (0),1,,7,k\n",
         "cuda_gpu_trace", 1, "k", 1500, 2000},
        {"Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation\n1,2,3,4,5,"
         "6,7,[CUDA memcpy HtoD]\n",
         "cuda_gpu_mem_size_sum", 1, "[CUDA memcpy HtoD]", 0, 0},
        {"Processing [x.sqlite] with [/r/osrt_sum.py]...\n\"Time (%)\",\"Total Time (ns)\",\"Num "
         "Calls\",\"Name\"\n\"100.0\",\"10\",\"2\",\"ioctl\"\n",
         "osrt_sum", 1, "ioctl", 0, 0},
        /* older nsys: short copy kinds, nvtx_sum without Style */
        {"Start (ns),Duration (ns),CorrId,Strm,Name\n5,7,1,3,[CUDA memcpy HtoD]\n",
         "cuda_gpu_trace", 1, "Memcpy HtoD", 5, 7},
        {"Time (%),Total Time (ns),Instances,Range\n100,9,1,:step\n", "nvtx_sum", 1, ":step", 0, 0},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        ASSERT_EQ_STR(ingest_sniff(c[i].csv, strlen(c[i].csv), "r.csv"), "nsys-stats-csv");
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        int rc = ingest_mem(c[i].csv, strlen(c[i].csv), "r.csv", NULL, &t, err, sizeof(err));
        if (rc) FAIL("case %zu: %s", i, err);
        ASSERT_EQ_STR(t->format, "nsys-stats");
        char want[96];
        snprintf(want, sizeof(want), "\"%s\"", c[i].report);
        ASSERT_EQ_STR(ingest_meta_get(t, "nsys_stats.reports"), want);
        ASSERT_EQ_U64(t->ev.n, c[i].events);
        ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), c[i].first);
        ASSERT_EQ_I64(t->ev.ts[0], c[i].ts0);
        ASSERT_EQ_I64(t->ev.dur[0], c[i].dur0);
        lat_trace_free(t);
    }
    /* cuda_api_trace: cuda* runtime, cu* driver calls, _vNNNN removed, on their PID/TID */
    static const char api[] =
        "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n"
        "10,5,cudaLaunchKernel_v7000,0,1,5,6,0,main\n"
        "20,3,cuLaunchKernel,0,2,5,6,0,main\n";
    {
        struct lat_trace *ta;
        char e2[LAT_INGEST_ERRLEN];
        ASSERT_RC(ingest_mem(api, strlen(api), "r.csv", NULL, &ta, e2, sizeof(e2)));
        ASSERT_EQ_STR(ingest_meta_get(ta, "nsys_stats.reports"), "\"cuda_api_trace\"");
        ASSERT_EQ_U64(ta->ev.n, 2);
        ASSERT_EQ_STR(lat_trace_str(ta, ta->ev.name[0]), "cudaLaunchKernel");
        ASSERT_EQ_I64(ta->ev.kind[0], LAT_EV_RUNTIME);
        ASSERT_EQ_I64(ta->ev.kind[1], LAT_EV_DRIVER);
        ASSERT_EQ_I64(ta->ev.correlation[1], 2);
        ASSERT_EQ_I64(ta->tracks[ta->ev.track[0]].pid, 5);
        ASSERT_EQ_I64(ta->tracks[ta->ev.track[0]].tid, 6);
        lat_trace_free(ta);
    }
    /* a summary row keeps its numbers in ns (or bytes) */
    static const char us[] = "Time (%),Total Time (us),Num Calls,Avg (us),Name\n"
                             "90.0,4500.25,2,2250.125,cudaDeviceSynchronize\n";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(us, strlen(us), "r.csv", NULL, &t, err, sizeof(err)));
    const struct lat_arg *a = lat_trace_arg(t, 0, "total");
    ASSERT(a && a->type == LAT_ARG_DOUBLE);
    ASSERT_NEAR(a->v.d, 4500250.0, 1e-6);
    a = lat_trace_arg(t, 0, "count");
    ASSERT(a && a->type == LAT_ARG_INT && a->v.i == 2);
    a = lat_trace_arg(t, 0, "avg");
    ASSERT(a && a->type == LAT_ARG_DOUBLE);
    ASSERT_NEAR(a->v.d, 2250125.0, 1e-6);
    lat_trace_free(t);
}

/* what is not an nsys report, or a broken one, fails naming what to do */
TEST(nsys_stats_csv_bad_inputs)
{
    static const struct {
        const char *csv, *want;
    } c[] = {
        {"a,b,c\n1,2,3\n", "CSV text"},
        {"Time (%),Name\n1,x\n", "CSV text"},
        {"Start (ns),End (ns),Name\n1,2,main\n",
         "(of an unknown kind) that latscope does not read"},
        {"Time (%),Total Time (ns),Instances,Name\n", "with a header but no row"},
        {"Time (%),Total Time (ns),Instances,Name\n1,2,3,\"cut", "ends inside a quoted field"},
        {"Time (%),Total Time (ns),Instances,Name\nx,-5,3,k\n",
         "with a header but no complete row"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        struct lat_trace *t = NULL;
        char err[LAT_INGEST_ERRLEN];
        int rc = ingest_mem(c[i].csv, strlen(c[i].csv), "r.csv", NULL, &t, err, sizeof(err));
        if (!rc) FAIL("case %zu loaded", i);
        if (!strstr(err, c[i].want) || !strstr(err, "r.csv: ")) FAIL("case %zu: %s", i, err);
        ASSERT(t == NULL);
    }
}
