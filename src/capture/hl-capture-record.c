/* hl-capture-record.c — the per-call path: capture and intern the stack,
 * count the call site, track the address, append the trace event.
 * No lock, no syscall, no allocation (except the rare table insert). */
#include "hl-capture-private.h"
#include "hl-capture-record.h"
#include "hl-capture-sample.h"
#include "hl-sample-weight-core.h"

static inline void
enter (HlThreadBlock *b)
{
  atomic_store_explicit (&b->busy, 1, memory_order_relaxed);
  atomic_signal_fence (memory_order_seq_cst);
}

static inline void
leave (HlThreadBlock *b,
       uint64_t       now)
{
  hl_counters_maybe_tick (b, now);
  if (HL_UNLIKELY (now - b->pending_flush_ns >= HL_PENDING_FLUSH_NS))
    {
      hl_callsites_flush (b, now);
      /* checked here, every 10 ms of the thread's activity (and at its
       * first call after a pause), not on every call: a packet is in the
       * trace about 50 ms after its first event at most */
      if (now - b->last_flush_ns >= HL_TRACE_FLUSH_NS)
        hl_trace_flush (b, now);
    }
  if (HL_UNLIKELY (b->exiting || atomic_load_explicit (&hl_g.ended, memory_order_relaxed)))
    {
      hl_callsites_flush (b, now);
      hl_trace_flush (b, now);
    }
  atomic_signal_fence (memory_order_seq_cst);
  atomic_store_explicit (&b->busy, 0, memory_order_relaxed);
}

static inline uint64_t
next_id (HlThreadBlock *b)
{
  if (HL_UNLIKELY (b->id_next == b->id_end))
    {
      b->id_next = atomic_fetch_add_explicit (&hl_g.next_id_block, HL_ID_BLOCK, memory_order_relaxed);
      b->id_end = b->id_next + HL_ID_BLOCK;
    }
  return b->id_next++;
}

/* Inside a program's signal handler (hl-capture-signals.c) the stack runs
 * through our trampoline and, when the signal interrupted the preload
 * (the thread records on its shadow block then), through the interrupted
 * preload: every frame of ours is removed, not only the innermost. */
static __attribute__ ((noinline)) uint32_t
capture_stack_shadow (HlThreadBlock *b,
                      uint64_t       now,
                      void          *entry)
{
  uint64_t *frames = b->scratch_frames;
  bool truncated = false;
  uint64_t h;
  uint32_t n = hl_unwind (frames, hl_g.cfg.depth, &truncated, &h, b, entry);
  hl_unwind_fill (frames, b);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (frames[i] - 1 < hl_g.self_lo || frames[i] - 1 >= hl_g.self_hi)
      frames[k++] = frames[i];
  h = hl_stack_hash (frames, k);
  if (truncated)
    h ^= 0x7f4a7c159e3779b9ull;
  HlStackCacheEntry *e = &b->cache[h & (HL_STACK_CACHE_SIZE - 1)];
  if (e->hash == h && e->stack_id != 0)
    return e->stack_id;
  uint32_t id = hl_stack_intern (b, frames, k, truncated ? HL_STACK_FLAG_TRUNCATED : 0, h, now);
  if (id != 0)
    {
      e->hash = h;
      e->stack_id = id;
    }
  return id;
}

/* The id of a stack just unwound: the thread's hash cache, else the
 * shared table. */
static inline uint32_t
stack_id_of (HlThreadBlock *b,
             uint64_t      *frames,
             uint32_t       n,
             bool           truncated,
             uint64_t       h,
             uint64_t       now)
{
  if (h == 0)
    h = hl_stack_hash (frames, n);
  if (truncated)
    h ^= 0x7f4a7c159e3779b9ull;
  HlStackCacheEntry *e = &b->cache[h & (HL_STACK_CACHE_SIZE - 1)];
  if (HL_LIKELY (e->hash == h && e->stack_id != 0))
    return e->stack_id;
  hl_unwind_fill (frames, b);
  uint32_t id = hl_stack_intern (b, frames, n, truncated ? HL_STACK_FLAG_TRUNCATED : 0, h, now);
  if (id != 0)
    {
      e->hash = h;
      e->stack_id = id;
    }
  return id;
}

/* HEAPLENS_UNWIND=fp, not one of the thread's recent stacks: the walk
 * (hl-capture-unwind.c), CHECK: also checked against the DWARF unwinders. */
static __attribute__ ((noinline)) uint32_t
capture_stack_fp (HlThreadBlock *b,
                  uint64_t       now,
                  void          *entry,
                  uint32_t       recent,
                  bool           check)
{
  uint64_t *frames = b->scratch_frames;
  HlStackWords *words = &b->scratch_words;
  bool truncated = false;
  uint32_t n = hl_unwind_fp_entry (frames, hl_g.cfg.depth, &truncated, b, entry, words);
  if (HL_UNLIKELY (n == UINT32_MAX))
    {
      uint64_t h;
      n = hl_unwind (frames, hl_g.cfg.depth, &truncated, &h, b, entry);
    }
  else if (HL_UNLIKELY (check))
    hl_fp_check (frames, n, hl_g.cfg.depth, b);
  uint32_t id = stack_id_of (b, frames, n, truncated, 0, now);
  if (HL_UNLIKELY (recent != 0))
    hl_unwind_check_recent (recent, id);
  else
    hl_recent_put (b, words, id);
  return id;
}

/* The thread's recent stacks first (every stack word the unwind read is
 * compared: independent loads, where an unwind is a chain of dependent
 * ones), then the unwinder: the cached DWARF rules by default, the
 * frame-pointer walk with HEAPLENS_UNWIND=fp, whose every 64th stack is
 * checked against the DWARF unwinders (then not looked up). */
static inline uint32_t
capture_stack (HlThreadBlock *b,
               uint64_t       now,
               void          *entry)
{
  if (HL_UNLIKELY (b->strip_self != 0))
    return capture_stack_shadow (b, now, entry);
  HlUnwindMode mode = hl_g.cfg.unwind;
  bool fp = mode == HL_UNWIND_FP;
  bool cfi = mode == HL_UNWIND_LIBUNWIND && hl_g.cfg.cfi;
  bool check = fp && hl_fp_check_due (b);
  uint32_t recent = 0;
  if (HL_LIKELY (cfi || (fp && !check)))
    {
      recent = hl_recent_lookup (b, entry);
      if (recent != 0 && HL_LIKELY (!hl_unwind_check_mode))
        return recent;
    }
  if (fp)
    return capture_stack_fp (b, now, entry, recent, check);
  uint64_t *frames = b->scratch_frames;
  bool truncated = false;
  uint64_t h;
  uint32_t n = hl_unwind (frames, hl_g.cfg.depth, &truncated, &h, b, entry);
  uint32_t id = stack_id_of (b, frames, n, truncated, h, now);
  if (HL_UNLIKELY (recent != 0))
    hl_unwind_check_recent (recent, id);
  else if (cfi)
    hl_recent_store (b, id);
  return id;
}

/* Call-site counters: accumulated per thread (a direct-mapped table of
 * HL_PENDING_SITES stacks, plain adds in the thread's own cache lines) and
 * added to the shared records (hl_rmw_*: locked while the process has
 * threads) when an entry is evicted, every 10 ms of the thread's activity,
 * at thread exit and at the end: four fewer locked instructions per
 * allocation and free; a live reader sees the counts at most 10 ms (of the
 * thread's activity) late. 256 entries: with 64, sqlite3's few hundred
 * stacks evicted one another on 40 % of the calls. */
static void
pending_spill (HlPendingSite *e)
{
  if (e->used && e->stack_id < hl_g.n_callsites)
    {
      HlShmCallsite *c = &hl_g.callsites[e->stack_id];
      if (e->calls)
        {
          hl_rmw_add_fetch (&c->calls_atomic, e->calls);
          hl_rmw_add_fetch (&c->bytes_atomic, e->bytes);
        }
      if (e->frees)
        {
          hl_rmw_add_fetch (&c->frees_atomic, e->frees);
          hl_rmw_add_fetch (&c->freed_bytes_atomic, e->freed_bytes);
        }
    }
  e->used = 0;
  e->calls = e->bytes = e->frees = e->freed_bytes = 0;
}

void
hl_callsites_flush (HlThreadBlock *b,
                    uint64_t       now)
{
  for (uint32_t i = 0; i < HL_PENDING_SITES; i++)
    if (b->pending[i].used)
      pending_spill (&b->pending[i]);
  b->pending_flush_ns = now;
  if (HL_UNLIKELY (b->counters == &b->own_counters))
    hl_counters_fold_overflow (b);
}

static inline HlPendingSite *
pending_of (HlThreadBlock *b,
            uint32_t       stack)
{
  HlPendingSite *e = &b->pending[stack & (HL_PENDING_SITES - 1)];
  if (HL_UNLIKELY (!e->used || e->stack_id != stack))
    {
      pending_spill (e);
      e->stack_id = stack;
      e->used = 1;
    }
  return e;
}

/* How many of the program's blocks block ID of SIZE bytes stands for in
 * the call sites' sums: 1, or in sampling mode its weight, as the readers
 * weigh it in the trace (hl-sample-weight-core.h), so that a live
 * session's call sites show the same estimates as the trace. */
static inline uint64_t
callsite_weight (uint64_t size,
                 uint64_t id)
{
  return HL_LIKELY (!hl_sampling ()) ? 1 : hl_sample_weight_of (hl_g.cfg.sample_bytes, size, id);
}

static inline void
callsite_alloc (HlThreadBlock *b,
                uint32_t       stack,
                uint64_t       size,
                uint64_t       id)
{
  HlPendingSite *e = pending_of (b, stack);
  uint64_t w = callsite_weight (size, id);
  e->calls += w;
  e->bytes += size * w;
}

static inline void
callsite_free (HlThreadBlock *b,
               uint32_t       stack,
               uint64_t       size,
               uint64_t       id)
{
  HlPendingSite *e = pending_of (b, stack);
  uint64_t w = callsite_weight (size, id);
  e->frees += w;
  e->freed_bytes += size * w;
}

uint32_t
hl_record_enter_stack (HlThreadBlock *b,
                       uint64_t       now,
                       void          *entry)
{
  enter (b);
  return entry != NULL ? capture_stack (b, now, entry) : 0;
}

void
hl_record_leave (HlThreadBlock *b,
                 uint64_t       now)
{
  leave (b, now);
}

void
hl_record_alloc (void   *p,
                 size_t  size,
                 size_t  alignment,
                 void   *entry)
{
  hl_tls.guard++;
  HlThreadBlock *b = hl_thread_block ();
  if (HL_UNLIKELY (b == NULL))
    {
      hl_counters_drop (HL_DROP_TRACE_WRITE, 1);
      hl_tls.guard--;
      return;
    }
  uint64_t heap_size = size;
  if (HL_UNLIKELY (hl_sampling ()))
    {
      heap_size = hl_sample_usable (p);
      if (HL_LIKELY (!hl_sample_take (size)))
        {
          hl_sample_count_alloc (b, size, heap_size);
          hl_tls.guard--;
          return;
        }
    }
  uint64_t home = hl_live_prefetch ((uint64_t) (uintptr_t) p);
  enter (b);
  uint64_t now = hl_now_for (b);
  uint32_t stack = capture_stack (b, now, entry);
  uint64_t id = next_id (b);
  callsite_alloc (b, stack, size, id);
  hl_counters_alloc_heap (b, size, heap_size, now);
  if (alignment <= 16)
    alignment = 0;
  HL_TRACE_EMIT (b, now, hl_packet_writer_alloc (w_, now, id, size, alignment, stack, (uint64_t) (uintptr_t) p));
  /* last: the entry's line has had the most time to arrive */
  if (HL_UNLIKELY (!hl_live_insert ((uint64_t) (uintptr_t) p, home, id, size, now, stack, b->tid)))
    hl_counters_drop (HL_DROP_LIVE_TABLE, 1);
  else if (HL_UNLIKELY (hl_sampling ()))
    hl_sample_mark (p);
  leave (b, now);
  hl_tls.guard--;
}

/* Sampling mode: the free of a block the marks say may be sampled. */
static __attribute__ ((noinline)) void
record_free_sampled (HlThreadBlock *b,
                     void          *p)
{
  uint64_t usable = hl_sample_usable (p);
  uint64_t a = (uint64_t) (uintptr_t) p;
  uint64_t id, size;
  uint32_t stack;
  if (!hl_live_remove (a, hl_live_home (a), &id, &size, &stack))
    {
      /* another address with the same mark */
      hl_sample_count_free (b, usable);
      return;
    }
  hl_sample_unmark (p);
  enter (b);
  uint64_t now = hl_now_for (b);
  callsite_free (b, stack, size, id);
  hl_sample_count_free (b, usable);
  HL_TRACE_EMIT (b, now, hl_packet_writer_free (w_, now, id));
  leave (b, now);
}

void
hl_record_free (void *p)
{
  if (HL_UNLIKELY (hl_sampling ()))
    {
      hl_tls.guard++;
      HlThreadBlock *b = hl_thread_block ();
      if (HL_LIKELY (b != NULL))
        {
          if (HL_LIKELY (!hl_sample_maybe (p)))
            hl_sample_count_free (b, hl_sample_usable (p));
          else
            record_free_sampled (b, p);
        }
      hl_tls.guard--;
      return;
    }
  uint64_t home = hl_live_prefetch ((uint64_t) (uintptr_t) p);
  hl_tls.guard++;
  HlThreadBlock *b = hl_thread_block ();
  if (HL_UNLIKELY (b == NULL))
    {
      hl_tls.guard--;
      return;
    }
  enter (b);
  uint64_t now = hl_now_for (b);
  uint64_t id, size;
  uint32_t stack;
  if (HL_LIKELY (hl_live_remove ((uint64_t) (uintptr_t) p, home, &id, &size, &stack)))
    {
      callsite_free (b, stack, size, id);
      hl_counters_free (b, size, true);
      HL_TRACE_EMIT (b, now, hl_packet_writer_free (w_, now, id));
    }
  else
    {
      hl_counters_free (b, 0, false);
      hl_attach_note_unknown (p);
      HL_TRACE_EMIT (b, now, hl_packet_writer_free_addr (w_, now, (uint64_t) (uintptr_t) p));
    }
  leave (b, now);
  hl_tls.guard--;
}

void
hl_record_realloc_begin (void           *old,
                         HlReallocState *st)
{
  hl_tls.guard++;
  uint64_t a = (uint64_t) (uintptr_t) old;
  if (HL_UNLIKELY (hl_sampling ()))
    {
      st->old_usable = hl_sample_usable (old);
      st->known = hl_sample_maybe (old) && hl_live_remove (a, hl_live_home (a), &st->id, &st->size, &st->stack_id);
      if (st->known)
        hl_sample_unmark (old);
    }
  else
    {
      st->known = hl_live_remove (a, hl_live_home (a), &st->id, &st->size, &st->stack_id);
      /* a block allocated before an attach: its size, read while it lives */
      st->old_usable = !st->known && HL_UNLIKELY (hl_g.late) ? hl_real.malloc_usable_size (old) : 0;
    }
  hl_tls.guard--;
}

/* Sampling mode's realloc: OLD was sampled (ST->known) or not, the new
 * block is sampled or not (its size against the countdown); the heap
 * counts usable sizes. Both sampled: a REALLOC event; only OLD: its FREE;
 * only the new block: an ALLOC (OLD was never in the trace). */
static __attribute__ ((noinline)) void
record_realloc_sampled (HlThreadBlock  *b,
                        void           *old,
                        void           *p,
                        size_t          size,
                        HlReallocState *st,
                        void           *entry)
{
  uint64_t usable = 0;
  bool taken = false;
  if (p != NULL)
    {
      usable = hl_sample_usable (p);
      taken = hl_sample_take (size);
      if (HL_LIKELY (!taken && !st->known))
        {
          /* neither block sampled, the common case: the counters only,
           * without the clock */
          hl_sample_count_free (b, st->old_usable);
          hl_sample_count_alloc (b, size, usable);
          return;
        }
    }
  enter (b);
  uint64_t now = hl_now_for (b);
  if (p == NULL)
    {
      if (size == 0)
        {
          /* realloc (p, 0): glibc freed OLD */
          hl_sample_count_free (b, st->old_usable);
          if (st->known)
            {
              callsite_free (b, st->stack_id, st->size, st->id);
              HL_TRACE_EMIT (b, now, hl_packet_writer_free (w_, now, st->id));
            }
        }
      else if (st->known)
        {
          /* failed: OLD is still live, put it back */
          uint64_t a = (uint64_t) (uintptr_t) old;
          if (hl_live_insert (a, hl_live_home (a), st->id, st->size, now, st->stack_id, b->tid))
            hl_sample_mark (old);
        }
      leave (b, now);
      return;
    }
  hl_sample_count_free (b, st->old_usable);
  if (st->known)
    callsite_free (b, st->stack_id, st->size, st->id);
  if (!taken)
    {
      hl_counters_alloc_heap (b, size, usable, now);
      if (st->known)
        HL_TRACE_EMIT (b, now, hl_packet_writer_free (w_, now, st->id));
      leave (b, now);
      return;
    }
  uint64_t a = (uint64_t) (uintptr_t) p;
  uint32_t stack = capture_stack (b, now, entry);
  uint64_t id = next_id (b);
  if (HL_UNLIKELY (!hl_live_insert (a, hl_live_home (a), id, size, now, stack, b->tid)))
    hl_counters_drop (HL_DROP_LIVE_TABLE, 1);
  else
    hl_sample_mark (p);
  callsite_alloc (b, stack, size, id);
  hl_counters_alloc_heap (b, size, usable, now);
  if (st->known)
    HL_TRACE_EMIT (b, now, hl_packet_writer_realloc (w_, now, st->id, id, size, stack, a));
  else
    HL_TRACE_EMIT (b, now, hl_packet_writer_alloc (w_, now, id, size, 0, stack, a));
  leave (b, now);
}

void
hl_record_realloc_end (void           *old,
                       void           *p,
                       size_t          size,
                       HlReallocState *st,
                       void           *entry)
{
  hl_tls.guard++;
  HlThreadBlock *b = hl_thread_block ();
  if (HL_UNLIKELY (b == NULL))
    {
      hl_tls.guard--;
      return;
    }
  if (HL_UNLIKELY (hl_sampling ()))
    {
      record_realloc_sampled (b, old, p, size, st, entry);
      hl_tls.guard--;
      return;
    }
  enter (b);
  uint64_t now = hl_now_for (b);
  if (p == NULL)
    {
      if (size == 0)
        {
          /* realloc (p, 0): glibc freed OLD */
          if (st->known)
            {
              callsite_free (b, st->stack_id, st->size, st->id);
              hl_counters_free (b, st->size, true);
              HL_TRACE_EMIT (b, now, hl_packet_writer_free (w_, now, st->id));
            }
          else
            {
              hl_counters_free (b, 0, false);
              if (HL_UNLIKELY (hl_g.late))
                hl_attach_count_unknown (st->old_usable);
              HL_TRACE_EMIT (b, now, hl_packet_writer_free_addr (w_, now, (uint64_t) (uintptr_t) old));
            }
        }
      else if (st->known)
        {
          /* failed: OLD is still live, put it back */
          uint64_t a = (uint64_t) (uintptr_t) old;
          (void) hl_live_insert (a, hl_live_home (a), st->id, st->size, now, st->stack_id, b->tid);
        }
      leave (b, now);
      hl_tls.guard--;
      return;
    }

  uint64_t home = hl_live_prefetch ((uint64_t) (uintptr_t) p);
  uint32_t stack = capture_stack (b, now, entry);
  uint64_t id = next_id (b);
  if (HL_UNLIKELY (!hl_live_insert ((uint64_t) (uintptr_t) p, home, id, size, now, stack, b->tid)))
    hl_counters_drop (HL_DROP_LIVE_TABLE, 1);
  if (st->known)
    {
      callsite_free (b, st->stack_id, st->size, st->id);
      hl_counters_free (b, st->size, true);
    }
  else
    {
      hl_counters_free (b, 0, false);
      if (HL_UNLIKELY (hl_g.late))
        hl_attach_count_unknown (st->old_usable);
    }
  callsite_alloc (b, stack, size, id);
  hl_counters_alloc (b, size, now);
  if (st->known)
    HL_TRACE_EMIT (b, now, hl_packet_writer_realloc (w_, now, st->id, id, size, stack, (uint64_t) (uintptr_t) p));
  else
    HL_TRACE_EMIT (b, now, hl_packet_writer_realloc_addr (w_, now, (uint64_t) (uintptr_t) old, id, size, stack, (uint64_t) (uintptr_t) p));
  leave (b, now);
  hl_tls.guard--;
}
