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
 * and the free of that address is later recorded by address.
 *
 * The region directory. The home block of a region used to be a hash of
 * the region: two busy regions whose hashes met shared one block (a region
 * of glibc's heap fills all 4096 entries of its block), and inserts were
 * dropped while the table was almost empty (python3 dropped 184 to 12,050
 * per run). Now the first use of a region claims a block of its own: the
 * directory (after the entries, in the segment, so that a forked child
 * starts with an empty one) maps a region to its block, one 64-bit word,
 * written once by CAS and never changed. Lock-free, no spinning: two
 * threads claiming the same region at once both take a block, the loser
 * gives its back when it was the last one handed out, else it is lost.
 * When every block is handed out, a new region shares one of the two
 * blocks its hash picks, the one given fewer regions (counted after the
 * words), still recorded in the directory; when the
 * directory itself is 3/4 full, a new region is not recorded and uses its
 * hashed block (looked up the slow way on each event). A lookup that finds
 * no word for the region knows that nothing of it was entered, unless the
 * directory was full by then. (One race is left: when the directory fills
 * up while two threads first use the same region, one may enter its block
 * in the shared block while the other gives the region a word; that
 * block's free is then recorded by address, as for a dropped insert.) With a region per block, each live block of
 * glibc's heap has its home entry to itself: an insert or a removal touches
 * one entry and no probing.
 *
 * The fast path (hl_live_home, inline) tries the region's first directory
 * word only; the directory words of neighbouring regions share cache lines
 * (hl_live_dir_index), so the directory adds a load that hits the cache.
 *
 * Backed pages. The segment is sparse: tmpfs finds a page for an entry
 * when it is first touched, and a full /dev/shm answers with SIGBUS in
 * the program. So the pages of a block are reserved (hl_session_reserve:
 * fallocate) before any entry of it is written or read: blocks 0 and 1
 * and the directory when the session is made, then one block ahead of
 * the blocks handed out (an insert's probes run at most 512 entries, into
 * the next block), one fallocate per block claimed, off the per-call
 * path. When a reservation fails, the table stops growing: a region
 * without a block is not entered (its inserts are drops, its frees are
 * recorded by address) and no block without pages is ever used. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <string.h>

#define HL_LIVE_PROBES 512u
#define BLOCK_MASK     ((UINT64_C (1) << HL_LIVE_REGION_SHIFT) - 1)
#define MAX_BLOCKS     ((uint64_t) HL_SHM_LIVE_DIR_MAX_BLOCKS)
#define NO_ROOM        (MAX_BLOCKS + 1) /* a block without pages: /dev/shm is full */

uint64_t hl_live_dir_none[1];

/* Blocks [0, live_reserved) have their pages; live_full once a
 * reservation failed (new regions are then not entered). */
static uint64_t live_reserved;
static bool     live_full;

/* Entries of a block: the granules of a region. */
static uint64_t
block_entries (uint32_t g)
{
  return UINT64_C (1) << (HL_LIVE_REGION_SHIFT - g);
}

static uint64_t
n_blocks_for (uint64_t slots)
{
  uint64_t n = slots / block_entries (hl_g.live_granule_shift);
  if (n == 0)
    n = 1;
  return n < MAX_BLOCKS ? n : MAX_BLOCKS;
}

static uint64_t
n_words_for (uint64_t slots)
{
  /* four words a block: the blocks are handed out before the directory
   * is 1/4 full, and shared ones fill it up to 3/4 */
  uint64_t want = n_blocks_for (slots) * 4, n = 64;
  while (n < want)
    n *= 2;
  return n;
}

uint64_t
hl_live_region_size (uint64_t slots)
{
  return sizeof (HlShmLiveHeader) + slots * sizeof (HlShmLiveEntry)
         + sizeof (HlShmLiveDirHeader) + n_words_for (slots) * sizeof (uint64_t)
         + n_blocks_for (slots) * sizeof (uint32_t);
}

/* Entries of block B onwards as a range of the segment; the last block
 * runs to the end of the entries (probes wrap from there to block 0). */
static bool
reserve_entries (uint64_t from_block,
                 uint64_t to_block)
{
  uint64_t per = hl_g.live_granule_mask + 1;
  uint64_t first = from_block * per;
  uint64_t end = to_block >= hl_g.live_dir_hdr->n_blocks ? hl_g.live_mask + 1 : to_block * per;
  uint64_t offset = (uint64_t) ((uint8_t *) (void *) &hl_g.live_slots[first] - hl_g.seg);
  return end <= first || hl_session_reserve (offset, (end - first) * sizeof (HlShmLiveEntry));
}

/* Blocks [0, N) backed (N at most n_blocks); false when /dev/shm could
 * not back them: the table stops growing. */
static bool
reserve_blocks (uint64_t n)
{
  uint64_t n_blocks = hl_g.live_dir_hdr->n_blocks;
  if (n > n_blocks)
    n = n_blocks;
  uint64_t have = __atomic_load_n (&live_reserved, __ATOMIC_ACQUIRE);
  if (have >= n)
    return true;
  /* two threads may reserve the same pages: harmless, fallocate keeps
   * what is there */
  if (!reserve_entries (have, n))
    {
      __atomic_store_n (&live_full, true, __ATOMIC_RELAXED);
      return false;
    }
  while (have < n && !__atomic_compare_exchange_n (&live_reserved, &have, n, true,
                                                    __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
    ;
  return true;
}

/* Whether an entry of block B and the probes from it (into B + 1) have
 * their pages. */
static bool
block_usable (uint64_t b)
{
  uint64_t have = __atomic_load_n (&live_reserved, __ATOMIC_ACQUIRE);
  return b + 1 < have || have >= hl_g.live_dir_hdr->n_blocks;
}

bool
hl_live_attach (void)
{
  uint64_t slots = hl_g.live_mask + 1;
  HlShmLiveDirHeader *d = (HlShmLiveDirHeader *) (void *) (hl_g.live_slots + slots);
  /* the pages of the header and the directory before they are written */
  __atomic_store_n (&live_reserved, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&live_full, false, __ATOMIC_RELAXED);
  uint64_t head = (uint64_t) ((uint8_t *) (void *) hl_g.live - hl_g.seg);
  uint64_t dir = (uint64_t) ((uint8_t *) (void *) d - hl_g.seg);
  uint64_t dir_size = sizeof *d + n_words_for (slots) * sizeof (uint64_t) + n_blocks_for (slots) * sizeof (uint32_t);
  if (!hl_session_reserve (head, sizeof (HlShmLiveHeader)) || !hl_session_reserve (dir, dir_size))
    return false;
  hl_g.live->n_slots = slots;
  d->n_words = n_words_for (slots);
  d->n_blocks = n_blocks_for (slots);
  hl_g.live_dir_hdr = d;
  hl_g.live_dir_mask = d->n_words - 1;
  hl_g.live_dir = (uint64_t *) (void *) (d + 1);
  uint64_t e = block_entries (hl_g.live_granule_shift);
  hl_g.live_granule_mask = (e < slots ? e : slots) - 1;
  /* blocks 0 and 1 (region 0 uses block 0; a block's probes run into the next) */
  return reserve_blocks (2);
}

void
hl_live_detach (void)
{
  hl_g.live_dir = hl_live_dir_none;
  hl_g.live_dir_mask = 0;
  hl_g.live_granule_mask = 0;
  hl_g.live_dir_hdr = NULL;
}

static uint64_t
home_in_block (uint64_t addr,
               uint64_t block)
{
  uint32_t g = hl_g.live_granule_shift;
  return (block << (HL_LIVE_REGION_SHIFT - g)) | ((addr >> g) & hl_g.live_granule_mask);
}

/* Regions given each block (after the directory words). */
static uint32_t *
block_regions (void)
{
  return (uint32_t *) (void *) (hl_g.live_dir + hl_g.live_dir_mask + 1);
}

static uint64_t
region_hash (uint64_t region)
{
  uint64_t h = region * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

/* The block of a region not entered in the directory (it was full): its
 * hash. */
static uint64_t
shared_block (uint64_t region)
{
  return region_hash (region) & (hl_g.live_dir_hdr->n_blocks - 1);
}

/* The block of a new region once every block is handed out: of the two
 * its hash picks, the one given fewer regions (two choices keep the most
 * loaded block near the average). */
static uint64_t
lighter_block (uint64_t region)
{
  uint64_t h = region_hash (region);
  uint64_t mask = hl_g.live_dir_hdr->n_blocks - 1;
  uint64_t b1 = h & mask, b2 = (h >> 32) & mask;
  const uint32_t *n = block_regions ();
  return __atomic_load_n (&n[b2], __ATOMIC_RELAXED) < __atomic_load_n (&n[b1], __ATOMIC_RELAXED) ? b2 : b1;
}

/* A block for a new region; MAX_BLOCKS when all are handed out. */
static uint64_t
take_block (HlShmLiveDirHeader *d)
{
  if (__atomic_load_n (&d->next_block_atomic, __ATOMIC_RELAXED) >= d->n_blocks)
    return MAX_BLOCKS;
  uint64_t b = __atomic_fetch_add (&d->next_block_atomic, 1, __ATOMIC_RELAXED);
  if (b >= d->n_blocks)
    return MAX_BLOCKS;
  /* its pages and the next block's (where its probes may run) */
  return reserve_blocks (b + 2) ? b : NO_ROOM;
}

/* A block taken for a region that did not use it: given back if no block
 * was handed out since (else it stays unused). */
static void
give_back (HlShmLiveDirHeader *d,
           uint64_t            taken)
{
  if (taken == MAX_BLOCKS)
    return;
  uint64_t expected = taken + 1;
  (void) __atomic_compare_exchange_n (&d->next_block_atomic, &expected, taken, false,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* ADDR's home in BLOCK, or HL_LIVE_HOME_UNKNOWN when the block has no
 * pages (a reservation failed). */
static uint64_t
usable_home (uint64_t addr,
             uint64_t block)
{
  return block_usable (block) ? home_in_block (addr, block) : HL_LIVE_HOME_UNKNOWN;
}

/* The home of ADDR when the fast path did not find its region at its
 * first directory word: the other words, then (CLAIM) a new word. Without
 * CLAIM, HL_LIVE_HOME_UNKNOWN when the region was never entered. */
static __attribute__ ((noinline)) uint64_t
home_slow (uint64_t addr,
           bool     claim)
{
  HlShmLiveDirHeader *d = hl_g.live_dir_hdr;
  uint64_t region = addr >> HL_LIVE_REGION_SHIFT;
  if (d == NULL)
    return HL_LIVE_HOME_UNKNOWN;
  if (region == 0)
    return home_in_block (addr, 0); /* never entered: no word can be 0 */
  uint64_t key = addr & ~BLOCK_MASK;
  uint64_t mask = hl_g.live_dir_mask;
  uint64_t i = hl_live_dir_index (addr);
  uint64_t taken = MAX_BLOCKS; /* a block taken for this region, not yet in a word */
  for (uint64_t n = 0; n <= mask; n++, i = (i + 1) & mask)
    {
      uint64_t w = __atomic_load_n (&hl_g.live_dir[i], __ATOMIC_RELAXED);
      while (w == 0)
        {
          bool full = __atomic_load_n (&d->n_used_atomic, __ATOMIC_RELAXED) >= (mask + 1) / 4 * 3;
          if (!claim || full)
            {
              /* the first empty word: the region has none. Only when the
               * directory is full can its entries be in its shared block */
              give_back (d, taken);
              return full ? usable_home (addr, shared_block (region)) : HL_LIVE_HOME_UNKNOWN;
            }
          /* /dev/shm could not back a block: no new region is entered */
          if (__atomic_load_n (&live_full, __ATOMIC_RELAXED) && taken == MAX_BLOCKS)
            return HL_LIVE_HOME_UNKNOWN;
          if (taken == MAX_BLOCKS)
            taken = take_block (d);
          if (taken == NO_ROOM)
            return HL_LIVE_HOME_UNKNOWN;
          uint64_t block = taken != MAX_BLOCKS ? taken : lighter_block (region);
          if (!block_usable (block))
            return HL_LIVE_HOME_UNKNOWN;
          if (__atomic_compare_exchange_n (&hl_g.live_dir[i], &w, key | block,
                                           false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            {
              __atomic_fetch_add (&d->n_used_atomic, 1, __ATOMIC_RELAXED);
              __atomic_fetch_add (&block_regions ()[block], 1, __ATOMIC_RELAXED);
              return home_in_block (addr, block);
            }
        }
      if ((w & ~BLOCK_MASK) == key)
        {
          give_back (d, taken); /* another thread gave the region its block first */
          return home_in_block (addr, w & BLOCK_MASK);
        }
    }
  /* every word in use (not reached: the directory stops at 3/4) */
  give_back (d, taken);
  return usable_home (addr, shared_block (region));
}

void
hl_live_init (void)
{
  /* glibc's malloc: chunks of at least 32 bytes, so block addresses are at
   * least 32 apart; any other allocator: 16 (the alignment malloc
   * guarantees; closer blocks only probe further) */
  uint32_t shift = hl_real_in_libc ((void *) hl_real.malloc) ? 5 : 4;
  if (hl_g.cfg.live_granule_shift != 0)
    shift = hl_g.cfg.live_granule_shift; /* HEAPLENS_LIVE_GRANULE */
  hl_g.live_granule_shift = shift;
}

/* The probes of an insert from HOME. */
static inline bool
insert_at (uint64_t addr,
           uint64_t home,
           uint64_t id_time,
           uint64_t size_time,
           uint64_t stack_tid)
{
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

/* Separate, so that the common path stays a leaf without a frame. */
static __attribute__ ((noinline)) bool
insert_slow (uint64_t addr,
             uint64_t id_time,
             uint64_t size_time,
             uint64_t stack_tid)
{
  uint64_t home = home_slow (addr, true);
  if (home == HL_LIVE_HOME_UNKNOWN)
    {
      /* no block with pages for its region: /dev/shm is full */
      __atomic_fetch_add (&hl_g.live->n_dropped_atomic, 1, __ATOMIC_RELAXED);
      return false;
    }
  return insert_at (addr, home, id_time, size_time, stack_tid);
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
  if (HL_UNLIKELY (home == HL_LIVE_HOME_UNKNOWN))
    return insert_slow (addr, id_time, size_time, stack_tid);
  return insert_at (addr, home, id_time, size_time, stack_tid);
}

/* The probes of a removal from HOME. */
static inline bool
remove_at (uint64_t  addr,
           uint64_t  home,
           uint64_t *id,
           uint64_t *size,
           uint32_t *stack_id)
{
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

static __attribute__ ((noinline)) bool
remove_slow (uint64_t  addr,
             uint64_t *id,
             uint64_t *size,
             uint32_t *stack_id)
{
  uint64_t home = home_slow (addr, false);
  if (home == HL_LIVE_HOME_UNKNOWN)
    return false; /* nothing of its region was ever entered */
  return remove_at (addr, home, id, size, stack_id);
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
  if (HL_UNLIKELY (home == HL_LIVE_HOME_UNKNOWN))
    return remove_slow (addr, id, size, stack_id);
  return remove_at (addr, home, id, size, stack_id);
}

uint64_t
hl_live_backed_slots (void)
{
  if (hl_g.live_slots == NULL || hl_g.live_dir_hdr == NULL)
    return 0;
  uint64_t have = __atomic_load_n (&live_reserved, __ATOMIC_ACQUIRE);
  if (have >= hl_g.live_dir_hdr->n_blocks)
    return hl_g.live_mask + 1;
  return have * (hl_g.live_granule_mask + 1);
}
