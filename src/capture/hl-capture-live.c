/* hl-capture-live.c — the live allocations table: address -> id, size,
 * stack, thread, time, in shared memory so that another process can take a
 * snapshot of what is live without stopping the target.
 *
 * Open addressing with linear probing. The slot of an address keeps
 * locality: the 128 KiB region of the address is hashed to a block of 8192
 * slots and the 16-byte granule inside the region picks the slot in the
 * block, so neighbouring objects share cache lines and pages of the table.
 * A plain hash of the address made python3 5x slower than this (a cache
 * and TLB miss on every call); 4 KiB regions 2x slower. One slot per 32
 * bytes (glibc's smallest chunk) filled python3's blocks so densely that an
 * insert or a removal took 4.7 probes; one per 16 bytes costs about twice
 * the heap's size in touched table memory. A slot is claimed with a CAS
 * (EMPTY/TOMBSTONE -> BUSY), filled, then published by a release store of
 * the address; removal stores TOMBSTONE over the address (the freeing
 * thread is the slot's only writer then).
 * After HL_LIVE_PROBES slots without room the insert is dropped (counted),
 * and the free of that address is later recorded by address. */
#include "hl-capture-private.h"

#define HL_LIVE_PROBES 512u
#define HL_LIVE_REGION_SHIFT 17 /* 128 KiB */
#define HL_LIVE_GRANULE_SHIFT 4 /* 16 bytes */

static inline uint64_t
slot_of (uint64_t addr)
{
  uint64_t region = addr >> HL_LIVE_REGION_SHIFT;
  uint64_t h = region * 0x9e3779b97f4a7c15ull;
  h ^= h >> 29;
  return ((h << (HL_LIVE_REGION_SHIFT - HL_LIVE_GRANULE_SHIFT))
          | ((addr >> HL_LIVE_GRANULE_SHIFT) & ((1u << (HL_LIVE_REGION_SHIFT - HL_LIVE_GRANULE_SHIFT)) - 1)))
         & hl_g.live_mask;
}

bool
hl_live_insert (uint64_t addr,
                uint64_t id,
                uint64_t size,
                uint64_t time_ns,
                uint32_t stack_id,
                uint32_t tid)
{
  if (hl_g.live_slots == NULL || addr <= HL_SHM_LIVE_BUSY)
    return false;
  uint64_t i = slot_of (addr);
  for (uint32_t probe = 0; probe < HL_LIVE_PROBES; probe++, i = (i + 1) & hl_g.live_mask)
    {
      HlShmLiveSlot *s = &hl_g.live_slots[i];
      uint64_t a = __atomic_load_n (&s->address_atomic, __ATOMIC_RELAXED);
      while (a == HL_SHM_LIVE_EMPTY || a == HL_SHM_LIVE_TOMBSTONE)
        {
          if (__atomic_compare_exchange_n (&s->address_atomic, &a, HL_SHM_LIVE_BUSY, false,
                                           __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            {
              s->alloc_id = id;
              s->size = size;
              s->time_ns = time_ns;
              s->stack_id = stack_id;
              s->tid = tid;
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
                uint64_t *id,
                uint64_t *size,
                uint32_t *stack_id)
{
  if (hl_g.live_slots == NULL)
    return false;
  uint64_t i = slot_of (addr);
  for (uint32_t probe = 0; probe < HL_LIVE_PROBES; probe++, i = (i + 1) & hl_g.live_mask)
    {
      HlShmLiveSlot *s = &hl_g.live_slots[i];
      uint64_t a = __atomic_load_n (&s->address_atomic, __ATOMIC_ACQUIRE);
      if (a == addr)
        {
          *id = s->alloc_id;
          *size = s->size;
          *stack_id = s->stack_id;
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
