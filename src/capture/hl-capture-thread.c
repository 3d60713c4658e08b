/* hl-capture-thread.c — per-thread blocks: the packet buffer, the stack
 * cache and the counters slot of one thread; thread start, names and exit.
 *
 * Blocks live in one private MAP_NORESERVE mapping, slot i pairing with the
 * counters slot i of the session; a thread claims a free slot with a CAS on
 * its first recorded call. TLS holds only a pointer (initial-exec), so the
 * preload adds a few bytes of static TLS, not 100 KiB per thread stack.
 *
 * Exit: a pthread key destructor flushes the block and re-arms itself for
 * the following destructor rounds (other keys' destructors may still free
 * memory); in the last round it writes the THREAD exit event, folds the
 * counters into the exited totals and releases the slot. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>

static pthread_key_t exit_key;
static bool exit_key_ok;
static uint32_t generation = 1;

HlThreadBlock *
hl_thread_block_at (uint32_t index)
{
  return (HlThreadBlock *) (hl_g.blocks + (size_t) index * HL_BLOCK_STRIDE);
}

static void
thread_exit_cb (void *arg)
{
  HlThreadBlock *b = arg;
  if (hl_tls.epoch != hl_g.epoch || !hl_active ())
    {
      /* a block of an earlier attach, or no recording now: not ours */
      hl_tls.block = NULL;
      return;
    }
  hl_tls.guard++;
  uint64_t now = hl_now ();
  if (b->exit_round < PTHREAD_DESTRUCTOR_ITERATIONS - 1)
    {
      b->exit_round++;
      b->exiting = 1;
      hl_trace_flush (b, now);
      pthread_setspecific (exit_key, b);
      hl_tls.guard--;
      return;
    }
  HL_TRACE_EMIT (b, now, hl_packet_writer_thread (w_, now, b->tid, HL_THREAD_FLAG_EXIT, ""));
  hl_trace_flush (b, now);
  hl_thread_release (b);
  hl_tls.block = NULL;
  hl_tls.dead = 1;
  hl_tls.guard--;
}

void
hl_thread_release (HlThreadBlock *b)
{
  HlThreadBlock *s = b->shadow;
  if (s != NULL)
    {
      b->shadow = NULL;
      uint64_t now = hl_now ();
      hl_callsites_flush (s, now);
      hl_trace_flush (s, now);
      hl_counters_fold_thread (s);
      atomic_store_explicit (&s->in_use, 0, memory_order_release);
    }
  hl_callsites_flush (b, hl_now ());
  hl_counters_fold_thread (b);
  b->exiting = 0;
  atomic_store_explicit (&b->in_use, 0, memory_order_release);
}

void
hl_thread_init_key (void)
{
  if (!exit_key_ok && pthread_key_create (&exit_key, thread_exit_cb) == 0)
    exit_key_ok = true;
}

static void
stack_bounds (HlThreadBlock *b)
{
  pthread_attr_t attr;
  b->stack_lo = b->stack_hi = 0;
  if (pthread_getattr_np (pthread_self (), &attr) != 0)
    return;
  void *addr;
  size_t size;
  if (pthread_attr_getstack (&attr, &addr, &size) == 0)
    {
      b->stack_lo = (uintptr_t) addr;
      b->stack_hi = (uintptr_t) addr + size;
    }
  pthread_attr_destroy (&attr);
}

static void
announce (HlThreadBlock *b,
          uint32_t       flags,
          const char    *name,
          uint32_t       tid)
{
  uint64_t now = hl_now ();
  hl_resources_thread_name (tid, name);
  HL_TRACE_EMIT (b, now, hl_packet_writer_thread (w_, now, tid, flags, name));
}

/* Claims a free block (lock-free: a CAS on its in_use flag) and resets
 * what a previous owner left; NULL when all are taken. */
static HlThreadBlock *
claim_block (void)
{
  uint32_t start = atomic_load_explicit (&hl_g.blocks_hint, memory_order_relaxed);
  HlThreadBlock *b = NULL;
  uint32_t n = hl_g.max_threads;
  for (uint32_t i = 0; i < n; i++)
    {
      uint32_t idx = (start + i) % n;
      HlThreadBlock *c = hl_thread_block_at (idx);
      uint32_t zero = 0;
      if (atomic_load_explicit (&c->in_use, memory_order_relaxed) == 0
          && atomic_compare_exchange_strong (&c->in_use, &zero, 1))
        {
          b = c;
          b->index = idx;
          uint32_t seen = atomic_load_explicit (&hl_g.blocks_max, memory_order_relaxed);
          while (seen < idx + 1
                 && !atomic_compare_exchange_weak (&hl_g.blocks_max, &seen, idx + 1))
            ;
          atomic_store_explicit (&hl_g.blocks_hint, idx + 1, memory_order_relaxed);
          break;
        }
    }
  if (b == NULL)
    return NULL;
  if (b->generation != generation)
    {
      /* a block never used is zero already: touching it would cost 64 KiB
       * of memory per thread for nothing */
      if (b->generation != 0)
        memset (b->cache, 0, sizeof b->cache);
      b->generation = generation;
    }
  b->exit_round = 0;
  b->exiting = 0;
  b->shadow = NULL;
  b->is_shadow = 0;
  b->strip_self = 0;
  b->id_next = b->id_end = 0;
  b->clock_budget = 0; /* hl_now_for checks the word first */
  b->clock_floor = 0;
  /* the events' clock: a time from hl_now () may be ahead of the word,
   * and the flush checks subtract */
  b->last_flush_ns = hl_now_for (b);
  b->pending_flush_ns = b->last_flush_ns;
  memset (b->pending, 0, sizeof b->pending);
  atomic_store_explicit (&b->busy, 0, memory_order_relaxed);
  return b;
}

HlThreadBlock *
hl_thread_block_slow (void)
{
  if (hl_g.blocks == NULL || hl_g.counters == NULL)
    return NULL;
  if (hl_tls.block != NULL)
    {
      /* a block of an earlier attach (hl-capture-attach.c released it) */
      hl_tls.block = NULL;
      hl_tls.dead = 0;
    }
  hl_tls.guard++;
  HlThreadBlock *b = claim_block ();
  if (b == NULL)
    {
      hl_counters_drop (HL_DROP_TRACE_WRITE, 1);
      hl_tls.dead = 1; /* this thread stays unrecorded */
      hl_tls.guard--;
      return NULL;
    }
  hl_tls.epoch = hl_g.epoch;
  b->tid = hl_sys_gettid ();
  b->self = (uintptr_t) pthread_self ();
  stack_bounds (b);
  HlShmThreadCounters *c = b->index < HL_SHM_THREAD_SLOTS ? &hl_g.counters->threads[b->index]
                                                          : &b->own_counters;
  memset (c, 0, sizeof *c);
  __atomic_store_n (&c->tid_atomic, b->tid, __ATOMIC_RELEASE);
  b->counters = c;
  hl_trace_buffer_init (&b->trace, hl_g.pid, b->tid);
  hl_tls.block = b;
  if (exit_key_ok)
    pthread_setspecific (exit_key, b);

  char name[17] = "";
  prctl (PR_GET_NAME, name, 0, 0, 0);
  name[16] = '\0';
  announce (b, HL_THREAD_FLAG_START | HL_THREAD_FLAG_NAME, name, b->tid);
  hl_tls.guard--;
  return b;
}

/* The block that records the calls of a signal handler that interrupted
 * the preload on this thread (hl-capture-signals.c): the thread's own
 * block is in the middle of an update then. Same tid, no THREAD events, its
 * counts kept in the block and folded into the totals after each handler.
 * Claimed on first need, lock-free and without a system call (the stack
 * bounds are the thread's), released with the thread's block. */
HlThreadBlock *
hl_thread_shadow (HlThreadBlock *main)
{
  if (main->shadow != NULL || main->is_shadow)
    return main->shadow;
  HlThreadBlock *s = claim_block ();
  if (s == NULL)
    return NULL;
  s->is_shadow = 1;
  s->strip_self = 1;
  s->tid = main->tid;
  s->self = 0;
  s->stack_lo = main->stack_lo;
  s->stack_hi = main->stack_hi;
  memset (&s->own_counters, 0, sizeof s->own_counters);
  s->counters = &s->own_counters;
  hl_trace_buffer_init (&s->trace, hl_g.pid, s->tid);
  main->shadow = s;
  return s;
}

/* After a handler ran on the shadow block: its events written, its counts
 * in the totals. */
void
hl_thread_shadow_done (HlThreadBlock *s)
{
  uint64_t now = hl_now ();
  hl_callsites_flush (s, now);
  hl_counters_fold_overflow (s);
  hl_trace_flush (s, now);
}

/* In a forked child only the forking thread exists: release every other
 * block, and start the child's caches afresh (new stack table). */
/* A new attach: every block of the one before is released (its thread
 * claims a new one at its next call, hl_thread_block); the stack caches
 * start afresh. */
void
hl_thread_new_epoch (void)
{
  generation++;
  uint32_t max = atomic_load (&hl_g.blocks_max);
  for (uint32_t i = 0; i < max && hl_g.blocks != NULL; i++)
    {
      HlThreadBlock *b = hl_thread_block_at (i);
      b->exiting = 0;
      memset (b->pending, 0, sizeof b->pending);
      atomic_store (&b->in_use, 0);
    }
  atomic_store (&hl_g.blocks_hint, 0);
  __atomic_store_n (&hl_g.epoch, (uint16_t) (hl_g.epoch + 1), __ATOMIC_RELEASE);
}

void
hl_thread_after_fork_child (void)
{
  generation++;
  HlThreadBlock *mine = hl_tls.block;
  uint32_t max = atomic_load (&hl_g.blocks_max);
  for (uint32_t i = 0; i < max && hl_g.blocks != NULL; i++)
    {
      HlThreadBlock *b = hl_thread_block_at (i);
      if (b != mine && atomic_load (&b->in_use))
        {
          b->exiting = 0;
          memset (b->pending, 0, sizeof b->pending); /* the parent's counts */
          atomic_store (&b->in_use, 0);
        }
    }
  if (mine != NULL)
    {
      memset (mine->pending, 0, sizeof mine->pending);
      atomic_store (&mine->in_use, 0);
      hl_tls.block = NULL;
    }
  /* the exit destructor must not see the released block */
  if (exit_key_ok)
    pthread_setspecific (exit_key, NULL);
  hl_tls.dead = 0;
}

void
hl_thread_set_name (uintptr_t   pthread,
                    const char *name)
{
  if (!hl_active () || hl_tls.guard > 0)
    return;
  HlThreadBlock *me = hl_thread_block ();
  if (me == NULL)
    return;
  uint32_t tid = 0;
  if (pthread == me->self)
    tid = me->tid;
  else
    for (uint32_t i = 0, max = atomic_load (&hl_g.blocks_max); i < max; i++)
      {
        HlThreadBlock *b = hl_thread_block_at (i);
        if (atomic_load (&b->in_use) && b->self == pthread)
          {
            tid = b->tid;
            break;
          }
      }
  if (tid == 0)
    return;
  hl_tls.guard++;
  atomic_store_explicit (&me->busy, 1, memory_order_relaxed);
  char copy[17];
  hl_strlcpy (copy, name, sizeof copy);
  announce (me, HL_THREAD_FLAG_NAME, copy, tid);
  atomic_store_explicit (&me->busy, 0, memory_order_relaxed);
  hl_tls.guard--;
}

/* ---- Interposed: thread names ----------------------------------------- */

HL_EXPORT int
pthread_setname_np (pthread_t   thread,
                    const char *name)
{
  static int (*real) (pthread_t, const char *);
  if (real == NULL)
    real = (int (*) (pthread_t, const char *)) hl_dlsym_next ("pthread_setname_np");
  int rc = real (thread, name);
  if (rc == 0)
    {
      int e = errno;
      hl_thread_set_name ((uintptr_t) thread, name);
      errno = e;
    }
  return rc;
}

HL_EXPORT int
prctl (int option,
       ...)
{
  static int (*real) (int, ...);
  va_list ap;
  va_start (ap, option);
  unsigned long a2 = va_arg (ap, unsigned long);
  unsigned long a3 = va_arg (ap, unsigned long);
  unsigned long a4 = va_arg (ap, unsigned long);
  unsigned long a5 = va_arg (ap, unsigned long);
  va_end (ap);
  if (real == NULL)
    real = (int (*) (int, ...)) hl_dlsym_next ("prctl");
  int rc = real (option, a2, a3, a4, a5);
  if (rc == 0 && option == PR_SET_NAME && a2 != 0)
    {
      int e = errno;
      hl_thread_set_name ((uintptr_t) pthread_self (), (const char *) a2);
      errno = e;
    }
  return rc;
}
