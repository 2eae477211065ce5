/*
 * test-cpuprof.c - unit tests of the CPU sampler: perf ring reading with wrap-around, sample
 * record decoding, ELF / perf-map / kallsyms symbol tables, stack interning, folded output,
 * the SVG writer, the CPython line-table decoder, and one live capture of a forked child that
 * spins in two known functions (skipped when perf_event_open is not permitted here).
 */
#include "test.h"

#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cpu/perfring.h"
#include "capture/cpu/pyread.h"
#include "capture/cpu/stacks.h"
#include "capture/cpu/symtab.h"
#include "capture/cpuprof.h"
#include "core/err.h"
#include "model/events.h"

TEST(cpuprof_ring_wraparound)
{
    /* A 64-byte data area holding a 24-byte record that starts 16 bytes before the end. */
    uint8_t data[64], out[128];
    memset(data, 0xee, sizeof(data));
    uint8_t rec[24];
    struct perf_event_header h = {PERF_RECORD_LOST, 0, sizeof(rec)};
    memcpy(rec, &h, sizeof(h));
    for (int i = 8; i < 24; i++)
        rec[i] = (uint8_t)i;
    uint64_t tail = 64 + 48, head = tail + 24;
    memcpy(data + 48, rec, 16);
    memcpy(data, rec + 16, 8);
    int n = perfring_read_at(data, sizeof(data), &tail, head, out, sizeof(out));
    ASSERT_EQ_I64(n, 24);
    ASSERT_MEM_EQ(out, rec, 24);
    ASSERT_EQ_U64(tail, head);
    ASSERT_EQ_I64(perfring_read_at(data, sizeof(data), &tail, head, out, sizeof(out)), 0);
    /* A header claiming more than was written is corrupt: skipped to head, not read past. */
    h.size = 40;
    memcpy(data + 48, &h, sizeof(h));
    tail = 64 + 48;
    ASSERT_EQ_I64(perfring_read_at(data, sizeof(data), &tail, head, out, sizeof(out)),
                  LAT_E_TRUNCATED);
    ASSERT_EQ_U64(tail, head);
}

static size_t put64(uint8_t *b, size_t o, uint64_t v)
{
    memcpy(b + o, &v, 8);
    return o + 8;
}

TEST(cpuprof_parse_sample)
{
    uint8_t b[512];
    uint64_t st = PERF_SAMPLE_FMT | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    uint64_t mask = (1u << 6) | (1u << 7) | (1u << 8); /* BP SP IP */
    size_t o = 8;
    o = put64(b, o, 77);                      /* identifier */
    o = put64(b, o, 0x401000);                /* ip */
    o = put64(b, o, (uint64_t)12 << 32 | 11); /* pid 11 tid 12 */
    o = put64(b, o, 123456789);               /* time */
    o = put64(b, o, 1);                       /* cpu */
    o = put64(b, o, 10101010);                /* period */
    o = put64(b, o, 3);                       /* callchain nr */
    o = put64(b, o, (uint64_t)PERF_CONTEXT_USER);
    o = put64(b, o, 0x401000);
    o = put64(b, o, 0x402000);
    o = put64(b, o, PERF_SAMPLE_REGS_ABI_64);
    o = put64(b, o, 0xb0);
    o = put64(b, o, 0x5000);
    o = put64(b, o, 0x401000);
    o = put64(b, o, 16); /* stack size */
    memset(b + o, 0xab, 16);
    o += 16;
    o = put64(b, o, 12); /* dyn size */
    struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)o};
    memcpy(b, &h, sizeof(h));
    struct perf_sample s;
    ASSERT_RC(perf_parse_sample(b, o, st, mask, &s));
    ASSERT_EQ_U64(s.id, 77);
    ASSERT_EQ_U64(s.pid, 11);
    ASSERT_EQ_U64(s.tid, 12);
    ASSERT_EQ_U64(s.time, 123456789);
    ASSERT_EQ_U64(s.cpu, 1);
    ASSERT_EQ_U64(s.nr, 3);
    ASSERT_EQ_U64(s.ips[2], 0x402000);
    ASSERT_EQ_U64(s.regs[6], 0xb0);
    ASSERT_EQ_U64(s.regs[7], 0x5000);
    ASSERT_EQ_U64(s.regs[8], 0x401000);
    ASSERT_EQ_U64(s.stack_size, 12);
    /* Every truncation is caught, never read past the end. */
    for (size_t cut = 0; cut < o; cut++)
        if (perf_parse_sample(b, cut, st, mask, &s) == 0 && cut < o - 8)
            FAIL("record cut at %zu parsed", cut);
    /* A callchain count beyond the record. */
    put64(b, 56, 1000);
    ASSERT_EQ_I64(perf_parse_sample(b, o, st, mask, &s), LAT_E_TRUNCATED);
}

__attribute__((noinline)) int cpuprof_test_marker_fn(int x);
__attribute__((noinline)) int cpuprof_test_marker_fn(int x)
{
    return x * 3 + 1;
}

TEST(cpuprof_symtab_elf_self)
{
    struct symtab *t;
    int rc = symtab_load_elf("/proc/self/exe", &t);
    ASSERT_RC(rc);
    ASSERT(t->n > 100);
    ASSERT(t->nsegs >= 1);
    ASSERT(t->build_id_len == 20 || t->build_id_len == 0);
    /* Runtime address -> file offset via /proc/self/maps -> link-time address -> name. */
    FILE *f = fopen("/proc/self/maps", "r");
    ASSERT(f);
    char line[512];
    uint64_t addr = (uint64_t)(uintptr_t)&cpuprof_test_marker_fn, vaddr = 0;
    bool found = false;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long s, e, off;
        if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &off) != 3) continue;
        if (addr >= s && addr < e) {
            ASSERT(symtab_off_to_vaddr(t, addr - s + off, &vaddr));
            found = true;
        }
    }
    fclose(f);
    ASSERT(found);
    uint64_t off = 99;
    ASSERT_EQ_STR(symtab_lookup(t, vaddr + 2, &off), "cpuprof_test_marker_fn");
    ASSERT_EQ_U64(off, 2);
    ASSERT(symtab_lookup(t, 1, NULL) == NULL);
    symtab_free(t);
    ASSERT_EQ_I64(symtab_load_elf_mem("not an elf file", 15, &t), LAT_E_UNSUPPORTED);
}

/* The built-in ELF reader on a real image cut short and with hostile header fields: an error
 * or fewer symbols, never a read outside the buffer (ASan builds check that). */
TEST(cpuprof_symtab_elf_hostile)
{
    char *img;
    size_t len;
    ASSERT_RC(symtab_read_file("/proc/self/exe", 256u << 20, &img, &len));
    struct symtab *t;
    ASSERT_RC(symtab_load_elf_mem(img, len, &t));
    size_t full = t->n;
    ASSERT(full > 100);
    symtab_free(t);
    size_t cuts[] = {4, 63, 64, 65, 200, len / 3, len / 2, len - 1};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        char *c = malloc(cuts[i]);
        ASSERT(c);
        memcpy(c, img, cuts[i]);
        int rc = symtab_load_elf_mem(c, cuts[i], &t);
        /* The section headers sit at the end: a cut image has none to read. */
        if (rc == 0) {
            ASSERT(t->n < full);
            symtab_free(t);
        }
        free(c);
    }
    /* e_shnum far beyond the image, a section header offset past the end. */
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof(eh));
    Elf64_Ehdr bad = eh;
    bad.e_shnum = 0xffff;
    memcpy(img, &bad, sizeof(bad));
    ASSERT_EQ_I64(symtab_load_elf_mem(img, len, &t), LAT_E_TRUNCATED);
    bad = eh;
    bad.e_shoff = UINT64_MAX - 8;
    memcpy(img, &bad, sizeof(bad));
    ASSERT_EQ_I64(symtab_load_elf_mem(img, len, &t), LAT_E_TRUNCATED);
    free(img);
}

TEST(cpuprof_symtab_perfmap_kallsyms)
{
    const char map[] = "7f0000001000 40 py::hot_loop:/x/y.py\n"
                       "bogus line\n"
                       "0x7f0000002000 0x10 jit;fn with spaces\r\n"
                       "7f0000003000 0 zero_size_dropped\n"
                       "ffffffffffffffff 10 wraps\n";
    struct symtab *t;
    ASSERT_RC(symtab_parse_perfmap(map, sizeof(map) - 1, &t));
    ASSERT_EQ_U64(t->n, 2);
    ASSERT_EQ_STR(symtab_lookup(t, 0x7f0000001010, NULL), "py::hot_loop:/x/y.py");
    ASSERT_EQ_STR(symtab_lookup(t, 0x7f0000002004, NULL), "jit:fn with spaces");
    ASSERT(symtab_lookup(t, 0x7f0000001040, NULL) == NULL);
    symtab_free(t);
    const char ks[] = "ffffffff81000000 T _stext\n"
                      "ffffffff81000100 t do_thing\t[mod]\n"
                      "ffffffff81000200 D data_sym\n"
                      "ffffffff81000300 W weak_fn\n";
    ASSERT_RC(symtab_parse_kallsyms(ks, sizeof(ks) - 1, &t));
    ASSERT_EQ_U64(t->n, 3);
    ASSERT_EQ_STR(symtab_lookup(t, 0xffffffff81000150, NULL), "do_thing");
    ASSERT_EQ_STR(symtab_lookup(t, 0xffffffff81000250, NULL), "do_thing");
    symtab_free(t);
    const char zero[] = "0000000000000000 T _stext\n";
    ASSERT_RC(symtab_parse_kallsyms(zero, sizeof(zero) - 1, &t));
    ASSERT_EQ_U64(t->n, 0);
    symtab_free(t);
}

static uint32_t fr(struct stackset *s, const char *n)
{
    uint32_t id;
    if (stackset_frame(s, n, strlen(n), &id)) FAIL("frame");
    return id;
}

TEST(cpuprof_stacks_folded_svg)
{
    struct stackset s;
    stackset_init(&s);
    uint32_t a = fr(&s, "main"), b = fr(&s, "hot<T>&"), c = fr(&s, "semi;colon"),
             k = fr(&s, "sys_read_[k]");
    ASSERT_EQ_I64(fr(&s, "main"), a);
    uint32_t st1[] = {a, b}, st2[] = {a, c, k}, st3[] = {a};
    uint32_t i1, i2, i3, again;
    ASSERT_RC(stackset_intern(&s, st1, 2, &i1));
    ASSERT_RC(stackset_intern(&s, st2, 3, &i2));
    ASSERT_RC(stackset_intern(&s, st3, 1, &i3));
    ASSERT_RC(stackset_intern(&s, st1, 2, &again));
    ASSERT_EQ_I64(again, i1);
    s.stacks[i1].count = 6;
    s.stacks[i2].count = 3;
    s.stacks[i3].count = 1;
    /* Many distinct stacks force rehashing of both tables. */
    for (int i = 0; i < 3000; i++) {
        char nm[32];
        snprintf(nm, sizeof(nm), "f%d", i);
        uint32_t x[] = {a, fr(&s, nm)}, id;
        ASSERT_RC(stackset_intern(&s, x, 2, &id));
    }
    ASSERT_RC(stackset_intern(&s, st2, 3, &again));
    ASSERT_EQ_I64(again, i2);
    char buf[256];
    stackset_join(&s, i2, buf, sizeof(buf));
    ASSERT_EQ_STR(buf, "main;semi:colon;sys_read_[k]");
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ASSERT_RC(stackset_write_folded(&s, f));
    fclose(f);
    ASSERT_EQ_STR(out, "main 1\nmain;hot<T>& 6\nmain;semi:colon;sys_read_[k] 3\n");
    free(out);
    f = open_memstream(&out, &len);
    ASSERT_RC(stackset_write_svg(&s, f, "t<itle>"));
    fclose(f);
    ASSERT(strstr(out, "<svg"));
    ASSERT(strstr(out, "</svg>\n"));
    ASSERT(strstr(out, "t&lt;itle&gt;"));
    ASSERT(strstr(out, "<title>hot&lt;T&gt;&amp; (6 samples, 60.00%)</title>"));
    ASSERT(strstr(out, "<title>all (10 samples, 100.00%)</title>"));
    ASSERT(!strstr(out, "hot<T>"));
    /* "main" spans all 10 samples: the full width below "all". */
    ASSERT(strstr(out, "<title>main (10 samples, 100.00%)</title>"));
    free(out);
    stackset_fini(&s);
}

TEST(cpuprof_py_linetable)
{
    /* Hand-made 3.11+ location table, first line 10 (Objects/locations.md). */
    const uint8_t t[] = {
        0x80 | 13 << 3 | 1, 2,          /* no-column form, +1, 2 units: line 11 */
        0x80 | 10 << 3 | 0, 4, 8,       /* one-line form, +0, 1 unit: 11 */
        0x80 | 11 << 3 | 2, 0, 4,       /* one-line form, +1, 3 units: 12 */
        0x80 | 15 << 3 | 0,             /* no location, 1 unit */
        0x80 | 14 << 3 | 0, 3, 0, 1, 2, /* long form, -1, 1 unit: 11 */
        0x80 | 3 << 3 | 1,  5,          /* short form, 2 units: 11 */
    };
    int want[] = {11, 11, 11, 12, 12, 12, -1, 11, 11, 11, -1};
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (pyread_line(t, sizeof(t), 10, i) != want[i])
            FAIL("index %u: line %d, want %d", i, pyread_line(t, sizeof(t), 10, i), want[i]);
    ASSERT_EQ_I64(pyread_line((const uint8_t *)"\x01", 1, 10, 0), -1);
    ASSERT(pyread_offsets(11) && pyread_offsets(12) && pyread_offsets(13));
    ASSERT(!pyread_offsets(10) && !pyread_offsets(14));
}

__attribute__((noinline)) static void cpuprof_test_spin(long n)
{
    for (volatile long i = 0; i < n; i++) {
    }
}

/* Both call the same loop (alignment-independent costs); the barrier prevents tail calls. */
__attribute__((noinline)) static void cpuprof_test_spin_big(void)
{
    cpuprof_test_spin(30000);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void cpuprof_test_spin_small(void)
{
    cpuprof_test_spin(10000);
    __asm__ volatile("" ::: "memory");
}

TEST_TIMEOUT(cpuprof_live_attach, 60)
{
    /* The work is sized to ~1 s of this machine's CPU, measured here: a loaded or slow VM
     * runs the volatile loop 10x slower than a quiet one (100 000 fixed rounds took over the
     * 60 s timeout there). Between 2 000 and 100 000 rounds. */
    long rounds = 100000;
    {
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        for (int i = 0; i < 200; i++) {
            cpuprof_test_spin_big();
            cpuprof_test_spin_small();
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        double s200 = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        if (s200 > 0) rounds = (long)(200.0 / s200);
        if (rounds < 2000) rounds = 2000;
        if (rounds > 100000) rounds = 100000;
    }
    int go[2];
    ASSERT(pipe(go) == 0);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1) _exit(2);
        /* A fixed amount of work, not of time: cpu-clock samples follow the CPU time the
         * child gets, so the count does not depend on how loaded the machine is. Each round
         * (~40 us) is much shorter than the 2 ms sampling period, so samples do not alias onto
         * one phase of the round (with ~4 ms rounds the big share drifted to 0.6 under load). */
        for (long i = 0; i < rounds; i++) {
            cpuprof_test_spin_big();
            cpuprof_test_spin_small();
        }
        _exit(0);
    }
    close(go[0]);
    struct cpuprof_opts o = {.freq_hz = 499,
                             .kernel_stacks = true,
                             .offcpu = true,
                             .python = false,
                             .follow_children = true};
    struct cpuprof *p;
    int rc = cpuprof_start(pid, false, &o, &p);
    if (rc == -EACCES || rc == -EPERM || rc == -ENOSYS || rc == -ENOENT) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        printf("# %s\n", cpuprof_strerror(rc));
        SKIP("perf_event_open not permitted here");
    }
    ASSERT_RC(rc);
    ASSERT(write(go[1], "x", 1) == 1);
    int status;
    while (waitpid(pid, &status, WNOHANG) == 0)
        ASSERT_RC(cpuprof_poll(p, 50));
    ASSERT_RC(cpuprof_stop(p));
    struct lat_trace *t;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT_RC(cpuprof_export(p, t));
    char stats[2048];
    cpuprof_stats(p, stats, sizeof(stats));
    printf("# %s\n", stats);
    size_t big = 0, small = 0, n = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) continue;
        const struct lat_arg *st = lat_trace_arg(t, i, "state");
        ASSERT(st);
        if (strcmp(lat_trace_str(t, st->str), "on")) continue;
        n++;
        const struct lat_arg *sa = lat_trace_arg(t, i, "stack");
        ASSERT(sa && sa->type == LAT_ARG_STR);
        const char *stack = lat_trace_str(t, sa->str);
        big += strstr(stack, ";cpuprof_test_spin_big;") != NULL;
        small += strstr(stack, ";cpuprof_test_spin_small;") != NULL;
        /* The event's name is the leaf frame. */
        const char *leaf = lat_trace_str(t, t->ev.name[i]);
        size_t ls = strlen(stack), ll = strlen(leaf);
        ASSERT(ls >= ll && !strcmp(stack + ls - ll, leaf));
    }
    /* ~1 s of CPU at 499 Hz: hundreds of samples; 3:1 work split between the functions. */
    if (big + small < n * 8 / 10 || n < 100) printf("# n %zu big %zu small %zu\n", n, big, small);
    ASSERT_OP_I64(n, >, 100);
    ASSERT_OP_I64(big + small, >, n * 8 / 10);
    /* Loose: this runs while other tests load the machine; t350 checks shares tightly. */
    ASSERT_NEAR((double)big / (double)(big + small), 0.75, 0.12);
    char *folded = NULL;
    size_t flen = 0;
    FILE *f = open_memstream(&folded, &flen);
    ASSERT_RC(cpuprof_write_folded(p, f));
    fclose(f);
    ASSERT(strstr(folded, "cpuprof_test_spin_big;cpuprof_test_spin "));
    free(folded);
    lat_trace_free(t);
    cpuprof_free(p);
}

TEST(cpuprof_bad_args_and_messages)
{
    struct cpuprof *p;
    struct cpuprof_opts o = {.freq_hz = 5000};
    ASSERT_EQ_I64(cpuprof_start(getpid(), false, &o, &p), LAT_E_USAGE);
    ASSERT(p == NULL);
    o.freq_hz = 99;
    ASSERT_EQ_I64(cpuprof_start(0, false, &o, &p), LAT_E_USAGE);
    /* A pid that does not exist: the target exited. */
    ASSERT_EQ_I64(cpuprof_start(0x3fffffff, false, &o, &p), -ESRCH);
    ASSERT(strstr(cpuprof_strerror(-EACCES), "perf_event_paranoid"));
    ASSERT(strstr(cpuprof_strerror(-EPERM), "CAP_PERFMON"));
    ASSERT(strstr(cpuprof_strerror(-ESRCH), "exited"));
}
