// A thin C interface to two things libode.so (ODE 0.16, Debian's libode8) does not offer in C:
//
// 1. ODE's own Dantzig LCP solver. `dxSolveLCP` is exported, but only with C++ linkage and it
//    needs one of ODE's internal memory arenas. The library also exports the functions that
//    create and free a stand-alone arena and that size it for an LCP; what it does not export
//    is the inline `ResetState()` that makes a fresh arena usable (it points the arena's
//    allocation cursor at the start of its block). We do that here on a copy of the struct's
//    layout, and only after checking that a freshly made arena looks exactly as ODE 0.16's
//    `ReallocateMemArena` leaves it; otherwise the solver is reported as unavailable.
// 2. Counting ODE's messages (its `s <= 0` LCP failures come as `dMessage(d_ERR_LCP, ...)`):
//    the handler takes a `va_list`, which is easier to receive in C++ than in Rust.

#include <ode/ode.h>

#include <cstddef>
#include <cstdint>
#include <cstdarg>
#include <cstdio>
#include <ctime>

// ODE's internal types, named only so that the declarations below mangle to the exported
// symbols.
struct dxWorldProcessMemArena;
struct dxWorldProcessMemoryManager;
struct dxWorldProcessMemoryReserveInfo;

// Exported by libode.so 0.16 (see `nm -DC`); declared here because ODE installs no header
// for them.
dxWorldProcessMemArena *dxAllocateTemporaryWorldProcessMemArena(
    size_t memreq, const dxWorldProcessMemoryManager *memmgr,
    const dxWorldProcessMemoryReserveInfo *reserveinfo);
void dxFreeTemporaryWorldProcessMemArena(dxWorldProcessMemArena *arena);
size_t dxEstimateSolveLCPMemoryReq(unsigned n, bool outer_w_avail);
void dxSolveLCP(dxWorldProcessMemArena *memarena, unsigned n, dReal *A, dReal *pairsbx,
                dReal *outer_w, unsigned nub, dReal *pairslh, int *findex);

namespace {

// The data members of ODE 0.16's dxWorldProcessMemArena, in declaration order (ode/src/util.h).
struct ArenaFields {
    void *alloc_current_or_next;
    void *alloc_begin;
    void *alloc_end;
    void *arena_begin;
    const void *memory_manager;
};

// ODE's dEFFICIENT_SIZE alignment.
constexpr std::uintptr_t kEfficientAlignment = 16;

std::uintptr_t round_up(std::uintptr_t v) {
    return (v + kEfficientAlignment - 1) & ~(kEfficientAlignment - 1);
}

// Whether `raw`, fresh from dxAllocateTemporaryWorldProcessMemArena(memreq), has the layout
// above: cursor unset, block starting right after the (aligned) header and at least `memreq`
// bytes long, buffer start just before the header, a memory manager.
bool arena_layout_is_recognised(const dxWorldProcessMemArena *raw, size_t memreq) {
    const ArenaFields *f = reinterpret_cast<const ArenaFields *>(raw);
    const std::uintptr_t self = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(f->alloc_begin);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(f->alloc_end);
    const std::uintptr_t buffer = reinterpret_cast<std::uintptr_t>(f->arena_begin);
    return f->alloc_current_or_next == nullptr && begin == round_up(self + sizeof(ArenaFields)) &&
           end >= begin + memreq && buffer <= self && self - buffer < kEfficientAlignment &&
           f->memory_manager != nullptr;
}

long g_lcp_messages = 0;

// Counts d_ERR_LCP messages; other messages are printed as ODE would.
void count_message(int errnum, const char *msg, va_list ap) {
    if (errnum == d_ERR_LCP) {
        ++g_lcp_messages;
    } else {
        std::fprintf(stderr, "ODE message %d: ", errnum);
        std::vfprintf(stderr, msg, ap);
        std::fprintf(stderr, "\n");
    }
}

}  // namespace

extern "C" {

// An arena big enough for one LCP of `n` rows with an outer `w`, or null if it cannot be made
// or its layout is not the one this shim knows.
void *peers_ode_lcp_arena_new(unsigned n) {
    const size_t memreq = dxEstimateSolveLCPMemoryReq(n, true);
    dxWorldProcessMemArena *arena = dxAllocateTemporaryWorldProcessMemArena(memreq, nullptr, nullptr);
    if (arena == nullptr) {
        return nullptr;
    }
    if (!arena_layout_is_recognised(arena, memreq)) {
        dxFreeTemporaryWorldProcessMemArena(arena);
        return nullptr;
    }
    return arena;
}

void peers_ode_lcp_arena_free(void *arena) {
    if (arena != nullptr) {
        dxFreeTemporaryWorldProcessMemArena(static_cast<dxWorldProcessMemArena *>(arena));
    }
}

// Solves one LCP with ODE's dxSolveLCP in an arena made for at least `n` rows. The arrays are
// ODE's: `a` is n x dPAD(n) (row stride dPAD(n)), `pairs_bx` holds (b_i, x_i) pairs, `pairs_lh`
// (lo_i, hi_i) pairs, `findex` -1 or the normal row. All of them are modified in place.
// Returns 0 on success, -1 if the arena's block was overrun (the estimate was wrong).
int peers_ode_lcp_solve(void *arena, unsigned n, double *a, double *pairs_bx, double *w,
                        unsigned nub, double *pairs_lh, int *findex) {
    ArenaFields *f = static_cast<ArenaFields *>(arena);
    f->alloc_current_or_next = f->alloc_begin;  // ODE's inline ResetState()
    dxSolveLCP(static_cast<dxWorldProcessMemArena *>(arena), n, a, pairs_bx, w, nub, pairs_lh,
               findex);
    return reinterpret_cast<std::uintptr_t>(f->alloc_current_or_next) <=
                   reinterpret_cast<std::uintptr_t>(f->alloc_end)
               ? 0
               : -1;
}

// ODE's row stride for an n x n matrix (dPAD).
unsigned peers_ode_pad(unsigned n) { return n > 1 ? ((n + 3) & ~3u) : n; }

// CPU time of the calling thread, ns: unlike wall time it leaves out the time the thread
// waited for a core, which matters on a machine shared with builds and fuzzers.
long long peers_thread_cpu_ns(void) {
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
        return -1;
    }
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Routes ODE's messages (not its errors or debug aborts) to counters.
void peers_ode_count_messages(void) { dSetMessageHandler(count_message); }

long peers_ode_lcp_message_count(void) { return g_lcp_messages; }

}  // extern "C"
