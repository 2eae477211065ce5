/*
 * nvtx-app.c - NVTX producer for the e2e tests (t302): N nested push/pop pairs, marks,
 * start/end ranges, a domain range and a registered string, from two threads.
 * Built by the test with gcc against the toolkit's NVTX3 headers (header-only; it dlopens
 * NVTX_INJECTION64_PATH on the first call). Usage: nvtx-app N [fork|term]
 * (fork: a forked child adds one range; term: the program ends by SIGTERM to itself).
 */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int n_iter;

static void *worker(void *arg)
{
    (void)arg;
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "worker");
    for (int i = 0; i < n_iter; i++) {
        char name[32];
        snprintf(name, sizeof(name), "worker_step %d", i % 4);
        nvtxRangePushA(name); /* a temporary: the hook must copy it */
        memset(name, 'x', sizeof(name) - 1);
        nvtxRangePop();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    n_iter = argc > 1 ? atoi(argv[1]) : 10;
    int do_fork = argc > 2 && strcmp(argv[2], "fork") == 0;
    int do_term = argc > 2 && strcmp(argv[2], "term") == 0;
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    for (int i = 0; i < n_iter; i++) {
        nvtxRangePushA("outer");
        nvtxRangePushA("inner");
        nvtxMarkA("tick");
        nvtxRangePop();
        nvtxRangePop();
    }
    nvtxRangeId_t r = nvtxRangeStartA("startend");
    nvtxDomainHandle_t d = nvtxDomainCreateA("mydomain");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(d, "registered");
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof(a));
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    nvtxRangeEnd(r);
    pthread_join(th, NULL);
    if (do_fork) {
        pid_t p = fork();
        if (p == 0) {
            nvtxRangePushA("child");
            nvtxRangePop();
            exit(0); /* atexit handlers run: the child's file is flushed */
        }
        waitpid(p, NULL, 0);
    }
    printf("nvtx-app done %d\n", n_iter);
    fflush(stdout);
    if (do_term) raise(SIGTERM);
    return 0;
}
