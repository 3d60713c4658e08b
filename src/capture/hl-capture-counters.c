/* hl-capture-counters.c — totals, the exact heap peak, and the ~10 ms
 * samples of heap against RSS, taken on the allocation path (the first call
 * after the period ends claims the tick with a CAS): no thread of our own.
 *
 * Per-thread totals are written only by their thread (plain stores into its
 * own cache line). The current heap is one process-wide atomic so that the
 * peak is exact: the thread whose add makes a new maximum publishes it. */
#include "hl-capture-private.h"

/* A new maximum of the heap (hl_counters_alloc): published unless another
 * thread's add made a higher one meanwhile. */
void
hl_counters_new_peak (uint64_t heap,
                      uint64_t peak,
                      uint64_t now)
{
  HlShmCounters *g = hl_g.counters;
  while (heap > peak)
    if (hl_rmw_cas (&g->peak_heap_bytes_atomic, &peak, heap))
      {
        __atomic_store_n (&g->peak_heap_time_ns_atomic, now, __ATOMIC_RELAXED);
        break;
      }
}

void
hl_counters_drop (uint32_t reason,
                  uint64_t n)
{
  if (hl_g.counters != NULL && reason < HL_DROP_REASONS_MAX)
    __atomic_fetch_add (&hl_g.counters->dropped_atomic[reason], n, __ATOMIC_RELAXED);
}

static void
totals (uint64_t *n_allocs,
        uint64_t *n_frees,
        uint64_t *n_unknown)
{
  HlShmCounters *g = hl_g.counters;
  uint64_t a = __atomic_load_n (&g->exited_n_allocs_atomic, __ATOMIC_RELAXED);
  uint64_t f = __atomic_load_n (&g->exited_n_frees_atomic, __ATOMIC_RELAXED);
  uint64_t u = __atomic_load_n (&hl_g.live->exited_frees_unknown_atomic, __ATOMIC_RELAXED);
  /* slots beyond the blocks ever claimed were never used (a block raises
   * blocks_max before it fills its slot) */
  uint32_t max = atomic_load (&hl_g.blocks_max);
  if (max > HL_SHM_THREAD_SLOTS)
    max = HL_SHM_THREAD_SLOTS;
  for (uint32_t i = 0; i < max; i++)
    {
      HlShmThreadCounters *t = &g->threads[i];
      if (__atomic_load_n (&t->tid_atomic, __ATOMIC_RELAXED) == 0)
        continue;
      a += __atomic_load_n (&t->n_allocs, __ATOMIC_RELAXED);
      f += __atomic_load_n (&t->n_frees, __ATOMIC_RELAXED);
      u += __atomic_load_n (&t->frees_unknown, __ATOMIC_RELAXED);
    }
  *n_allocs = a;
  *n_frees = f;
  *n_unknown = u;
}

/* Claims the tick, samples RSS, appends a sample to the ring and a COUNTERS
 * event to this thread's trace, and beats the heartbeat. */
void
hl_counters_tick (HlThreadBlock *b,
                  uint64_t       now,
                  bool           force)
{
  uint64_t due = atomic_load_explicit (&hl_g.next_sample_ns, memory_order_relaxed);
  uint64_t next = now + (uint64_t) hl_g.cfg.sample_ms * 1000000u;
  if (now >= due)
    {
      if (!atomic_compare_exchange_strong (&hl_g.next_sample_ns, &due, next))
        return; /* another thread took this tick */
    }
  else if (!force)
    return;
  HlShmCounters *g = hl_g.counters;
  if (g == NULL)
    return;
  uint64_t rss = hl_sys_rss_bytes ();
  __atomic_store_n (&g->rss_bytes_atomic, rss, __ATOMIC_RELAXED);
  if (rss > __atomic_load_n (&g->peak_rss_bytes_atomic, __ATOMIC_RELAXED))
    __atomic_store_n (&g->peak_rss_bytes_atomic, rss, __ATOMIC_RELAXED);
  uint64_t heap = __atomic_load_n (&g->heap_bytes_atomic, __ATOMIC_RELAXED);
  if ((int64_t) heap < 0)
    heap = 0;
  uint64_t n_allocs, n_frees, n_unknown;
  totals (&n_allocs, &n_frees, &n_unknown);
  /* live blocks: a free of a block the table never held (inherited through
   * fork, or its insert was dropped) does not end a block of ours */
  uint64_t known_frees = n_frees - (n_unknown < n_frees ? n_unknown : n_frees);

  uint64_t idx = __atomic_load_n (&g->n_samples_atomic, __ATOMIC_RELAXED);
  HlShmSample *s = &g->samples[idx % HL_SHM_SAMPLES];
  s->time_ns = now;
  s->heap_bytes = heap;
  s->rss_bytes = rss;
  s->n_allocs = n_allocs;
  __atomic_store_n (&g->n_samples_atomic, idx + 1, __ATOMIC_RELEASE);
  __atomic_store_n (&hl_g.live->n_live_atomic, n_allocs > known_frees ? n_allocs - known_frees : 0,
                    __ATOMIC_RELAXED);
  __atomic_store_n (&hl_g.hdr->heartbeat_ns_atomic, now, __ATOMIC_RELEASE);

  if (b != NULL)
    {
      HL_TRACE_EMIT (b, now, hl_packet_writer_counters (w_, now, heap, rss, n_allocs, n_frees));
      /* the allocator's view, at a lower rate, where it is safe
       * (hl-capture-mmap.c): not at a forced tick (the start, an exec, a
       * fatal signal), but at a clean exit's */
      if (!force || atomic_load_explicit (&hl_g.clean_exit, memory_order_relaxed))
        hl_allocator_tick (b, now, rss, heap, force);
      /* Trace drops since the last tick */
      static uint64_t reported[HL_DROP_REASONS_MAX];
      for (uint32_t r = 1; r < HL_DROP_REASONS_MAX; r++)
        {
          uint64_t d = __atomic_load_n (&g->dropped_atomic[r], __ATOMIC_RELAXED);
          uint64_t old = __atomic_exchange_n (&reported[r], d, __ATOMIC_RELAXED);
          if (d > old)
            HL_TRACE_EMIT (b, now, hl_packet_writer_dropped (w_, now, d - old, r));
        }
      /* Do not keep an idle thread's events for long */
      if (now - b->last_flush_ns >= HL_TRACE_FLUSH_NS)
        hl_trace_flush (b, now);
    }
  if (atomic_load_explicit (&hl_g.modules_dirty, memory_order_relaxed) && b != NULL)
    hl_modules_scan (b, now);
  if (HL_UNLIKELY (hl_g.late) && b != NULL)
    hl_attach_poll (b, now);
  if (HL_UNLIKELY (hl_g.hdr != NULL
                   && (__atomic_load_n (&hl_g.hdr->control_atomic, __ATOMIC_RELAXED) & HL_SHM_CONTROL_LEAK_SCAN) != 0))
    hl_leakscan_poll (b, now);
}

/* Adds a thread's totals to the exited ones and clears them. */
static void
fold_counts (HlShmThreadCounters *c)
{
  HlShmCounters *g = hl_g.counters;
  __atomic_fetch_add (&g->exited_n_allocs_atomic, c->n_allocs, __ATOMIC_RELAXED);
  __atomic_fetch_add (&g->exited_n_frees_atomic, c->n_frees, __ATOMIC_RELAXED);
  __atomic_fetch_add (&g->exited_bytes_allocated_atomic, c->bytes_allocated, __ATOMIC_RELAXED);
  __atomic_fetch_add (&g->exited_bytes_freed_atomic, c->bytes_freed, __ATOMIC_RELAXED);
  __atomic_fetch_add (&hl_g.live->exited_frees_unknown_atomic, c->frees_unknown, __ATOMIC_RELAXED);
  c->n_allocs = c->n_frees = c->bytes_allocated = c->bytes_freed = 0;
  c->frees_unknown = 0;
}

void
hl_counters_fold_thread (HlThreadBlock *b)
{
  HlShmCounters *g = hl_g.counters;
  HlShmThreadCounters *c = b->counters;
  if (g == NULL || c == NULL)
    return;
  fold_counts (c);
  __atomic_store_n (&c->tid_atomic, 0, __ATOMIC_RELEASE);
}

/* A thread beyond the session's HL_SHM_THREAD_SLOTS counts into its own
 * block; its totals are added to the exited ones by the thread itself every
 * 10 ms of its activity (with its call sites), at its exit, and by the
 * thread that ends the recording. */
void
hl_counters_fold_overflow (HlThreadBlock *b)
{
  if (hl_g.counters != NULL && b->counters == &b->own_counters
      && (b == hl_tls.block || atomic_load_explicit (&hl_g.ended, memory_order_relaxed)))
    fold_counts (b->counters);
}
