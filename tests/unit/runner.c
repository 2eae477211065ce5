/*
 * runner.c - runs every TEST() linked into this binary.
 *
 * Tests come from the "lat_tests" ELF section (__start_/__stop_ symbols). Each runs in a forked
 * child with its own scratch directory and an alarm() timeout, so a crash or a hang is reported
 * (SIGSEGV, TIMEOUT) and the run goes on. Output is TAP-like ("ok 3 - name", "not ok 4 - name",
 * "ok 5 - name # SKIP reason") and ends with exactly one line "N passed, N failed, N skipped".
 * Arguments are substrings: only tests whose name contains one of them run.
 * LAT_TEST_TIMEOUT_MULT stretches timeouts (sanitizer builds).
 */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern const struct lat_test __start_lat_tests[];
extern const struct lat_test __stop_lat_tests[];

static char tmpdir_path[256];
static int result_fd = -1; /* child writes its failure / skip message here */

void test_fail_at(const char *file, int line, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    int n = snprintf(msg, sizeof(msg), "%s:%d: ", file, line);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    if (result_fd >= 0 && write(result_fd, msg, strlen(msg)) < 0) fputs(msg, stderr);
    _exit(1);
}

void test_skip(const char *reason)
{
    if (result_fd >= 0 && write(result_fd, reason, strlen(reason)) < 0) fputs(reason, stderr);
    _exit(LAT_TEST_SKIP_STATUS);
}

const char *test_shared_traces(void)
{
    static char path[4096];
    const char *env = getenv("LATSCOPE_TRACES");
    struct stat st;
    if (env && *env) {
        snprintf(path, sizeof(path), "%s", env);
    } else {
        const char *src = getenv("LATSCOPE_SRCDIR");
        snprintf(path, sizeof(path), "%s/../shared/traces", src && *src ? src : ".");
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return path;
}

const char *test_shared_path(const char *rel)
{
    static char path[4096];
    struct stat st;
    const char *dir = test_shared_traces();
    if (!dir) SKIP("../shared/traces not present (set LATSCOPE_TRACES)");
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    if (stat(path, &st) != 0) {
        char msg[4200];
        snprintf(msg, sizeof(msg), "trace %s not present", rel);
        SKIP(msg);
    }
    return path;
}

const char *test_tmpdir(void)
{
    return tmpdir_path;
}

const char *test_write_file(const char *name, const void *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmpdir_path, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0)
        FAIL("cannot write %s: %s", path, strerror(errno));
    return path;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(p);
}

static bool selected(const char *name, int argc, char **argv)
{
    if (argc < 2) return true;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i])) return true;
    return false;
}

int main(int argc, char **argv)
{
    unsigned passed = 0, failed = 0, skipped = 0, idx = 0;
    const char *mult_s = getenv("LAT_TEST_TIMEOUT_MULT");
    unsigned mult = mult_s ? (unsigned)atoi(mult_s) : 1;
    if (mult == 0) mult = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (const struct lat_test *t = __start_lat_tests; t < __stop_lat_tests; t++) {
        if (!selected(t->name, argc, argv)) continue;
        idx++;
        char msgpath[sizeof(tmpdir_path) + 8];
        snprintf(tmpdir_path, sizeof(tmpdir_path), "/tmp/latscope-test-%d-%u", (int)getpid(), idx);
        if (mkdir(tmpdir_path, 0700) != 0) {
            printf("not ok %u - %s # cannot create %s\n", idx, t->name, tmpdir_path);
            failed++;
            continue;
        }
        snprintf(msgpath, sizeof(msgpath), "%s.msg", tmpdir_path);
        int fd = open(msgpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            result_fd = fd;
            alarm((t->timeout_s ? t->timeout_s : 10) * mult);
            t->fn();
            _exit(0);
        }
        int status = 0;
        while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        char msg[2048] = "";
        if (fd >= 0) {
            ssize_t n = pread(fd, msg, sizeof(msg) - 1, 0);
            msg[n > 0 ? n : 0] = '\0';
            close(fd);
        }
        unlink(msgpath);
        nftw(tmpdir_path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        if (pid < 0) {
            printf("not ok %u - %s # fork failed\n", idx, t->name);
            failed++;
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            printf("ok %u - %s\n", idx, t->name);
            passed++;
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == LAT_TEST_SKIP_STATUS) {
            printf("ok %u - %s # SKIP %s\n", idx, t->name, msg);
            skipped++;
        } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
            printf("not ok %u - %s # TIMEOUT\n", idx, t->name);
            failed++;
        } else if (WIFSIGNALED(status)) {
            printf("not ok %u - %s # %s\n", idx, t->name, strsignal(WTERMSIG(status)));
            failed++;
        } else {
            printf("not ok %u - %s\n#   %s\n", idx, t->name, msg[0] ? msg : "(exit status)");
            failed++;
        }
    }
    printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
