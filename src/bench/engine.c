/*
 * engine.c - worker threads, connections and measurement for `latscope bench`.
 *
 * Each worker thread owns an epoll loop (net/loop), a fixed array of connections allocated in
 * one block, a receive buffer, and its histograms; the hot path (dispatch, write, read, parse,
 * record) does not allocate or lock, except one uncontended mutex per completed request to
 * add it to the window histograms the driving thread collects once per window (progress,
 * --stable, --hdr-log). Per-thread totals are merged with hist_add() after the threads join,
 * which is exact because every histogram has the same layout.
 *
 * Closed loop: `concurrency` connections spread over the threads; a connection sends its
 * next request when the previous completes, and that moment is the next request's t_sched.
 * Open loop: the arrival sequence is one global seeded sequence (stats/sched); thread i takes
 * arrivals i, i+T, i+2T, ... so the union is the same schedule whatever the thread count. A due
 * arrival takes an idle connection, or opens one while under the per-thread share of
 * max_inflight; otherwise it waits (its send lag grows, and so does its CO-correct latency:
 * the schedule itself is the queue, nothing is dropped). Requests scheduled before the end
 * but still unsent when the drain limit passes are counted as timeouts.
 *
 * Several endpoints (bench/endpoints.h): each thread's connections are one pool per endpoint
 * (with one endpoint, one pool: the layout and path of before). A closed round-robin loop pins
 * slot i of the run to endpoint i mod N; least-inflight and open loops pick an endpoint per
 * request (bench_ep_pick over run-wide atomic in-flight counts) and take a connection of its
 * pool. Cancellation (--cancel-*): a request chosen by bench_cancel_pick closes its connection
 * at its deadline or Nth token (cancel_req) and is counted apart, neither ok nor an error.
 *
 * Arrival timestamps are the kernel's receive time of the bytes a read returns (plain TCP with
 * --rx-time kernel, the default: SO_TIMESTAMPNS, so a busy client thread does not delay them),
 * else the time recv() returned; both before parsing (http1 stamps t_first and t_end with the
 * time we hand it). Alternatives rejected: one shared loop (one core cannot
 * drive 2-core-class servers), per-request heap records (allocation in the hot path).
 */
#define PR_FMT "bench"
#include "bench/bench.h"
#include "bench/shard.h"

#include "core/err.h"
#include "core/grow.h"
#include "core/log.h"
#include "core/pctl.h"
#include "net/loop.h"
#include "stats/sched.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* BC_RSTWAIT: a request the server dropped (no response byte) after its TCP acknowledged it;
 * waiting a little for the reset that proves the server closed with it unread (stale_retry). */
enum bc_state {
    BC_CLOSED = 0,
    BC_CONNECTING,
    BC_IDLE,
    BC_WRITING,
    BC_READING,
    BC_BACKOFF,
    BC_RSTWAIT
};

#define BENCH_RBUF        (64 * 1024)
#define BENCH_BACKOFF_NS  (10 * LAT_NS_PER_MS)
#define BENCH_RSTWAIT_NS  (20 * LAT_NS_PER_MS) /* stale_retry: how long a reset may lag the FIN */
#define BENCH_START_DELAY (30 * LAT_NS_PER_MS)
#define BENCH_ABORT_GRACE (1 * LAT_NS_PER_S)
#define BENCH_NO_DEADLINE INT64_MAX
#define BENCH_MAX_THREADS 256

/* The client gap judges a point only from lat_pctl_min_n(99) = 100 gaps (core/pctl.h): below
 * it, a nearest-rank p99 is the maximum, and one scheduler hiccup of a loaded machine would
 * make the point INVALID. The gaps are still reported. */
#define BENCH_CLIENT_GAP_MIN_N lat_pctl_min_n(99.0)

/* Reads per readable wake-up of one connection: a server that floods (an endless 100 Continue
 * stream, a body faster than we parse) must not keep the thread in do_read(), or no timer
 * (request timeout, pacing, the end of the point) would ever fire. Level-triggered epoll
 * reports the rest on the next turn, after the timers. */
#define BENCH_READS_PER_WAKE 4

struct worker;

struct bconn {
    struct lat_conn c;
    struct loop_io io;
    struct loop_timer timer;
    struct loop_timer kick; /* another read turn for TLS bytes already decrypted */
    struct worker *w;
    /* closed loop with t->ops_think: the next request after the pause (--sessions) */
    struct loop_timer think;
    enum bc_state state;
    unsigned interest;
    bool busy;     /* a request is assigned (possibly waiting for the connect) */
    bool measured; /* the assigned request counts (not warmup) */
    bool registered;
    uint32_t gen; /* bumped per dispatched request */
    size_t wpos;
    size_t match; /* KMP state of the body substring check */
    bool matched;
    lat_ns t_sched, t_send;
    lat_ns t_conn;   /* when the current connect began */
    lat_ns prev_end; /* closed loop: the last response's arrival on this connection (0: none) */
    void *cs;        /* t->ops per-connection state */
    const char *req; /* this request's bytes */
    size_t req_len;
    bool ops_begun; /* t->ops->begin was called; end is due */
    uint32_t nresp; /* responses completed on this connection since it was opened */
    bool reused;    /* the current request went out on a connection that had served one */
    bool retried;   /* ... and was already sent again on a fresh connection once */
    /* Several endpoints and cancellation (bench/endpoints.h). */
    uint16_t ep;         /* the endpoint this connection talks to (its pool) */
    bool cancel;         /* the current request is one that cancels (--cancel-share) */
    bool cancel_due;     /* --cancel-after-tokens: the Nth token came; cancel after the read */
    bool reopen;         /* closed loop: reconnecting after a cancel; the slot frees then */
    uint32_t cancel_tok; /* this request cancels at this many tokens (0: not by tokens) */
    lat_ns cancel_at;    /* this request cancels at this time (0: not by time) */
    struct http1_resp resp;
};

struct engine {
    const struct bench_target *t;
    const struct bench_load *l;
    const struct bench_opts *o;
    unsigned nthreads;
    uint32_t shard, nshards; /* bench_load's, nshards >= 1 */
    bool open_loop;
    lat_ns t0, measure_start, end_issue; /* end_issue: BENCH_NO_DEADLINE when unlimited */
    uint64_t issue_limit;                /* 0: unlimited */
    size_t *kmp;                         /* failure table of expect_body */
    atomic_uint_fast64_t issued;
    atomic_bool stop_issuing;
    /* A rule (--stable, --confidence) ended the point at this schedule instant: arrivals
     * before it are still sent (late, when a worker is behind), later ones are not. The instant
     * is taken after the hook returns, so under --mpi, where the hook is a collective, every
     * rank takes nearly the same one and a rank starved of CPU still sends its backlog. */
    _Atomic lat_ns issue_until; /* BENCH_NO_DEADLINE unless a rule stopped the point */
    _Atomic lat_ns abort_at;    /* BENCH_NO_DEADLINE unless interrupted */
    struct worker *workers;
    /* Several endpoints: nep >= 1 pools per worker; in flight per endpoint over all threads
     * (least-inflight), NULL with one endpoint. */
    unsigned nep;
    _Atomic unsigned *ep_inflight;
    bool cancel_on; /* --cancel-after or --cancel-after-tokens with a share above 0 */
};

struct worker {
    struct engine *e;
    unsigned id;
    pthread_t th;
    bool started;
    struct lat_loop loop;
    /* Connections: one pool of `share` per endpoint, pool p at conns[p * share]; pn[p] of
     * them used so far; idle + p * share: the pool's stack of idle ones (open loop, and a
     * closed loop with least-inflight). With one endpoint: one pool, as before. */
    struct bconn *conns;
    unsigned share, cap; /* share: this thread's connections (requests in flight at most) */
    unsigned *pn, *pnidle;
    uint32_t *idle;
    unsigned turn;   /* bench_ep_pick's rotation */
    unsigned goff;   /* closed round-robin: the run-wide index of this thread's first slot */
    uint64_t last_k; /* the issue number may_issue() gave last */
    unsigned inflight;
    bool issuing_done, blocked;
    bool peer_closes; /* the server closed a kept-alive connection: check before each reuse */
    atomic_bool finished;

    /* Open-loop schedule: this thread's slice of the global arrival sequence. */
    struct loop_timer pace;
    struct lat_sched sched;
    lat_ns next_sched;
    size_t trace_i; /* replay: index of next_sched in l->offsets */

    struct lat_hist lat, act, lag, looplag, ttfb;
    struct lat_hist gap; /* closed loop: response arrival -> next send, same connection */
    struct lat_samples exact, exact_act;
    uint64_t ok, bytes, cap_hits, errors[BENCH_ERR__COUNT], interrupted, stale_retries;
    uint64_t server_closes; /* measured responses that ended with the server's close */
    uint64_t slow_connects;
    lat_ns connect_max;
    int connect_err; /* the first failed connect's -errno (or LAT_E_*), 0: none */
    uint64_t cancelled;
    struct lat_hist cancel_first;
    struct bench_ep_stats *eps; /* several endpoints: one each, else NULL */
    lat_ns first_sched, last_end;
    lat_ns first_msched, last_msched; /* intended send times of the measured requests issued */
    struct bench_record *rec;
    size_t nrec, caprec;
    void *mx; /* t->mux's per-thread state */
    lat_ns cpu_start, cpu_end, wall_start, wall_end, wait_start;

    pthread_mutex_t ivl_lock;
    struct lat_hist ivl_lat, ivl_act, ivl_lag;
    uint64_t ivl_ok, ivl_err;
    uint64_t ivl_err_by[BENCH_ERR__COUNT]; /* the window's errors by class (the live view) */

    char rbuf[BENCH_RBUF];
};

static lat_ns thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (lat_ns)ts.tv_sec * LAT_NS_PER_S + ts.tv_nsec;
}

/* ---- connections ----------------------------------------------------------------------- */

static void conn_io(struct lat_loop *l, int fd, unsigned ev, void *data);
static void conn_timer(struct lat_loop *l, struct loop_timer *t, lat_ns now);
static void slot_free(struct bconn *bc, lat_ns now);
static void start_write(struct bconn *bc, lat_ns now);

static void set_interest(struct bconn *bc, unsigned ev)
{
    if (bc->interest == ev || !bc->registered) return;
    if (loop_mod(&bc->w->loop, &bc->io, ev) == 0) bc->interest = ev;
}

static void bc_close(struct bconn *bc)
{
    if (bc->w->mx) bc->w->e->t->mux->cancel(bc->w->mx, (unsigned)(bc - bc->w->conns));
    if (bc->registered) {
        loop_del(&bc->w->loop, &bc->io);
        bc->registered = false;
    }
    conn_close(&bc->c);
    bc->io.fd = -1;
    bc->nresp = 0;
    bc->state = BC_CLOSED;
    loop_timer_stop(&bc->w->loop, &bc->timer);
    loop_timer_stop(&bc->w->loop, &bc->kick);
}

/* --records / --slice: room for one more record (amortized doubling, sized up front from the
 * expected request count), so every measured request is kept, failed ones too. */
static bool rec_room(struct worker *w)
{
    return LAT_GROW(w->rec, w->caprec, w->nrec, 1, 4096) == 0;
}

static void count_error(struct bconn *bc, enum bench_err cls, lat_ns now)
{
    struct worker *w = bc->w;
    if (bc->measured) {
        w->errors[cls]++;
        if (w->eps) w->eps[bc->ep].errors[cls]++;
        pthread_mutex_lock(&w->ivl_lock);
        w->ivl_err++;
        w->ivl_err_by[cls]++;
        pthread_mutex_unlock(&w->ivl_lock);
        if (w->e->o->keep_records && rec_room(w)) {
            struct bench_record *r = &w->rec[w->nrec++];
            *r = (struct bench_record){
                bc->t_sched, bc->t_send,    bc->resp.t_first, now, 0, (int16_t)bc->resp.status,
                (int8_t)cls, (uint8_t)w->id};
        }
    }
}

/* Tells the request hooks (if any) that the request that began on bc has ended; returns the
 * final class (cls, or the class the target's own check found when the exchange completed). */
static int ops_end(struct bconn *bc, int cls, lat_ns t_end)
{
    const struct bench_target *t = bc->w->e->t;
    if (t->ops && bc->ops_begun) {
        bc->ops_begun = false;
        int r = t->ops->end(bc->cs, bc->resp.status, cls, t_end, bc->measured);
        if (r >= 0 && r < BENCH_ERR__COUNT) return r;
    }
    return cls;
}

/* The class of a failed connect: the client's own fd exhaustion is not the server's fault. */
static enum bench_err connect_class(const struct bconn *bc)
{
    return bc->c.err == -EMFILE || bc->c.err == -ENFILE ? BENCH_ERR_CLIENT_FD : BENCH_ERR_CONNECT;
}

static void start_connect(struct bconn *bc, lat_ns now);

/* The server's TCP reset the connection: it closed it with bytes of ours unread (Linux and
 * the BSDs answer close() over unread data, or data for a closed socket, with a reset). */
static bool rst_seen(struct bconn *bc)
{
    int e = 0;
    socklen_t sl = sizeof(e);
    if (bc->c.err == -ECONNRESET || bc->c.err == -EPIPE) return true;
    if (bc->c.fd < 0 || getsockopt(bc->c.fd, SOL_SOCKET, SO_ERROR, &e, &sl) < 0) return false;
    if (e) bc->c.err = -e; /* SO_ERROR clears it: keep it for a second look */
    return e == ECONNRESET || e == EPIPE;
}

/*
 * Keep-alive that was not kept (issue 17): a request written on a reused connection that ends
 * in a reset or close before any response byte may have been written after the server had
 * closed the idle connection (llama-server advertises keep-alive and closes after every
 * streamed response). It is sent again, once, on a fresh connection, counted as stale_retries,
 * only when the server provably never read it (issue 31):
 *  - no byte of it was written, or none was acknowledged by the server's TCP
 *    (conn_unacked() >= the bytes written: the server's close went out before the request
 *    arrived, and its kernel answered the request with a reset); or
 *  - the server's TCP reset the connection (rst_seen): it closed with the request unread in
 *    its socket. A reset may trail the FIN (shutdown, then close), so after a plain EOF over
 *    an acknowledged request the connection waits up to BENCH_RSTWAIT_NS (BC_RSTWAIT) for one.
 * A server that read the request and then closed without answering (it worked and dropped it,
 * or crashed) sends a FIN and no reset: that request fails as errors.reset and is never sent
 * twice, so a POST body the server held is not repeated. The second attempt keeps the first
 * one's t_send: its latency and its deadline run from the first send. Returns true when the
 * request was sent again or is waiting for the reset (BC_RSTWAIT).
 */
static bool stale_retry(struct bconn *bc, enum bench_err cls, lat_ns now)
{
    struct worker *w = bc->w;
    const struct bench_target *t = w->e->t;
    if (t->mux || cls != BENCH_ERR_RESET || !bc->busy || !bc->reused || bc->retried ||
        bc->resp.t_first || bc->resp.status)
        return false;
    if (bc->wpos > 0) {
        long unacked = conn_unacked(&bc->c);
        bool unread = unacked >= 0 && (size_t)unacked >= bc->wpos;
        if (!unread && !rst_seen(bc)) {
            if (bc->state == BC_RSTWAIT) return false; /* no reset came: the server read it */
            bc->state = BC_RSTWAIT;
            set_interest(bc, 0); /* epoll still reports the reset (EPOLLHUP/EPOLLERR) */
            lat_ns until = now + BENCH_RSTWAIT_NS, dl = bc->t_send + w->e->o->request_timeout_ns;
            loop_timer_start(&w->loop, &bc->timer, until < dl ? until : dl);
            return true;
        }
    }
    if (t->ops && bc->ops_begun) {
        /* The first attempt ends unmeasured: the target counts the request once. */
        bc->ops_begun = false;
        t->ops->end(bc->cs, 0, (int)cls, now, false);
    }
    if (bc->measured) w->stale_retries++;
    w->peer_closes = true;
    bc_close(bc);
    bc->retried = true;
    bc->gen++; /* the caller's event was for the old socket */
    start_connect(bc, now);
    return true;
}

/* The request on bc failed with class cls: count it, drop the connection, free the slot. */
static void fail(struct bconn *bc, enum bench_err cls, lat_ns now)
{
    const struct bench_target *t = bc->w->e->t;
    if (stale_retry(bc, cls, now)) return;
    if (t->ops && !bc->ops_begun && bc->busy) {
        /* Never sent (connect failure, request not built): the target still accounts for
         * it, so its error totals match the engine's. */
        t->ops->begin(bc->cs, bc->t_sched, -1);
        bc->ops_begun = true;
    }
    cls = (enum bench_err)ops_end(bc, (int)cls, now);
    count_error(bc, cls, now);
    if (cls == BENCH_ERR_CONNECT && !bc->w->connect_err)
        bc->w->connect_err = bc->c.err ? bc->c.err : -ETIMEDOUT; /* no error: the timer */
    bc_close(bc);
    if (cls == BENCH_ERR_CONNECT || cls == BENCH_ERR_CLIENT_FD) {
        /* Do not hammer a server that refuses connections: retry the slot a little later. */
        bc->state = BC_BACKOFF;
        loop_timer_start(&bc->w->loop, &bc->timer, now + BENCH_BACKOFF_NS);
    }
    slot_free(bc, now);
}

/* Closed loop, after a cancel: the new connection is up (or failed); the slot is free now,
 * so the reconnect is not in the next request's latency. */
static void reopen_done(struct bconn *bc, lat_ns now)
{
    if (!bc->reopen) return;
    bc->reopen = false;
    slot_free(bc, now);
}

static void slot_release(struct bconn *bc);
static void pump(struct worker *w, lat_ns now);

/* Open loop, after a cancel: the reconnecting connection goes to the bottom of its pool's
 * idle stack, so the next arrivals take connected ones first. */
static void idle_push_bottom(struct bconn *bc)
{
    struct worker *w = bc->w;
    unsigned p = bc->ep;
    uint32_t *st = w->idle + (size_t)p * w->share;
    memmove(st + 1, st, w->pnidle[p] * sizeof(*st));
    st[0] = (uint32_t)(bc - w->conns);
    w->pnidle[p]++;
}

/*
 * --cancel-after / --cancel-after-tokens: the client gives up on the request on bc. HTTP/1.1
 * cannot abandon a response and keep the connection, so it is closed (the server sees the
 * client go away) and opened again for the next request, outside that request's latency:
 * a closed loop frees the slot once the new connection is up; an open loop puts it at the
 * bottom of the idle stack. The request is counted as cancelled (neither ok nor an error);
 * its first token (targets with progress(), e.g. openai) or first response byte, when one
 * came, is its cancel_first sample; it is in no other latency metric, and the target ends it
 * unmeasured (no LLM metric).
 */
static void cancel_req(struct bconn *bc, lat_ns now)
{
    struct worker *w = bc->w;
    const struct bench_target *t = w->e->t;
    loop_timer_stop(&w->loop, &bc->timer);
    lat_ns first = bc->resp.t_first;
    if (t->ops && t->ops->progress) {
        first = 0;
        t->ops->progress(bc->cs, &first);
    }
    if (t->ops && bc->ops_begun) {
        bc->ops_begun = false;
        t->ops->end(bc->cs, bc->resp.status, BENCH_ERR_TIMEOUT, now, false);
    }
    if (bc->measured) {
        w->cancelled++;
        if (w->eps) w->eps[bc->ep].cancelled++;
        if (first > 0 && first >= bc->t_sched) hist_record(&w->cancel_first, first - bc->t_sched);
        if (bc->t_sched < w->first_sched) w->first_sched = bc->t_sched;
        if (now > w->last_end) w->last_end = now;
        if (w->e->o->keep_records && rec_room(w))
            w->rec[w->nrec++] = (struct bench_record){bc->t_sched,         bc->t_send,
                                                      bc->resp.t_first,    now,
                                                      bc->resp.body_bytes, (int16_t)bc->resp.status,
                                                      BENCH_REC_CANCELLED, (uint8_t)w->id};
    }
    bc_close(bc);
    bc->gen++;
    bc->cancel_due = false;
    bc->cancel_at = 0;
    slot_release(bc);
    if (!w->e->open_loop) {
        bc->reopen = true;
        start_connect(bc, now); /* its completion frees the slot (reopen_done) */
        return;
    }
    start_connect(bc, now);
    idle_push_bottom(bc);
    if (w->blocked) pump(w, now);
}

/* A connect completed: its duration is the listen-backlog evidence (bench_result_judge). */
static void connect_done(struct bconn *bc, lat_ns now)
{
    struct worker *w = bc->w;
    lat_ns d = now - bc->t_conn;
    if (d > w->connect_max) w->connect_max = d;
    if (d >= BENCH_SLOW_CONNECT_NS) w->slow_connects++;
}

static void start_connect(struct bconn *bc, lat_ns now)
{
    struct worker *w = bc->w;
    if (w->mx) { /* the transport owns the connections: the slot is ready at once */
        bc->state = BC_IDLE;
        if (bc->busy)
            start_write(bc, now);
        else
            reopen_done(bc, now); /* after a cancel */
        return;
    }
    bc->reused = false;
    bc->t_conn = now;
    enum lat_io s = conn_connect(&bc->c);
    if (s == LAT_IO_ERROR) {
        if (bc->busy) {
            fail(bc, connect_class(bc), now);
        } else {
            bc_close(bc);
            reopen_done(bc, now);
        }
        return;
    }
    bc->io.fd = bc->c.fd;
    unsigned ev = s == LAT_IO_RETRY ? bc->c.want : LOOP_READ;
    if (loop_add(&w->loop, &bc->io, ev) < 0) {
        conn_close(&bc->c);
        if (bc->busy) fail(bc, BENCH_ERR_CONNECT, now);
        reopen_done(bc, now);
        return;
    }
    bc->registered = true;
    bc->interest = ev;
    if (s == LAT_IO_RETRY) {
        bc->state = BC_CONNECTING;
        loop_timer_start(&w->loop, &bc->timer, now + w->e->o->connect_timeout_ns);
        return;
    }
    bc->state = BC_IDLE;
    connect_done(bc, now);
    if (bc->busy)
        start_write(bc, now);
    else
        reopen_done(bc, now);
}

static void connect_progress(struct bconn *bc, lat_ns now)
{
    enum lat_io s = conn_connect(&bc->c);
    if (s == LAT_IO_RETRY) {
        set_interest(bc, bc->c.want);
        return;
    }
    if (s == LAT_IO_ERROR) {
        if (bc->busy) {
            fail(bc, connect_class(bc), now);
        } else {
            bc_close(bc);
            reopen_done(bc, now);
        }
        return;
    }
    loop_timer_stop(&bc->w->loop, &bc->timer);
    bc->state = BC_IDLE;
    connect_done(bc, now);
    set_interest(bc, LOOP_READ);
    if (bc->busy)
        start_write(bc, now);
    else
        reopen_done(bc, now);
}

static void do_write(struct bconn *bc, lat_ns now)
{
    while (bc->wpos < bc->req_len) {
        size_t n = 0;
        enum lat_io s = conn_write(&bc->c, bc->req + bc->wpos, bc->req_len - bc->wpos, &n);
        if (s == LAT_IO_RETRY) {
            set_interest(bc, bc->c.want | LOOP_READ);
            return;
        }
        if (s == LAT_IO_ERROR) {
            fail(bc, BENCH_ERR_RESET, now);
            return;
        }
        bc->wpos += n;
    }
    bc->state = BC_READING;
    set_interest(bc, LOOP_READ);
}

static void complete(struct bconn *bc, lat_ns now);

/* t->mux: the request goes out as a stream of the transport's connections. */
static void mux_write(struct bconn *bc, lat_ns now)
{
    struct worker *w = bc->w;
    http1_resp_init(&bc->resp, false, NULL, NULL);
    bc->matched = true;
    bc->t_send = clock_now_ns();
    if (!w->e->open_loop && bc->prev_end && bc->measured && bc->t_send >= bc->prev_end)
        hist_record(&w->gap, bc->t_send - bc->prev_end);
    bc->prev_end = 0;
    bc->cancel_at = 0;
    bc->cancel_tok = 0;
    bc->cancel_due = false;
    bc->state = BC_READING;
    lat_ns deadline = bc->t_send + w->e->o->request_timeout_ns;
    if (bc->cancel && w->e->o->cancel.after_ns > 0) { /* --cancel-after (not by tokens) */
        bc->cancel_at = bc->t_send + w->e->o->cancel.after_ns;
        if (bc->cancel_at < deadline) deadline = bc->cancel_at;
    }
    loop_timer_start(&w->loop, &bc->timer, deadline);
    uint32_t gen = bc->gen;
    int err = 0;
    int cls = w->e->t->mux->submit(w->mx, (unsigned)(bc - w->conns), bc, bc->measured, &err);
    if (cls >= 0 && cls < BENCH_ERR__COUNT && bc->gen == gen && bc->busy) {
        bc->c.err = err; /* the connect's reason, for connect_error */
        fail(bc, (enum bench_err)cls, now);
    }
}

/* The transport's report of a slot's end (bench_mux_done_fn). */
static void mux_done(void *slot, const struct bench_mux_end *d)
{
    struct bconn *bc = slot;
    if (!bc->busy || bc->state != BC_READING) return;
    if (d->t_send > bc->t_send) bc->t_send = d->t_send;
    bc->resp.status = d->status;
    bc->resp.t_first = d->t_first;
    bc->resp.t_end = d->t_end;
    bc->resp.body_bytes = d->bytes;
    bc->resp.done = true;
    bc->c.err = d->err;
    if (d->cls >= 0 && d->cls < BENCH_ERR__COUNT)
        fail(bc, (enum bench_err)d->cls, d->t_end);
    else
        complete(bc, clock_now_ns());
}

static void start_write(struct bconn *bc, lat_ns now)
{
    struct worker *w = bc->w;
    const struct bench_target *t = w->e->t;
    if (w->mx) {
        mux_write(bc, now);
        return;
    }
    bc->reused = bc->nresp > 0;
    if (bc->reused && w->peer_closes && !t->conn.tls) {
        /* This server closes kept-alive connections: one peek (only for such servers) finds
         * a FIN that already arrived, so the request goes out on a fresh connection at once
         * instead of failing first. */
        char ch;
        if (recv(bc->c.fd, &ch, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
            if (bc->measured) w->stale_retries++;
            bc_close(bc);
            bc->gen++;
            start_connect(bc, now);
            return;
        }
    }
    http1_resp_init(&bc->resp, t->head, NULL, NULL);
    bc->c.err = 0; /* rst_seen() looks at this request's errors only */
    if (!bc->retried) {
        bc->req = t->request;
        bc->req_len = t->request_len;
        if (t->ops && t->ops->build(bc->cs, &bc->req, &bc->req_len) < 0) {
            fail(bc, BENCH_ERR_MALFORMED, now);
            return;
        }
    } /* a stale keep-alive retry sends the same bytes again (the same replay line) */
    bc->wpos = 0;
    bc->match = 0;
    bc->matched = w->e->t->expect_body == NULL;
    bc->state = BC_WRITING;
    /* t_send: just before the first byte is handed to the kernel (of the first attempt: a
     * stale keep-alive retry keeps it, so its latency and deadline run from the first send). */
    if (!bc->retried || !bc->t_send) bc->t_send = clock_now_ns();
    if (!w->e->open_loop && bc->reused && bc->prev_end && bc->measured &&
        bc->t_send >= bc->prev_end)
        hist_record(&w->gap, bc->t_send - bc->prev_end); /* the client's own gap (issue 31) */
    bc->prev_end = 0;
    if (t->ops) {
        t->ops->begin(bc->cs, bc->t_sched, bc->t_send);
        bc->ops_begun = true;
    }
    lat_ns deadline = bc->t_send + w->e->o->request_timeout_ns;
    bc->cancel_at = 0;
    bc->cancel_tok = 0;
    bc->cancel_due = false;
    if (bc->cancel) {
        const struct bench_cancel *cn = &w->e->o->cancel;
        if (cn->after_ns > 0) {
            bc->cancel_at = bc->t_send + cn->after_ns;
            if (bc->cancel_at < deadline) deadline = bc->cancel_at;
        }
        if (cn->after_tokens && t->ops && t->ops->progress) bc->cancel_tok = cn->after_tokens;
    }
    loop_timer_start(&w->loop, &bc->timer, deadline);
    do_write(bc, now);
}

/* Runs the body through the KMP matcher of the expected substring. */
static void match_body(struct bconn *bc, const char *p, size_t n)
{
    const struct bench_target *t = bc->w->e->t;
    const size_t *f = bc->w->e->kmp;
    size_t m = bc->match;
    for (size_t i = 0; i < n && !bc->matched; i++) {
        while (m && p[i] != t->expect_body[m])
            m = f[m - 1];
        if (p[i] == t->expect_body[m]) m++;
        if (m == t->expect_body_len) bc->matched = true;
    }
    bc->match = m;
}

/* first: the request's first token (targets with progress()) or response byte, 0 if none. */
static void record_ok(struct bconn *bc, lat_ns first)
{
    struct worker *w = bc->w;
    const struct http1_resp *r = &bc->resp;
    lat_ns lat = r->t_end - bc->t_sched, act = r->t_end - bc->t_send;
    lat_ns lag = bc->t_send - bc->t_sched;
    w->ok++;
    w->bytes += r->body_bytes;
    hist_record(&w->lat, lat);
    hist_record(&w->act, act);
    hist_record(&w->lag, lag);
    hist_record(&w->ttfb, r->t_first - bc->t_sched);
    if (w->exact.v) {
        samples_push(&w->exact, lat);
        samples_push(&w->exact_act, act);
    }
    if (bc->t_sched < w->first_sched) w->first_sched = bc->t_sched;
    if (r->t_end > w->last_end) w->last_end = r->t_end;
    if (w->eps) {
        struct bench_ep_stats *x = &w->eps[bc->ep];
        x->ok++;
        x->bytes += r->body_bytes;
        hist_record(&x->lat, lat);
        if (first > 0 && first >= bc->t_sched) hist_record(&x->first, first - bc->t_sched);
    }
    pthread_mutex_lock(&w->ivl_lock);
    hist_record(&w->ivl_lat, lat);
    hist_record(&w->ivl_act, act);
    hist_record(&w->ivl_lag, lag);
    w->ivl_ok++;
    pthread_mutex_unlock(&w->ivl_lock);
    if (w->e->o->keep_records && rec_room(w))
        w->rec[w->nrec++] =
            (struct bench_record){bc->t_sched,   bc->t_send,         r->t_first, r->t_end,
                                  r->body_bytes, (int16_t)r->status, -1,         (uint8_t)w->id};
}

static void complete(struct bconn *bc, lat_ns now)
{
    const struct bench_target *t = bc->w->e->t;
    const struct http1_resp *r = &bc->resp;
    loop_timer_stop(&bc->w->loop, &bc->timer);
    int cls = -1;
    if (r->status >= 500)
        cls = BENCH_ERR_HTTP_5XX;
    else if (r->status >= 400)
        cls = BENCH_ERR_HTTP_4XX;
    else if ((t->expect_class && r->status / 100 != t->expect_class) || !bc->matched)
        cls = BENCH_ERR_MISMATCH;
    lat_ns first = r->t_first; /* before ops_end: the target's request ends there */
    if (t->ops && t->ops->progress && bc->w->eps) {
        first = 0;
        t->ops->progress(bc->cs, &first);
    }
    cls = ops_end(bc, cls, r->t_end);
    if (cls >= 0)
        count_error(bc, (enum bench_err)cls, r->t_end);
    else if (bc->measured)
        record_ok(bc, first);
    if (r->conn_close) {
        if (bc->measured) bc->w->server_closes++;
        bc_close(bc);
    } else {
        bc->state = BC_IDLE;
        bc->nresp++;
        bc->prev_end = r->t_end;
    }
    slot_free(bc, now);
}

static void on_body(void *ud, const char *p, size_t n, lat_ns t)
{
    struct bconn *bc = ud;
    const struct bench_target *tg = bc->w->e->t;
    if (tg->ops) tg->ops->body(bc->cs, p, n, t);
    if (!bc->matched) match_body(bc, p, n);
    if (bc->cancel_tok && !bc->cancel_due && tg->ops->progress(bc->cs, NULL) >= bc->cancel_tok)
        bc->cancel_due = true; /* acted on after this read (the parser is still inside it) */
}

static const struct http1_cb body_cb = {.on_body = on_body};

static void do_read(struct bconn *bc)
{
    struct worker *w = bc->w;
    for (int reads = 0; reads < BENCH_READS_PER_WAKE; reads++) {
        size_t n = 0;
        enum lat_io s = conn_read(&bc->c, w->rbuf, sizeof(w->rbuf), &n);
        /* Arrival time of these bytes: the kernel's receive time when the socket gives one
         * (--rx-time kernel: independent of when this thread got to run), else the time
         * recv() returned; either way before parsing. */
        lat_ns t = clock_now_ns();
        if (s == LAT_IO_OK && n && bc->c.rx_ns) t = bc->c.rx_ns;
        if (s == LAT_IO_RETRY) {
            if (bc->cancel_due) {
                /* Everything that had arrived is read and the response is not complete:
                 * now the client gives up. */
                cancel_req(bc, t);
                return;
            }
            if (bc->c.want != LOOP_READ) set_interest(bc, bc->c.want | LOOP_READ);
            return;
        }
        if (s == LAT_IO_ERROR) {
            fail(bc, BENCH_ERR_RESET, t);
            return;
        }
        if (n == 0) {
            int rc = http1_resp_eof(&bc->resp, t);
            if (rc == 0) {
                complete(bc, t);
            } else {
                fail(bc, BENCH_ERR_RESET, t);
            }
            return;
        }
        if (bc->state == BC_WRITING) bc->state = BC_READING; /* early answer */
        if (!bc->resp.cb) {
            bc->resp.cb = &body_cb;
            bc->resp.ud = bc;
        }
        ssize_t k = http1_resp_feed(&bc->resp, w->rbuf, n, t);
        if (k < 0) {
            fail(bc, BENCH_ERR_MALFORMED, t);
            return;
        }
        if (bc->cancel_due && !bc->resp.done) continue; /* read what else has arrived */
        if (bc->resp.done) {
            if ((size_t)k < n || conn_pending(&bc->c)) {
                /* Pipelining is off: bytes after a complete response are a protocol error. */
                fail(bc, BENCH_ERR_MALFORMED, t);
                return;
            }
            complete(bc, t);
            return;
        }
        if (n < sizeof(w->rbuf) && !conn_pending(&bc->c)) return; /* level-triggered: wait */
    }
    if (bc->cancel_due) { /* a flood: give up now */
        cancel_req(bc, clock_now_ns());
        return;
    }
    /* Budget spent: the rest waits for the next turn of the loop (TLS bytes already decrypted
     * do not wake epoll, so ask for a turn through the timer). */
    if (conn_pending(&bc->c)) loop_timer_start(&w->loop, &bc->kick, clock_now_ns());
}

static void conn_io(struct lat_loop *l, int fd, unsigned ev, void *data)
{
    struct bconn *bc = data;
    lat_ns now = clock_now_ns();
    uint32_t gen = bc->gen;
    switch (bc->state) {
    case BC_CONNECTING:
        connect_progress(bc, now);
        break;
    case BC_WRITING:
        if (ev & (LOOP_WRITE | LOOP_ERROR)) do_write(bc, now);
        /* A failure above may already have put the next request on this slot. */
        if (gen == bc->gen && (bc->state == BC_WRITING || bc->state == BC_READING) &&
            (ev & LOOP_READ))
            do_read(bc);
        break;
    case BC_READING:
        do_read(bc);
        break;
    case BC_RSTWAIT:
        if (rst_seen(bc)) fail(bc, BENCH_ERR_RESET, now); /* proven unread: sent again */
        break;
    case BC_IDLE: {
        /* An idle keep-alive connection became readable. TLS may just be handing us a session
         * ticket (RETRY); anything else (EOF, data nobody asked for, an error) means the
         * connection is not reusable: reconnect on next use. */
        size_t n = 0;
        if (conn_read(&bc->c, bc->w->rbuf, sizeof(bc->w->rbuf), &n) != LAT_IO_RETRY) bc_close(bc);
        break;
    }
    default:
        break;
    }
}

static void conn_kick(struct lat_loop *l, struct loop_timer *tm, lat_ns now)
{
    struct bconn *bc = tm->data;
    if (bc->state == BC_READING || bc->state == BC_WRITING) do_read(bc);
}

static void conn_timer(struct lat_loop *l, struct loop_timer *tm, lat_ns now)
{
    struct bconn *bc = tm->data;
    switch (bc->state) {
    case BC_CONNECTING:
        if (bc->busy) {
            fail(bc, BENCH_ERR_CONNECT, now);
        } else {
            bc_close(bc);
            reopen_done(bc, now);
        }
        break;
    case BC_WRITING:
    case BC_READING:
        if (bc->cancel_at && now >= bc->cancel_at && bc->w->mx) {
            cancel_req(bc, now); /* the transport resets the call's stream */
        } else if (bc->cancel_at && now >= bc->cancel_at && bc->state == BC_READING) {
            /* --cancel-after: the client gives up, after reading what has arrived (a
             * response already here completes: it was not cancelled) */
            bc->cancel_due = true;
            do_read(bc);
        } else if (bc->cancel_at && now >= bc->cancel_at) {
            cancel_req(bc, now);
        } else
            fail(bc, BENCH_ERR_TIMEOUT, now);
        break;
    case BC_BACKOFF:
        bc->state = BC_CLOSED;
        slot_free(bc, now);
        break;
    case BC_RSTWAIT: /* a reset proves it unread (sent again); none: the server read it */
        fail(bc, BENCH_ERR_RESET, now);
        break;
    default:
        break;
    }
}

/* ---- issuing ----------------------------------------------------------------------------- */

/* Claims the right to issue a request scheduled at t_sched; false when the point is over. */
static bool may_issue(struct worker *w, lat_ns t_sched, bool *measured)
{
    struct engine *e = w->e;
    if (w->issuing_done) return false;
    if (atomic_load_explicit(&e->stop_issuing, memory_order_relaxed) ||
        (e->end_issue != BENCH_NO_DEADLINE && t_sched >= e->end_issue) ||
        t_sched >= atomic_load_explicit(&e->issue_until, memory_order_relaxed)) {
        w->issuing_done = true;
        return false;
    }
    uint64_t k = atomic_fetch_add_explicit(&e->issued, 1, memory_order_relaxed);
    if (e->issue_limit && k >= e->issue_limit) {
        w->issuing_done = true;
        return false;
    }
    w->last_k = k;
    *measured = t_sched >= e->measure_start && k >= e->l->warmup_requests;
    return true;
}

/* Assigns a request scheduled at t_sched to bc and starts it. */
static void dispatch(struct bconn *bc, lat_ns t_sched, bool measured, lat_ns now)
{
    bc->busy = true;
    bc->gen++;
    bc->retried = false;
    bc->measured = measured;
    bc->t_sched = t_sched;
    if (measured) {
        struct worker *w = bc->w;
        if (t_sched < w->first_msched) w->first_msched = t_sched;
        if (t_sched > w->last_msched) w->last_msched = t_sched;
    }
    bc->t_send = 0;
    http1_resp_init(&bc->resp, bc->w->e->t->head, NULL, NULL);
    bc->w->inflight++;
    struct engine *e = bc->w->e;
    if (e->ep_inflight) atomic_fetch_add_explicit(&e->ep_inflight[bc->ep], 1, memory_order_relaxed);
    bc->cancel = e->cancel_on && bench_cancel_pick(e->l->seed, bc->w->last_k, e->o->cancel.share);
    if (bc->state == BC_IDLE)
        start_write(bc, now);
    else if (bc->state == BC_CLOSED)
        start_connect(bc, now);
    /* BC_CONNECTING: the write starts when the connect completes. */
}

static lat_ns next_arrival(struct worker *w);

/* The request on bc no longer occupies it (completed, failed, cancelled). */
static void slot_release(struct bconn *bc)
{
    struct worker *w = bc->w;
    if (bc->busy) {
        bc->busy = false;
        w->inflight--;
        if (w->e->ep_inflight)
            atomic_fetch_sub_explicit(&w->e->ep_inflight[bc->ep], 1, memory_order_relaxed);
    }
}

static void idle_push(struct bconn *bc)
{
    struct worker *w = bc->w;
    unsigned p = bc->ep;
    w->idle[p * w->share + w->pnidle[p]++] = (uint32_t)(bc - w->conns);
}

/* A free connection of endpoint p's pool: an idle one, else one not used yet; NULL when every
 * one is busy or backing off. */
static struct bconn *get_slot(struct worker *w, unsigned p)
{
    if (w->pnidle[p]) return &w->conns[w->idle[p * w->share + --w->pnidle[p]]];
    if (w->pn[p] < w->share) return &w->conns[p * w->share + w->pn[p]++];
    return NULL;
}

/* The endpoint of the next request (bench_ep_pick over the run-wide in-flight counts). */
static unsigned pick_ep(struct worker *w)
{
    struct engine *e = w->e;
    if (e->nep <= 1) return 0;
    unsigned cur[BENCH_MAX_ENDPOINTS];
    if (e->o->balance == BENCH_BALANCE_LEAST_INFLIGHT) {
        for (unsigned i = 0; i < e->nep; i++)
            cur[i] = atomic_load_explicit(&e->ep_inflight[i], memory_order_relaxed);
        return bench_ep_pick(BENCH_BALANCE_LEAST_INFLIGHT, cur, e->nep, &w->turn);
    }
    return bench_ep_pick(BENCH_BALANCE_ROUND_ROBIN, NULL, e->nep, &w->turn);
}

static void slot_free(struct bconn *bc, lat_ns now)
{
    struct worker *w = bc->w;
    slot_release(bc);
    if (bc->state == BC_BACKOFF) return; /* comes back through the timer */
    if (!w->e->open_loop) {
        bool measured;
        /* Closed loop: the slot is free now, so now is when the next request is due. */
        lat_ns t = clock_now_ns();
        const struct bench_target *tg = w->e->t;
        lat_ns think = tg->ops && tg->ops_think ? tg->ops_think(bc->cs) : 0;
        if (think > 0) {      /* --sessions: the user thinks; due at the timer's deadline */
            bc->prev_end = 0; /* an intended pause, not the client's gap */
            loop_timer_start(&w->loop, &bc->think, t + think);
            return;
        }
        if (!may_issue(w, t, &measured)) return;
        /* Least-inflight: the next request of this slot goes to the endpoint with the fewest
         * in flight, on a connection of that endpoint's pool. Not for a target whose
         * connections carry a user from request to request (--sessions: the conversation stays
         * on its connection, and so on its endpoint). */
        if (w->e->nep > 1 && w->e->o->balance == BENCH_BALANCE_LEAST_INFLIGHT && !tg->ops_think) {
            idle_push(bc);
            struct bconn *nb = get_slot(w, pick_ep(w));
            if (!nb) nb = get_slot(w, bc->ep);
            bc = nb;
        }
        dispatch(bc, t, measured, t);
        return;
    }
    idle_push(bc);
    if (w->blocked) pump(w, now);
}

static void conn_think(struct lat_loop *l, struct loop_timer *tm, lat_ns now)
{
    struct bconn *bc = tm->data;
    bool measured;
    if (!bc->busy && may_issue(bc->w, tm->deadline, &measured))
        dispatch(bc, tm->deadline, measured, clock_now_ns());
}

/* Open loop: sends every due arrival that can get a connection, then sleeps until the next. */
static void pump(struct worker *w, lat_ns now)
{
    w->blocked = false;
    while (!w->issuing_done) {
        if ((w->e->end_issue != BENCH_NO_DEADLINE && w->next_sched >= w->e->end_issue) ||
            w->next_sched >= atomic_load_explicit(&w->e->issue_until, memory_order_relaxed)) {
            /* The schedule is over: do not sleep until an arrival that will not be sent (at
             * low rates that idled up to a --timeout after --duration). */
            w->issuing_done = true;
            return;
        }
        if (w->next_sched > now) {
            now = clock_now_ns();
            if (w->next_sched > now) {
                loop_timer_start(&w->loop, &w->pace, w->next_sched);
                return;
            }
        }
        unsigned p = w->inflight < w->share ? pick_ep(w) : 0;
        struct bconn *bc = w->inflight < w->share ? get_slot(w, p) : NULL;
        if (!bc) {
            /* max_inflight reached: the arrival waits; its send lag counts. */
            w->blocked = true;
            w->cap_hits++;
            return;
        }
        bool measured;
        if (!may_issue(w, w->next_sched, &measured)) {
            idle_push(bc);
            return;
        }
        if (w->e->l->offsets && w->e->t->ops && w->e->t->ops_seq)
            w->e->t->ops_seq(bc->cs, w->trace_i);
        dispatch(bc, w->next_sched, measured, now);
        w->next_sched = next_arrival(w);
        if (w->next_sched == BENCH_NO_DEADLINE && w->e->l->offsets) {
            w->issuing_done = true; /* replay: the list is done */
            break;
        }
        if (w->pnidle[p] == 0 && w->pn[p] < w->share) {
            /* Keep one connected spare, so the next arrival does not pay for a handshake
             * inside its send lag. */
            struct bconn *spare = &w->conns[p * w->share + w->pn[p]++];
            start_connect(spare, now);
            idle_push(spare);
        }
    }
}

static void pace_timer(struct lat_loop *l, struct loop_timer *t, lat_ns now)
{
    pump(t->data, now);
}

static void loop_lag(void *ud, lat_ns lag)
{
    struct worker *w = ud;
    hist_record(&w->looplag, lag);
}

/* The arrival after next_sched: the generated schedule, or the replay list (BENCH_NO_DEADLINE
 * when the list is exhausted). */
static lat_ns next_arrival(struct worker *w)
{
    const struct bench_load *l = w->e->l;
    if (!l->offsets) return sched_next(&w->sched);
    w->trace_i += (size_t)w->e->nthreads * w->e->nshards;
    return w->trace_i < l->noffsets ? w->e->t0 + l->offsets[w->trace_i] : BENCH_NO_DEADLINE;
}

/* Counts arrivals scheduled before the end that were never sent (drain limit passed). */
static void count_unsent(struct worker *w)
{
    struct engine *e = w->e;
    if (!e->open_loop || w->issuing_done) return;
    uint64_t n = 0;
    while (w->next_sched < e->end_issue && n < 100000000) {
        if (w->next_sched >= e->measure_start) n++;
        w->next_sched = next_arrival(w);
    }
    w->errors[BENCH_ERR_TIMEOUT] += n;
    w->issuing_done = true;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct engine *e = w->e;
    w->cpu_start = thread_cpu_ns();
    w->wall_start = clock_now_ns();
    w->wait_start = w->loop.wait_ns;
    lat_ns now = clock_now_ns();

    /* Open the connections before t0 so the first requests do not pay for the handshake. */
    unsigned pre = e->open_loop ? (e->l->connections + e->nthreads - 1) / e->nthreads : w->share;
    if (pre > w->share) pre = w->share;
    bool pools = e->open_loop || (e->nep > 1 && e->o->balance == BENCH_BALANCE_LEAST_INFLIGHT);
    for (unsigned p = 0; p < e->nep; p++) {
        /* Open loop, least-inflight: every endpoint's pool gets its connections; a closed
         * round-robin loop: slot goff + i talks to endpoint (goff + i) mod N. */
        for (unsigned i = 0; i < pre; i++) {
            if (!pools && (w->goff + i) % e->nep != p) continue;
            struct bconn *bc = &w->conns[p * w->share + w->pn[p]++]; /* a fresh one */
            start_connect(bc, now);
            if (pools) idle_push(bc);
        }
    }
    while (clock_now_ns() < e->t0 && loop_run_once(&w->loop, (e->t0 - clock_now_ns())) >= 0)
        ;
    now = clock_now_ns();
    if (e->open_loop) {
        struct sched_spec spec = {.kind = e->l->arrival == BENCH_ARRIVAL_POISSON ? SCHED_POISSON
                                          : e->l->arrival == BENCH_ARRIVAL_GAMMA ? SCHED_GAMMA
                                                                                 : SCHED_CONSTANT,
                                  .gamma_k = e->l->gamma_shape};
        /* Slice shard + nshards * id of nshards * nthreads (bench_load.shard). */
        uint32_t first = shard_slice(e->shard, e->nshards, w->id);
        sched_init_slice(&w->sched, &spec, e->l->rate, e->l->seed, e->t0, first,
                         e->nshards * e->nthreads);
        if (e->l->offsets) {
            w->trace_i = first;
            w->next_sched =
                first < e->l->noffsets ? e->t0 + e->l->offsets[first] : BENCH_NO_DEADLINE;
            if (first >= e->l->noffsets) w->issuing_done = true;
        } else {
            w->next_sched = sched_next(&w->sched);
        }
        if (!w->issuing_done) pump(w, now);
    } else if (e->nep > 1 && e->o->balance == BENCH_BALANCE_LEAST_INFLIGHT) {
        for (unsigned i = 0; i < w->share; i++) {
            bool measured;
            if (!may_issue(w, e->t0, &measured)) break;
            unsigned p = pick_ep(w);
            struct bconn *bc = get_slot(w, p);
            if (!bc) break;
            dispatch(bc, e->t0, measured, now);
        }
    } else {
        bool stop_now = false;
        for (unsigned p = 0; p < e->nep && !stop_now; p++)
            for (unsigned i = 0; i < w->pn[p]; i++) {
                bool measured;
                if (!may_issue(w, e->t0, &measured)) {
                    stop_now = true;
                    break;
                }
                dispatch(&w->conns[p * w->share + i], e->t0, measured, now);
            }
    }
    lat_ns drain_limit = e->end_issue == BENCH_NO_DEADLINE
                             ? BENCH_NO_DEADLINE
                             : e->end_issue + e->o->request_timeout_ns;
    for (;;) {
        if (loop_run_once(&w->loop, 20 * LAT_NS_PER_MS) < 0) break;
        now = clock_now_ns();
        if (!w->issuing_done &&
            (atomic_load(&e->stop_issuing) ||
             (e->open_loop ? w->next_sched : now) >= atomic_load(&e->issue_until))) {
            w->issuing_done = true;
            loop_timer_stop(&w->loop, &w->pace);
        }
        if (e->open_loop && !w->issuing_done && now > drain_limit) count_unsent(w);
        if (!e->open_loop && !w->issuing_done &&
            ((e->end_issue != BENCH_NO_DEADLINE && now >= e->end_issue) ||
             (e->issue_limit && atomic_load(&e->issued) >= e->issue_limit)))
            w->issuing_done = true; /* no connection waiting on a think time need send more */
        if (w->issuing_done && w->inflight == 0) break;
        if (now >= atomic_load(&e->abort_at)) break; /* interrupted: in-flight not counted */
    }
    for (unsigned i = 0; i < w->cap; i++) {
        /* Interrupted: requests still in flight are neither successes nor the server's
         * errors; they are counted (and recorded) as interrupted, and end unmeasured for the
         * target's own statistics. */
        struct bconn *bc = &w->conns[i];
        lat_ns t = clock_now_ns();
        if (bc->busy && bc->measured) {
            w->interrupted++;
            if (e->o->keep_records && rec_room(w))
                w->rec[w->nrec++] = (struct bench_record){bc->t_sched,
                                                          bc->t_send,
                                                          bc->resp.t_first,
                                                          t,
                                                          0,
                                                          (int16_t)bc->resp.status,
                                                          BENCH_REC_INTERRUPTED,
                                                          (uint8_t)w->id};
        }
        bc->measured = false;
        ops_end(bc, BENCH_ERR_TIMEOUT, t);
        bc_close(bc);
    }
    if (w->mx) {
        e->t->mux->worker_free(w->mx);
        w->mx = NULL;
    }
    w->cpu_end = thread_cpu_ns();
    w->wall_end = clock_now_ns();
    atomic_store(&w->finished, true);
    return NULL;
}

/* ---- setup, driving, merging -------------------------------------------------------------- */

void bench_opts_default(struct bench_opts *o)
{
    memset(o, 0, sizeof(*o));
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = n > 0 ? (unsigned)n : 1;
    o->connect_timeout_ns = 3 * LAT_NS_PER_S;
    o->request_timeout_ns = 10 * LAT_NS_PER_S;
    o->window_ns = LAT_NS_PER_S;
    o->spin_ns = 20 * LAT_NS_PER_US;
    o->exact_cap = 100000;
    o->max_send_lag_p99_ms = 1.0;
    o->max_client_gap_p99_ms = 10.0;
    o->max_thread_busy_pct = 95.0;
    o->max_error_frac = 0.5;
}

void bench_load_finish(struct bench_load *l, const struct bench_opts *o)
{
    if (l->rate > 0) {
        if (!l->max_inflight) l->max_inflight = 1024;
        if (!l->connections) l->connections = 4 * o->threads;
        if (l->connections > l->max_inflight) l->connections = l->max_inflight;
        if (l->arrival == BENCH_ARRIVAL_GAMMA && !(l->gamma_shape > 0)) l->gamma_shape = 1.0;
    } else if (!l->concurrency) {
        l->concurrency = 1;
    }
}

static int hists_init(struct lat_hist *const *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = hist_init_default(h[i]);
        if (rc < 0) return rc;
    }
    return 0;
}

static void worker_fini(struct worker *w)
{
    if (!w->e) return; /* never initialized */
    if (w->mx) {       /* a worker that never ran */
        w->e->t->mux->worker_free(w->mx);
        w->mx = NULL;
    }
    if (w->conns) {
        for (unsigned i = 0; i < w->cap; i++) {
            conn_close(&w->conns[i].c);
            if (w->e && w->e->t->ops && w->conns[i].cs) w->e->t->ops->conn_free(w->conns[i].cs);
        }
    }
    free(w->conns);
    free(w->idle);
    free(w->pn);
    free(w->pnidle);
    if (w->eps)
        for (unsigned p = 0; p < w->e->nep; p++) {
            hist_fini(&w->eps[p].lat);
            hist_fini(&w->eps[p].first);
        }
    free(w->eps);
    hist_fini(&w->cancel_first);
    free(w->rec);
    loop_fini(&w->loop);
    hist_fini(&w->lat);
    hist_fini(&w->act);
    hist_fini(&w->lag);
    hist_fini(&w->looplag);
    hist_fini(&w->gap);
    hist_fini(&w->ttfb);
    hist_fini(&w->ivl_lat);
    hist_fini(&w->ivl_act);
    hist_fini(&w->ivl_lag);
    samples_fini(&w->exact);
    samples_fini(&w->exact_act);
    pthread_mutex_destroy(&w->ivl_lock);
}

static int worker_init(struct worker *w, struct engine *e, unsigned id, unsigned share,
                       unsigned goff)
{
    unsigned cap = share * e->nep; /* one pool of `share` per endpoint */
    w->e = e;
    w->id = id;
    w->share = share;
    w->cap = cap;
    w->goff = goff;
    w->turn = goff; /* the threads start their rotations at different endpoints */
    w->first_sched = w->first_msched = INT64_MAX;
    atomic_init(&w->finished, false);
    pthread_mutex_init(&w->ivl_lock, NULL);
    struct lat_hist *h[] = {&w->lat,     &w->act,     &w->lag,     &w->looplag,      &w->ttfb,
                            &w->ivl_lat, &w->ivl_act, &w->ivl_lag, &w->cancel_first, &w->gap};
    int rc = hists_init(h, sizeof(h) / sizeof(h[0]));
    if (rc < 0) return rc;
    w->pn = calloc(e->nep, sizeof(*w->pn));
    w->pnidle = calloc(e->nep, sizeof(*w->pnidle));
    if (!w->pn || !w->pnidle) return -ENOMEM;
    if (e->nep > 1) {
        w->eps = calloc(e->nep, sizeof(*w->eps));
        if (!w->eps) return -ENOMEM;
        for (unsigned p = 0; p < e->nep; p++)
            if ((rc = hist_init_default(&w->eps[p].lat)) < 0 ||
                (rc = hist_init_default(&w->eps[p].first)) < 0)
                return rc;
    }
    if (e->o->exact_cap) {
        if ((rc = samples_init(&w->exact, e->o->exact_cap)) < 0) return rc;
        if ((rc = samples_init(&w->exact_act, e->o->exact_cap)) < 0) return rc;
    }
    if ((rc = loop_init(&w->loop, 2 * cap + 4)) < 0) return rc;
    w->loop.spin_ns = e->open_loop ? e->o->spin_ns : 0;
    w->loop.lag_cb = loop_lag;
    w->loop.lag_ud = w;
    w->conns = calloc(cap ? cap : 1, sizeof(*w->conns));
    w->idle = calloc(cap ? cap : 1, sizeof(*w->idle));
    if (!w->conns || !w->idle) return -ENOMEM;
    for (unsigned i = 0; i < cap; i++) {
        struct bconn *bc = &w->conns[i];
        bc->w = w;
        bc->ep = (uint16_t)(share ? i / share : 0);
        conn_init(&bc->c, e->nep > 1 ? &e->t->eps[bc->ep] : &e->t->conn);
        bc->io = (struct loop_io){.fn = conn_io, .data = bc, .fd = -1};
        loop_timer_init(&bc->timer, conn_timer, bc);
        loop_timer_init(&bc->kick, conn_kick, bc);
        loop_timer_init(&bc->think, conn_think, bc);
        if (e->t->ops && !(bc->cs = e->t->ops->conn_new(e->t->ops_ud, id))) return -ENOMEM;
    }
    loop_timer_init(&w->pace, pace_timer, w);
    if (e->t->mux && !(w->mx = e->t->mux->worker_new(e->t->mux_ud, &w->loop, id, cap, mux_done)))
        return -ENOMEM;
    return 0;
}

static void collect_window(struct engine *e, struct lat_hist *lat, struct lat_hist *act,
                           struct lat_hist *lag, uint64_t *ok, uint64_t *err, uint64_t *inflight,
                           uint64_t *err_by)
{
    hist_reset(lat);
    hist_reset(act);
    hist_reset(lag);
    *ok = *err = *inflight = 0;
    for (unsigned i = 0; i < e->nthreads; i++) {
        struct worker *w = &e->workers[i];
        pthread_mutex_lock(&w->ivl_lock);
        hist_add(lat, &w->ivl_lat);
        hist_add(act, &w->ivl_act);
        hist_add(lag, &w->ivl_lag);
        hist_reset(&w->ivl_lat);
        hist_reset(&w->ivl_act);
        hist_reset(&w->ivl_lag);
        *ok += w->ivl_ok;
        *err += w->ivl_err;
        w->ivl_ok = w->ivl_err = 0;
        for (int c = 0; c < BENCH_ERR__COUNT; c++) {
            err_by[c] += w->ivl_err_by[c];
            w->ivl_err_by[c] = 0;
        }
        pthread_mutex_unlock(&w->ivl_lock);
        *inflight += w->inflight; /* racy read, for progress only */
    }
}

static size_t *kmp_table(const char *p, size_t n)
{
    size_t *f = calloc(n ? n : 1, sizeof(*f));
    if (!f) return NULL;
    for (size_t i = 1, k = 0; i < n; i++) {
        while (k && p[i] != p[k])
            k = f[k - 1];
        if (p[i] == p[k]) k++;
        f[i] = k;
    }
    return f;
}

static int result_init(struct bench_result *r)
{
    memset(r, 0, sizeof(*r));
    struct lat_hist *h[] = {&r->lat,  &r->lat_actual,   &r->send_lag,  &r->loop_lag,
                            &r->ttfb, &r->cancel_first, &r->client_gap};
    return hists_init(h, sizeof(h) / sizeof(h[0]));
}

void bench_result_fini(struct bench_result *r)
{
    hist_fini(&r->lat);
    hist_fini(&r->lat_actual);
    hist_fini(&r->send_lag);
    hist_fini(&r->loop_lag);
    hist_fini(&r->client_gap);
    hist_fini(&r->ttfb);
    hist_fini(&r->cancel_first);
    for (unsigned p = 0; r->eps && p < r->neps; p++) {
        hist_fini(&r->eps[p].lat);
        hist_fini(&r->eps[p].first);
    }
    free(r->eps);
    r->eps = NULL;
    r->neps = 0;
    samples_fini(&r->exact);
    samples_fini(&r->exact_actual);
    free(r->records);
    r->records = NULL;
}

static int merge(struct engine *e, struct bench_result *r)
{
    size_t nexact = 0, nrec = 0;
    bool exact_ok = e->o->exact_cap > 0;
    lat_ns first_msched = INT64_MAX, last_msched = 0;
    for (unsigned i = 0; i < e->nthreads; i++) {
        struct worker *w = &e->workers[i];
        hist_add(&r->lat, &w->lat);
        hist_add(&r->lat_actual, &w->act);
        hist_add(&r->send_lag, &w->lag);
        hist_add(&r->loop_lag, &w->looplag);
        hist_add(&r->client_gap, &w->gap);
        hist_add(&r->ttfb, &w->ttfb);
        r->ok += w->ok;
        r->bytes += w->bytes;
        r->inflight_cap_hits += w->cap_hits;
        r->interrupted_requests += w->interrupted;
        r->stale_retries += w->stale_retries;
        r->server_closes += w->server_closes;
        r->slow_connects += w->slow_connects;
        if (!r->connect_err) r->connect_err = w->connect_err;
        if (w->connect_max > r->connect_max_ns) r->connect_max_ns = w->connect_max;
        r->cancelled += w->cancelled;
        hist_add(&r->cancel_first, &w->cancel_first);
        if (w->first_msched < first_msched) first_msched = w->first_msched;
        if (w->last_msched > last_msched) last_msched = w->last_msched;
        for (int c = 0; c < BENCH_ERR__COUNT; c++)
            r->errors[c] += w->errors[c];
        if (w->first_sched < (r->t_first_sched ? r->t_first_sched : INT64_MAX))
            r->t_first_sched = w->first_sched;
        if (w->last_end > r->t_last_end) r->t_last_end = w->last_end;
        if (!w->exact.v || samples_overflowed(&w->exact)) exact_ok = false;
        nexact += w->exact.n;
        nrec += w->nrec;
        lat_ns wall = w->wall_end - w->wall_start;
        lat_ns waited = w->loop.wait_ns - w->wait_start;
        double busy = wall > 0 ? 100.0 * (double)(wall - waited) / (double)wall : 0;
        if (busy > r->max_thread_busy_pct) r->max_thread_busy_pct = busy;
    }
    for (int c = 0; c < BENCH_ERR__COUNT; c++)
        r->errors_total += r->errors[c];
    if (e->cancel_on) r->cancel = e->o->cancel;
    if (e->nep > 1) {
        /* One line per endpoint, summed over the threads (bench/endpoints.h). */
        r->eps = calloc(e->nep, sizeof(*r->eps));
        if (!r->eps) return -ENOMEM;
        r->neps = e->nep;
        r->ep_urls = e->t->ep_urls;
        r->ep_first_token = e->t->ops && e->t->ops->progress;
        r->balance = e->o->balance;
        for (unsigned p = 0; p < e->nep; p++) {
            struct bench_ep_stats *x = &r->eps[p];
            int rc = hist_init_default(&x->lat);
            if (rc == 0) rc = hist_init_default(&x->first);
            if (rc < 0) return rc;
            for (unsigned i = 0; i < e->nthreads; i++) {
                const struct bench_ep_stats *y = &e->workers[i].eps[p];
                x->ok += y->ok;
                x->cancelled += y->cancelled;
                x->bytes += y->bytes;
                for (int c = 0; c < BENCH_ERR__COUNT; c++)
                    x->errors[c] += y->errors[c];
                hist_add(&x->lat, &y->lat);
                hist_add(&x->first, &y->first);
            }
            for (int c = 0; c < BENCH_ERR__COUNT; c++)
                x->errors_total += x->errors[c];
        }
    }
    if (exact_ok && nexact) {
        int rc = samples_init(&r->exact, nexact);
        if (rc == 0) rc = samples_init(&r->exact_actual, nexact);
        if (rc < 0) return rc;
        for (unsigned i = 0; i < e->nthreads; i++) {
            samples_append(&r->exact, &e->workers[i].exact);
            samples_append(&r->exact_actual, &e->workers[i].exact_act);
        }
        r->have_exact = true;
    }
    if (nrec) {
        r->records = malloc(nrec * sizeof(*r->records));
        if (!r->records) return -ENOMEM;
        for (unsigned i = 0; i < e->nthreads; i++) {
            memcpy(r->records + r->nrecords, e->workers[i].rec,
                   e->workers[i].nrec * sizeof(*r->records));
            r->nrecords += e->workers[i].nrec;
        }
    }
    if (r->t_first_sched == INT64_MAX) r->t_first_sched = 0;
    if (e->open_loop && first_msched != INT64_MAX) {
        /* The schedule's duration (bench.h): from the start of the measured schedule to its
         * end: --duration, or the first arrival not sent when the point ended early. */
        lat_ns start = e->l->warmup_requests ? first_msched : e->measure_start;
        if (first_msched < start) start = first_msched;
        lat_ns gap = (lat_ns)(1e9 * e->nshards / e->l->rate);
        bool by_count = e->issue_limit && atomic_load(&e->issued) >= e->issue_limit;
        lat_ns end = e->end_issue;
        if (end == BENCH_NO_DEADLINE || by_count || r->interrupted || r->stopped_by_rule) {
            /* Ended early: the schedule ran up to its first arrival that was not sent. */
            for (unsigned i = 0; i < e->nthreads; i++)
                if (e->workers[i].next_sched < end) end = e->workers[i].next_sched;
        }
        if (end <= last_msched) end = last_msched + gap;
        if (end > start) r->duration_s = (double)(end - start) / 1e9;
        if (r->duration_s > 0) r->achieved_rps = (double)r->ok / r->duration_s;
        r->window_start_ns = start;
        r->have_window = true;
    } else if ((r->ok || r->cancelled) && r->t_last_end > r->t_first_sched) {
        r->window_start_ns = r->t_first_sched;
        r->have_window = true;
        r->duration_s = (double)(r->t_last_end - r->t_first_sched) / 1e9;
        r->achieved_rps = (double)r->ok / r->duration_s;
    }
    return 0;
}

/* This host's TcpExt ListenOverflows and ListenDrops (/proc/net/netstat); false when
 * unreadable. */
static bool listen_counters(int64_t *ovf, int64_t *drops)
{
    FILE *f = fopen("/proc/net/netstat", "r");
    if (!f) return false;
    char names[8192], vals[8192];
    bool ok = false;
    *ovf = *drops = -1;
    while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
        if (strncmp(names, "TcpExt:", 7) || strncmp(vals, "TcpExt:", 7)) continue;
        char *sn, *sv;
        char *n = strtok_r(names + 7, " \n", &sn), *v = strtok_r(vals + 7, " \n", &sv);
        while (n && v) {
            if (!strcmp(n, "ListenOverflows")) *ovf = strtoll(v, NULL, 10);
            if (!strcmp(n, "ListenDrops")) *drops = strtoll(v, NULL, 10);
            n = strtok_r(NULL, " \n", &sn);
            v = strtok_r(NULL, " \n", &sv);
        }
        ok = *ovf >= 0 && *drops >= 0;
        break;
    }
    fclose(f);
    return ok;
}

/* A server on this host (loopback): its listen queue's overflows are in this host's counters. */
static bool target_is_loopback(const struct conn_target *c)
{
    if (c->addr.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&c->addr;
        return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    }
    if (c->addr.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&c->addr;
        if (IN6_IS_ADDR_LOOPBACK(&a->sin6_addr)) return true;
        return IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && a->sin6_addr.s6_addr[12] == 127;
    }
    return false;
}

void bench_result_judge(struct bench_result *r, const struct bench_load *l,
                        const struct bench_opts *o)
{
    r->valid = true;
    r->invalid_client = false;
    r->invalid_send_lag = false;
    r->invalid_reason[0] = '\0';
    double lag99 = (double)hist_value_at_percentile(&r->send_lag, 99.0) / 1e6;
    uint64_t total = r->ok + r->errors_total;
    double max_err = o->max_error_frac > 0 ? o->max_error_frac : 0.5;
    if (r->errors[BENCH_ERR_CLIENT_FD]) {
        struct rlimit rl = {0};
        getrlimit(RLIMIT_NOFILE, &rl);
        r->valid = false;
        r->invalid_client = true;
        char hard[32];
        if (rl.rlim_max == RLIM_INFINITY)
            snprintf(hard, sizeof(hard), "unlimited");
        else
            snprintf(hard, sizeof(hard), "%llu", (unsigned long long)rl.rlim_max);
        snprintf(r->invalid_reason, sizeof(r->invalid_reason),
                 "the client ran out of file descriptors (%llu requests could not open a "
                 "socket: EMFILE/ENFILE; open-file limit %llu, hard %s): raise it with "
                 "'ulimit -n N' or lower --concurrency/--max-inflight",
                 (unsigned long long)r->errors[BENCH_ERR_CLIENT_FD],
                 (unsigned long long)rl.rlim_cur, hard);
    } else if (r->ok == 0 && !(r->cancelled && !r->errors_total)) {
        /* (every request cancelled, none failed: --cancel-share 1 is what was asked) */
        r->valid = false;
        snprintf(r->invalid_reason, sizeof(r->invalid_reason),
                 "no request completed successfully (%llu errors)",
                 (unsigned long long)r->errors_total);
    } else if ((double)r->errors_total > max_err * (double)total) {
        r->valid = false;
        snprintf(r->invalid_reason, sizeof(r->invalid_reason),
                 "most requests failed: %llu of %llu (more than %.0f %%)",
                 (unsigned long long)r->errors_total, (unsigned long long)total, 100.0 * max_err);
    } else if (l->rate > 0 && lag99 > o->max_send_lag_p99_ms &&
               (r->slow_connects || r->listen_overflows > 0 || r->listen_drops > 0)) {
        /* Issue 31: the lag came from connects the server's full listen backlog held up
         * (SYNs dropped, retransmitted after 1 s), not from the client's schedule. */
        r->valid = false;
        r->invalid_client = false;
        char ovf[96] = "";
        if (r->listen_overflows >= 0)
            snprintf(ovf, sizeof(ovf), "; this host's ListenOverflows +%lld, ListenDrops +%lld",
                     (long long)r->listen_overflows, (long long)r->listen_drops);
        snprintf(r->invalid_reason, sizeof(r->invalid_reason),
                 "send-lag p99 %.3f ms > %.3g ms: the server's listen backlog overflowed (%llu "
                 "connects over %.1f s, the slowest %.3f s: SYN retransmits%s); the server "
                 "does not accept connections fast enough (raise its backlog)",
                 lag99, o->max_send_lag_p99_ms, (unsigned long long)r->slow_connects,
                 (double)BENCH_SLOW_CONNECT_NS / 1e9, (double)r->connect_max_ns / 1e9, ovf);
    } else if (l->rate > 0 && lag99 > o->max_send_lag_p99_ms) {
        r->valid = false;
        /* With max-inflight reached the lag is the server's queue, not the client's. */
        r->invalid_client = !r->inflight_cap_hits;
        r->invalid_send_lag = !r->inflight_cap_hits;
        snprintf(r->invalid_reason, sizeof(r->invalid_reason),
                 "send-lag p99 %.3f ms > %.3g ms: the client did not keep the schedule%s", lag99,
                 o->max_send_lag_p99_ms,
                 r->inflight_cap_hits ? " (max-inflight reached: the server is saturated)" : "");
    } else if (l->rate <= 0 && hist_count(&r->client_gap) >= BENCH_CLIENT_GAP_MIN_N &&
               (double)hist_value_at_percentile(&r->client_gap, 99.0) / 1e6 >
                   o->max_client_gap_p99_ms) {
        /* Closed loop: the client's own time from a response to the next request on the same
         * connection (the server idle meanwhile) holds the load below its concurrency. */
        r->valid = false;
        r->invalid_client = true;
        snprintf(r->invalid_reason, sizeof(r->invalid_reason),
                 "client gap p99 %.3f ms > %.3g ms: the client took that long from a response "
                 "to the next request on the same connection (the server was idle meanwhile); "
                 "add --threads or lower the load",
                 (double)hist_value_at_percentile(&r->client_gap, 99.0) / 1e6,
                 o->max_client_gap_p99_ms);
    } else if (r->max_thread_busy_pct > o->max_thread_busy_pct) {
        r->valid = false;
        r->invalid_client = true;
        snprintf(r->invalid_reason, sizeof(r->invalid_reason),
                 "a worker thread was busy %.0f %% of the time (> %.0f %%): the client is "
                 "saturated; add --threads or lower the load",
                 r->max_thread_busy_pct, o->max_thread_busy_pct);
    } else if (r->interrupted) {
        r->valid = false;
        snprintf(r->invalid_reason, sizeof(r->invalid_reason), "interrupted");
    }
}

int bench_run_point(const struct bench_target *t, const struct bench_load *l,
                    const struct bench_opts *o, const struct bench_hooks *hooks,
                    volatile sig_atomic_t *stop, struct bench_result *res)
{
    struct engine e = {.t = t, .l = l, .o = o};
    int rc = result_init(res);
    if (rc < 0) return rc;
    e.open_loop = l->rate > 0;
    unsigned nthreads = o->threads ? o->threads : 1;
    if (nthreads > BENCH_MAX_THREADS) nthreads = BENCH_MAX_THREADS;
    unsigned total_conns = e.open_loop ? l->max_inflight : l->concurrency;
    if (!total_conns) return LAT_E_USAGE;
    e.nep = t->neps > 1 && t->eps ? t->neps : 1;
    if (e.nep > BENCH_MAX_ENDPOINTS) return LAT_E_USAGE;
    _Atomic unsigned ep_inflight[BENCH_MAX_ENDPOINTS];
    for (unsigned i = 0; i < e.nep; i++)
        atomic_init(&ep_inflight[i], 0);
    if (e.nep > 1) e.ep_inflight = ep_inflight;
    e.cancel_on = (o->cancel.after_ns > 0 || o->cancel.after_tokens > 0) && o->cancel.share > 0;
    if (nthreads > total_conns) nthreads = total_conns;
    e.nthreads = nthreads;
    e.nshards = l->nshards > 1 ? l->nshards : 1;
    e.shard = l->nshards > 1 ? l->shard : 0;
    if (e.shard >= e.nshards) return LAT_E_USAGE;
    e.issue_limit = l->requests ? l->requests + l->warmup_requests : 0;
    atomic_init(&e.issued, 0);
    atomic_init(&e.stop_issuing, false);
    atomic_init(&e.issue_until, BENCH_NO_DEADLINE);
    atomic_init(&e.abort_at, BENCH_NO_DEADLINE);
    if (t->expect_body && t->expect_body_len) {
        e.kmp = kmp_table(t->expect_body, t->expect_body_len);
        if (!e.kmp) return -ENOMEM;
    }
    e.workers = calloc(nthreads, sizeof(*e.workers));
    if (!e.workers) {
        free(e.kmp);
        return -ENOMEM;
    }
    unsigned goff = 0;
    for (unsigned i = 0; i < nthreads && rc == 0; i++) {
        unsigned share = total_conns / nthreads + (i < total_conns % nthreads);
        rc = worker_init(&e.workers[i], &e, i, share, goff);
        goff += share;
        if (rc == 0 && o->keep_records) {
            uint64_t want = l->requests ? l->requests / nthreads + 1 : 4096;
            if (!l->requests && l->rate > 0 && l->duration_ns)
                want =
                    (uint64_t)(l->rate * (double)l->duration_ns / 1e9) / nthreads / e.nshards + 16;
            if (want > (1u << 24)) want = 1u << 24;
            e.workers[i].rec = malloc(want * sizeof(struct bench_record));
            e.workers[i].caprec = e.workers[i].rec ? want : 0;
        }
    }
    if (rc < 0) goto out;

    e.t0 = clock_now_ns() + BENCH_START_DELAY;
    if (l->start_at_ns > e.t0) e.t0 = l->start_at_ns;
    res->t0_ns = e.t0;
    res->t0_unix_ns = clock_realtime_ns() - clock_now_ns() + e.t0;
    e.measure_start = e.t0 + l->warmup_ns;
    e.end_issue = l->duration_ns ? e.measure_start + l->duration_ns : BENCH_NO_DEADLINE;
    if (!l->duration_ns && !l->requests) e.end_issue = e.measure_start + 10 * LAT_NS_PER_S;

    /* Workers must not take SIGINT: the caller's handler runs on this thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int64_t ovf0 = -1, drops0 = -1;
    bool local = target_is_loopback(&t->conn) && listen_counters(&ovf0, &drops0);
    lat_ns cpu0 = clock_cpu_ns(), wall0 = clock_now_ns();
    for (unsigned i = 0; i < nthreads; i++) {
        if (pthread_create(&e.workers[i].th, NULL, worker_main, &e.workers[i]) != 0) {
            rc = -EAGAIN;
            atomic_store(&e.stop_issuing, true);
            atomic_store(&e.abort_at, 0);
            break;
        }
        e.workers[i].started = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    struct lat_hist wl = {0}, wa = {0}, wg = {0};
    struct lat_hist *wh[] = {&wl, &wa, &wg};
    bool have_windows = hists_init(wh, 3) == 0;
    lat_ns win_start = e.t0, next_win = e.t0 + o->window_ns;
    bool aborting = false;
    for (;;) {
        bool all_done = true;
        for (unsigned i = 0; i < nthreads; i++)
            if (e.workers[i].started && !atomic_load(&e.workers[i].finished)) all_done = false;
        lat_ns now = clock_now_ns();
        if (have_windows && (now >= next_win || all_done) &&
            (now > win_start || (all_done && hooks && hooks->always_last))) {
            struct bench_window bw = {.t_start = win_start, .t_end = now, .last = all_done};
            collect_window(&e, &wl, &wa, &wg, &bw.ok, &bw.errors, &bw.inflight, bw.errors_by);
            bw.lat = &wl;
            bw.lat_actual = &wa;
            bw.send_lag = &wg;
            if (hooks && hooks->window && hooks->window(hooks->ud, &bw) &&
                !atomic_load(&e.stop_issuing) && atomic_load(&e.issue_until) == BENCH_NO_DEADLINE) {
                res->stopped_by_rule = true;
                atomic_store(&e.issue_until, clock_now_ns());
            }
            win_start = now;
            next_win = now + o->window_ns;
        }
        if (all_done) break;
        if (stop && *stop && !aborting) {
            aborting = true;
            res->interrupted = true;
            atomic_store(&e.stop_issuing, true);
            lat_ns grace = o->request_timeout_ns < BENCH_ABORT_GRACE ? o->request_timeout_ns
                                                                     : BENCH_ABORT_GRACE;
            atomic_store(&e.abort_at, now + grace);
        }
        if (stop && *stop > 1) atomic_store(&e.abort_at, 0); /* second Ctrl-C: now */
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (unsigned i = 0; i < nthreads; i++)
        if (e.workers[i].started) pthread_join(e.workers[i].th, NULL);
    lat_ns cpu1 = clock_cpu_ns(), wall1 = clock_now_ns();
    for (size_t i = 0; i < 3; i++)
        hist_fini(wh[i]);
    if (rc == 0) rc = merge(&e, res);
    int64_t ovf1, drops1;
    res->listen_overflows = res->listen_drops = -1;
    if (local && listen_counters(&ovf1, &drops1)) {
        res->listen_overflows = ovf1 - ovf0;
        res->listen_drops = drops1 - drops0;
    }
    res->client_cpu_pct =
        wall1 > wall0 ? 100.0 * (double)(cpu1 - cpu0) / (double)(wall1 - wall0) : 0;
    res->offered_rps = l->rate / e.nshards;
    bench_result_judge(res, l, o);
out:
    for (unsigned i = 0; i < nthreads; i++)
        worker_fini(&e.workers[i]);
    free(e.workers);
    free(e.kmp);
    return rc;
}
