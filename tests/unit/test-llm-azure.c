/* test-llm-azure.c - the Azure LLM inference trace CSV reader (--replay FILE.csv): timestamps
 * to exact ns (epoch values checked against Python's calendar.timegm), headers, rows, errors
 * that name the line, --requests limits, and the bodies the rows give. */
#include "test.h"

#include "core/buf.h"
#include "core/err.h"
#include "llm/azure.h"
#include "llm/replay.h"
#include "llm/workload.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define S 1000000000LL

static int64_t tm(const char *s)
{
    int64_t ns = -12345;
    if (llm_azure_time(s, strlen(s), &ns) != 0) return -1;
    return ns;
}

TEST(azure_time_exact_ns)
{
    ASSERT_EQ_I64(tm("1970-01-01 00:00:00"), 0);
    ASSERT_EQ_I64(tm("1970-01-02 00:00:00.5"), 86400 * S + S / 2);
    ASSERT_EQ_I64(tm("2000-03-01T00:00:00Z"), 951868800 * S);
    /* the 2023 traces: 7 fractional digits, 100 ns ticks */
    ASSERT_EQ_I64(tm("2023-11-16 18:15:46.6805900"), 1700158546 * S + 680590000);
    ASSERT_EQ_I64(tm("2023-11-16 18:15:46.979"), 1700158546 * S + 979000000);
    ASSERT_EQ_I64(tm("2023-11-16 18:15:46.123456789"), 1700158546 * S + 123456789);
    /* zones: local = UTC + offset */
    ASSERT_EQ_I64(tm("2024-05-10 00:00:00.009930+00:00"), 1715299200 * S + 9930000);
    ASSERT_EQ_I64(tm("2024-05-10 01:00:00+01:00"), 1715299200 * S);
    ASSERT_EQ_I64(tm("2024-05-09 18:30:00-0530"), 1715299200 * S);
    ASSERT_EQ_I64(tm("2024-05-09 19:00:00 -05"), 1715299200 * S);
    ASSERT_EQ_I64(tm("2024-05-10 00:00:00 UTC"), 1715299200 * S);
    ASSERT_EQ_I64(tm("2024-02-29 23:59:59"), 1709251199 * S); /* leap day */
    ASSERT_EQ_I64(tm("2000-02-29 00:00:00"), tm("2000-03-01 00:00:00") - 86400 * S);
    const char *bad[] = {"",
                         "2023-11-16",
                         "2023-11-16 18:15",
                         "2023-11-16 18:15:46.",
                         "2023-11-16 18:15:46.1234567891",
                         "2023-13-01 00:00:00",
                         "2023-02-29 00:00:00",
                         "2100-02-29 00:00:00",
                         "2023-11-31 00:00:00",
                         "2023-11-16 24:00:00",
                         "2023-11-16 18:60:00",
                         "2023/11/16 18:15:46",
                         "2023-11-16 18:15:46x",
                         "2023-11-16 18:15:46+25:00",
                         "2023-11-16 18:15:46+01:",
                         "1969-12-31 23:59:59",
                         "23-11-16 18:15:46",
                         "1700158546"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (tm(bad[i]) != -1) FAIL("accepted '%s'", bad[i]);
}

static int parse(struct llm_replay *r, const char *s, size_t limit, char *why, size_t whylen)
{
    return llm_azure_parse(r, s, strlen(s), "t.csv", limit, why, whylen);
}

TEST(azure_rows_offsets_and_lengths)
{
    const char *s = "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                    "2023-11-16 18:15:46.6805900,4808,10\r\n"
                    "\r\n"
                    "2023-11-16 18:15:46.6805901,12,0\r\n"
                    "2023-11-16 18:15:47.5,0,250\r\n"
                    "2023-11-16 18:16:46.6805900,7,3"; /* no final newline */
    struct llm_replay r;
    char why[256];
    ASSERT_RC(parse(&r, s, 0, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 4);
    ASSERT_EQ_I64(r.offsets[0], 0);
    ASSERT_EQ_I64(r.offsets[1], 100); /* one 100 ns tick */
    ASSERT_EQ_I64(r.offsets[2], 819410000);
    ASSERT_EQ_I64(r.offsets[3], 60 * S);
    ASSERT_EQ_I64(r.e[0].input_tokens, 4808);
    ASSERT_EQ_I64(r.e[0].output_tokens, 10);
    ASSERT_EQ_I64(r.e[1].output_tokens, 1); /* 0 generated tokens: sent as 1 */
    ASSERT_EQ_I64(r.e[2].input_tokens, 1);  /* 0 context tokens: a 1-token prompt */
    ASSERT_EQ_I64(r.e[2].output_tokens, 250);
    ASSERT_EQ_U64(r.e[3].json_len, 0);
    llm_replay_fini(&r);

    /* --requests 2: only the first two rows (a bad row after them is never read) */
    const char *s2 = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                     "2023-11-16 18:15:46,1,2\n2023-11-16 18:15:47,3,4\nnot a row\n";
    ASSERT_RC(parse(&r, s2, 2, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 2);
    ASSERT_EQ_I64(r.offsets[1], S);
    llm_replay_fini(&r);

    /* any case, any order, quoted, extra columns, spaces */
    const char *s3 = "\"id\", generatedtokens ,\"Timestamp\",CONTEXTTOKENS\n"
                     "a, 5 ,\"2023-11-16 18:15:46.25\",\"9\"\n"
                     "b,6,2023-11-16T18:15:46.75Z,10.0\n";
    ASSERT_RC(parse(&r, s3, 0, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 2);
    ASSERT_EQ_I64(r.offsets[1], S / 2);
    ASSERT_EQ_I64(r.e[0].input_tokens, 9);
    ASSERT_EQ_I64(r.e[0].output_tokens, 5);
    ASSERT_EQ_I64(r.e[1].input_tokens, 10);
    llm_replay_fini(&r);
}

TEST(azure_bad_rows_name_the_line)
{
    const struct {
        const char *text, *want;
    } cases[] = {
        {"", "t.csv: empty"},
        {"\n\n", "t.csv: empty"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n", "t.csv: no requests after the header"},
        {"TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,1\n",
         "t.csv:1: the header has no GeneratedTokens column"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,2\n"
         "2023-11-16 25:15:46,1,2\n",
         "t.csv:3: TIMESTAMP '2023-11-16 25:15:46' is not a date and time"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n\n2023-11-16 18:15:46,x1,2\n",
         "t.csv:3: ContextTokens 'x1' must be a whole number of tokens"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,-2\n",
         "t.csv:2: GeneratedTokens '-2' must be a whole number of tokens"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,20000000\n",
         "t.csv:2: GeneratedTokens '20000000' must be"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1\n",
         "t.csv:2: 2 fields, expected 3"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.5,1,1\n"
         "2023-11-16 18:15:46.25,1,1\n",
         "t.csv:3: TIMESTAMP is 250.000 ms before the previous row's; sort the trace by time"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct llm_replay r;
        char why[512];
        int rc = parse(&r, cases[i].text, 0, why, sizeof(why));
        ASSERT_EQ_I64(rc, LAT_E_USAGE);
        if (!strstr(why, cases[i].want)) FAIL("case %zu: '%s' lacks '%s'", i, why, cases[i].want);
        ASSERT_EQ_U64(r.n, 0);
        ASSERT(r.e == NULL && r.offsets == NULL);
    }
}

TEST(azure_detect_and_load)
{
    const char *csv = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,3,2\n"
                      "2023-11-16 18:15:46.5,5,4\n2023-11-16 18:15:47,7,6\n";
    const char *jsonl = "{\"timestamp\": 0, \"input_length\": 3}\n"
                        "{\"timestamp\": 1, \"input_length\": 4}\n";
    ASSERT(llm_azure_is_csv(csv, strlen(csv)));
    ASSERT(llm_azure_is_csv("\n\xEF\xBB\xBF", 4) == false);
    ASSERT(!llm_azure_is_csv(jsonl, strlen(jsonl)));
    ASSERT(!llm_azure_is_csv("", 0));
    char path[512], why[256];
    snprintf(path, sizeof(path), "%s", test_write_file("t.csv", csv, strlen(csv)));
    struct llm_replay r;
    ASSERT_RC(llm_replay_load_n(&r, path, 0, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 3);
    ASSERT_EQ_I64(r.offsets[2], S);
    llm_replay_fini(&r);
    ASSERT_RC(llm_replay_load_n(&r, path, 2, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 2);
    llm_replay_fini(&r);
    /* JSON lines still go to the JSONL parser, with the same limit */
    snprintf(path, sizeof(path), "%s", test_write_file("t.jsonl", jsonl, strlen(jsonl)));
    ASSERT_RC(llm_replay_load_n(&r, path, 1, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 1);
    llm_replay_fini(&r);
    ASSERT_RC(llm_replay_load(&r, path, why, sizeof(why)));
    ASSERT_EQ_U64(r.n, 2);
    llm_replay_fini(&r);
}

TEST(azure_bodies_follow_the_rows)
{
    const char *csv = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,5,9\n"
                      "2023-11-16 18:15:46.1,12,3\n";
    struct llm_replay r;
    char why[256];
    ASSERT_RC(parse(&r, csv, 0, why, sizeof(why)));
    struct llm_workload_cfg cfg = {.api = LLM_API_COMPLETIONS,
                                   .stream = true,
                                   .input = {-1, 0},
                                   .output = {4, 0},
                                   .replay = &r,
                                   .seed = 3};
    struct llm_workload *w;
    ASSERT_RC(llm_workload_new(&cfg, &w, why, sizeof(why)));
    struct lat_buf b = LAT_BUF_INIT;
    const int words[2] = {5, 12}, max_tokens[2] = {9, 3};
    for (int k = 0; k < 2; k++) {
        int32_t mt;
        buf_reset(&b);
        ASSERT_RC(llm_workload_body(w, (uint64_t)k, &b, &mt));
        ASSERT_EQ_I64(mt, max_tokens[k]);
        char want[32];
        snprintf(want, sizeof(want), "\"max_tokens\":%d", max_tokens[k]);
        ASSERT(strstr(b.data, want));
        const char *p = strstr(b.data, "\"prompt\":\"");
        ASSERT(p);
        int spaces = 0;
        for (p += 10; *p && *p != '"'; p++)
            spaces += *p == ' ';
        ASSERT_EQ_I64(spaces, words[k] - 1); /* ContextTokens words */
    }
    buf_fini(&b);
    llm_workload_free(w);
    llm_replay_fini(&r);
}

/* --requests N stops reading after N rows: a pipe whose writer never closes still loads (a
 * reader that waited for EOF would hang here until the test's timeout). */
TEST_TIMEOUT(azure_limit_stops_reading_a_pipe, 20)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/trace.fifo", test_tmpdir());
    ASSERT_RC(mkfifo(path, 0600));
    const char *rows[2] = {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,3,2\n"
                           "2023-11-16 18:15:46.5,5,4\n2023-11-16 18:15:47,7,6\n",
                           "{\"timestamp\": 0, \"input_length\": 3}\n"
                           "{\"timestamp\": 5, \"input_length\": 4}\n\n"
                           "{\"timestamp\": 9, \"input_length\": 5}\n"};
    for (int k = 0; k < 2; k++) {
        pid_t pid = fork();
        ASSERT(pid >= 0);
        if (pid == 0) {
            int fd = open(path, O_WRONLY);
            if (fd < 0 || write(fd, rows[k], strlen(rows[k])) < 0) _exit(1);
            sleep(30); /* keep the pipe open: no EOF */
            _exit(0);
        }
        struct llm_replay r;
        char why[256];
        int rc = llm_replay_load_n(&r, path, 2, why, sizeof(why));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        ASSERT_RC(rc);
        ASSERT_EQ_U64(r.n, 2);
        ASSERT_EQ_I64(r.offsets[1], k == 0 ? S / 2 : 5 * 1000000LL);
        llm_replay_fini(&r);
    }
}
