/*
 * loop.h - a small epoll event loop: fd readiness callbacks and ns-precision timers.
 *
 * One loop per bench worker thread; nothing in it is shared or locked. Timers are intrusive
 * (the caller embeds struct loop_timer), kept in a binary min-heap, and fired through one
 * timerfd armed with an absolute CLOCK_MONOTONIC deadline, so a timer can be as precise as the
 * kernel wakes us. The last `spin_ns` before a deadline are spent polling instead of sleeping.
 */
#ifndef LAT_NET_LOOP_H
#define LAT_NET_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

#define LOOP_READ  1u
#define LOOP_WRITE 2u
#define LOOP_ERROR 4u /* EPOLLERR or EPOLLHUP: delivered with READ so the reader sees it */

struct lat_loop;
struct loop_timer;

typedef void (*loop_io_fn)(struct lat_loop *l, int fd, unsigned events, void *data);
typedef void (*loop_timer_fn)(struct lat_loop *l, struct loop_timer *t, lat_ns now);

struct loop_timer {
    lat_ns deadline;
    loop_timer_fn fn;
    void *data;
    uint32_t heap_idx; /* index + 1 in the heap; 0 = not armed */
};

struct lat_loop {
    int epfd, tfd;
    lat_ns tfd_armed; /* deadline the timerfd is set to, 0 = disarmed */
    struct loop_timer **heap;
    uint32_t nheap;
    size_t cap;
    lat_ns spin_ns; /* poll instead of sleeping when the next deadline is this close */
    bool stop;
    /* Self-check: how late timers fire (sum/max/count), time spent waiting. */
    lat_ns lag_max_ns, wait_ns;
    uint64_t lag_count;
    void (*lag_cb)(void *ud, lat_ns lag_ns); /* optional: each timer's lateness */
    void *lag_ud;
};

/* Creates the epoll and timer fds; returns 0 or -errno. Free with loop_fini(). */
int loop_init(struct lat_loop *l, uint32_t timer_hint);
void loop_fini(struct lat_loop *l);

/*
 * An fd's registration: the caller owns the record (no allocation in the loop), which must
 * outlive the registration. The epoll data points at it.
 */
struct loop_io {
    loop_io_fn fn;
    void *data;
    int fd;
};

/* Registers/changes/removes io->fd with interest LOOP_READ|LOOP_WRITE. 0 or -errno. */
int loop_add(struct lat_loop *l, struct loop_io *io, unsigned events);
int loop_mod(struct lat_loop *l, struct loop_io *io, unsigned events);
void loop_del(struct lat_loop *l, struct loop_io *io);

void loop_timer_init(struct loop_timer *t, loop_timer_fn fn, void *data);
/* Arms (or re-arms) t for the absolute CLOCK_MONOTONIC deadline. 0 or -ENOMEM. */
int loop_timer_start(struct lat_loop *l, struct loop_timer *t, lat_ns deadline);
void loop_timer_stop(struct lat_loop *l, struct loop_timer *t);
static inline bool loop_timer_armed(const struct loop_timer *t)
{
    return t->heap_idx != 0;
}

/*
 * Waits for events or the next timer and dispatches them once. max_wait_ns bounds the sleep
 * (< 0: no bound). Returns the number of callbacks run, or -errno.
 */
int loop_run_once(struct lat_loop *l, lat_ns max_wait_ns);
/* Runs until loop_stop() is called from a callback. */
int loop_run(struct lat_loop *l);
static inline void loop_stop(struct lat_loop *l)
{
    l->stop = true;
}

#endif
