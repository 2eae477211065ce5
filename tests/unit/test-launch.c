/* test-launch.c - `latscope trace`'s launch (capture/launch.c: the capture environment, the held
 * child, exit codes, the capture directory) and its metadata (capture/meta.c: the recorded
 * command and environment, redacted). */
#include "test.h"

#include "capture/launch.h"
#include "capture/meta.h"
#include "core/err.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(launch_capture_env_full)
{
    struct launch_env e = {.n = 0};
    struct launch_capture c = {.dir = "/tmp/cap",
                               .lib = "/opt/lib/liblatscope-cupti.so",
                               .cupti_lib = "/usr/local/cuda/lib64/libcupti.so.13",
                               .cuda = true,
                               .nvtx = true,
                               .driver_api = true,
                               .cuda_events = false,
                               .extcorr = true,
                               .start_ns = 1500,
                               .stop_ns = -7};
    ASSERT_EQ_I64(launch_capture_env(&e, &c), 0);
    ASSERT_EQ_U64(e.n, 11);
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_TRACE_DIR"), "/tmp/cap");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_CUDA"), "1");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_NVTX"), "1");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_DRIVER"), "1");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_CUDA_EVENTS"), "0");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_EXTCORR"), "1");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_START_NS"), "1500");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_STOP_NS"), "-7");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_CUPTI_LIB"), "/usr/local/cuda/lib64/libcupti.so.13");
    ASSERT_EQ_STR(launch_env_get(&e, "CUDA_INJECTION64_PATH"), "/opt/lib/liblatscope-cupti.so");
    ASSERT_EQ_STR(launch_env_get(&e, "NVTX_INJECTION64_PATH"), "/opt/lib/liblatscope-cupti.so");
    launch_env_free(&e);
    ASSERT_EQ_U64(e.n, 0);
}

/* No driver (cuda off), NVTX only, open window, inherited CUPTI: no CUDA injection, no window
 * variables, no LATSCOPE_CUPTI_LIB. */
TEST(launch_capture_env_nvtx_only)
{
    struct launch_env e = {.n = 0};
    struct launch_capture c = {.dir = "d", .lib = "L", .nvtx = true};
    ASSERT_EQ_I64(launch_capture_env(&e, &c), 0);
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_CUDA"), "0");
    ASSERT_EQ_STR(launch_env_get(&e, "LATSCOPE_DRIVER"), "0");
    ASSERT_EQ_STR(launch_env_get(&e, "NVTX_INJECTION64_PATH"), "L");
    ASSERT(!launch_env_get(&e, "CUDA_INJECTION64_PATH"));
    ASSERT(!launch_env_get(&e, "LATSCOPE_START_NS"));
    ASSERT(!launch_env_get(&e, "LATSCOPE_STOP_NS"));
    ASSERT(!launch_env_get(&e, "LATSCOPE_CUPTI_LIB"));
    ASSERT_EQ_U64(e.n, 7);
    launch_env_free(&e);
}

TEST(launch_env_full_is_an_error)
{
    struct launch_env e = {.n = 0};
    for (int i = 0; i < LAUNCH_ENV_MAX; i++)
        ASSERT_EQ_I64(launch_env_add(&e, "X", "v"), 0);
    ASSERT_EQ_I64(launch_env_add(&e, "Y", "v"), -E2BIG);
    ASSERT_EQ_U64(e.n, LAUNCH_ENV_MAX);
    launch_env_free(&e);
}

/* Runs argv held, then released; returns its exit code (*exec_err the exec errno). */
static int run_held(char **argv, const struct launch_env *env, int *exec_err)
{
    int go = -1, errfd = -1;
    pid_t pid = launch_spawn_held(argv, env, false, &go, &errfd);
    ASSERT(pid > 0);
    *exec_err = launch_release(go, errfd);
    int status = launch_wait(pid, NULL, 0, &(bool){false}, &(int){0});
    return launch_exit_code(status);
}

TEST(launch_child_gets_the_env_and_its_exit_code_comes_back)
{
    struct launch_env e = {.n = 0};
    ASSERT_EQ_I64(launch_env_add(&e, "LATSCOPE_TEST_VAR", "held value"), 0);
    char *argv[] = {"/bin/sh", "-c", "test \"$LATSCOPE_TEST_VAR\" = 'held value' && exit 3", NULL};
    int err = -1;
    ASSERT_EQ_I64(run_held(argv, &e, &err), 3);
    ASSERT_EQ_I64(err, 0);
    /* Without the environment the test fails: status 1 (not 3). */
    ASSERT_EQ_I64(run_held(argv, NULL, &err), 1);
    launch_env_free(&e);
}

TEST(launch_signal_exit_code_and_exec_failure)
{
    int err = -1;
    char *killed[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
    ASSERT_EQ_I64(run_held(killed, NULL, &err), 128 + SIGTERM);
    char *missing[] = {"/nonexistent/latscope-no-such-command", NULL};
    ASSERT_EQ_I64(run_held(missing, NULL, &err), 127);
    ASSERT_EQ_I64(err, ENOENT);
}

TEST(launch_rm_dir_removes_files_and_dir)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/cap", test_tmpdir());
    ASSERT_EQ_I64(mkdir(dir, 0700), 0);
    char f[600];
    snprintf(f, sizeof(f), "%s/cuda.1.lcap", dir);
    FILE *fp = fopen(f, "w");
    ASSERT(fp);
    fputs("x", fp);
    fclose(fp);
    launch_rm_dir(dir);
    struct stat sb;
    ASSERT(stat(dir, &sb) < 0 && errno == ENOENT);
}

static const char *meta(const struct lat_trace *t, const char *key)
{
    const char *v = lat_trace_meta(t, key);
    if (!v) FAIL("no metadata %s", key);
    return v;
}

TEST(capture_meta_redacts_the_command_and_environment)
{
    struct lat_trace *t = NULL;
    ASSERT_EQ_I64(lat_trace_new(&t), 0);
    char *cmd[] = {"python", "serve.py",         "--token", "abc123", "--api-key=xyz",
                   "-n",     "password=hunter2", "--batch", "8",      NULL};
    char *env[] = {"CUDA_VISIBLE_DEVICES=0", "HF_TOKEN=hf_secret", "HOME=/root", "NCCL_DEBUG=INFO",
                   "AWS_SECRET=s",           "LATSCOPE_API_KEY=k", "NOEQUALS",   NULL};
    struct collect_stats st;
    memset(&st, 0, sizeof(st));
    st.files = 2;
    struct capture_meta m = {.cmd = cmd,
                             .env = env,
                             .output = "out.json",
                             .note = "no NVIDIA driver",
                             .nvtx = true,
                             .wall_ns = 42,
                             .exit_status = 3,
                             .st = &st};
    ASSERT_EQ_I64(capture_meta_add(t, &m), 0);
    ASSERT_EQ_STR(meta(t, "latscope_command"),
                  "[\"python\",\"serve.py\",\"--token\",\"REDACTED\",\"--api-key=REDACTED\","
                  "\"-n\",\"password=REDACTED\",\"--batch\",\"8\"]");
    ASSERT_EQ_STR(meta(t, "latscope_env"), "{\"CUDA_VISIBLE_DEVICES\":\"0\",\"HF_TOKEN\":"
                                           "\"REDACTED\",\"NCCL_DEBUG\":\"INFO\","
                                           "\"LATSCOPE_API_KEY\":\"REDACTED\"}");
    const char *cap = meta(t, "latscope_capture");
    ASSERT(strstr(cap, "\"note\":\"no NVIDIA driver\""));
    ASSERT(strstr(cap, "\"wall_ns\":42,\"exit_status\":3"));
    ASSERT(strstr(cap, "\"processes\":2"));
    ASSERT(strstr(cap, "\"nvtx\":true"));
    ASSERT_EQ_STR(meta(t, "traceName"), "\"out.json\"");
    ASSERT(!lat_trace_meta(t, "cupti_version"));
    lat_trace_free(t);
}

TEST(capture_meta_env_kept_prefixes)
{
    ASSERT(capture_meta_env_kept("CUDA_HOME", 9));
    ASSERT(capture_meta_env_kept("TRT_LOGGER", 10));
    ASSERT(capture_meta_env_kept("OMP_NUM_THREADS", 15));
    ASSERT(!capture_meta_env_kept("OMP_PROC_BIND", 13));
    ASSERT(!capture_meta_env_kept("PATH", 4));
    /* The length counts: "CUD" of "CUDA_X" is not kept. */
    ASSERT(!capture_meta_env_kept("CUDA_X", 3));
}
