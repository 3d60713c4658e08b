/* hl-capture-mmap.c — where the memory the system sees goes, beside the
 * heap: the program's own anonymous private mappings (mmap, mmap64,
 * munmap, mremap interposed) with their stacks, and the allocator's view
 * (glibc's mallinfo2()) sampled at the counters' tick.
 *
 * Mappings. Only the program's own calls are recorded: not the preload's
 * (raw system calls, hl-capture-sys.c, and the guard), not the
 * allocator's (glibc's malloc maps through an internal call we never see;
 * another allocator's mmaps run with hl_tls.in_real raised: they are its
 * heap, counted as allocations already). A table of the mapped ranges
 * (start, end, stack) tells a munmap, a MAP_FIXED mapping or an mremap of
 * the program's regions from one of a file's: only those become events,
 * and the header's words (docs/shm-layout.md §3) follow them. A partial
 * munmap trims or splits a region. The table has a spin lock, held for a
 * few loads and stores, never across a system call; a thread holding it
 * has hl_tls.in_mmap raised, so that a signal handler's mmap on that
 * thread passes through instead of waiting for it. A munmap is taken out
 * of the table before the real call (another thread's mmap may get the
 * addresses as soon as it returns), a mapping put in after it.
 *
 * The allocator's view. mallinfo2() takes every arena's lock and walks
 * all free chunks: about 1 us with a few hundred free chunks, 9 ms with
 * 47,000 and 270 ms with 470,000 (measured on glibc 2.36). So it is
 * sampled every HL_ALLOCATOR_PERIOD_NS (100 ms) at most, and never more
 * often than 50 times its last duration (2 % of the time), and only at a
 * point where this thread holds no arena lock: the counters' tick on a
 * hook's normal thread block (the tick runs after the real malloc,
 * realloc or memalign returned and before the real free is called), not
 * inside a real allocator call (hl_tls.in_real: a signal handler that
 * interrupted malloc), not on a shadow block or inside a program's signal
 * handler (strip_self), not from a fatal signal's handler (the recording's
 * end there takes no sample). Signals are blocked while it runs: a
 * handler that allocates would otherwise wait for the arena lock its own
 * thread holds. The last sample is taken at a clean exit (the on_exit
 * handler). Another allocator than glibc's: no samples.
 *
 * A bounded wait. The walk holds each arena's lock, so on a thread of its
 * own it would stall the program's next malloc as long: no thread helps.
 * Instead, once one call took longer than HEAPLENS_ALLOCATOR_STALL_US
 * (1 ms), it is not called again while the program runs; the samples
 * after it are estimates (HL_ALLOCATOR_FLAG_ESTIMATED): malloc's arenas
 * are the last call's plus what the program break moved since (the main
 * arena grows and shrinks with brk; other arenas' heaps are taken as they
 * were), in use is the last call's plus what the heap (requested bytes)
 * moved, free the rest, malloc's own mappings the last call's. The last
 * sample, at a clean exit, calls it again: exact, whatever it costs then. */
#define _GNU_SOURCE
#include "hl-capture-private.h"
#include "hl-capture-record.h"

#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#define HL_MMAP_REGIONS_MAX   65536u
#define HL_ALLOCATOR_PERIOD_NS 100000000u
#define HL_ALLOCATOR_COST_FACTOR 50u

typedef struct
{
  uint64_t start, end;
  uint32_t stack;
  uint32_t pad;
} Region;

typedef void *(*MmapFunc) (void *, size_t, int, int, int, off_t);
typedef int   (*MunmapFunc) (void *, size_t);
typedef void *(*MremapFunc) (void *, size_t, size_t, int, ...);
typedef struct mallinfo2 (*Mallinfo2Func) (void);

static MmapFunc      real_mmap;
static MunmapFunc    real_munmap;
static MremapFunc    real_mremap;
static Mallinfo2Func real_mallinfo2;

/* The table, under table_lock */
static _Atomic int table_lock;
static Region     *regions;
static uint32_t    n_regions;
static bool        table_failed;
static uint64_t    live_bytes, peak_bytes;
static _Atomic uint32_t n_regions_hint; /* n_regions, read without the lock */

static _Atomic uint64_t next_allocator_ns;

/* The last mallinfo2() call, for the estimates (taken by the thread that
 * claimed next_allocator_ns, which no other thread touches meanwhile) */
static struct
{
  bool     slow;            /* it took longer than the stall allowed: not called again */
  uint64_t heap, brk;       /* the heap and the program break then */
  struct mallinfo2 mi;
} last_exact;

static uint64_t page_mask = 4095;

void
hl_allocator_init (void)
{
  long ps = sysconf (_SC_PAGESIZE);
  if (ps > 0)
    page_mask = (uint64_t) ps - 1;
  real_mmap = (MmapFunc) hl_dlsym_next ("mmap");
  real_munmap = (MunmapFunc) hl_dlsym_next ("munmap");
  real_mremap = (MremapFunc) hl_dlsym_next ("mremap");
  void *mi = hl_dlsym_next ("mallinfo2");
  /* mallinfo2 describes glibc's arenas: meaningless beside another
   * allocator's malloc */
  if (mi != NULL && hl_real_in_libc (mi) && hl_real_in_libc ((void *) hl_real.malloc)
      && hl_real_in_libc ((void *) hl_real.free))
    real_mallinfo2 = (Mallinfo2Func) mi;
}

void
hl_mmap_after_fork_child (void)
{
  /* the parent's mappings are the child's too, but not made by it (as
   * its heap blocks are not); a lock the fork caught held is dropped */
  atomic_store (&table_lock, 0);
  n_regions = 0;
  atomic_store (&n_regions_hint, 0);
  live_bytes = peak_bytes = 0;
  atomic_store (&next_allocator_ns, 0);
  last_exact.slow = false;
}

/* ---- The table ----------------------------------------------------------- */

static void
table_lock_take (void)
{
  hl_tls.in_mmap++;
  for (unsigned spins = 0; atomic_exchange_explicit (&table_lock, 1, memory_order_acquire) != 0; spins++)
    if (spins > 64)
      sched_yield ();
  if (HL_UNLIKELY (regions == NULL && !table_failed))
    {
      regions = hl_sys_map_anon (HL_MMAP_REGIONS_MAX * sizeof (Region));
      table_failed = regions == NULL;
    }
}

static void
table_lock_drop (void)
{
  HlShmHeader *h = hl_g.hdr;
  if (h != NULL)
    {
      __atomic_store_n (&h->mmap_bytes_atomic, live_bytes, __ATOMIC_RELAXED);
      __atomic_store_n (&h->peak_mmap_bytes_atomic, peak_bytes, __ATOMIC_RELAXED);
      __atomic_store_n (&h->mmap_regions_atomic, n_regions, __ATOMIC_RELAXED);
    }
  atomic_store_explicit (&n_regions_hint, n_regions, memory_order_relaxed);
  atomic_store_explicit (&table_lock, 0, memory_order_release);
  hl_tls.in_mmap--;
}

static bool
table_insert (uint64_t start,
              uint64_t end,
              uint32_t stack)
{
  if (regions == NULL || n_regions == HL_MMAP_REGIONS_MAX)
    return false;
  regions[n_regions++] = (Region) { start, end, stack, 0 };
  live_bytes += end - start;
  if (live_bytes > peak_bytes)
    peak_bytes = live_bytes;
  return true;
}

/* Takes [A, E) out of the regions: the bytes that were the program's. */
static uint64_t
table_remove (uint64_t a,
              uint64_t e)
{
  uint64_t removed = 0;
  for (uint32_t i = 0; i < n_regions;)
    {
      Region *r = &regions[i];
      if (r->end <= a || r->start >= e)
        {
          i++;
          continue;
        }
      uint64_t lo = r->start > a ? r->start : a;
      uint64_t hi = r->end < e ? r->end : e;
      removed += hi - lo;
      if (lo == r->start && hi == r->end)
        {
          *r = regions[--n_regions];
          continue;
        }
      if (lo == r->start)
        r->start = hi;
      else if (hi == r->end)
        r->end = lo;
      else if (n_regions < HL_MMAP_REGIONS_MAX)
        {
          /* a hole in the middle: two regions */
          regions[n_regions++] = (Region) { hi, r->end, r->stack, 0 };
          regions[i].end = lo;
        }
      else
        {
          /* no room for the second: its bytes are forgotten */
          removed += r->end - hi;
          r->end = lo;
          hl_counters_drop (HL_DROP_MMAP_TABLE, 1);
        }
      i++;
    }
  live_bytes -= removed < live_bytes ? removed : live_bytes;
  return removed;
}

static uint32_t
table_stack_at (uint64_t a)
{
  for (uint32_t i = 0; i < n_regions; i++)
    if (regions[i].start <= a && a < regions[i].end)
      return regions[i].stack;
  return 0;
}

/* ---- Recording ----------------------------------------------------------- */

static inline bool
recordable (void)
{
  return hl_tls.guard == 0 && hl_tls.in_real == 0 && hl_tls.in_mmap == 0 && hl_active ();
}

static inline uint64_t
page_round (uint64_t len)
{
  return (len + page_mask) & ~page_mask;
}

static void
note_map (void   *p,
          size_t  len,
          int     prot,
          int     flags,
          void   *entry)
{
  bool anon = (flags & MAP_ANONYMOUS) != 0 && (flags & MAP_TYPE) == MAP_PRIVATE;
  bool fixed = (flags & MAP_FIXED) != 0;
  if (!anon && !(fixed && atomic_load_explicit (&n_regions_hint, memory_order_relaxed) != 0))
    return;
  hl_tls.guard++;
  HlThreadBlock *b = hl_thread_block ();
  if (HL_UNLIKELY (b == NULL))
    {
      hl_tls.guard--;
      return;
    }
  uint64_t a = (uint64_t) (uintptr_t) p;
  uint64_t size = page_round (len);
  uint64_t now = hl_now_for (b);
  uint32_t stack = hl_record_enter_stack (b, now, anon ? entry : NULL);
  table_lock_take ();
  /* MAP_FIXED replaced what was mapped there */
  uint64_t removed = fixed ? table_remove (a, a + size) : 0;
  bool kept = anon && table_insert (a, a + size, stack);
  table_lock_drop ();
  if (removed > 0)
    HL_TRACE_EMIT (b, now, hl_packet_writer_munmap (w_, now, a, size));
  if (kept)
    HL_TRACE_EMIT (b, now, hl_packet_writer_mmap (w_, now, a, size, stack, (uint32_t) prot, (uint32_t) flags));
  else if (anon)
    hl_counters_drop (HL_DROP_MMAP_TABLE, 1);
  hl_record_leave (b, now);
  hl_tls.guard--;
}

static void
note_unmap (void   *addr,
            size_t  len)
{
  hl_tls.guard++;
  HlThreadBlock *b = hl_thread_block ();
  if (HL_UNLIKELY (b == NULL))
    {
      hl_tls.guard--;
      return;
    }
  uint64_t a = (uint64_t) (uintptr_t) addr;
  uint64_t size = page_round (len);
  uint64_t now = hl_now_for (b);
  (void) hl_record_enter_stack (b, now, NULL);
  table_lock_take ();
  uint64_t removed = table_remove (a, a + size);
  table_lock_drop ();
  if (removed > 0)
    HL_TRACE_EMIT (b, now, hl_packet_writer_munmap (w_, now, a, size));
  hl_record_leave (b, now);
  hl_tls.guard--;
}

static inline void *
call_mmap (MmapFunc f,
           void    *addr,
           size_t   len,
           int      prot,
           int      flags,
           int      fd,
           off_t    offset)
{
  if (HL_LIKELY (f != NULL))
    return f (addr, len, prot, flags, fd, offset);
  /* before the start: glibc's mmap is this system call */
  return hl_sys_mmap (addr, len, prot, flags, fd, offset);
}

static inline void *
hook_mmap (void   *addr,
           size_t  len,
           int     prot,
           int     flags,
           int     fd,
           off_t   offset,
           void   *entry)
{
  void *p = call_mmap (real_mmap, addr, len, prot, flags, fd, offset);
  if (p != MAP_FAILED && recordable ())
    {
      int e = errno;
      note_map (p, len, prot, flags, entry);
      errno = e;
    }
  return p;
}

/* The build has _FILE_OFFSET_BITS=64, under which <sys/mman.h> names
 * mmap's symbol mmap64: both symbols are defined by their own names. On
 * a 64-bit system they are one function (glibc makes them aliases). */
HL_EXPORT void *
hl_hook_mmap (void   *addr,
              size_t  len,
              int     prot,
              int     flags,
              int     fd,
              off_t   offset)
{
  return hook_mmap (addr, len, prot, flags, fd, offset, __builtin_frame_address (0));
}

HL_EXPORT void *
hl_hook_mmap64 (void   *addr,
                size_t  len,
                int     prot,
                int     flags,
                int     fd,
                off_t   offset)
{
  return hook_mmap (addr, len, prot, flags, fd, offset, __builtin_frame_address (0));
}

HL_EXPORT int
munmap (void   *addr,
        size_t  len)
{
  /* an invalid call (unaligned, empty) fails in the kernel and unmaps
   * nothing: not looked at */
  if (len != 0 && ((uintptr_t) addr & page_mask) == 0
      && atomic_load_explicit (&n_regions_hint, memory_order_relaxed) != 0 && recordable ())
    {
      int e = errno;
      note_unmap (addr, len);
      errno = e;
    }
  if (HL_LIKELY (real_munmap != NULL))
    return real_munmap (addr, len);
  return hl_sys_munmap (addr, len);
}

static inline void *
call_mremap (void   *old,
             size_t  old_len,
             size_t  new_len,
             int     flags,
             void   *new_addr)
{
  if (HL_LIKELY (real_mremap != NULL))
    return (flags & MREMAP_FIXED) ? real_mremap (old, old_len, new_len, flags, new_addr)
                                  : real_mremap (old, old_len, new_len, flags);
  return hl_sys_mremap (old, old_len, new_len, flags, new_addr);
}

HL_EXPORT void *
mremap (void   *old,
        size_t  old_len,
        size_t  new_len,
        int     flags,
        ...)
{
  void *new_addr = NULL;
  if (flags & MREMAP_FIXED)
    {
      va_list ap;
      va_start (ap, flags);
      new_addr = va_arg (ap, void *);
      va_end (ap);
    }
  if (old_len == 0 || ((uintptr_t) old & page_mask) != 0
      || atomic_load_explicit (&n_regions_hint, memory_order_relaxed) == 0 || !recordable ())
    return call_mremap (old, old_len, new_len, flags, new_addr);

  int e = errno;
  hl_tls.guard++;
  HlThreadBlock *b = hl_thread_block ();
  uint64_t a = (uint64_t) (uintptr_t) old;
  uint64_t old_size = page_round (old_len);
  uint32_t stack = 0;
  uint64_t removed = 0;
  if (b != NULL)
    {
      table_lock_take ();
      stack = table_stack_at (a);
      removed = table_remove (a, a + old_size);
      table_lock_drop ();
    }
  errno = e;
  void *p = call_mremap (old, old_len, new_len, flags, new_addr);
  e = errno;
  if (removed > 0)
    {
      uint64_t np = (uint64_t) (uintptr_t) p;
      uint64_t size = page_round (new_len);
      table_lock_take ();
      bool kept;
      if (p == MAP_FAILED)
        kept = table_insert (a, a + old_size, stack); /* nothing changed */
      else
        {
          (void) table_remove (np, np + size); /* MREMAP_FIXED replaced it */
          kept = table_insert (np, np + size, stack);
        }
      table_lock_drop ();
      uint64_t now = hl_now_for (b);
      (void) hl_record_enter_stack (b, now, NULL);
      if (p != MAP_FAILED)
        {
          if (kept)
            HL_TRACE_EMIT (b, now, hl_packet_writer_mremap (w_, now, a, old_size, np, size, stack, (uint32_t) flags));
          else
            {
              HL_TRACE_EMIT (b, now, hl_packet_writer_munmap (w_, now, a, old_size));
              hl_counters_drop (HL_DROP_MMAP_TABLE, 1);
            }
        }
      hl_record_leave (b, now);
    }
  hl_tls.guard--;
  errno = e;
  return p;
}

/* ---- The allocator's view ------------------------------------------------ */

/* mallinfo2()'s figures now from the last call, the heap and the program
 * break (the comment at the top) */
static struct mallinfo2
estimate (uint64_t heap,
          uint64_t brk_now)
{
  struct mallinfo2 mi = last_exact.mi;
  int64_t moved = (int64_t) (brk_now - last_exact.brk);
  if (last_exact.brk == 0 || brk_now == 0)
    moved = 0;
  mi.arena = moved < 0 && (uint64_t) -moved > mi.arena ? 0 : (size_t) ((int64_t) mi.arena + moved);
  int64_t grew = (int64_t) (heap - last_exact.heap);
  mi.uordblks = grew < 0 && (uint64_t) -grew > mi.uordblks ? 0 : (size_t) ((int64_t) mi.uordblks + grew);
  if (mi.uordblks > mi.arena)
    mi.uordblks = mi.arena;
  mi.fordblks = mi.arena - mi.uordblks;
  return mi;
}

void
hl_allocator_tick (HlThreadBlock *b,
                   uint64_t       now,
                   uint64_t       rss,
                   uint64_t       heap,
                   bool           final)
{
  if (real_mallinfo2 == NULL || b == NULL || b->is_shadow || b->strip_self != 0
      || hl_tls.in_real != 0 || hl_tls.in_mmap != 0 || hl_tls.guard != 1)
    return;
  uint64_t due = atomic_load_explicit (&next_allocator_ns, memory_order_relaxed);
  if (!final && (now < due || !atomic_compare_exchange_strong (&next_allocator_ns, &due, UINT64_MAX)))
    return; /* not due, or another thread samples */

  uint64_t brk_now = (uint64_t) hl_sys_brk ();
  uint32_t flags = HL_ALLOCATOR_FLAG_MALLINFO;
  struct mallinfo2 mi;
  if (last_exact.slow && !final)
    {
      mi = estimate (heap, brk_now);
      flags |= HL_ALLOCATOR_FLAG_ESTIMATED;
      atomic_store_explicit (&next_allocator_ns, now + HL_ALLOCATOR_PERIOD_NS, memory_order_relaxed);
    }
  else
    {
      uint64_t mask;
      hl_sys_block_signals (&mask);
      uint64_t t0 = hl_sys_fine_ns ();
      mi = real_mallinfo2 ();
      uint64_t took = hl_sys_fine_ns () - t0;
      hl_sys_restore_signals (&mask);
      last_exact.mi = mi;
      last_exact.heap = heap;
      last_exact.brk = brk_now;
      last_exact.slow = took > hl_g.cfg.allocator_stall_ns;
      uint64_t wait = (uint64_t) HL_ALLOCATOR_COST_FACTOR * took;
      if (wait < HL_ALLOCATOR_PERIOD_NS)
        wait = HL_ALLOCATOR_PERIOD_NS;
      if (!final)
        atomic_store_explicit (&next_allocator_ns, now + wait, memory_order_relaxed);
    }

  HlAllocatorSample s = {
    .flags = flags,
    .rss_bytes = rss,
    .heap_bytes = heap,
    .mmap_bytes = hl_g.hdr != NULL ? __atomic_load_n (&hl_g.hdr->mmap_bytes_atomic, __ATOMIC_RELAXED) : 0,
    .arena_bytes = mi.arena,
    .in_use_bytes = mi.uordblks,
    .free_bytes = mi.fordblks,
    .mmapped_chunks_bytes = mi.hblkhd,
    .mmapped_chunks = mi.hblks,
  };
  HlShmHeader *h = hl_g.hdr;
  /* before the words: a reader that sees them sees the flag of their sample or a later one */
  if (h != NULL && (flags & HL_ALLOCATOR_FLAG_ESTIMATED))
    __atomic_fetch_or (&h->flags, (uint32_t) HL_SHM_FLAG_MALLOC_ESTIMATED, __ATOMIC_RELAXED);
  else if (h != NULL)
    __atomic_fetch_and (&h->flags, ~(uint32_t) HL_SHM_FLAG_MALLOC_ESTIMATED, __ATOMIC_RELAXED);
  if (h != NULL)
    {
      __atomic_store_n (&h->malloc_arena_bytes_atomic, s.arena_bytes, __ATOMIC_RELAXED);
      __atomic_store_n (&h->malloc_in_use_bytes_atomic, s.in_use_bytes, __ATOMIC_RELAXED);
      __atomic_store_n (&h->malloc_free_bytes_atomic, s.free_bytes, __ATOMIC_RELAXED);
      __atomic_store_n (&h->malloc_mmapped_bytes_atomic, s.mmapped_chunks_bytes, __ATOMIC_RELAXED);
      __atomic_store_n (&h->malloc_sample_ns_atomic, now > 0 ? now : 1, __ATOMIC_RELEASE);
    }
  HL_TRACE_EMIT (b, now, hl_packet_writer_allocator (w_, now, &s));
}
