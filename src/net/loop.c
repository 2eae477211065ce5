/*
 * loop.c - epoll + timerfd event loop for the bench workers.
 *
 * Design: fds are registered with a caller-owned struct loop_io (wrk's and ae's model without
 * the fd-indexed table, so no allocation when connections come and go). Timers live in a
 * binary min-heap of intrusive struct loop_timer; one timerfd (TFD_TIMER_ABSTIME) is armed
 * for the earliest deadline, and re-armed only when that deadline changes. epoll_wait's
 * millisecond timeout is never used for timing: an open-loop schedule at 20 000 req/s needs
 * tens of microseconds, not a millisecond. When the next deadline is within spin_ns we poll
 * epoll with a zero timeout instead of sleeping, trading a little CPU for send precision.
 * Each timer's lateness (now - deadline when it runs) is the event-loop lag self-check.
 * Threading: a loop belongs to one thread; nothing here locks.
 */
#include "net/loop.h"
#include "core/grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define LOOP_MAX_EVENTS 256

static void heap_swap(struct lat_loop *l, uint32_t a, uint32_t b)
{
    struct loop_timer *t = l->heap[a];
    l->heap[a] = l->heap[b];
    l->heap[b] = t;
    l->heap[a]->heap_idx = a + 1;
    l->heap[b]->heap_idx = b + 1;
}

static void heap_up(struct lat_loop *l, uint32_t i)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (l->heap[p]->deadline <= l->heap[i]->deadline) break;
        heap_swap(l, i, p);
        i = p;
    }
}

static void heap_down(struct lat_loop *l, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1, m = i;
        if (c < l->nheap && l->heap[c]->deadline < l->heap[m]->deadline) m = c;
        if (c + 1 < l->nheap && l->heap[c + 1]->deadline < l->heap[m]->deadline) m = c + 1;
        if (m == i) break;
        heap_swap(l, i, m);
        i = m;
    }
}

int loop_init(struct lat_loop *l, uint32_t timer_hint)
{
    memset(l, 0, sizeof(*l));
    l->tfd = -1;
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (l->epfd < 0) return -errno;
    l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (l->tfd < 0) {
        int rc = -errno;
        close(l->epfd);
        l->epfd = -1;
        return rc;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->tfd, &ev) < 0) {
        int rc = -errno;
        close(l->tfd);
        close(l->epfd);
        l->tfd = l->epfd = -1;
        return rc;
    }
    l->cap = timer_hint ? timer_hint : 16;
    l->heap = calloc(l->cap, sizeof(*l->heap));
    if (!l->heap) {
        close(l->tfd);
        close(l->epfd);
        l->tfd = l->epfd = -1;
        return -ENOMEM;
    }
    l->spin_ns = 0;
    return 0;
}

void loop_fini(struct lat_loop *l)
{
    if (l->tfd >= 0) close(l->tfd);
    if (l->epfd >= 0) close(l->epfd);
    free(l->heap);
    l->heap = NULL;
    l->tfd = l->epfd = -1;
}

static uint32_t to_epoll(unsigned events)
{
    uint32_t e = 0;
    if (events & LOOP_READ) e |= EPOLLIN | EPOLLRDHUP;
    if (events & LOOP_WRITE) e |= EPOLLOUT;
    return e;
}

int loop_add(struct lat_loop *l, struct loop_io *io, unsigned events)
{
    struct epoll_event ev = {.events = to_epoll(events), .data.ptr = io};
    return epoll_ctl(l->epfd, EPOLL_CTL_ADD, io->fd, &ev) < 0 ? -errno : 0;
}

int loop_mod(struct lat_loop *l, struct loop_io *io, unsigned events)
{
    struct epoll_event ev = {.events = to_epoll(events), .data.ptr = io};
    return epoll_ctl(l->epfd, EPOLL_CTL_MOD, io->fd, &ev) < 0 ? -errno : 0;
}

void loop_del(struct lat_loop *l, struct loop_io *io)
{
    struct epoll_event ev = {0};
    /* Closing the fd removes it too; the explicit call keeps a dup()ed fd from firing. */
    epoll_ctl(l->epfd, EPOLL_CTL_DEL, io->fd, &ev);
}

void loop_timer_init(struct loop_timer *t, loop_timer_fn fn, void *data)
{
    memset(t, 0, sizeof(*t));
    t->fn = fn;
    t->data = data;
}

int loop_timer_start(struct lat_loop *l, struct loop_timer *t, lat_ns deadline)
{
    if (t->heap_idx) {
        uint32_t i = t->heap_idx - 1;
        lat_ns old = t->deadline;
        t->deadline = deadline;
        if (deadline < old)
            heap_up(l, i);
        else
            heap_down(l, i);
        return 0;
    }
    /* Rare: sized at init from the number of connections; growth is outside the steady state.
     * The heap's indices are 32-bit. */
    if (l->nheap == UINT32_MAX - 1 || LAT_GROW(l->heap, l->cap, l->nheap, 1, 16)) return -ENOMEM;
    t->deadline = deadline;
    l->heap[l->nheap] = t;
    t->heap_idx = ++l->nheap;
    heap_up(l, l->nheap - 1);
    return 0;
}

void loop_timer_stop(struct lat_loop *l, struct loop_timer *t)
{
    if (!t->heap_idx) return;
    uint32_t i = t->heap_idx - 1;
    t->heap_idx = 0;
    l->nheap--;
    if (i == l->nheap) return;
    l->heap[i] = l->heap[l->nheap];
    l->heap[i]->heap_idx = i + 1;
    heap_down(l, i);
    heap_up(l, i);
}

static void arm_tfd(struct lat_loop *l, lat_ns deadline)
{
    if (deadline == l->tfd_armed) return;
    struct itimerspec its = {0};
    if (deadline > 0) {
        its.it_value.tv_sec = deadline / LAT_NS_PER_S;
        its.it_value.tv_nsec = deadline % LAT_NS_PER_S;
    }
    timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
    l->tfd_armed = deadline;
}

static int run_timers(struct lat_loop *l, lat_ns now)
{
    int n = 0;
    while (l->nheap && l->heap[0]->deadline <= now) {
        struct loop_timer *t = l->heap[0];
        lat_ns lag = now - t->deadline;
        loop_timer_stop(l, t);
        if (lag > l->lag_max_ns) l->lag_max_ns = lag;
        l->lag_count++;
        if (l->lag_cb) l->lag_cb(l->lag_ud, lag);
        t->fn(l, t, now);
        n++;
    }
    return n;
}

int loop_run_once(struct lat_loop *l, lat_ns max_wait_ns)
{
    struct epoll_event evs[LOOP_MAX_EVENTS];
    lat_ns now = clock_now_ns();
    int timeout_ms = -1;
    lat_ns next = l->nheap ? l->heap[0]->deadline : 0;

    if (next && next - now <= l->spin_ns) {
        timeout_ms = 0; /* due now, or close enough to spin */
    } else if (next) {
        arm_tfd(l, next - l->spin_ns);
    } else {
        arm_tfd(l, 0);
    }
    if (max_wait_ns >= 0 && timeout_ms != 0) {
        int ms = (int)((max_wait_ns + LAT_NS_PER_MS - 1) / LAT_NS_PER_MS);
        timeout_ms = timeout_ms < 0 || ms < timeout_ms ? ms : timeout_ms;
    }
    int n = epoll_wait(l->epfd, evs, LOOP_MAX_EVENTS, timeout_ms);
    lat_ns after = clock_now_ns();
    /* Idle time for the saturation self-check: sleeping, or polling that found nothing. */
    if (timeout_ms != 0 || n == 0) l->wait_ns += after - now;
    if (n < 0) {
        if (errno == EINTR) return 0;
        return -errno;
    }
    int ran = 0;
    for (int i = 0; i < n; i++) {
        struct loop_io *io = evs[i].data.ptr;
        if (!io) {
            uint64_t exp;
            ssize_t r = read(l->tfd, &exp, sizeof(exp));
            (void)r;
            l->tfd_armed = 0; /* fired: a later arm with the same deadline must reset it */
            continue;
        }
        unsigned e = 0;
        if (evs[i].events & (EPOLLIN | EPOLLRDHUP)) e |= LOOP_READ;
        if (evs[i].events & EPOLLOUT) e |= LOOP_WRITE;
        if (evs[i].events & (EPOLLERR | EPOLLHUP)) e |= LOOP_ERROR | LOOP_READ;
        io->fn(l, io->fd, e, io->data);
        ran++;
    }
    ran += run_timers(l, clock_now_ns());
    return ran;
}

int loop_run(struct lat_loop *l)
{
    l->stop = false;
    while (!l->stop) {
        int rc = loop_run_once(l, -1);
        if (rc < 0) return rc;
    }
    return 0;
}
