/* hl-capture-live.c — the live allocations table: address -> id, size,
 * stack, thread, time, in shared memory so that another process can take a
 * snapshot of what is live without stopping the target.
 *
 * Open addressing with linear probing. The slot of an address keeps page
 * locality: the page number is hashed to a block of 256 slots and the
 * 16-byte granule inside the page picks the slot in the block, so objects
 * of one page share a few cache lines and clusters stay short. A slot is
 * claimed with a CAS (EMPTY/TOMBSTONE -> BUSY), filled, then published by a
 * release store of the address; removal CASes the address to TOMBSTONE.
 * After HL_LIVE_PROBES slots without room the insert is dropped (counted),
 * and the free of that address is later recorded by address. */
#include "hl-capture-private.h"

#define HL_LIVE_PROBES 512u

static inline uint64_t
slot_of (uint64_t addr)
{
  uint64_t page = addr >> 12;
  uint64_t h = page * 0x9e3779b97f4a7c15ull;
  h ^= h >> 29;
  return ((h << 8) | ((addr >> 4) & 255u)) & hl_g.live_mask;
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
          if (__atomic_compare_exchange_n (&s->address_atomic, &a, HL_SHM_LIVE_TOMBSTONE, false,
                                           __ATOMIC_RELEASE, __ATOMIC_RELAXED))
            return true;
          return false; /* a concurrent double free won */
        }
      if (a == HL_SHM_LIVE_EMPTY)
        return false;
    }
  return false;
}
