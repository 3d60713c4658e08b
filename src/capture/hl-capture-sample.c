/* hl-capture-sample.c — sampling mode's slow path: the per-thread random
 * numbers, the exponential draw of the next countdown, the marks of the
 * sampled blocks and the counters of unsampled calls
 * (hl-capture-sample.h says how the mode works). No libm: the logarithm
 * is computed here from the bits of a double. */
#include "hl-capture-private.h"
#include "hl-capture-sample.h"

#include <string.h>

__thread HlSampleTls hl_sample_tls __attribute__ ((tls_model ("initial-exec")));
bool hl_sample_glibc_chunks;
uint8_t hl_sample_marks[1u << HL_SAMPLE_MARK_BITS];

static _Atomic uint64_t seed_serial; /* threads seeded from HEAPLENS_SAMPLE_SEED */

static uint64_t
splitmix64 (uint64_t x)
{
  x += UINT64_C (0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C (0x94d049bb133111eb);
  return x ^ (x >> 31);
}

static uint64_t
next_random (HlSampleTls *t)
{
  uint64_t x = t->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  t->rng = x;
  return x * UINT64_C (0x2545f4914f6cdd1d);
}

/* ln (U) for U in (0, 1]: U = m * 2^e with m in [1, 2), ln m =
 * 2 atanh (s), s = (m - 1) / (m + 1) in [0, 1/3): seven odd terms leave an
 * error below 1e-8, far below what a test of the estimates can see. */
static double
log_unit (double u)
{
  uint64_t bits;
  memcpy (&bits, &u, sizeof bits);
  int e = (int) ((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & UINT64_C (0x000fffffffffffff)) | UINT64_C (0x3ff0000000000000);
  double m;
  memcpy (&m, &bits, sizeof m);
  double s = (m - 1.0) / (m + 1.0);
  double s2 = s * s;
  double series = 1.0 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7 + s2 * (1.0 / 9 + s2 * (1.0 / 11 + s2 * (1.0 / 13))))));
  return (double) e * 0.69314718055994530942 + 2.0 * s * series;
}

/* Bytes to the next sample: exponential of mean N, at least 1. */
static int64_t
draw (HlSampleTls *t)
{
  /* 53 random bits, + 0.5: U in (0, 1), never 0 */
  double u = ((double) (next_random (t) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  double v = -log_unit (u) * (double) hl_g.cfg.sample_bytes;
  if (v < 1.0)
    return 1;
  if (v > 4.0e18)
    return INT64_C (4000000000000000000);
  return (int64_t) v;
}

bool
hl_sample_slow (uint64_t size)
{
  HlSampleTls *t = &hl_sample_tls;
  if (size > (uint64_t) INT64_MAX / 2)
    size = (uint64_t) INT64_MAX / 2;
  if (HL_UNLIKELY (t->rng == 0))
    {
      /* this thread's first allocation: seed, and draw its first countdown */
      uint64_t seed = hl_g.cfg.sample_seed;
      if (seed != 0)
        seed = splitmix64 (seed + atomic_fetch_add_explicit (&seed_serial, 1, memory_order_relaxed));
      else
        seed = splitmix64 (hl_sys_random64 () ^ hl_sys_gettid ());
      t->rng = seed != 0 ? seed : 1;
      t->left = draw (t);
      int64_t left = t->left - (int64_t) size;
      if (left > 0)
        {
          t->left = left;
          return false;
        }
    }
  t->left = draw (t);
  return true;
}

void
hl_sample_mark (const void *p)
{
  uint8_t *m = hl_sample_mark_of (p);
  uint8_t v = __atomic_load_n (m, __ATOMIC_RELAXED);
  while (v != 255 && !__atomic_compare_exchange_n (m, &v, (uint8_t) (v + 1), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

void
hl_sample_unmark (const void *p)
{
  uint8_t *m = hl_sample_mark_of (p);
  uint8_t v = __atomic_load_n (m, __ATOMIC_RELAXED);
  while (v != 255 && v != 0 && !__atomic_compare_exchange_n (m, &v, (uint8_t) (v - 1), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

/* The counters' tick (it may append to the thread's packet: marked busy
 * as in hl-capture-record.c). */
static inline void
maybe_tick (HlThreadBlock *b,
            uint64_t       now)
{
  if (HL_LIKELY (now < atomic_load_explicit (&hl_g.next_sample_ns, memory_order_relaxed)))
    return;
  atomic_store_explicit (&b->busy, 1, memory_order_relaxed);
  atomic_signal_fence (memory_order_seq_cst);
  hl_counters_tick (b, now, false);
  atomic_signal_fence (memory_order_seq_cst);
  atomic_store_explicit (&b->busy, 0, memory_order_relaxed);
}

/* The tick's look at the clock, every HL_SAMPLE_CLOCK_EVERY calls. */
static inline void
maybe_tick_counted (HlThreadBlock *b)
{
  HlSampleTls *t = &hl_sample_tls;
  if (HL_LIKELY (t->clock_calls > 1))
    {
      t->clock_calls--;
      return;
    }
  t->clock_calls = HL_SAMPLE_CLOCK_EVERY;
  maybe_tick (b, hl_now_for (b));
}

void
hl_sample_count_alloc (HlThreadBlock *b,
                       uint64_t       size,
                       uint64_t       usable)
{
  hl_counters_alloc_heap (b, size, usable, HL_NOW_IF_PEAK);
  maybe_tick_counted (b);
}

/* The heap never goes below zero: a free of a block allocated where the
 * preload did not count it (before it started, in the parent of a forked
 * child) counts as a free of an unknown block, as in a full recording. */
void
hl_sample_count_free (HlThreadBlock *b,
                      uint64_t       usable)
{
  uint64_t *heap = &hl_g.counters->heap_bytes_atomic;
  uint64_t old = __atomic_load_n (heap, __ATOMIC_RELAXED);
  bool known;
  for (;;)
    {
      known = old >= usable;
      if (!known || hl_rmw_cas (heap, &old, old - usable))
        break;
    }
  HlShmThreadCounters *c = b->counters;
  __atomic_store_n (&c->n_frees, c->n_frees + 1, __ATOMIC_RELAXED);
  if (known)
    __atomic_store_n (&c->bytes_freed, c->bytes_freed + usable, __ATOMIC_RELAXED);
  else
    __atomic_store_n (&c->frees_unknown, c->frees_unknown + 1, __ATOMIC_RELAXED);
  maybe_tick_counted (b);
}

/* ---- The allocator's block sizes ---------------------------------------- */

void
hl_sample_init (void)
{
  /* sizes from the smallest chunk to past the mmap threshold */
  static const size_t sizes[] = { 1, 24, 25, 100, 1000, 4096, 70000, 300000, 5u << 20 };
  hl_sample_glibc_chunks = false;
  if (!hl_real_in_libc ((void *) hl_real.malloc) || !hl_real_in_libc ((void *) hl_real.malloc_usable_size) ||
      !hl_real_in_libc ((void *) hl_real.free))
    return;
  bool same = true;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && same; i++)
    {
      void *p = hl_real.malloc (sizes[i]);
      if (p == NULL)
        return;
      hl_sample_glibc_chunks = true;
      same = hl_sample_usable (p) == hl_real.malloc_usable_size (p);
      hl_sample_glibc_chunks = false;
      hl_real.free (p);
    }
  hl_sample_glibc_chunks = same;
}
