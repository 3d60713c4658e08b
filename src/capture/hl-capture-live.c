/* hl-capture-live.c — the live allocations table: address -> id, size,
 * stack, thread, time, in shared memory so that another process can take a
 * snapshot of what is live without stopping the target.
 *
 * Open addressing with linear probing; the home entry of an address keeps
 * locality (hl_live_home): neighbouring objects share cache lines and pages
 * of the table. A plain hash of the address made python3 5x slower than
 * this (a cache and TLB miss on every call); 4 KiB regions 2x slower.
 *
 * Its cost is the memory it touches: every free reads the entry of a block
 * allocated long ago, a cache miss when the table is larger than the cache.
 * An entry is 32 bytes (the fields packed, hl-shm-layout.h) and maps 32
 * bytes of address space when the real allocator is glibc's, whose blocks
 * start at least 32 bytes apart (its smallest chunk), so no two live blocks
 * share a home entry: the table touches as much memory as the heap, one
 * cache line per lookup. The 40-byte entries per 16 bytes before touched
 * 2.5 times the heap and half of them straddled two lines: python3's run
 * spent half of the preload's time here (bench/results). Another allocator
 * may place blocks 16 bytes apart: then an entry maps 16 bytes
 * (HEAPLENS_LIVE_GRANULE overrides the choice).
 *
 * A slot is claimed with a CAS (EMPTY/TOMBSTONE -> BUSY), filled, then
 * published by a release store of the address; removal stores TOMBSTONE
 * over the address (the freeing thread is the slot's only writer then).
 * After HL_LIVE_PROBES slots without room the insert is dropped (counted),
 * and the free of that address is later recorded by address. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <string.h>

#define HL_LIVE_PROBES 512u

void
hl_live_init (void)
{
  /* glibc's malloc: chunks of at least 32 bytes, so block addresses are at
   * least 32 apart; any other allocator: 16 (the alignment malloc
   * guarantees; closer blocks only probe further) */
  uint32_t shift = 4;
  Dl_info info;
  if (hl_real.malloc != NULL && dladdr ((void *) hl_real.malloc, &info) != 0 && info.dli_fname != NULL)
    {
      const char *base = strrchr (info.dli_fname, '/');
      base = base != NULL ? base + 1 : info.dli_fname;
      if (strncmp (base, "libc.so.", 8) == 0)
        shift = 5;
    }
  if (hl_g.cfg.live_granule_shift != 0)
    shift = hl_g.cfg.live_granule_shift; /* HEAPLENS_LIVE_GRANULE */
  hl_g.live_granule_shift = shift;
}

bool
hl_live_insert (uint64_t addr,
                uint64_t home,
                uint64_t id,
                uint64_t size,
                uint64_t time_ns,
                uint32_t stack_id,
                uint32_t tid)
{
  uint64_t id_time, size_time, stack_tid;
  if (hl_g.live_slots == NULL || addr <= HL_SHM_LIVE_BUSY
      || !hl_shm_live_pack (id, size, time_ns, stack_id, tid, &id_time, &size_time, &stack_tid))
    return false;
  uint64_t i = home;
  for (uint32_t probe = 0; probe < HL_LIVE_PROBES; probe++, i = (i + 1) & hl_g.live_mask)
    {
      HlShmLiveEntry *s = &hl_g.live_slots[i];
      uint64_t a = __atomic_load_n (&s->address_atomic, __ATOMIC_RELAXED);
      while (a == HL_SHM_LIVE_EMPTY || a == HL_SHM_LIVE_TOMBSTONE)
        {
          if (hl_rmw_cas (&s->address_atomic, &a, HL_SHM_LIVE_BUSY))
            {
              s->id_time = id_time;
              s->size_time = size_time;
              s->stack_tid = stack_tid;
              __atomic_store_n (&s->address_atomic, addr, __ATOMIC_RELEASE);
              return true;
            }
        }
    }
  __atomic_fetch_add (&hl_g.live->n_dropped_atomic, 1, __ATOMIC_RELAXED);
  return false;
}

bool
hl_live_remove (uint64_t  addr,
                uint64_t  home,
                uint64_t *id,
                uint64_t *size,
                uint32_t *stack_id)
{
  if (hl_g.live_slots == NULL)
    return false;
  uint64_t i = home;
  for (uint32_t probe = 0; probe < HL_LIVE_PROBES; probe++, i = (i + 1) & hl_g.live_mask)
    {
      HlShmLiveEntry *s = &hl_g.live_slots[i];
      uint64_t a = __atomic_load_n (&s->address_atomic, __ATOMIC_ACQUIRE);
      if (a == addr)
        {
          *id = s->id_time & HL_SHM_LIVE_LOW48;
          *size = s->size_time & HL_SHM_LIVE_LOW48;
          *stack_id = (uint32_t) s->stack_tid;
          /* only the thread freeing ADDR writes this slot now (an insert
           * claims EMPTY or TOMBSTONE slots only): a plain release store,
           * no locked instruction. Two threads freeing the same block at
           * once (undefined behaviour, which glibc usually aborts) may
           * both count the free. */
          __atomic_store_n (&s->address_atomic, HL_SHM_LIVE_TOMBSTONE, __ATOMIC_RELEASE);
          return true;
        }
      if (a == HL_SHM_LIVE_EMPTY)
        return false;
    }
  return false;
}
