/* hl-capture-stacks.c — interning call stacks in the resources table
 * (seed 000): compressed frames, deduplicated through a hash index of
 * chained buckets, append-only, addressed by offset; a new stack gets the
 * next id, its call-site record is published, and its definition goes to the
 * trace of the thread that created it.
 *
 * Lock-free: space is reserved with one fetch_add on the watermark, the node
 * is written, its kind is stored last (release) so that a reader walking the
 * nodes in order stops at one not yet published, then it is linked at the
 * head of its bucket with a CAS. Two threads inserting the same new stack at
 * the same moment may both insert it (two ids, both valid); that is rare and
 * harmless. */
#include "hl-capture-private.h"

#include <string.h>

/* ---- Hash: two lanes of crc32c (SSE4.2) with a final mix ----------------- */

static inline uint64_t
mix64 (uint64_t h)
{
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/* The hash folds the frames from the outermost to the innermost, in two
 * independent chains (crc32c with SSE4.2, else multiply-xorshift), so that
 * the state after any outer part can be kept and continued: the cached-CFI
 * unwinder remembers it per frame and only hashes the frames that changed
 * (hl_stack_hash_continue). */

#define SEED_A 0x243f6a88u
#define SEED_B 0x85a308d3u

static int have_crc = -1;

void
hl_stack_hash_init (void)
{
#if defined(__x86_64__)
  __builtin_cpu_init ();
  have_crc = __builtin_cpu_supports ("sse4.2") ? 1 : 0;
#else
  have_crc = 0;
#endif
}

#if defined(__x86_64__)
__attribute__ ((target ("sse4.2"))) static void
fold_crc (uint32_t *sa, uint32_t *sb, const uint64_t *ips, size_t stride_words, uint32_t n, uint32_t *out)
{
  uint64_t a = *sa, b = *sb;
  /* ips[(n-1)*stride] is folded first (outermost) */
  for (uint32_t k = n; k-- > 0;)
    {
      uint64_t ip = ips[k * stride_words];
      a = __builtin_ia32_crc32di (a, ip);
      b = __builtin_ia32_crc32di (b, ip ^ 0x9e3779b97f4a7c15ull);
      if (out != NULL)
        {
          out[k * stride_words * 2] = (uint32_t) a;
          out[k * stride_words * 2 + 1] = (uint32_t) b;
        }
    }
  *sa = (uint32_t) a;
  *sb = (uint32_t) b;
}
#endif

static void
fold_mul (uint32_t *sa, uint32_t *sb, const uint64_t *ips, size_t stride_words, uint32_t n, uint32_t *out)
{
  uint64_t a = *sa, b = *sb;
  for (uint32_t k = n; k-- > 0;)
    {
      uint64_t ip = ips[k * stride_words];
      a = ((a ^ ip) * 0x9e3779b97f4a7c15ull) >> 16;
      b = ((b ^ ip) * 0xc2b2ae3d27d4eb4full) >> 16;
      a = (uint32_t) (a ^ (a >> 32));
      b = (uint32_t) (b ^ (b >> 32));
      if (out != NULL)
        {
          out[k * stride_words * 2] = (uint32_t) a;
          out[k * stride_words * 2 + 1] = (uint32_t) b;
        }
    }
  *sa = (uint32_t) a;
  *sb = (uint32_t) b;
}

/* Folds N ips (each STRIDE_WORDS uint64 apart, the one at index N-1 first)
 * into the state; when OUT is not NULL, the state after each ip is stored
 * at OUT + 2 * index * STRIDE_WORDS (two uint32: a, b). */
void
hl_stack_hash_fold (uint32_t *sa, uint32_t *sb, const uint64_t *ips, size_t stride_words,
                    uint32_t n, uint32_t *out)
{
  if (HL_UNLIKELY (have_crc < 0))
    hl_stack_hash_init ();
#if defined(__x86_64__)
  if (HL_LIKELY (have_crc))
    {
      fold_crc (sa, sb, ips, stride_words, n, out);
      return;
    }
#endif
  fold_mul (sa, sb, ips, stride_words, n, out);
}

void
hl_stack_hash_seed (uint32_t *sa, uint32_t *sb)
{
  *sa = SEED_A;
  *sb = SEED_B;
}

uint64_t
hl_stack_hash_final (uint32_t sa, uint32_t sb, uint32_t n)
{
  return mix64 (((uint64_t) sa << 32) ^ sb ^ ((uint64_t) n << 56));
}

uint64_t
hl_stack_hash (const uint64_t *frames,
               uint32_t        n)
{
  uint32_t a, b;
  hl_stack_hash_seed (&a, &b);
  hl_stack_hash_fold (&a, &b, frames, 1, n, NULL);
  return hl_stack_hash_final (a, b, n);
}

/* ---- Payload: zigzag varint deltas, innermost first ---------------------- */

static size_t
encode_frames (uint8_t        *out,
               const uint64_t *frames,
               uint32_t        n)
{
  size_t len = 0;
  uint64_t prev = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      int64_t d = (int64_t) (frames[i] - prev);
      uint64_t z = ((uint64_t) d << 1) ^ (uint64_t) (d >> 63);
      prev = frames[i];
      while (z >= 0x80)
        {
          out[len++] = (uint8_t) (z | 0x80);
          z >>= 7;
        }
      out[len++] = (uint8_t) z;
    }
  return len;
}

static inline HlShmResourceNode *
node_at (uint32_t off)
{
  return (HlShmResourceNode *) (hl_g.res_base + off);
}

/* Reserves a node of LENGTH payload bytes; 0 when the region is full. */
static uint32_t
reserve_node (size_t length)
{
  uint64_t need = (sizeof (HlShmResourceNode) + length + 7u) & ~(uint64_t) 7u;
  uint64_t off = __atomic_fetch_add (&hl_g.res->watermark_atomic, need, __ATOMIC_RELAXED);
  if (off + need > hl_g.res_size || off + need > UINT32_MAX)
    {
      /* Keep the watermark at the end so readers never walk past it. */
      uint64_t end = hl_g.res_size;
      __atomic_store_n (&hl_g.res->watermark_atomic, end, __ATOMIC_RELAXED);
      return 0;
    }
  if (!hl_session_reserve_node (off + need))
    return 0; /* /dev/shm full: no page for it (the watermark is held) */
  return (uint32_t) off;
}

/* ---- The hash index: three levels of chained buckets --------------------
 *
 * The bucket heads (n_buckets words, a power of two, internal to the
 * writer: readers walk the nodes) are three tables: level 0 of n/256
 * words, level 1 of n/16 after it, level 2 of n/2 in the second half. A
 * stack goes into the level of its id: the first n/256 stacks into level
 * 0, the next up to n/16 into level 1, the rest into level 2 (at most two
 * a bucket on average when the table is full). A lookup searches the
 * levels that hold ids up to the count it read. One table of n words had
 * every new stack touch a page of its own: python3 -c pass interned 1,000
 * stacks and faulted in 1,000 pages of the segment (2.5 ms, a third of
 * the preload's start-up); the first 4,096 stacks now share 4 pages. An
 * insert racing a lookup that read an older count may intern a stack
 * twice (two ids, both valid), as two racing inserts may. A table of under
 * 256 words is one level. */

static inline uint64_t
n_buckets (void)
{
  return (uint64_t) hl_g.res_bucket_mask + 1;
}

/* The level of a stack of id ID (1-based). */
static inline unsigned
level_for_id (uint64_t id)
{
  uint64_t n = n_buckets ();
  if (n < 256 || id <= n >> 8)
    return 0;
  return id <= n >> 4 ? 1 : 2;
}

/* The bucket of HASH in level K: level 0 is the first n/256 words, level 1
 * the n/16 after them, level 2 the second half. */
static inline uint32_t *
bucket_at (unsigned k,
           uint64_t hash)
{
  uint64_t n = n_buckets (), first = 0, size = n;
  if (n >= 256)
    {
      first = k == 0 ? 0 : k == 1 ? n >> 8 : n >> 1;
      size = k == 0 ? n >> 8 : k == 1 ? n >> 4 : n >> 1;
    }
  return &hl_g.res_buckets[first + ((hash >> 20) & (size - 1))];
}

uint32_t
hl_stack_intern (HlThreadBlock  *b,
                 const uint64_t *frames,
                 uint32_t        n,
                 uint32_t        flags,
                 uint64_t        hash,
                 uint64_t        now)
{
  if (hl_g.res == NULL)
    return 0;
  uint8_t *payload = b->scratch_payload; /* not on the program's stack */
  size_t len = encode_frames (payload, frames, n);
  uint32_t h32 = (uint32_t) (hash >> 32) ^ (flags << 31);
  unsigned top = level_for_id (__atomic_load_n (&hl_g.res->n_stacks_atomic, __ATOMIC_ACQUIRE));

  for (unsigned k = 0; k <= top; k++)
    for (uint32_t off = __atomic_load_n (bucket_at (k, hash), __ATOMIC_ACQUIRE); off != 0;)
      {
        HlShmResourceNode *node = node_at (off);
        if (node->hash == h32 && node->length == len
            && memcmp (node + 1, payload, len) == 0)
          return node->id;
        off = node->next;
      }

  uint64_t id = __atomic_add_fetch (&hl_g.res->n_stacks_atomic, 1, __ATOMIC_RELAXED);
  if (id >= hl_g.n_callsites)
    {
      __atomic_fetch_sub (&hl_g.res->n_stacks_atomic, 1, __ATOMIC_RELAXED);
      __atomic_fetch_add (&hl_g.res->n_dropped_atomic, 1, __ATOMIC_RELAXED);
      hl_counters_drop (HL_DROP_STACK_TABLE, 1);
      return 0;
    }
  uint32_t off = hl_session_reserve_stack (id) ? reserve_node (len) : 0;
  if (off == 0)
    {
      __atomic_fetch_add (&hl_g.res->n_dropped_atomic, 1, __ATOMIC_RELAXED);
      hl_counters_drop (HL_DROP_STACK_TABLE, 1);
      return 0;
    }
  HlShmResourceNode *node = node_at (off);
  node->id = (uint32_t) id;
  node->length = (uint16_t) len;
  node->hash = h32;
  memcpy (node + 1, payload, len);
  __atomic_store_n (&node->kind, (uint16_t) HL_SHM_NODE_STACK, __ATOMIC_RELEASE);

  HlShmCallsite *site = &hl_g.callsites[id];
  site->flags = flags;
  __atomic_store_n (&site->node_offset_atomic, off, __ATOMIC_RELEASE);

  uint32_t *bucket = bucket_at (level_for_id (id), hash);
  uint32_t head = __atomic_load_n (bucket, __ATOMIC_RELAXED);
  do
    node->next = head;
  while (!__atomic_compare_exchange_n (bucket, &head, off, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));

  HL_TRACE_EMIT (b, now, hl_packet_writer_stack (w_, now, (uint32_t) id, flags, frames, n));
  return (uint32_t) id;
}

void
hl_resources_thread_name (uint32_t    tid,
                          const char *name)
{
  if (hl_g.res == NULL)
    return;
  size_t len = strlen (name);
  if (len > 64)
    len = 64;
  uint32_t off = reserve_node (len);
  if (off == 0)
    {
      __atomic_fetch_add (&hl_g.res->n_dropped_atomic, 1, __ATOMIC_RELAXED);
      return;
    }
  HlShmResourceNode *node = node_at (off);
  node->id = tid;
  node->length = (uint16_t) len;
  node->hash = 0;
  node->next = 0;
  memcpy (node + 1, name, len);
  __atomic_store_n (&node->kind, (uint16_t) HL_SHM_NODE_THREAD, __ATOMIC_RELEASE);
}
