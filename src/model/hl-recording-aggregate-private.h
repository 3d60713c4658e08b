/* hl-recording-aggregate-private.h — the aggregate's per-event path
 * inline, for a loop that applies events at the pace of the program (the
 * costs thread of `record`: a call for each allocation and free, with
 * its eight arguments, was a tenth of its instructions), and its
 * insides, which that path needs. The same numbers as
 * hl_aggregate_alloc(), hl_aggregate_free_id() and hl_aggregate_seen(),
 * which are these; the rare paths stay out of line. */
#pragma once

#include "hl-address-map.h"
#include "hl-recording-aggregate.h"

G_BEGIN_DECLS

/* A live allocation; id_plus_1 == 0 marks an empty slot. */
typedef struct
{
  guint64 id_plus_1;
  guint64 address;
  guint64 time_ns;
  guint64 size;
  guint32 stack;
  guint32 thread;
} HlAggLive;

/* A point of the heap curve waiting for its turn. */
typedef struct
{
  guint64 time_ns;
  guint64 change;   /* the size, minus it for a free (modulo 2^64): added as is */
  guint32 seq;
  guint32 stack;
  guint32 thread;
} HlAggPoint;

/* Costs of one stack or thread, and its live bytes along the sorted
 * curve with the snapshot taken at the latest peak. */
typedef struct
{
  HlCosts costs;
  guint64 live;
  guint64 at_peak;
  guint64 last_epoch;
  guint32 owner_plus_1;   /* stacks: the first thread that allocated there */
} HlAggTotals;

/* The recent ids' live allocations: slot id % HL_AGG_RING_SLOTS (see
 * hl_agg_live_insert). 2^16 slots (3 MiB): python3's objects outlive 2^14
 * ids, and those pushed out to the hash table made every insert and
 * removal a cache miss there; a costs-only `report` of its 5.3 M
 * allocations took 1.94 s and 163 MB with 2^14, 1.78 s and 123 MB with
 * 2^16 (medians of 7); churn and sqlite3 the same within 2 %. */
#define HL_AGG_RING_BITS  16
#define HL_AGG_RING_SLOTS ((guint64) 1 << HL_AGG_RING_BITS)
#define HL_AGG_RING_MASK  (HL_AGG_RING_SLOTS - 1)

struct _HlAggregate
{
  /* Live allocations: the ring of recent ids, and the older ones pushed
   * out of it: in id order to the log, the others (out of order) to a
   * table of open addressing, linear probing. */
  HlAggLive *ring;
  HlAggLive *live;
  guint64    live_mask;        /* capacity - 1 */
  guint64    n_hash;           /* entries of the table */
  guint64    n_live;           /* entries outside the ring: the table's and the log's */
  /* The log (see hl_aggregate_log_push): entries by rising id, the
   * removed ones with id_plus_1 0 until a compaction; per block of 64
   * ids, the bits of the ids it holds and the position of the first. */
  HlAggLive *log;
  guint64    log_len, log_cap, log_dead;
  guint64    log_last_id_plus_1;
  guint64   *log_mask;
  guint32   *log_base;
  guint64    n_blocks;         /* allocated in log_mask and log_base */
  guint64    log_lo_block;     /* no entry of the log is in a block below */
  HlAddressMap *addr_to_id;    /* built on the first free by address */

  GArray    *seen;             /* guint64 words: a bit per id applied */

  /* Points waiting: those that came in order in a FIFO (most of them:
   * a packet's events are in time order), the others in a min-heap on
   * (time, seq); released by merging the two. */
  HlAggPoint *queue;
  guint64    q_head, q_len, q_mask;
  /* The (time, seq) a point must not be before to join the FIFO: its
   * tail's, or the last released point's while it is empty (0, 0 before
   * any), kept apart so that hl_agg_point_add() need not find the tail. */
  guint64    tail_time;
  guint32    tail_seq;
  HlAggPoint *heap;
  guint64    n_heap, heap_cap;

  /* Release bounds, by packet offset. */
  guint64   *offsets;
  guint64   *bound_after;      /* least first time of the packets after offsets[i] */
  gsize      n_offsets, next_offset;

  GArray    *stacks;           /* HlAggTotals per internal stack */
  GArray    *threads;          /* HlAggTotals per thread index */
  /* Costs per (stack, thread) for the threads other than the stack's
   * owner (the owner's are the stack's minus these: every cost adds up),
   * so single-threaded programs pay one comparison per event. */
  GHashTable *pair_index;      /* stack << 32 | thread → index + 1 */
  GArray    *pairs;            /* HlAggTotals */
  GArray    *pair_keys;        /* guint64 stack << 32 | thread, parallel */
  HlSizeHistogram histogram;

  guint64    epoch, peak_epoch;
  guint64    heap_bytes, peak_bytes, peak_time_ns;
  guint64    last_time;
  guint32    last_seq;
  gboolean   released_any;
  gboolean   order_broken;
  guint64    leaked_bytes, leaked_blocks;
  /* The weights of the live allocations weighing more than 1 (a sampled
   * recording's), id → weight; NULL until the first. */
  GHashTable *weights;
};

/* Out of line: the rare paths. */
HlAggTotals *hl_aggregate_pair_at           (HlAggregate      *self,
                                             HlAggTotals      *stack_agg,
                                             guint32           stack,
                                             guint32           thread);
void         hl_aggregate_grow_seen         (HlAggregate      *self,
                                             guint64           id);
HlAggLive   *hl_aggregate_hash_find         (HlAggregate      *self,
                                             guint64           id);
void         hl_aggregate_hash_remove       (HlAggregate      *self,
                                             HlAggLive        *r);
void         hl_aggregate_live_insert_taken (HlAggregate      *self,
                                             HlAggLive        *r,
                                             const HlAggLive  *rec);
void         hl_aggregate_queue_push        (HlAggregate      *self,
                                             const HlAggPoint *p);
void         hl_aggregate_heap_push         (HlAggregate      *self,
                                             const HlAggPoint *p);

/* hl_aggregate_pair_at() with the usual case (THREAD is the stack's owner) inline. */
static inline HlAggTotals *
hl_agg_pair_of (HlAggregate *self,
                HlAggTotals *stack_agg,
                guint32      stack,
                guint32      thread)
{
  if (G_LIKELY (stack_agg->owner_plus_1 == thread + 1))
    return NULL;
  return hl_aggregate_pair_at (self, stack_agg, stack, thread);
}

static inline void
hl_agg_mark_seen (HlAggregate *self,
                  guint64      id)
{
  if (G_UNLIKELY ((id >> 6) >= self->seen->len))
    hl_aggregate_grow_seen (self, id);
  g_array_index (self->seen, guint64, id >> 6) |= G_GUINT64_CONSTANT (1) << (id & 63);
}

/* Ids come in order and most blocks die young (churn: a ring of 256 live
 * ones; sqlite3 and python3 likewise for most): a block lives in the ring
 * slot of its id, found and freed with no hashing and no probe; a block
 * still live when an id HL_AGG_RING_SLOTS later takes its slot moves to the
 * log (the table when its id is not above the log's last). Of two ids for
 * one slot (threads' packets come out of order) the ring keeps the later
 * one. Each live id is in exactly one of the three. */
static inline HlAggLive *
hl_agg_live_find (HlAggregate *self,
                  guint64      id)
{
  HlAggLive *r = &self->ring[id & HL_AGG_RING_MASK];

  if (G_LIKELY (r->id_plus_1 == id + 1))
    return r;
  return self->n_live > 0 ? hl_aggregate_hash_find (self, id) : NULL; /* the log's or the table's */
}

/* The usual case, an empty ring slot, written in place with nothing
 * else on the way (a record built and copied was a tenth of an
 * allocation's cost). */
static inline void
hl_agg_live_insert (HlAggregate *self,
                    guint64      id,
                    guint64      address,
                    guint64      time_ns,
                    guint64      size,
                    guint32      stack,
                    guint32      thread)
{
  HlAggLive *r = &self->ring[id & HL_AGG_RING_MASK];

  if (G_LIKELY (r->id_plus_1 == 0))
    {
      r->id_plus_1 = id + 1;
      r->address = address;
      r->time_ns = time_ns;
      r->size = size;
      r->stack = stack;
      r->thread = thread;
    }
  else
    hl_aggregate_live_insert_taken (self, r,
                                    &(HlAggLive) { id + 1, address, time_ns, size, stack, thread });
}

static inline void
hl_agg_live_remove (HlAggregate *self,
                    HlAggLive   *r)
{
  if (r >= self->ring && r < self->ring + HL_AGG_RING_SLOTS)
    r->id_plus_1 = 0;
  else
    hl_aggregate_hash_remove (self, r); /* the log's or the table's */
}

static inline HlAggTotals *
hl_agg_at (GArray *array,
           guint32 index)
{
  if (index >= array->len)
    g_array_set_size (array, MAX (index + 1, array->len * 2));
  return &g_array_index (array, HlAggTotals, index);
}

static inline guint
hl_agg_size_bucket (guint64 size)
{
  return size == 0 ? 0 : 64 - __builtin_clzll (size);
}

/* A point of the curve: to the FIFO when it comes in order after the
 * last one there (most: a packet's events are in time order), else to
 * the heap; written in place.
 *
 * A point not before the FIFO's tail is not before the last one released
 * either, while the order holds: the FIFO is sorted, and a point released
 * came before all that still wait. Only the others are checked against
 * it (the check was a seventh of the point's cost). With the FIFO empty,
 * the key it is compared with is the last released point's: one before
 * it breaks the order and goes to the FIFO all the same. */
static inline __attribute__ ((always_inline)) void
hl_agg_point_add (HlAggregate *self,
                  guint64      time_ns,
                  guint64      size,
                  guint32      seq,
                  guint32      stack,
                  guint32      thread,
                  gboolean     is_free)
{
  guint64 change = is_free ? -size : size;

  if (G_UNLIKELY (time_ns < self->tail_time || (time_ns == self->tail_time && seq < self->tail_seq)))
    {
      if (self->released_any &&
          (time_ns < self->last_time || (time_ns == self->last_time && seq < self->last_seq)))
        self->order_broken = TRUE;
      if (self->q_len > 0)
        {
          HlAggPoint p = { time_ns, change, seq, stack, thread };
          hl_aggregate_heap_push (self, &p);
          return;
        }
    }
  self->tail_time = time_ns;
  self->tail_seq = seq;
  if (G_UNLIKELY (self->q_len == self->q_mask + 1))
    {
      HlAggPoint p = { time_ns, change, seq, stack, thread };
      hl_aggregate_queue_push (self, &p);
      return;
    }
  HlAggPoint *d = &self->queue[(self->q_head + self->q_len++) & self->q_mask];
  d->time_ns = time_ns;
  d->change = change;
  d->seq = seq;
  d->stack = stack;
  d->thread = thread;
}

static inline gboolean
hl_aggregate_seen_inline (const HlAggregate *self,
                          guint64            id)
{
  return (id >> 6) < self->seen->len &&
         (g_array_index (self->seen, guint64, id >> 6) >> (id & 63) & 1) != 0;
}

static inline void
hl_aggregate_alloc_inline (HlAggregate *self,
                           guint64      id,
                           guint64      time_ns,
                           guint32      seq,
                           guint32      thread,
                           guint32      stack,
                           guint64      size,
                           guint64      address)
{
  HlAggTotals *s = hl_agg_at (self->stacks, stack), *t = hl_agg_at (self->threads, thread);
  HlAggTotals *pair = hl_agg_pair_of (self, s, stack, thread);
  guint b = hl_agg_size_bucket (size);

  hl_agg_mark_seen (self, id);
  hl_agg_live_insert (self, id, address, time_ns, size, stack, thread);
  if (self->addr_to_id != NULL)
    hl_address_map_set (self->addr_to_id, address, id + 1);
  s->costs.allocations++;
  s->costs.bytes += size;
  t->costs.allocations++;
  t->costs.bytes += size;
  if (pair != NULL)
    {
      pair->costs.allocations++;
      pair->costs.bytes += size;
    }
  self->histogram.count[b]++;
  self->histogram.bytes[b] += size;
  hl_agg_point_add (self, time_ns, size, seq, stack, thread, FALSE);
}

static inline gboolean
hl_aggregate_free_id_inline (HlAggregate   *self,
                             guint64        id,
                             guint64        time_ns,
                             guint32        seq,
                             const guint64 *thread_last,
                             gboolean       late,
                             gboolean      *temporary)
{
  HlAggLive *r = hl_agg_live_find (self, id);

  *temporary = FALSE;
  if (r == NULL)
    return FALSE;
  if (!late && thread_last[r->thread] == id)
    {
      HlAggTotals *s = hl_agg_at (self->stacks, r->stack);
      HlAggTotals *pair = hl_agg_pair_of (self, s, r->stack, r->thread);

      *temporary = TRUE;
      s->costs.temporary++;
      hl_agg_at (self->threads, r->thread)->costs.temporary++;
      if (pair != NULL)
        pair->costs.temporary++;
    }
  if (self->addr_to_id != NULL)
    hl_address_map_remove (self->addr_to_id, r->address);
  hl_agg_point_add (self, MAX (time_ns, r->time_ns), r->size, seq, r->stack, r->thread, TRUE);
  hl_agg_live_remove (self, r);
  return TRUE;
}

G_END_DECLS
