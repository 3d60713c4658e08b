/* hl-capture-private.h — what the files of the preload share.
 *
 * The preload runs inside someone else's program: libc only, no stdio, no
 * allocation through the allocator it interposes, no lock that can be held
 * across fork(). Everything here is hidden (-fvisibility=hidden); only the
 * interposed functions and the heaplens__* entry points are exported.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hl-shm-layout.h"
#include "hl-trace-format.h"
#include "hl-capture-trace.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#include <sys/single_threaded.h>
#define HL_HAVE_SINGLE_THREADED 1
#endif

#define HL_EXPORT __attribute__ ((visibility ("default")))
#define HL_LIKELY(x)   __builtin_expect (!!(x), 1)
#define HL_UNLIKELY(x) __builtin_expect (!!(x), 0)

/* ---- Read-modify-writes of shared words -------------------------------- *
 * The heap counter and the live entries are changed by every thread, so a
 * change is a locked instruction, which also waits for the thread's earlier
 * stores: three per malloc+free pair. While the process has one thread
 * (glibc's __libc_single_threaded, the test its own malloc uses to skip its
 * locks; it turns false in the creating thread before a second thread
 * exists) the same instruction without the lock prefix does: a signal
 * handler, the only other writer then, runs between two instructions, never
 * inside one. Readers in other processes only load. */

static inline bool
hl_one_thread (void)
{
#if defined(HL_HAVE_SINGLE_THREADED) && defined(__x86_64__)
  return __libc_single_threaded != 0;
#else
  return false;
#endif
}

/* *P += V; returns the new value. */
static inline uint64_t
hl_rmw_add_fetch (uint64_t *p,
                  uint64_t  v)
{
#if defined(__x86_64__)
  if (HL_LIKELY (hl_one_thread ()))
    {
      uint64_t old = v;
      __asm__ volatile ("xaddq %0, %1" : "+r" (old), "+m" (*p) : : "memory");
      return old + v;
    }
#endif
  return __atomic_add_fetch (p, v, __ATOMIC_RELAXED);
}

/* *P -= V. */
static inline void
hl_rmw_sub (uint64_t *p,
            uint64_t  v)
{
#if defined(__x86_64__)
  if (HL_LIKELY (hl_one_thread ()))
    {
      __asm__ volatile ("subq %1, %0" : "+m" (*p) : "r" (v) : "memory");
      return;
    }
#endif
  __atomic_fetch_sub (p, v, __ATOMIC_RELAXED);
}

/* If *P is *EXPECTED, *P = DESIRED (acquire) and true; else *EXPECTED =
 * *P and false. */
static inline bool
hl_rmw_cas (uint64_t *p,
            uint64_t *expected,
            uint64_t  desired)
{
#if defined(__x86_64__)
  if (HL_LIKELY (hl_one_thread ()))
    {
      bool ok;
      uint64_t prev = *expected;
      __asm__ volatile ("cmpxchgq %3, %1" : "=@ccz" (ok), "+m" (*p), "+a" (prev) : "r" (desired) : "memory");
      *expected = prev;
      return ok;
    }
#endif
  return __atomic_compare_exchange_n (p, expected, desired, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* ---- Configuration (hl-capture-env.c) ---------------------------------- */

typedef enum
{
  HL_UNWIND_LIBUNWIND = 0,
  HL_UNWIND_FP        = 1,
  HL_UNWIND_NONE      = 2,
} HlUnwindMode;

typedef struct
{
  HlUnwindMode unwind;
  bool         cfi;              /* libunwind mode: cached CFI rules first */
  uint32_t     depth;            /* frames kept, 1..HL_TRACE_MAX_FRAMES */
  bool         follow;           /* record forked children and exec'd images */
  bool         trace;            /* write a trace file (HEAPLENS_OUTPUT=none: no) */
  uint64_t     max_stacks;       /* resources / call-site capacity */
  uint64_t     live_slots;       /* live table slots (power of two) */
  uint32_t     live_granule_shift; /* bytes an entry maps: 4 (16), 5 (32), 0 (by allocator) */
  uint32_t     sample_ms;        /* counters sampling period */
  uint32_t     fine_clock_ms;    /* the first ms read CLOCK_MONOTONIC (hl_clock_start) */
  uint64_t     sample_bytes;     /* HEAPLENS_SAMPLE_BYTES: mean bytes between samples (0: every call) */
  uint64_t     sample_seed;      /* HEAPLENS_SAMPLE_SEED (0: random per thread) */
  char         output[1024];     /* HEAPLENS_OUTPUT template */
  bool         keep_session;     /* HEAPLENS_KEEP_SESSION=1: the launcher unlinks it */
  bool         leak_scan;        /* HEAPLENS_LEAK_SCAN (default 1): the reachability scan at exit */
  uint64_t     allocator_stall_ns; /* HEAPLENS_ALLOCATOR_STALL_US (default 1000): the longest mallinfo2()
                                    * call the program's thread may wait for while it runs */
  uint32_t     launcher_pid;     /* HEAPLENS_LAUNCHER: kept only while it runs (0: any) */
  uint64_t     launcher_start_ticks; /* its start time when the config was loaded (0: unknown) */
} HlConfig;

void hl_config_load (HlConfig *cfg);

/* ---- OS access (hl-capture-sys.c) -------------------------------------- */

uint64_t hl_sys_coarse_ns     (void);  /* CLOCK_MONOTONIC_COARSE */
uint64_t hl_sys_fine_ns       (void);  /* CLOCK_MONOTONIC */
uint64_t hl_sys_wall_ns       (void);
uint32_t hl_sys_gettid        (void);
uintptr_t hl_sys_brk          (void);  /* the program break now (brk (0): never fails) */
int      hl_sys_write_all     (int fd, const void *buf, size_t len);
void     hl_sys_warn          (const char *a, const char *b, const char *c);
/* Anonymous private memory of the preload's own: registered, so that the
 * leak scan does not take it for the program's (it holds addresses of
 * blocks in packets and tables). */
void    *hl_sys_map_anon      (size_t size);
void     hl_sys_unmap_anon    (void *p, size_t size);
/* The ranges mapped by hl_sys_map_anon and not unmapped: *N of them. */
typedef struct
{
  uintptr_t lo, hi;
} HlSysRange;
const HlSysRange *hl_sys_own_ranges (uint32_t *n);
void    *hl_sys_mmap          (void *addr, size_t len, int prot, int flags, int fd, off_t offset);
int      hl_sys_munmap        (void *addr, size_t len);
void    *hl_sys_mremap        (void *old, size_t old_len, size_t new_len, int flags, void *new_addr);
void     hl_sys_block_signals (uint64_t *old);
void     hl_sys_restore_signals (const uint64_t *old);
uint64_t hl_sys_rss_bytes     (void);
void     hl_sys_rss_reset     (void);
/* FD is open on the file DEV/INO still (a program may have closed ours
 * and put a file of its own on the number). */
bool     hl_sys_fd_is         (int fd, uint64_t dev, uint64_t ino);
size_t   hl_sys_read_file     (const char *path, char *buf, size_t cap);
/* From /proc/PID/stat: its state letter, start time (clock ticks after
 * boot) and name (cut to COMM_CAP - 1); false when it cannot be read. */
bool     hl_sys_proc_stat     (uint32_t pid, char *state, uint64_t *start_ticks, char *comm, size_t comm_cap);
uint64_t hl_sys_random64      (void);
/* Small formatting helpers (no stdio in the preload). */
size_t   hl_fmt_u64           (char *out, uint64_t v);
size_t   hl_fmt_hex           (char *out, uint64_t v);
size_t   hl_strlcpy           (char *dst, const char *src, size_t cap);

/* ---- Real allocator functions (hl-capture-init.c) ----------------------- */

typedef struct
{
  void *(*malloc) (size_t);
  void *(*calloc) (size_t, size_t);
  void *(*realloc) (void *, size_t);
  void  (*free) (void *);
  int   (*posix_memalign) (void **, size_t, size_t);
  void *(*aligned_alloc) (size_t, size_t);
  void *(*memalign) (size_t, size_t);
  void *(*valloc) (size_t);
  void *(*pvalloc) (size_t);
  size_t (*malloc_usable_size) (void *);
} HlRealAlloc;

extern HlRealAlloc hl_real;

void  hl_real_resolve        (void);
/* Whether function F is libc.so's (glibc's allocator, not another one
 * loaded before the preload). */
bool  hl_real_in_libc        (void *f);
/* dlsym (RTLD_NEXT, NAME), or RTLD_DEFAULT in a preload loaded by attach
 * (hl_g.late): it is not in the global scope, whose first definition is
 * the one the program is bound to. */
void *hl_dlsym_next          (const char *name);
/* Loaded late: every real allocator function is a definition dlsym
 * (RTLD_DEFAULT) finds (not a non-PIE program's canonical PLT entry). */
bool  hl_real_resolvable_late (void);
bool  hl_bootstrap_owns      (const void *p);
void *hl_bootstrap_alloc     (size_t size, size_t align);

/* ---- Process-wide state ------------------------------------------------ */

typedef enum
{
  HL_STATE_NONE     = 0, /* not initialised: calls pass through */
  HL_STATE_INIT     = 1, /* initialising (one thread) */
  HL_STATE_ACTIVE   = 2,
  HL_STATE_DISABLED = 3, /* HEAPLENS_FOLLOW=none child, or failure: pass through */
  HL_STATE_DETACHED = 4, /* attached, then detached (hl-capture-attach.c): pass through */
} HlGlobalState;

typedef struct HlThreadBlock HlThreadBlock;

typedef struct
{
  _Atomic int        state;
  HlConfig           cfg;
  uint32_t           pid;
  /* the parent: getppid() at the start, and in a forked child the pid of
   * the process that forked it, which getppid() no longer gives once that
   * one has ended (the child is reparented; docs/shm-layout.md, `ppid`) */
  uint32_t           ppid;
  uint64_t           start_mono_ns;
  uint64_t           fine_end_ns;   /* start_mono_ns + HEAPLENS_FINE_CLOCK_MS (hl_clock_read) */
  uint64_t           fine_until_ns; /* fine_end_ns while the fine clock is read, then 0 (atomic) */
  uint64_t           start_wall_ns;
  /* Session segment */
  uint8_t           *seg;
  size_t             seg_size;
  HlShmHeader       *hdr;
  char               seg_name[96];
  HlShmResourcesHeader *res;
  uint8_t           *res_base;      /* region start */
  uint64_t           res_size;
  uint32_t          *res_buckets;
  uint32_t           res_bucket_mask;
  HlShmCallsite     *callsites;
  uint64_t           n_callsites;
  HlShmLiveHeader   *live;
  HlShmLiveEntry    *live_slots;
  uint64_t           live_mask;
  uint32_t           live_granule_shift; /* log2 of the bytes an entry maps */
  HlShmLiveDirHeader *live_dir_hdr;  /* region directory (hl-capture-live.c) */
  uint64_t          *live_dir;       /* never NULL: hl_live_dir_none without a session */
  uint64_t           live_dir_mask;
  uint64_t           live_granule_mask; /* entries of a block - 1 (at most live_mask) */
  HlShmMetadata     *meta;
  HlShmCounters     *counters;
  HlShmPacketSlot   *packets;        /* thread block i builds its packets in packets[i] */
  uint32_t           n_packet_slots;
  /* Trace */
  int                trace_fd;       /* -1: no trace */
  uint64_t           trace_dev, trace_ino; /* to notice a program closing it */
  int                trace_lost;     /* the program closed it and it could not be
                                      * opened again: events count as dropped */
  _Atomic uint64_t   trace_size;     /* bytes written: kept under RLIMIT_FSIZE */
  _Atomic int        trace_full;     /* a write would have passed RLIMIT_FSIZE */
  int                forked;         /* this process is a forked child */
  char               trace_path[1024];
  _Atomic uint64_t   next_id_block;  /* allocation ids are handed out in blocks */
  /* Sampling */
  _Atomic uint64_t   next_sample_ns;
  /* Thread blocks */
  uint8_t           *blocks;
  _Atomic uint32_t   blocks_hint;
  _Atomic uint32_t   blocks_max;     /* blocks [0, blocks_max) were ever claimed */
  uint32_t           max_threads;    /* blocks reserved: HL_MAX_THREADS, fewer under
                                      * an address-space limit */
  /* Exit */
  _Atomic int        exit_status_known;
  int                exit_status;
  _Atomic int        ended;
  _Atomic int        clean_exit;     /* the end is the on_exit handler's: the last
                                      * allocator sample is safe there */
  /* Modules */
  _Atomic int        modules_dirty;
  /* The recorder's clock: the session's clock_ns_atomic, or hl_clock_none
   * (hl-capture-clock.c) */
  uint64_t          *clock_word;
  /* Own text range: frames inside it are never recorded */
  uintptr_t          self_lo, self_hi;
  /* Loaded into a running process by `heaplens-cli attach`
   * (hl-capture-attach.c): the program is not bound to our functions;
   * nothing starts until heaplens__attach, and the allocator is
   * redirected by GOT patching (hl-capture-got.c). */
  bool               late;
  bool               attaching;      /* inside heaplens__attach: start-up allowed */
  bool               late_unbindable; /* the real functions cannot be found safely */
  /* Thread blocks of an earlier attach are stale: a block is a thread's
   * only while its epoch is this one (hl_thread_block) */
  uint16_t           epoch;
  /* frees of blocks the live table never held in an attached process:
   * most were allocated before the attach (count, usable bytes) */
  uint64_t           attach_unknown_frees_atomic;
  uint64_t           attach_unknown_bytes_atomic;
  /* operator new ranges (libstdc++), skipped at the top of a stack */
  uintptr_t          new_lo[16], new_hi[16];
  _Atomic uint32_t   n_new_ranges;
} HlGlobal;

extern HlGlobal hl_g;

static inline bool
hl_active (void)
{
  return atomic_load_explicit (&hl_g.state, memory_order_acquire) == HL_STATE_ACTIVE;
}

void hl_capture_init        (void);
void hl_capture_ensure_init (void);
/* CLEAN: an exit or _exit of the program (the leak scan runs) */
void hl_capture_finish      (int exit_status, bool have_status, bool by_exec, bool clean);
/* INFO replaced_by_exec (hl-capture-process.c); PROGRAM NULL: the exec failed */
void hl_capture_note_exec   (const char *program);

/* ---- Thread state ------------------------------------------------------- */

#define HL_STACK_CACHE_SIZE 4096u   /* per-thread hash -> stack id, direct mapped */
#define HL_ID_BLOCK         4096u   /* allocation ids reserved per thread at once */

typedef struct
{
  uint64_t hash;
  uint32_t stack_id;
  uint32_t reserved;
} HlStackCacheEntry;

/* One frame of the last stack unwound by the cached-CFI unwinder: the
 * unwind state on entry (ip, sp, rbp) and what was read to leave it. */
typedef struct
{
  uint64_t ip, sp, rbp;
  uint64_t cfa;       /* the return address was read at cfa - 8 */
  uint64_t rbp_slot;  /* the caller's rbp was read at rbp_slot & ~7 (0:
                       * unchanged); bit 0: the CFA was computed from rbp */
  uint32_t ha, hb;    /* stack hash state after this frame (outermost first) */
} HlCfiFrame;

#define HL_CFI_MEMO_MAX (HL_TRACE_MAX_FRAMES + 4)

/* How the memo's unwind ended. */
enum
{
  HL_CFI_END_STOP = 1,  /* outermost frame (return address undefined) */
  HL_CFI_END_TRUNC = 2, /* depth limit */
  HL_CFI_END_ZERO = 3,  /* a zero return address was read */
};

typedef struct
{
  uint32_t   n;
  uint32_t   end;         /* HL_CFI_END_*: how the unwind ended */
  uint32_t   generation;  /* of the module map */
  uintptr_t  stack_hi;    /* of the thread that made it: a block reused by a
                           * thread on another stack must not read there */
  HlCfiFrame f[HL_CFI_MEMO_MAX]; /* outermost first */
  /* The stack words the unwind of frames 1..k read, flat, for a branch-free
   * check that they are unchanged: word *chk_addr[i] was chk_val[i], for i
   * < chk_end[k] (the return address of each frame, and the saved rbp where
   * the frame saved it). */
  uint16_t   chk_end[HL_CFI_MEMO_MAX];
  /* the rbp on entry to frame k matters to the unwind of frames k..0 (a
   * CFA is computed from it before a saved value replaces it); when not,
   * it is neither matched nor checked */
  uint8_t    rbp_used[HL_CFI_MEMO_MAX];
  uint64_t   chk_addr[2 * HL_CFI_MEMO_MAX];
  uint64_t   chk_val[2 * HL_CFI_MEMO_MAX];
} HlCfiMemo;

/* A stack this thread recorded lately, known by the state of its innermost
 * foreign frame (ip, sp, and rbp when it matters) and by every stack word
 * its unwind read: when they are all unchanged the stack is the same one,
 * and its id is known without unwinding (hl-capture-recent.c).
 *
 * Many stacks can share that state (every allocation of a program that
 * allocates through one wrapper, at the same depth): such a key gets a
 * discriminator, the offset from sp of a word its stacks differ in, and
 * the word's value joins the key (HlRecentKey). */
#define HL_RECENT_WAYS  4u   /* the tags of a set are compared as one 16-byte vector */
#define HL_RECENT_SETS  16u
#define HL_RECENT_SLOTS (HL_RECENT_WAYS * HL_RECENT_SETS)
#define HL_RECENT_KEYS  128u /* two-way: pairs of slots */
#define HL_RECENT_WORDS 62u

/* Four words of a recent stack: the word at sp + OFF[i] held VAL[i]. */
typedef struct
{
  uint32_t off[4];
  uint64_t val[4];
} HlRecentGroup;

/* An entry starts a cache line and its words follow the key in groups of
 * four (offsets beside their values): a lookup of a stack of 16 words
 * reads 4 lines (with the offsets and values in arrays of their own it
 * read 5 to 7). */
typedef struct __attribute__ ((aligned (64)))
{
  uint64_t ip, sp, rbp;
  uint64_t dval;       /* the key's discriminator word when stored (0: none) */
  uint32_t stack_id;   /* 0: empty */
  uint16_t n_words;    /* a multiple of 4 (padded) */
  uint8_t  rbp_used;   /* HL_RBP_*: how the key's rbp must match */
  uint8_t  pair_groups; /* the first groups hold 16-byte pairs of words (a
                         * frame record: saved rbp and return address),
                         * compared as such */
  uint64_t used;       /* b->recent_tick of the last store or hit */
  HlRecentGroup g[(HL_RECENT_WORDS + 2) / 4];
} HlRecentStack;

/* The discriminator of the key state (ip, sp) (a key whose stacks
 * shared a slot): DISC is 1 + the offset
 * from sp of the word (a word some unwind from this state read, so within
 * the thread's stack above sp, and offsets are below 4 GiB), 0: none. */
typedef struct
{
  uint64_t ip, sp;
  uint32_t disc;
  uint32_t used;       /* (uint32_t) b->recent_tick of the last use */
} HlRecentKey;

enum
{
  HL_RBP_ANY   = 0, /* the unwind did not depend on the rbp */
  HL_RBP_EQUAL = 1, /* the same rbp */
  HL_RBP_NOT_A_FRAME = 2, /* fp walk: any rbp that is not a frame record
                           * in [sp, stack_hi - 16] (the walk stopped at it) */
};

/* The stack words an unwind read, to remember the stack among the
 * thread's recent stacks: the key state (the first foreign frame's ip, sp
 * and rbp), then word ADDR[i] held VAL[i]. OK is false when there were more
 * than HL_RECENT_WORDS (the stack is not remembered). */
typedef struct
{
  uint64_t ip, sp, rbp;
  uint8_t  rbp_used;
  bool     ok;
  uint32_t unwind;   /* the HlUnwindMode that read them */
  uint32_t n;
  uint64_t addr[HL_RECENT_WORDS];
  uint64_t val[HL_RECENT_WORDS];
} HlStackWords;

/* Call-site counts of one thread not yet added to the shared table (at
 * most HL_PENDING_FLUSH_NS of the thread's activity: the counts fit 32
 * bits). */
typedef struct
{
  uint32_t stack_id;
  uint32_t used;
  uint32_t calls, frees;
  uint64_t bytes, freed_bytes;
} HlPendingSite;

#define HL_PENDING_SITES 256u
#define HL_PENDING_FLUSH_NS 10000000u /* at most 10 ms behind */

#define HL_SELF_FRAMES_MAX 8u  /* preload frames above the unwinder's caller */
#define HL_UNWIND_BUF (HL_TRACE_MAX_FRAMES + HL_SELF_FRAMES_MAX + 4u)

struct HlThreadBlock
{
  _Atomic uint32_t     in_use;      /* slot claimed */
  uint32_t             index;
  uint32_t             tid;
  _Atomic int          busy;        /* inside an append: a signal flush skips it */
  int                  exiting;     /* past its pthread key destructor */
  int                  is_shadow;   /* a thread's second block (hl_thread_shadow) */
  uint32_t             strip_self;  /* > 0: inside a program's signal handler (or a
                                     * shadow block): the preload's frames are
                                     * removed from the whole stack */
  int                  exit_round;  /* destructor rounds seen */
  uint32_t             generation;  /* of the stack cache (changes at fork) */
  uintptr_t            self;        /* pthread_self () */
  uintptr_t            stack_lo, stack_hi;
  uint64_t             id_next, id_end;
  uint64_t             last_flush_ns;
  HlShmThreadCounters *counters;   /* the session's slot, or own_counters */
  HlShmThreadCounters  own_counters; /* threads beyond HL_SHM_THREAD_SLOTS, shadow blocks */
  HlThreadBlock       *shadow;      /* records signal handlers that interrupt the preload */
  HlTraceBuffer        trace;       /* packet under construction */
  HlStackCacheEntry    cache[HL_STACK_CACHE_SIZE];
  HlCfiMemo            memo;        /* the last stack */
  uint32_t             memo_fresh;  /* the memo is the stack of the last unwind */
  uint32_t             recent_generation, recent_cfi_generation, recent_new_ranges;
  uint32_t             recent_unwind; /* the unwinder that made them */
  uintptr_t            recent_hi;   /* what the recent stacks are valid for */
  uint64_t             recent_tick;
  HlRecentStack        recent[HL_RECENT_SLOTS];
  uint32_t             recent_tag[HL_RECENT_SLOTS]; /* of recent[i]'s key; 0: empty */
  HlRecentKey          recent_keys[HL_RECENT_KEYS];
  uint32_t             cfi_generation; /* of rule_ip/rule_word */
  uint32_t             lazy_from, lazy_to; /* frames [from, to) of the last unwind are still in the memo */
  uint32_t             fp_check_tick;  /* HEAPLENS_UNWIND=fp: stacks counted, */
  uint32_t             fp_check_at;    /* and the next to check (hl_fp_check_due) */
  uint64_t             pending_flush_ns;
  uint64_t             clock_floor;  /* hl_now_for: the last time given (absolute) */
  uint32_t             clock_budget; /* events left before the clock word is checked */
  HlPendingSite        pending[HL_PENDING_SITES];
  uint64_t             rule_ip[256];   /* per-thread first level of the CFI rule cache */
  uint64_t             rule_word[256];
  HlCfiFrame           head[HL_CFI_MEMO_MAX]; /* frames of this unwind, innermost first */
  /* Scratch of a stack not among the recent ones: kept here, not on the
   * program's stack (4.6 KiB there made a thread on a 16 KiB stack
   * overflow where glibc alone did not); one user at a time (the guard; a
   * signal handler that interrupts us records on the shadow block). */
  uint64_t             scratch_frames[HL_UNWIND_BUF];
  HlStackWords         scratch_words;
  uint8_t              scratch_payload[HL_TRACE_MAX_FRAMES * HL_VARINT_MAX_BYTES];
};

typedef struct
{
  int            guard;   /* > 0 inside the preload: calls pass through */
  uint16_t       dead;    /* the thread exited its block: pass through */
  uint16_t       epoch;   /* hl_g.epoch when BLOCK was claimed (an attach's) */
  HlThreadBlock *block;
  /* > 0 inside a call of the real allocator (hl-capture-hooks.c): its
   * own mmaps are its heap, and its arena locks may be held, so no
   * mallinfo2 (a signal handler's allocation runs with it raised too) */
  uint16_t       in_real;
  /* > 0 while the thread holds the mappings' table (hl-capture-mmap.c),
   * which a signal handler's mmap must not wait for (the trampoline lowers
   * the guard, not this) */
  uint16_t       in_mmap;
} HlTls;

extern __thread HlTls hl_tls __attribute__ ((tls_model ("initial-exec")));

/* Thread blocks: a MAP_NORESERVE reserve, a block costs memory once a
 * thread uses it. The first HL_SHM_THREAD_SLOTS threads count into the
 * session's slots, the others into their block (folded every 10 ms). */
#define HL_MAX_THREADS 4096u
#define HL_BLOCK_STRIDE ((sizeof (HlThreadBlock) + 4095u) & ~(size_t) 4095u)

HlThreadBlock *hl_thread_block_slow (void);
void           hl_thread_init_key   (void);
void           hl_thread_after_fork_child (void);
void           hl_thread_new_epoch (void);  /* a new attach (hl-capture-attach.c) */
void           hl_thread_set_name   (uintptr_t pthread, const char *name);
HlThreadBlock *hl_thread_block_at   (uint32_t index);
void           hl_thread_release    (HlThreadBlock *b);
HlThreadBlock *hl_thread_shadow     (HlThreadBlock *main);
void           hl_thread_shadow_done (HlThreadBlock *shadow);

static inline HlThreadBlock *
hl_thread_block (void)
{
  HlThreadBlock *b = hl_tls.block;
  if (HL_LIKELY (b != NULL && hl_tls.epoch == hl_g.epoch))
    return b;
  if (hl_tls.dead && b == NULL)
    return NULL;
  return hl_thread_block_slow ();
}

/* The thread's block if it has one of this attach's, else NULL (never
 * claims one). */
static inline HlThreadBlock *
hl_thread_block_current (void)
{
  HlThreadBlock *b = hl_tls.block;
  return b != NULL && hl_tls.epoch == hl_g.epoch ? b : NULL;
}

/* ---- Session (hl-capture-session.c) ------------------------------------ */

int  hl_session_create   (void);
/* Bytes of the session segment for CFG's table sizes. */
uint64_t hl_session_size (const HlConfig *cfg);
/* Bytes free in /dev/shm (UINT64_MAX: unknown). */
uint64_t hl_session_shm_free (void);
void hl_session_running  (void);
void hl_session_end      (int exit_status, bool by_exec);

/* ---- The launcher (hl-capture-launcher.c) --------------------------------- */

typedef enum
{
  HL_LAUNCHER_WAITS,  /* it runs and will look for the session */
  HL_LAUNCHER_ENDING, /* it took HL_SHM_LAUNCHER_ENDING_COMM: looks no more */
  HL_LAUNCHER_GONE,   /* dead, a zombie, or its pid is another process's */
} HlLauncherState;

uint64_t        hl_launcher_start_ticks (uint32_t pid);
HlLauncherState hl_launcher_state       (void);
void hl_session_detach   (void);  /* child after fork: forget the parent's mapping */
/* Backs [OFFSET, OFFSET + LENGTH) of the segment with pages (fallocate on
 * the segment's descriptor), so that touching it can never raise SIGBUS;
 * false when /dev/shm cannot (full): the caller must not touch it. Sets
 * HL_SHM_FLAG_SHM_FULL then. errno kept. Out of line, once per chunk. */
bool hl_session_reserve  (uint64_t offset, uint64_t length);
/* Backs the resources region up to NODE_END (relative to the region) and
 * the call-site record and hash bucket level of stack ID; false as above
 * (the resources table then stops growing: its watermark is held where
 * the pages end). */
bool hl_session_reserve_node  (uint64_t node_end);
bool hl_session_reserve_stack (uint64_t id);

/* ---- Stacks (hl-capture-unwind.c, hl-capture-stacks.c) ------------------ */

int      hl_unwind_init    (void);
/* Fills FRAMES (innermost first, preload frames removed); returns the count,
 * sets *TRUNCATED. */
/* FRAMES must have room for HL_UNWIND_BUF entries. */
/* ENTRY: the frame of the interposed function the unwind starts from (NULL:
 * the caller's); frames of the preload above it are skipped. */
uint32_t hl_unwind         (uint64_t *frames, uint32_t max, bool *truncated, uint64_t *hash, HlThreadBlock *b, void *entry);
void     hl_unwind_refresh_new_ranges (void);
void     hl_unwind_report  (void);
bool     hl_cfi_init       (void);
void     hl_cfi_invalidate (void);  /* after dlclose: code at an address may change */
uint32_t hl_cfi_generation (void);  /* changes with every hl_cfi_invalidate */
uint32_t hl_cfi_unwind     (uint64_t *frames, uint32_t max, bool *truncated, uint64_t *hash, HlThreadBlock *b, void *entry);
/* hl_cfi_unwind and hl_unwind may leave the outer frames of the stack in
 * the thread's memo (the unwind matched the last stack there): a caller
 * that reads FRAMES beyond the innermost ones calls this first. */
void     hl_unwind_fill    (uint64_t *frames, HlThreadBlock *b);
/* The id of the stack starting at the interposed function's frame ENTRY
 * when it is one of the thread's recent stacks, else 0; hl_recent_store
 * remembers the last unwind's stack (when the memo holds it) as STACK_ID. */
uint32_t hl_recent_lookup  (HlThreadBlock *b, void *entry);
/* HEAPLENS_UNWIND_CHECK=1: every stack is also unwound the slow way */
extern bool hl_unwind_check_mode;
/* check mode: a recent stack's id against the unwind's */
void     hl_unwind_check_recent (uint32_t recent_id, uint32_t id);
void     hl_recent_store   (HlThreadBlock *b, uint32_t stack_id);
/* Remembers the stack whose unwind read W as STACK_ID. */
void     hl_recent_put     (HlThreadBlock *b, const HlStackWords *w, uint32_t stack_id);
/* HEAPLENS_UNWIND=fp from the interposed function's frame ENTRY (the walk
 * starts at the first foreign frame, so no preload frame is read twice);
 * fills W with the words it read. Returns UINT32_MAX when it cannot start
 * (no stack bounds): the caller uses hl_unwind. */
uint32_t hl_unwind_fp_entry (uint64_t *frames, uint32_t max, bool *truncated, HlThreadBlock *b, void *entry, HlStackWords *w);
/* fp mode's sampled check against the DWARF unwinders: hl_fp_check_due
 * counts a stack and says whether this one is checked (then its frames
 * are passed to hl_fp_check). */
bool     hl_fp_check_next  (HlThreadBlock *b);
void     hl_fp_check       (const uint64_t *frames, uint32_t n, uint32_t max, HlThreadBlock *b);

static inline bool
hl_fp_check_due (HlThreadBlock *b)
{
  if (HL_LIKELY (b->fp_check_tick++ != b->fp_check_at))
    return false;
  return hl_fp_check_next (b);
}

/* The state (ip, sp, rbp) on return to the first foreign frame above the
 * preload frame FRAME: our own frames have frame pointers, so walk them. */
static inline bool
hl_start_state (const HlThreadBlock *b,
                void                *frame,
                uint64_t            *ip_out,
                uintptr_t           *sp_out,
                uintptr_t           *rbp_out)
{
  uintptr_t lo = b->stack_lo, hi = b->stack_hi;
  uintptr_t fp = (uintptr_t) frame;
  if (hi == 0 || fp < lo || fp >= hi)
    return false;
  for (int guard = 0;; guard++)
    {
      if ((fp & 7) || fp > hi - 16 || guard > 16)
        return false;
      const uintptr_t *f = (const uintptr_t *) fp;
      uint64_t ip = f[1];
      if (ip - 1 < hl_g.self_lo || ip - 1 >= hl_g.self_hi)
        {
          *ip_out = ip;
          *sp_out = fp + 16;
          *rbp_out = f[0];
          return true;
        }
      if (f[0] <= fp)
        return false;
      fp = f[0];
    }
}

uint64_t hl_stack_hash     (const uint64_t *frames, uint32_t n);
void     hl_stack_hash_init  (void);
void     hl_stack_hash_seed  (uint32_t *sa, uint32_t *sb);
void     hl_stack_hash_fold  (uint32_t *sa, uint32_t *sb, const uint64_t *ips, size_t stride_words, uint32_t n, uint32_t *out);
uint64_t hl_stack_hash_final (uint32_t sa, uint32_t sb, uint32_t n);
/* Interns a stack, writing a STACK event for a new one; 0 when dropped. */
uint32_t hl_stack_intern   (HlThreadBlock *b, const uint64_t *frames, uint32_t n, uint32_t flags, uint64_t hash, uint64_t now);
void     hl_resources_thread_name (uint32_t tid, const char *name);

/* ---- Live table (hl-capture-live.c) ------------------------------------ */

#define HL_LIVE_REGION_SHIFT HL_SHM_LIVE_REGION_SHIFT /* 128 KiB of address space to a block of entries */
#define HL_LIVE_HOME_UNKNOWN UINT64_MAX

extern uint64_t hl_live_dir_none[1]; /* the directory without a session: empty */

/* The first directory word tried for the region of ADDR: neighbouring
 * regions have neighbouring words (a cache line of the directory serves a
 * MiB of heap); the bits above 256 MiB are folded in, so the heaps of
 * glibc's arenas (64 MiB apart) and the main heap land apart. */
static inline uint64_t
hl_live_dir_index (uint64_t addr)
{
  return ((addr >> HL_LIVE_REGION_SHIFT) ^ (addr >> (HL_LIVE_REGION_SHIFT + 11))) & hl_g.live_dir_mask;
}

/* The home entry of ADDR: the block of entries the region directory gave
 * the address's 128 KiB region, and in it the entry of the address's
 * granule, so neighbouring blocks of the heap share cache lines and pages
 * of the table, and distinct regions do not share a block (while blocks
 * remain). HL_LIVE_HOME_UNKNOWN when the region's word is not the first
 * one tried (then hl_live_insert / hl_live_remove look further). A word
 * is the region's first address | its block. */
static inline uint64_t
hl_live_home_at (uint64_t addr,
                 uint32_t g)
{
  uint64_t w = __atomic_load_n (&hl_g.live_dir[hl_live_dir_index (addr)], __ATOMIC_RELAXED);
  uint64_t block = w ^ (addr & ~((UINT64_C (1) << HL_LIVE_REGION_SHIFT) - 1));
  if (HL_UNLIKELY (block >= (UINT64_C (1) << HL_LIVE_REGION_SHIFT)))
    return HL_LIVE_HOME_UNKNOWN;
  return (block << (HL_LIVE_REGION_SHIFT - g)) | ((addr >> g) & hl_g.live_granule_mask);
}

static inline uint64_t
hl_live_home (uint64_t addr)
{
  /* two copies with constant shifts: fewer instructions than variable ones */
  if (HL_LIKELY (hl_g.live_granule_shift == 5))
    return hl_live_home_at (addr, 5);
  return hl_live_home_at (addr, 4);
}

/* The home entry of ADDR, whose loading (for writing) starts now: the
 * cache miss overlaps the work before the insert or removal. */
static inline uint64_t
hl_live_prefetch (uint64_t addr)
{
  uint64_t home = hl_live_home (addr);
  if (HL_LIKELY (home != HL_LIVE_HOME_UNKNOWN))
    __builtin_prefetch (&hl_g.live_slots[home], 1, 3);
  return home;
}

void hl_live_init   (void);  /* picks the granule (after hl_config_load) */
/* Bytes of the live region for SLOTS entries and their directory. */
uint64_t hl_live_region_size (uint64_t slots);
/* The session's live region is mapped (hl_g.live, live_slots, live_mask
 * set) / unmapped: sets up or drops the directory. */
/* false when /dev/shm cannot back its first pages (header, directory,
 * blocks 0 and 1; later blocks are backed as they are claimed). */
bool hl_live_attach (void);
void hl_live_detach (void);
/* HOME is hl_live_home (ADDR) (HL_LIVE_HOME_UNKNOWN: looked up here). */
bool hl_live_insert (uint64_t addr, uint64_t home, uint64_t id, uint64_t size, uint64_t time_ns, uint32_t stack_id, uint32_t tid);
/* Removes ADDR; false when unknown. */
bool hl_live_remove (uint64_t addr, uint64_t home, uint64_t *id, uint64_t *size, uint32_t *stack_id);
/* Entries [0, N) of the table have their pages (the leak scan reads them;
 * no entry beyond was ever written). */
uint64_t hl_live_backed_slots (void);

/* ---- The leak scan at exit (hl-capture-leakscan.c) ---------------------- */

/* At a clean exit, before the END: classifies the live blocks as Valgrind
 * memcheck does and writes REACHABILITY events (or an INFO saying why
 * not). HEAPLENS_LEAK_SCAN=0 turns it off. */
void hl_leakscan_run (void);
/* The leak scan on demand (HL_SHM_CONTROL_LEAK_SCAN), at the counters'
 * tick: takes the request, scans, writes the scan's events (flagged on
 * demand) and publishes its outcome in the session header. */
void hl_leakscan_poll (HlThreadBlock *b, uint64_t now);

/* ---- Counters (hl-capture-counters.c) ---------------------------------- */

void hl_counters_new_peak (uint64_t heap, uint64_t peak, uint64_t now);
void hl_counters_drop    (uint32_t reason, uint64_t n);
void hl_counters_tick    (HlThreadBlock *b, uint64_t now, bool force);
void hl_counters_fold_thread (HlThreadBlock *b);
void hl_counters_fold_overflow (HlThreadBlock *b);
void hl_callsites_flush  (HlThreadBlock *b, uint64_t now);

static inline void
hl_counters_maybe_tick (HlThreadBlock *b, uint64_t now)
{
  if (HL_UNLIKELY (now >= atomic_load_explicit (&hl_g.next_sample_ns, memory_order_relaxed)))
    hl_counters_tick (b, now, false);
}

/* Inline on the per-call path (a call each cost about 8 instructions).
 * Per-thread totals are plain stores into the thread's own slot; the
 * heap is one process-wide word so that the peak is exact: the thread
 * whose add makes a new maximum publishes it (hl-capture-counters.c). */
/* HEAP_SIZE: what the heap counts of the block (SIZE, but the
 * allocator's usable size in sampling mode, hl-capture-sample.h). */
static inline uint64_t hl_now_for (HlThreadBlock *b);

/* NOW may be HL_NOW_IF_PEAK: the clock is then read only for a new peak
 * (sampling mode's unsampled calls, which need no time otherwise). */
#define HL_NOW_IF_PEAK UINT64_MAX

static inline void
hl_counters_alloc_heap (HlThreadBlock *b,
                        uint64_t       size,
                        uint64_t       heap_size,
                        uint64_t       now)
{
  HlShmThreadCounters *c = b->counters;
  __atomic_store_n (&c->n_allocs, c->n_allocs + 1, __ATOMIC_RELAXED);
  __atomic_store_n (&c->bytes_allocated, c->bytes_allocated + size, __ATOMIC_RELAXED);
  HlShmCounters *g = hl_g.counters;
  uint64_t heap = hl_rmw_add_fetch (&g->heap_bytes_atomic, heap_size);
  uint64_t peak = __atomic_load_n (&g->peak_heap_bytes_atomic, __ATOMIC_RELAXED);
  if (HL_UNLIKELY (heap > peak && (int64_t) heap > 0))
    hl_counters_new_peak (heap, peak, now != HL_NOW_IF_PEAK ? now : hl_now_for (b));
}

static inline void
hl_counters_alloc (HlThreadBlock *b,
                   uint64_t       size,
                   uint64_t       now)
{
  hl_counters_alloc_heap (b, size, size, now);
}

static inline void
hl_counters_free (HlThreadBlock *b,
                  uint64_t       size,
                  bool           known)
{
  HlShmThreadCounters *c = b->counters;
  __atomic_store_n (&c->n_frees, c->n_frees + 1, __ATOMIC_RELAXED);
  if (known)
    {
      __atomic_store_n (&c->bytes_freed, c->bytes_freed + size, __ATOMIC_RELAXED);
      hl_rmw_sub (&hl_g.counters->heap_bytes_atomic, size);
    }
  else
    __atomic_store_n (&c->frees_unknown, c->frees_unknown + 1, __ATOMIC_RELAXED);
}

/* ---- Anonymous mappings and the allocator's view (hl-capture-mmap.c) --- */

/* At the counters' tick (hl_counters_tick), on the thread that claimed
 * it: glibc's mallinfo2() when it is due and safe here (FINAL: the last
 * one, at a clean exit), with the counters, into the header and an
 * ALLOCATOR event. */
void hl_allocator_tick    (HlThreadBlock *b, uint64_t now, uint64_t rss, uint64_t heap, bool final);
/* Which allocator the real functions are (hl_real_resolve has run). */
void hl_allocator_init    (void);
/* A forked child: the parent's mappings are not its own. */
void hl_mmap_after_fork_child (void);
/* The interposed mmap and mmap64, by their symbols' names (the C name
 * mmap is mmap64's under _FILE_OFFSET_BITS=64) */
void *hl_hook_mmap   (void *addr, size_t len, int prot, int flags, int fd, off_t offset) __asm__ ("mmap");
void *hl_hook_mmap64 (void *addr, size_t len, int prot, int flags, int fd, off_t offset) __asm__ ("mmap64");
/* The stack of the hook whose frame is ENTRY (hl-capture-record.c): the
 * thread is entered (b->busy) until hl_record_leave. */
uint32_t hl_record_enter_stack (HlThreadBlock *b, uint64_t now, void *entry);
void     hl_record_leave       (HlThreadBlock *b, uint64_t now);

/* ---- Attach (hl-capture-attach.c, hl-capture-got.c) --------------------- */

/* getenv (NAME), or in an attached process the value the attach's
 * configuration file gave (the process has none of record's
 * environment). */
const char *hl_env_get (const char *name);
/* In the counters' tick: a detach requested in the session header ends
 * the recording there. */
void hl_attach_poll (HlThreadBlock *b, uint64_t now);
/* The constructor: true when the program is not bound to our malloc (a
 * dlopen into a running process). */
bool hl_attach_detect_late (void);
/* At the end of an attached recording: the INFO of the frees of blocks
 * allocated before the attach. */
void hl_attach_end_info (void);
/* A free (or realloc) of a block the live table never held, in an
 * attached process: counted apart with its usable size (the caller reads
 * it before the block is freed). */
void hl_attach_count_unknown (uint64_t usable_bytes);

static inline void
hl_attach_note_unknown (void *p)
{
  if (HL_UNLIKELY (hl_g.late))
    hl_attach_count_unknown (hl_real.malloc_usable_size (p));
}

#define HL_GOT_MAX_TARGETS 40u
/* The functions whose slots are patched: NAMES[i] gets OURS[i]; the
 * functions the program is bound to are looked up now. */
void     hl_got_set_targets     (const char *const *names, void *const *ours, uint32_t n);
uint32_t hl_got_patch_all       (void);  /* slots patched by this call */
uint32_t hl_got_restore_all     (void);  /* slots put back */
uint32_t hl_got_modules_patched (void);
uint32_t hl_got_slots           (void);  /* slots patched now */

/* ---- Modules (hl-capture-modules.c) ------------------------------------ */

void hl_modules_scan   (HlThreadBlock *b, uint64_t now);
void hl_modules_reset  (void);

/* ---- Process life (hl-capture-process.c) ------------------------------- */

void hl_process_install_signals (void);
void hl_process_atfork          (void);
void hl_flush_all_for_exit      (void);
void hl_exec_unfollow_environ   (void);  /* hl-capture-exec.c */

/* ---- Programs that cannot take the preload (hl-capture-refusal.c) -------- */

/* Why the program FILE names cannot take the preload ("AddressSanitizer"
 * and its kin, or another ELF class: hl_refusal_is_foreign), NULL when it
 * can: a path, or with SEARCH and no slash in it, the first executable
 * file of that name in PATH's directories, as execvp and posix_spawnp look
 * (an empty entry is the working directory; no PATH: /bin:/usr/bin). */
const char *hl_refusal_of_file    (const char *file, bool search);
/* The same for the program open as FD (fexecve). */
const char *hl_refusal_of_fd      (int fd);
/* The same for execveat's (DIRFD, PATH, FLAGS). */
const char *hl_refusal_of_at      (int dirfd, const char *path, int flags);
bool        hl_refusal_is_foreign (const char *refusal);

/* ---- Time --------------------------------------------------------------- */

/* The first HEAPLENS_FINE_CLOCK_MS (50) of a process read CLOCK_MONOTONIC
 * (about 40 ns a read, where the coarse clock is 6): a program that ends
 * within them, or the start of any program, gets times finer than the
 * coarse clock's 4 ms tick, which put every event of a short run at one
 * time. Rounded down to 32.8 µs: most events share their time with the
 * previous one and carry no delta, as with the coarse clock. */
#define HL_CLOCK_FINE_GRAIN_NS (UINT64_C (1) << 15)

uint64_t hl_clock_start       (void);
uint64_t hl_clock_read_slow   (void);

/* The preload's clock, absolute: CLOCK_MONOTONIC (in grains) until fine_end_ns, then
 * CLOCK_MONOTONIC_COARSE and never less than fine_end_ns (the coarse clock
 * lags the fine one by up to a tick), so that times never go back when
 * the one gives way to the other. */
static inline uint64_t
hl_clock_read (void)
{
  if (HL_UNLIKELY (__atomic_load_n (&hl_g.fine_until_ns, __ATOMIC_RELAXED) != 0))
    return hl_clock_read_slow ();
  uint64_t t = hl_sys_coarse_ns ();
  return t > hl_g.fine_end_ns ? t : hl_g.fine_end_ns;
}

static inline uint64_t
hl_now (void)
{
  uint64_t t = hl_clock_read ();
  return t > hl_g.start_mono_ns ? t - hl_g.start_mono_ns : 0;
}

/* ---- The recorder's clock (hl-capture-clock.c) -------------------------- */

extern uint64_t hl_clock_none[1]; /* the word without a session: 0 */
uint64_t hl_now_slow (HlThreadBlock *b, uint64_t word);

/* The time of an event of B: the recorder's clock word while it is kept
 * (a load where the clock is a call of about 6 ns), checked against the
 * clock every HL_CLOCK_BUDGET events; else hl_now (). Once the thread has
 * used the word, never less than the thread's last time (clock_floor, 0
 * until then). */
static inline uint64_t
hl_now_for (HlThreadBlock *b)
{
  uint64_t w = __atomic_load_n (hl_g.clock_word, __ATOMIC_RELAXED);
  if (HL_LIKELY (w != 0))
    {
      if (HL_LIKELY (b->clock_budget != 0 && w >= b->clock_floor))
        {
          b->clock_budget--;
          return w - hl_g.start_mono_ns;
        }
    }
  else if (b->clock_floor == 0)
    return hl_now (); /* never kept for this thread (no recorder): the clock */
  return hl_now_slow (b, w);
}
