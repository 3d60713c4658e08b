/* hl-capture-unwind.c — call stacks.
 *
 * Default: libunwind's unw_backtrace(), dlopen'ed RTLD_LOCAL so that the
 * program never sees its _Unwind_* and backtrace symbols (warm, about
 * 7 ns/frame; it caches the unwind rule per return address itself).
 * HEAPLENS_UNWIND=fp walks the frame-pointer chain, each step checked
 * against the thread's stack bounds (overflow-safe compare, strictly
 * increasing), about 1 ns/frame, exact only where everything on the path was
 * built with frame pointers.
 *
 * The preload's own frames are removed, then libstdc++'s operator new
 * frames, so that frame 0 is the allocation site.
 */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

typedef int (*UnwBacktraceFunc) (void **buffer, int size);

static UnwBacktraceFunc unw_backtrace_fn;
bool hl_unwind_check_mode;

/* HEAPLENS_UNWIND=fp: one stack in 64 of each thread (one in 1024 after
 * 1024 checks) is also unwound from the DWARF CFI; when more than a quarter of 256 samples differ (frame
 * pointers missing somewhere on the paths), say so once and, unless
 * HEAPLENS_FP_CHECK=warn, switch to the DWARF unwinder. */
enum
{
  FP_CHECK_OFF,
  FP_CHECK_WARN,
  FP_CHECK_SWITCH,
};
static int fp_check;
static _Atomic uint64_t fp_checks, fp_mismatches;
static _Atomic int fp_verdict;

static const char *const new_symbols[] = {
  "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
  "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
  "_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
};

/* Looks up operator new in the loaded libraries (after start-up and after
 * every dlopen, since libstdc++ may come later). */
void
hl_unwind_refresh_new_ranges (void)
{
  uint32_t n = 0;
  for (size_t i = 0; i < sizeof new_symbols / sizeof new_symbols[0] && n < 16; i++)
    {
      void *f = dlsym (RTLD_DEFAULT, new_symbols[i]);
      Dl_info info;
      const ElfW (Sym) *sym = NULL;
      if (f == NULL || dladdr1 (f, &info, (void **) &sym, RTLD_DL_SYMENT) == 0 || sym == NULL)
        continue;
      uintptr_t lo = (uintptr_t) f;
      uintptr_t hi = lo + (sym->st_size ? sym->st_size : 64);
      /* the program's own operator new (a replacement) is its code: keep it */
      hl_g.new_lo[n] = lo;
      hl_g.new_hi[n] = hi;
      n++;
    }
  atomic_store_explicit (&hl_g.n_new_ranges, n, memory_order_release);
}

int
hl_unwind_init (void)
{
  const char *fc = hl_env_get ("HEAPLENS_FP_CHECK");
  fp_check = hl_g.cfg.unwind != HL_UNWIND_FP ? FP_CHECK_OFF
             : fc == NULL ? FP_CHECK_SWITCH
             : strcmp (fc, "0") == 0 ? FP_CHECK_OFF
             : strcmp (fc, "warn") == 0 ? FP_CHECK_WARN : FP_CHECK_SWITCH;
  /* fp mode keeps the DWARF unwinders at hand: to check samples, and to
   * switch to when frame pointers turn out to be missing */
  if ((hl_g.cfg.unwind == HL_UNWIND_LIBUNWIND || fp_check != FP_CHECK_OFF) && unw_backtrace_fn == NULL)
    {
      void *h = dlopen ("libunwind.so.8", RTLD_LOCAL | RTLD_NOW);
      if (h != NULL)
        unw_backtrace_fn = (UnwBacktraceFunc) dlsym (h, "unw_backtrace");
      if (unw_backtrace_fn == NULL && hl_g.cfg.unwind == HL_UNWIND_LIBUNWIND)
        {
          hl_sys_warn ("libunwind.so.8 not found; using frame pointers (HEAPLENS_UNWIND=fp)", NULL, NULL);
          hl_g.cfg.unwind = HL_UNWIND_FP;
        }
      else
        {
          void *warm[8];
          (void) unw_backtrace_fn (warm, 8);
        }
    }
  hl_unwind_refresh_new_ranges ();
  hl_stack_hash_init ();
  const char *c = hl_env_get ("HEAPLENS_UNWIND_CHECK");
  hl_unwind_check_mode = c != NULL && strcmp (c, "1") == 0;
  if ((hl_g.cfg.unwind == HL_UNWIND_LIBUNWIND || fp_check != FP_CHECK_OFF) && hl_g.cfg.cfi
      && !hl_cfi_init ())
    hl_g.cfg.cfi = false;
  if (!hl_g.cfg.cfi || unw_backtrace_fn == NULL)
    fp_check = FP_CHECK_OFF;
  return 0;
}

static inline bool
in_self (uint64_t ip)
{
  return ip - 1 >= hl_g.self_lo && ip - 1 < hl_g.self_hi;
}

static inline bool
in_new (uint64_t ip)
{
  uint32_t n = atomic_load_explicit (&hl_g.n_new_ranges, memory_order_relaxed);
  for (uint32_t i = 0; i < n; i++)
    if (ip - 1 >= hl_g.new_lo[i] && ip - 1 < hl_g.new_hi[i])
      return true;
  return false;
}


__attribute__ ((noinline)) static uint32_t
walk_fp (uint64_t      *frames,
         uint32_t       max,
         HlThreadBlock *b)
{
  uintptr_t fp = (uintptr_t) __builtin_frame_address (0);
  uintptr_t hi = b->stack_hi;
  uint32_t n = 0;
  if (hi == 0 || fp >= hi || fp < b->stack_lo)
    return 0;
  while (n < max)
    {
      if ((fp & 7) != 0 || fp > hi - 16)
        break;
      const uintptr_t *f = (const uintptr_t *) fp;
      uintptr_t next = f[0];
      uintptr_t ret = f[1];
      if (ret == 0)
        break;
      frames[n++] = ret;
      if (next <= fp)
        break;
      fp = next;
    }
  return n;
}

/* HEAPLENS_UNWIND=fp from the first foreign frame: the same walk as
 * walk_fp (bounds-checked, strictly increasing) without the preload's own
 * frames, keeping the words it read: the return address and the saved rbp
 * of each frame record. The first record must lie above the key's sp, so
 * that every word read is in the part of the stack that is live whenever
 * the key state (ip, sp) is found again. */
uint32_t
hl_unwind_fp_entry (uint64_t      *frames,
                    uint32_t       max,
                    bool          *truncated,
                    HlThreadBlock *b,
                    void          *entry,
                    HlStackWords  *w)
{
  uint64_t ip;
  uintptr_t sp, rbp;
  w->ok = false;
  w->n = 0;
  if (!hl_start_state (b, entry, &ip, &sp, &rbp))
    return UINT32_MAX;
  uintptr_t hi = b->stack_hi;
  uint32_t want = max + 4, n = 0, k = 0;
  w->ip = ip;
  w->sp = sp;
  w->rbp = rbp;
  w->rbp_used = HL_RBP_EQUAL;
  w->unwind = HL_UNWIND_FP;
  if ((rbp & 7) != 0 || rbp < sp || rbp > hi - 16)
    w->rbp_used = HL_RBP_NOT_A_FRAME;
  if (ip != 0)
    {
      frames[n++] = ip;
      uintptr_t fp = rbp;
      while (n < want)
        {
          if ((fp & 7) != 0 || fp < sp || fp > hi - 16)
            break;
          const uintptr_t *f = (const uintptr_t *) fp;
          uintptr_t next = f[0];
          uintptr_t ret = f[1];
          if (HL_LIKELY (k + 2 <= HL_RECENT_WORDS))
            {
              w->addr[k] = fp;
              w->val[k] = next;
              w->addr[k + 1] = fp + 8;
              w->val[k + 1] = ret;
            }
          k += 2;
          if (ret == 0)
            break;
          frames[n++] = ret;
          if (next <= fp)
            break;
          fp = next;
        }
    }
  uint32_t skip = 0;
  while (skip < n && in_new (frames[skip]))
    skip++;
  uint32_t have = n - skip;
  *truncated = have > max || n == want;
  if (have > max)
    have = max;
  if (skip > 0)
    memmove (frames, frames + skip, have * sizeof (uint64_t));
  /* the frames and the truncation are a function of the key and of the
   * words read (a walk cut at WANT frames read no further) */
  w->ok = k <= HL_RECENT_WORDS;
  w->n = k;
  return have;
}

static void check_fp (const uint64_t *frames, uint32_t n, uint32_t max, HlThreadBlock *b);

/* One stack in 64 until 1024 were checked without a verdict, then one in
 * 1024 (a check unwinds twice and costs about as much as the 63 stacks
 * found among the recent ones in between). */
bool
hl_fp_check_next (HlThreadBlock *b)
{
  /* (the tick has passed fp_check_at); off: due again in 2^32 stacks, to
   * say no again */
  uint32_t every = fp_check == FP_CHECK_OFF ? 0u
                   : atomic_load_explicit (&fp_checks, memory_order_relaxed) >= 1024 ? 1024u : 64u;
  b->fp_check_at = b->fp_check_tick - 1 + every;
  return fp_check != FP_CHECK_OFF;
}

void
hl_fp_check (const uint64_t *frames,
             uint32_t        n,
             uint32_t        max,
             HlThreadBlock  *b)
{
  if (hl_g.cfg.unwind == HL_UNWIND_FP)
    check_fp (frames, n, max, b);
}

static _Atomic uint64_t n_checked, n_differ, n_fallback, n_recent;

static uint32_t unwind_slow (uint64_t *frames, uint32_t max, bool *truncated, HlThreadBlock *b);

/* Cached CFI first (hl-capture-cfi.c); libunwind for the stacks it cannot
 * do. With HEAPLENS_UNWIND_CHECK=1 every stack is unwound both ways and the
 * differences are reported at exit (a test tool). */
/* Compares one stack with unw_backtrace's (HEAPLENS_UNWIND_CHECK=1); out of
 * line so that its buffer takes stack space only when checking. */
__attribute__ ((noinline)) static void
check_stack (const uint64_t *frames,
             uint32_t        have,
             uint32_t        max,
             uint64_t        hash,
             HlThreadBlock  *b)
{
  uint64_t ref[HL_UNWIND_BUF];
  bool rt;
  uint32_t rn = unwind_slow (ref, max, &rt, b);
  atomic_fetch_add (&n_checked, 1);
  if (hl_g.counters != NULL)
    __atomic_fetch_add (&hl_g.counters->fp_checks_atomic, 1, __ATOMIC_RELAXED);
  if (rn != have || memcmp (ref, frames, have * sizeof (uint64_t)) != 0
      || (hash != 0 && hash != hl_stack_hash (frames, have)))
    {
      atomic_fetch_add (&n_differ, 1);
      if (hl_g.counters != NULL)
        __atomic_fetch_add (&hl_g.counters->fp_mismatches_atomic, 1, __ATOMIC_RELAXED);
    }
}

__attribute__ ((noinline)) static void
check_fp (const uint64_t *frames,
          uint32_t        n,
          uint32_t        max,
          HlThreadBlock  *b)
{
  uint64_t ref[HL_UNWIND_BUF];
  bool rt;
  uint64_t h;
  uint32_t rn = hl_cfi_unwind (ref, max + 4, &rt, &h, b, NULL);
  if (rn == 0)
    return; /* no DWARF answer for this one */
  hl_unwind_fill (ref, b);
  uint32_t skip = 0;
  while (skip < rn && in_new (ref[skip]))
    skip++;
  rn -= skip;
  if (rn > max)
    rn = max;
  /* the fp walk may stop a couple of frames early (libc's start-up code has
   * no frame pointer): a prefix missing at most 3 outer frames agrees */
  bool differ = n > rn || rn > n + 3 || memcmp (ref + skip, frames, n * sizeof (uint64_t)) != 0;
  uint64_t checks = atomic_fetch_add (&fp_checks, 1) + 1;
  uint64_t bad = differ ? atomic_fetch_add (&fp_mismatches, 1) + 1 : atomic_load (&fp_mismatches);
  if (hl_g.counters != NULL)
    {
      __atomic_fetch_add (&hl_g.counters->fp_checks_atomic, 1, __ATOMIC_RELAXED);
      if (differ)
        __atomic_fetch_add (&hl_g.counters->fp_mismatches_atomic, 1, __ATOMIC_RELAXED);
    }
  if (checks >= 256 && bad * 4 > checks && atomic_exchange (&fp_verdict, 1) == 0)
    {
      char pct[24];
      hl_fmt_u64 (pct, bad * 100 / checks);
      if (fp_check == FP_CHECK_SWITCH)
        {
          hl_sys_warn ("frame pointers are missing on ", pct,
                       "% of sampled stacks; switching to the DWARF unwinder (HEAPLENS_FP_CHECK=warn keeps fp)");
          __atomic_store_n (&hl_g.cfg.unwind, HL_UNWIND_LIBUNWIND, __ATOMIC_RELAXED);
        }
      else
        hl_sys_warn ("frame pointers are missing on ", pct, "% of sampled stacks: stacks are incomplete");
    }
}

/* FRAMES has room for HL_UNWIND_BUF entries (the unwinders write their raw
 * result there, then the kept frames are moved to the front). */
uint32_t
hl_unwind (uint64_t      *frames,
           uint32_t       max,
           bool          *truncated,
           uint64_t      *hash,
           HlThreadBlock *b,
           void          *entry)
{
  *hash = 0;
  if (hl_g.cfg.unwind == HL_UNWIND_LIBUNWIND && hl_g.cfg.cfi)
    {
      bool trunc = false;
      uint32_t want = max + 4;
      uint64_t h;
      uint32_t n = hl_cfi_unwind (frames, want, &trunc, &h, b, entry);
      if (n > 0)
        {
          uint32_t skip = 0;
          if (atomic_load_explicit (&hl_g.n_new_ranges, memory_order_relaxed) != 0)
            {
              uint32_t known = b->lazy_to != 0 ? b->lazy_from : n; /* frames in place */
              /* frame 0 without filling in the memo's part */
              uint64_t first = known > 0 ? frames[0] : b->memo.f[b->memo.n - 1].ip;
              if (in_new (first))
                {
                  while (skip < known && in_new (frames[skip]))
                    skip++;
                  if (skip == known && known < n)
                    {
                      hl_unwind_fill (frames, b);
                      while (skip < n && in_new (frames[skip]))
                        skip++;
                    }
                }
            }
          uint32_t have = n - skip;
          if (skip == 0 && have <= max)
            *hash = h; /* else the caller hashes the frames it keeps */
          else
            hl_unwind_fill (frames, b);
          *truncated = trunc || have > max;
          if (have > max)
            have = max;
          if (skip > 0)
            memmove (frames, frames + skip, have * sizeof (uint64_t));
          if (HL_UNLIKELY (hl_unwind_check_mode))
            {
              hl_unwind_fill (frames, b);
              check_stack (frames, have, max, *hash, b);
            }
          return have;
        }
      atomic_fetch_add_explicit (&n_fallback, 1, memory_order_relaxed);
    }
  uint32_t n = unwind_slow (frames, max, truncated, b);
  if (HL_UNLIKELY (fp_check != FP_CHECK_OFF) && hl_g.cfg.unwind == HL_UNWIND_FP
      && hl_fp_check_due (b))
    check_fp (frames, n, max, b);
  return n;
}

void
hl_unwind_check_recent (uint32_t recent_id,
                        uint32_t id)
{
  atomic_fetch_add (&n_checked, 1);
  atomic_fetch_add (&n_recent, 1);
  if (recent_id != id)
    atomic_fetch_add (&n_differ, 1);
}

void
hl_unwind_report (void)
{
  if (!hl_unwind_check_mode)
    return;
  char line[256], num[24];
  size_t n = hl_strlcpy (line, "unwind check: ", sizeof line);
  hl_fmt_u64 (num, atomic_load (&n_checked));
  n += hl_strlcpy (line + n, num, sizeof line - n);
  n += hl_strlcpy (line + n, " stacks compared, ", sizeof line - n);
  hl_fmt_u64 (num, atomic_load (&n_differ));
  n += hl_strlcpy (line + n, num, sizeof line - n);
  n += hl_strlcpy (line + n, " differ, ", sizeof line - n);
  hl_fmt_u64 (num, atomic_load (&n_fallback));
  n += hl_strlcpy (line + n, num, sizeof line - n);
  n += hl_strlcpy (line + n, " fell back to libunwind, ", sizeof line - n);
  hl_fmt_u64 (num, atomic_load (&n_recent));
  n += hl_strlcpy (line + n, num, sizeof line - n);
  hl_strlcpy (line + n, " were recent stacks", sizeof line - n);
  hl_sys_warn (line, NULL, NULL);
}

__attribute__ ((noinline)) static uint32_t
unwind_slow (uint64_t      *frames,
             uint32_t       max,
             bool          *truncated,
             HlThreadBlock *b)
{
  uint64_t *raw = frames;
  uint32_t want = max + HL_SELF_FRAMES_MAX + 4;
  uint32_t n;
  if (hl_g.cfg.unwind == HL_UNWIND_LIBUNWIND)
    {
      int r = unw_backtrace_fn ((void **) raw, (int) want);
      n = r > 0 ? (uint32_t) r : 0;
    }
  else if (hl_g.cfg.unwind == HL_UNWIND_FP)
    n = walk_fp (raw, want, b);
  else
    n = 0;

  uint32_t skip = 0;
  while (skip < n && in_self (raw[skip]))
    skip++;
  while (skip < n && in_new (raw[skip]))
    skip++;
  uint32_t have = n - skip;
  *truncated = have > max || (n == want);
  if (have > max)
    have = max;
  if (skip > 0)
    memmove (frames, raw + skip, have * sizeof (uint64_t));
  return have;
}
