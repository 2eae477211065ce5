/*
 * unwind.c - DWARF unwinding of user stack copies with libdwfl (see unwind.h).
 *
 * The approach perf's unwind-libdw takes, written from the elfutils API documentation: a Dwfl
 * whose modules are the ELF files mapped in the target (reported from the sampler's mmap
 * records with their load bias), a "process state" attached with our own thread callbacks,
 * and for each sample: set_initial_registers hands libdwfl the sampled user registers, and
 * memory_read serves addresses inside the copied stack window. libdwfl then walks .eh_frame/
 * .debug_frame CFI. Unlike perf we keep one Dwfl per process for the whole capture, so CFI is
 * parsed once per file, not once per sample: the attach argument points at a per-process
 * context that is updated before each unwind. The stack copy is only valid during the call.
 * Only x86_64 is wired (register mapping below); elsewhere unwind_regs_mask() returns 0 and
 * the sampler uses frame-pointer callchains only.
 */
#include "capture/cpu/unwind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/grow.h"

#if LAT_HAVE_LIBDW && defined(__x86_64__)
#include <elfutils/libdwfl.h>

/* perf_regs x86_64 numbering (asm/perf_regs.h): AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES
 * FS GS R8..R15 = 0..23. DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
enum { PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_R8 = 16 };

uint64_t unwind_regs_mask(void)
{
    return 0x1ffull | (0xffull << PR_R8);
}

struct unwinder {
    Dwfl *dwfl;
    pid_t pid;
    bool attached;
    /* the current sample */
    pid_t tid;
    const uint64_t *regs;
    const uint8_t *stack;
    uint64_t stack_size, sp;
    uint64_t *pcs;
    int n, max;
    /* reported files (by path) */
    char **paths;
    size_t npaths, paths_cap;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    struct unwinder *u = arg;
    if (*thread_argp) return 0;
    *thread_argp = u;
    return u->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
    struct unwinder *u = arg;
    *thread_argp = u;
    return tid == u->tid;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    struct unwinder *u = arg;
    if (addr < u->sp || addr - u->sp + sizeof(*result) > u->stack_size) return false;
    memcpy(result, u->stack + (addr - u->sp), sizeof(*result));
    return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    struct unwinder *u = arg;
    const uint64_t *r = u->regs;
    Dwarf_Word d[17] = {r[PR_AX],     r[PR_DX],     r[PR_CX],     r[PR_BX],     r[PR_SI],
                        r[PR_DI],     r[PR_BP],     r[PR_SP],     r[PR_R8],     r[PR_R8 + 1],
                        r[PR_R8 + 2], r[PR_R8 + 3], r[PR_R8 + 4], r[PR_R8 + 5], r[PR_R8 + 6],
                        r[PR_R8 + 7], r[PR_IP]};
    return dwfl_thread_state_registers(thread, 0, 17, d);
}

static const Dwfl_Thread_Callbacks thread_cb = {
    .next_thread = cb_next_thread,
    .get_thread = cb_get_thread,
    .memory_read = cb_memory_read,
    .set_initial_registers = cb_set_initial_registers,
};

int unwinder_new(pid_t pid, struct unwinder **out)
{
    struct unwinder *u = calloc(1, sizeof(*u));
    *out = NULL;
    if (!u) return -ENOMEM;
    u->dwfl = dwfl_begin(&offline_cb);
    if (!u->dwfl) {
        free(u);
        return -ENOMEM;
    }
    u->pid = pid;
    *out = u;
    return 0;
}

void unwinder_free(struct unwinder *u)
{
    if (!u) return;
    dwfl_end(u->dwfl);
    for (size_t i = 0; i < u->npaths; i++)
        free(u->paths[i]);
    free(u->paths);
    free(u);
}

int unwinder_add_module(struct unwinder *u, const char *path, uint64_t bias, uint64_t first_vaddr)
{
    for (size_t i = 0; i < u->npaths; i++)
        if (!strcmp(u->paths[i], path)) return 0;
    int rc = LAT_GROW(u->paths, u->paths_cap, u->npaths, 1, 16);
    if (rc) return rc;
    char *dup = strdup(path);
    if (!dup) return -ENOMEM;
    u->paths[u->npaths++] = dup;
    const char *base = strrchr(path, '/');
    dwfl_report_begin_add(u->dwfl);
    /* dwfl_report_elf wants the address of the first (page-aligned) PT_LOAD. */
    Dwfl_Module *m = dwfl_report_elf(u->dwfl, base ? base + 1 : path, path, -1,
                                     bias + (first_vaddr & ~0xfffull), false);
    dwfl_report_end(u->dwfl, NULL, NULL);
    return m ? 0 : LAT_E_NOT_FOUND;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
    struct unwinder *u = arg;
    Dwarf_Addr pc;
    bool act;
    if (!dwfl_frame_pc(state, &pc, &act) || !pc) return DWARF_CB_ABORT;
    u->pcs[u->n++] = pc;
    return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int unwinder_unwind(struct unwinder *u, pid_t tid, const uint64_t *regs, const uint8_t *stack,
                    uint64_t stack_size, uint64_t *pcs, int max)
{
    if (!u->npaths || max <= 0) return LAT_E_NOT_FOUND;
    if (!u->attached) {
        if (!dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_cb, u)) return LAT_E_UNSUPPORTED;
        u->attached = true;
    }
    u->tid = tid;
    u->regs = regs;
    u->stack = stack;
    u->stack_size = stack_size;
    u->sp = regs[PR_SP];
    u->pcs = pcs;
    u->n = 0;
    u->max = max;
    dwfl_getthread_frames(u->dwfl, tid, frame_cb, u);
    u->stack = NULL;
    return u->n;
}
#else
uint64_t unwind_regs_mask(void)
{
    return 0;
}

int unwinder_new(pid_t pid, struct unwinder **out)
{
    *out = NULL;
    return LAT_E_UNSUPPORTED;
}

void unwinder_free(struct unwinder *u)
{
}

int unwinder_add_module(struct unwinder *u, const char *path, uint64_t bias, uint64_t first_vaddr)
{
    return LAT_E_UNSUPPORTED;
}

int unwinder_unwind(struct unwinder *u, pid_t tid, const uint64_t *regs, const uint8_t *stack,
                    uint64_t stack_size, uint64_t *pcs, int max)
{
    return LAT_E_UNSUPPORTED;
}
#endif
