/* hl-recording-aggregate.c — costs without allocation records; see
 * hl-recording-aggregate.h for why the numbers equal the full model's.
 * The types and the per-event path are in hl-recording-aggregate-private.h
 * (inline, for the costs thread); their rare paths are here. */
#include "hl-recording-aggregate-private.h"

#include <string.h>

/* Ids come in order: runs of 8 consecutive ids share a run of slots (5
 * cache lines, where a program's recent allocations and frees mostly are),
 * and the runs are spread over the table. A hash of each id alone made
 * every insert and removal a cache miss on a large live table (python3:
 * 2.1 → 1.2 s CPU for a costs-only load); runs of 64 ids made runs of
 * different blocks collide into long probes on a small table (churn's ring
 * of 256 live blocks: 0.36 → 0.75 s). */
static inline guint64
hash_id (guint64 id)
{
  return (id & 7) | ((((id >> 3) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 17) << 3);
}

HlAggregate *
hl_aggregate_new (const HlTraceIndex *index)
{
  HlAggregate *self = g_new0 (HlAggregate, 1);

  self->live_mask = 1023;
  self->live = g_new0 (HlAggLive, self->live_mask + 1);
  /* calloc'd: pages untouched until ids reach them */
  self->ring = g_new0 (HlAggLive, HL_AGG_RING_SLOTS);
  self->seen = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->q_mask = 4095;
  self->queue = g_new (HlAggPoint, self->q_mask + 1);
  self->heap_cap = 4096;
  self->heap = g_new (HlAggPoint, self->heap_cap);
  self->stacks = g_array_new (FALSE, TRUE, sizeof (HlAggTotals));
  self->threads = g_array_new (FALSE, TRUE, sizeof (HlAggTotals));
  self->pair_index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->pairs = g_array_new (FALSE, TRUE, sizeof (HlAggTotals));
  self->pair_keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (index != NULL && index->n_entries > 0)
    {
      guint64 least = G_MAXUINT64;

      self->n_offsets = index->n_entries;
      self->offsets = g_new (guint64, self->n_offsets);
      self->bound_after = g_new (guint64, self->n_offsets);
      for (gsize i = self->n_offsets; i-- > 0;)
        {
          const HlTraceIndexEntry *e = &index->entries[i];

          self->offsets[i] = e->offset;
          self->bound_after[i] = least;
          if (e->kind == HL_PACKET_KIND_EVENTS)
            least = MIN (least, e->time_begin_ns);
        }
      /* Offsets must rise for the walk in packets_done(); a index that
       * says otherwise gives no bounds (everything waits for the end). */
      for (gsize i = 1; i < self->n_offsets; i++)
        if (self->offsets[i] <= self->offsets[i - 1])
          {
            self->n_offsets = 0;
            break;
          }
    }
  return self;
}

HlAggregate *
hl_aggregate_new_settled (const HlCosts         *stacks,
                          const guint32         *owners,
                          guint                  n_stacks,
                          const HlCosts         *threads,
                          guint                  n_threads,
                          const HlSizeHistogram *histogram)
{
  HlAggregate *self = hl_aggregate_new (NULL);

  g_array_set_size (self->stacks, n_stacks);
  for (guint i = 0; i < n_stacks; i++)
    {
      g_array_index (self->stacks, HlAggTotals, i).costs = stacks[i];
      g_array_index (self->stacks, HlAggTotals, i).owner_plus_1 = owners[i];
    }
  g_array_set_size (self->threads, n_threads);
  for (guint i = 0; i < n_threads; i++)
    g_array_index (self->threads, HlAggTotals, i).costs = threads[i];
  self->histogram = *histogram;
  return self;
}

void
hl_aggregate_set_histogram (HlAggregate           *self,
                            const HlSizeHistogram *histogram)
{
  self->histogram = *histogram;
}

gboolean
hl_aggregate_add_settled_pair (HlAggregate   *self,
                               guint32        stack,
                               guint32        thread,
                               const HlCosts *costs)
{
  HlAggTotals *pair;
  guint n = self->pairs->len;

  if (stack >= self->stacks->len || thread >= self->threads->len)
    return FALSE;
  pair = hl_aggregate_pair_at (self, &g_array_index (self->stacks, HlAggTotals, stack), stack, thread);
  if (pair == NULL || self->pairs->len == n)
    return FALSE; /* the owner, or a pair given twice */
  pair->costs = *costs;
  return TRUE;
}

void
hl_aggregate_free (HlAggregate *self)
{
  if (self == NULL)
    return;
  g_free (self->live);
  g_free (self->ring);
  g_free (self->log);
  g_free (self->log_mask);
  g_free (self->log_base);
  g_clear_pointer (&self->addr_to_id, hl_address_map_free);
  g_array_unref (self->seen);
  g_free (self->queue);
  g_free (self->heap);
  g_free (self->offsets);
  g_free (self->bound_after);
  g_array_unref (self->stacks);
  g_array_unref (self->threads);
  g_hash_table_unref (self->pair_index);
  g_array_unref (self->pairs);
  g_array_unref (self->pair_keys);
  g_clear_pointer (&self->weights, g_hash_table_unref);
  g_free (self);
}

/* ---- Ids seen ------------------------------------------------------------ */

gboolean
hl_aggregate_seen (const HlAggregate *self,
                   guint64            id)
{
  return hl_aggregate_seen_inline (self, id);
}

void
hl_aggregate_grow_seen (HlAggregate *self,
                        guint64      id)
{
  g_array_set_size (self->seen, MAX ((id >> 6) + 1, (guint64) self->seen->len * 2));
}

/* ---- Live table ---------------------------------------------------------- */

/* The log of the blocks pushed out of the ring in id order. Python3's
 * objects mostly outlive 2^16 ids (2.87 M of its 5.3 M went to the
 * table), and in the table each cost a cache miss to insert, another to
 * find and the rehashes: 27 % of the costs thread's CPU. Appended in id
 * order, an entry costs no miss to insert, and is found from its block's
 * bits (a rank: the position of the block's first entry plus the bits
 * below the id's), arrays of 12 bytes a block of 64 ids; a removed entry
 * stays until the log is full and half of it removed, when the live ones
 * are moved down (in order: the ranks stay right). */
#define HL_AGG_LOG_MIN 4096

static inline HlAggLive *
log_find (HlAggregate *self,
          guint64      id)
{
  guint64 b = id >> 6, bit = G_GUINT64_CONSTANT (1) << (id & 63), m;

  if (b >= self->n_blocks || ((m = self->log_mask[b]) & bit) == 0)
    return NULL;
  return &self->log[self->log_base[b] + (guint64) __builtin_popcountll (m & (bit - 1))];
}

static void
log_compact (HlAggregate *self)
{
  guint64 hi = (self->log_last_id_plus_1 - 1) >> 6, w = 0;

  memset (self->log_mask + self->log_lo_block, 0, (hi + 1 - self->log_lo_block) * sizeof *self->log_mask);
  for (guint64 k = 0; k < self->log_len; k++)
    {
      const HlAggLive *e = &self->log[k];
      guint64 id, b;

      if (e->id_plus_1 == 0)
        continue;
      id = e->id_plus_1 - 1;
      b = id >> 6;
      if (self->log_mask[b] == 0)
        self->log_base[b] = (guint32) w;
      self->log_mask[b] |= G_GUINT64_CONSTANT (1) << (id & 63);
      self->log[w++] = *e;
    }
  self->log_len = w;
  self->log_dead = 0;
  self->log_lo_block = w > 0 ? (self->log[0].id_plus_1 - 1) >> 6 : hi;
}

/* Appends E (its id above the log's last); FALSE when the log cannot
 * take it (E then goes to the table). */
static gboolean
log_push (HlAggregate     *self,
          const HlAggLive *e)
{
  guint64 id = e->id_plus_1 - 1, b = id >> 6;

  if (b >= self->n_blocks)
    {
      guint64 n = MAX (MAX (b + 1, self->n_blocks * 2), 1024);
      self->log_mask = g_renew (guint64, self->log_mask, n);
      self->log_base = g_renew (guint32, self->log_base, n);
      memset (self->log_mask + self->n_blocks, 0, (n - self->n_blocks) * sizeof *self->log_mask);
      self->n_blocks = n;
    }
  if (self->log_len == self->log_cap)
    {
      if (self->log_len >= HL_AGG_LOG_MIN && self->log_dead * 2 >= self->log_len)
        log_compact (self);
      if (self->log_len == self->log_cap)
        {
          if (self->log_cap >= G_MAXUINT32)
            return FALSE;
          self->log_cap = MAX (self->log_cap * 2, HL_AGG_LOG_MIN);
          self->log = g_renew (HlAggLive, self->log, self->log_cap);
        }
    }
  if (self->log_len == 0)
    self->log_lo_block = b;
  if (self->log_mask[b] == 0)
    self->log_base[b] = (guint32) self->log_len;
  self->log_mask[b] |= G_GUINT64_CONSTANT (1) << (id & 63);
  self->log[self->log_len++] = *e;
  self->log_last_id_plus_1 = e->id_plus_1;
  self->n_live++;
  return TRUE;
}

static gboolean
in_log (const HlAggregate *self,
        const HlAggLive   *r)
{
  return self->log != NULL && r >= self->log && r < self->log + self->log_len;
}

/* The live allocation of ID outside the ring (the log's or the table's),
 * or NULL. */
HlAggLive *
hl_aggregate_hash_find (HlAggregate *self,
                        guint64      id)
{
  HlAggLive *r = log_find (self, id);

  if (r != NULL)
    return r->id_plus_1 == id + 1 ? r : NULL; /* its bit set: it is nowhere else */
  if (self->n_hash == 0)
    return NULL;
  for (guint64 i = hash_id (id) & self->live_mask;; i = (i + 1) & self->live_mask)
    {
      r = &self->live[i];
      if (r->id_plus_1 == id + 1)
        return r;
      if (r->id_plus_1 == 0)
        return NULL;
    }
}

static void
hash_insert (HlAggregate     *self,
             const HlAggLive *rec)
{
  guint64 i;

  if ((self->n_hash + 1) * 4 > (self->live_mask + 1) * 3)
    {
      HlAggLive *old = self->live;
      guint64 old_cap = self->live_mask + 1;

      self->live_mask = old_cap * 2 - 1;
      self->live = g_new0 (HlAggLive, old_cap * 2);
      for (guint64 k = 0; k < old_cap; k++)
        if (old[k].id_plus_1 != 0)
          {
            for (i = hash_id (old[k].id_plus_1 - 1) & self->live_mask; self->live[i].id_plus_1 != 0;
                 i = (i + 1) & self->live_mask)
              ;
            self->live[i] = old[k];
          }
      g_free (old);
    }
  for (i = hash_id (rec->id_plus_1 - 1) & self->live_mask; self->live[i].id_plus_1 != 0;
       i = (i + 1) & self->live_mask)
    ;
  self->live[i] = *rec;
  self->n_hash++;
  self->n_live++;
}

/* Removes R: of the log, marked removed; of the table, its slot emptied,
 * shifting back the entries of its probe run. */
void
hl_aggregate_hash_remove (HlAggregate *self,
                          HlAggLive   *r)
{
  if (in_log (self, r))
    {
      r->id_plus_1 = 0;
      self->log_dead++;
      self->n_live--;
      return;
    }
  guint64 hole = (guint64) (r - self->live);

  for (guint64 j = (hole + 1) & self->live_mask; self->live[j].id_plus_1 != 0; j = (j + 1) & self->live_mask)
    {
      guint64 home = hash_id (self->live[j].id_plus_1 - 1) & self->live_mask;
      /* J may move into the hole when its home is not in (hole, j]. */
      gboolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!stays)
        {
          self->live[hole] = self->live[j];
          hole = j;
        }
    }
  self->live[hole].id_plus_1 = 0;
  self->n_hash--;
  self->n_live--;
}

/* hl_agg_live_insert() when ring slot R is taken. */
void
hl_aggregate_live_insert_taken (HlAggregate     *self,
                                HlAggLive       *r,
                                const HlAggLive *rec)
{
  const HlAggLive *out = r->id_plus_1 < rec->id_plus_1 ? r : rec;

  if (out->id_plus_1 <= self->log_last_id_plus_1 || !log_push (self, out))
    hash_insert (self, out);
  if (out == r)
    *r = *rec;
}

/* The live table's slots, ring, table then log, for walks over every
 * live allocation (in no order): slot K of N_SLOTS. */
static inline guint64
n_slots (const HlAggregate *self)
{
  return HL_AGG_RING_SLOTS + self->live_mask + 1 + self->log_len;
}

static inline const HlAggLive *
slot_at (const HlAggregate *self,
         guint64            k)
{
  if (k < HL_AGG_RING_SLOTS)
    return &self->ring[k];
  k -= HL_AGG_RING_SLOTS;
  return k <= self->live_mask ? &self->live[k] : &self->log[k - self->live_mask - 1];
}

static gint
compare_ids (gconstpointer a,
             gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

guint64
hl_aggregate_lookup_address (HlAggregate *self,
                             guint64      address)
{
  if (self->addr_to_id == NULL)
    {
      self->addr_to_id = hl_address_map_new ();
      /* In id order, as the full model fills its map. */
      g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64[2]));
      for (guint64 k = 0; k < n_slots (self); k++)
        if (slot_at (self, k)->id_plus_1 != 0)
          {
            guint64 pair[2] = { slot_at (self, k)->id_plus_1, slot_at (self, k)->address };
            g_array_append_val (ids, pair);
          }
      g_array_sort (ids, compare_ids);
      for (guint i = 0; i < ids->len; i++)
        {
          const guint64 *pair = &g_array_index (ids, guint64, 2 * i);
          hl_address_map_set (self->addr_to_id, pair[1], pair[0]);
        }
    }
  return hl_address_map_get (self->addr_to_id, address);
}

/* ---- Costs --------------------------------------------------------------- */

/* The (STACK, THREAD) costs when THREAD is not the stack's owner, else
 * NULL. */
HlAggTotals *
hl_aggregate_pair_at (HlAggregate *self,
                      HlAggTotals *stack_agg,
                      guint32      stack,
                      guint32      thread)
{
  guint64 key;
  gpointer found;

  if (stack_agg->owner_plus_1 == 0)
    stack_agg->owner_plus_1 = thread + 1;
  if (G_LIKELY (stack_agg->owner_plus_1 == thread + 1))
    return NULL;
  key = (guint64) stack << 32 | thread;
  found = g_hash_table_lookup (self->pair_index, &key);
  if (found == NULL)
    {
      g_array_append_val (self->pair_keys, key);
      g_array_set_size (self->pairs, self->pairs->len + 1);
      found = GUINT_TO_POINTER (self->pairs->len);
      /* keys live in pair_keys; it may move, so the table gets its own */
      g_hash_table_insert (self->pair_index, g_memdup2 (&key, sizeof key), found);
    }
  return &g_array_index (self->pairs, HlAggTotals, GPOINTER_TO_UINT (found) - 1);
}

/* ---- The curve ----------------------------------------------------------- */

static inline gboolean
point_before (const HlAggPoint *a,
              const HlAggPoint *b)
{
  return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->seq < b->seq);
}

void
hl_aggregate_queue_push (HlAggregate      *self,
                         const HlAggPoint *p)
{
  if (self->q_len == self->q_mask + 1)
    {
      guint64 cap = self->q_mask + 1;
      HlAggPoint *bigger = g_new (HlAggPoint, 2 * cap);

      for (guint64 k = 0; k < self->q_len; k++)
        bigger[k] = self->queue[(self->q_head + k) & self->q_mask];
      g_free (self->queue);
      self->queue = bigger;
      self->q_head = 0;
      self->q_mask = 2 * cap - 1;
    }
  self->queue[(self->q_head + self->q_len++) & self->q_mask] = *p;
}

void
hl_aggregate_heap_push (HlAggregate      *self,
                        const HlAggPoint *p)
{
  guint64 i;

  if (self->n_heap == self->heap_cap)
    {
      self->heap_cap *= 2;
      self->heap = g_renew (HlAggPoint, self->heap, self->heap_cap);
    }
  i = self->n_heap++;
  while (i > 0)
    {
      guint64 parent = (i - 1) / 2;
      if (!point_before (p, &self->heap[parent]))
        break;
      self->heap[i] = self->heap[parent];
      i = parent;
    }
  self->heap[i] = *p;
}

static void
heap_pop (HlAggregate *self,
          HlAggPoint  *out)
{
  HlAggPoint last;
  guint64 i = 0, n;

  *out = self->heap[0];
  n = --self->n_heap;
  if (n == 0)
    return;
  last = self->heap[n];
  for (;;)
    {
      guint64 c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && point_before (&self->heap[c + 1], &self->heap[c]))
        c++;
      if (!point_before (&self->heap[c], &last))
        break;
      self->heap[i] = self->heap[c];
      i = c;
    }
  self->heap[i] = last;
}

static inline void
agg_move (HlAggTotals *a,
          guint64      peak_epoch,
          guint64      epoch,
          guint64      change)
{
  if (a->last_epoch <= peak_epoch)
    a->at_peak = a->live;
  a->live += change;
  a->last_epoch = epoch;
}

/* Applies the next point of the sorted curve. */
static inline void
release (HlAggregate      *self,
         const HlAggPoint *p)
{
  guint64 e = ++self->epoch;
  /* every point's stack and thread had their HlAggTotals made by its allocation */
  HlAggTotals *s = &g_array_index (self->stacks, HlAggTotals, p->stack), *pair;

  agg_move (s, self->peak_epoch, e, p->change);
  agg_move (&g_array_index (self->threads, HlAggTotals, p->thread), self->peak_epoch, e, p->change);
  if ((pair = hl_agg_pair_of (self, s, p->stack, p->thread)) != NULL)
    agg_move (pair, self->peak_epoch, e, p->change);
  self->heap_bytes += p->change;
  if (self->heap_bytes > self->peak_bytes)
    {
      self->peak_bytes = self->heap_bytes;
      self->peak_epoch = e;
      self->peak_time_ns = p->time_ns;
    }
  self->last_time = p->time_ns;
  self->last_seq = p->seq;
  self->released_any = TRUE;
}

/* After points were released: with the FIFO empty, hl_agg_point_add()'s key is
 * the last one released. */
static inline void
fifo_key_after_release (HlAggregate *self)
{
  if (self->q_len == 0)
    {
      self->tail_time = self->last_time;
      self->tail_seq = self->last_seq;
    }
}

/* release_until_keep() when every point waiting is in the FIFO (the
 * usual case: a packet's events are in time order): release() of each in
 * turn, in place, the curve's state in locals. */
static void
release_fifo (HlAggregate *self,
              guint64      bound,
              guint64      keep)
{
  const HlAggPoint *queue = self->queue, *last = NULL;
  guint64 head = self->q_head, len = self->q_len, mask = self->q_mask;
  HlAggTotals *stacks = (HlAggTotals *) (void *) self->stacks->data;
  HlAggTotals *threads = (HlAggTotals *) (void *) self->threads->data;
  guint64 e = self->epoch, peak_epoch = self->peak_epoch;
  guint64 heap = self->heap_bytes, peak = self->peak_bytes, peak_time = self->peak_time_ns;

  while (len > 0)
    {
      const HlAggPoint *p = &queue[head];
      HlAggTotals *s, *pair;

      if (p->time_ns > (len > keep ? G_MAXUINT64 : bound))
        break;
      e++;
      /* every point's stack and thread had their HlAggTotals made by its allocation */
      s = &stacks[p->stack];
      agg_move (s, peak_epoch, e, p->change);
      agg_move (&threads[p->thread], peak_epoch, e, p->change);
      if ((pair = hl_agg_pair_of (self, s, p->stack, p->thread)) != NULL)
        agg_move (pair, peak_epoch, e, p->change);
      heap += p->change;
      if (heap > peak)
        {
          peak = heap;
          peak_epoch = e;
          peak_time = p->time_ns;
        }
      last = p;
      head = (head + 1) & mask;
      len--;
    }
  self->q_head = head;
  self->q_len = len;
  self->epoch = e;
  self->peak_epoch = peak_epoch;
  self->heap_bytes = heap;
  self->peak_bytes = peak;
  self->peak_time_ns = peak_time;
  if (last != NULL)
    {
      self->last_time = last->time_ns;
      self->last_seq = last->seq;
      self->released_any = TRUE;
    }
  fifo_key_after_release (self);
}

static void
release_until_keep (HlAggregate *self,
                    guint64      bound,
                    guint64      keep)
{
  HlAggPoint p;

  if (self->n_heap == 0)
    {
      release_fifo (self, bound, keep);
      return;
    }

  for (;;)
    {
      const HlAggPoint *q = self->q_len > 0 ? &self->queue[self->q_head] : NULL;
      const HlAggPoint *h = self->n_heap > 0 ? &self->heap[0] : NULL;

      /* past KEEP waiting, the earliest one goes whatever its time */
      guint64 b = self->q_len + self->n_heap > keep ? G_MAXUINT64 : bound;

      if (q != NULL && (h == NULL || point_before (q, h)))
        {
          if (q->time_ns > b)
            break;
          p = *q;
          self->q_head = (self->q_head + 1) & self->q_mask;
          self->q_len--;
        }
      else if (h != NULL && h->time_ns <= b)
        heap_pop (self, &p);
      else
        break;
      release (self, &p);
    }
  fifo_key_after_release (self);
}

static void
release_until (HlAggregate *self,
               guint64      bound)
{
  release_until_keep (self, bound, G_MAXUINT64);
}

void
hl_aggregate_release_until (HlAggregate *self,
                            guint64      bound,
                            guint64      keep)
{
  release_until_keep (self, bound, keep);
}

guint64
hl_aggregate_n_waiting (const HlAggregate *self)
{
  return self->q_len + self->n_heap;
}

void
hl_aggregate_packets_done (HlAggregate *self,
                           guint64      offset)
{
  if (self->n_offsets == 0)
    return;
  while (self->next_offset < self->n_offsets && self->offsets[self->next_offset] <= offset)
    self->next_offset++;
  if (self->next_offset == 0)
    return;
  /* After the packet at OFFSET, only packets past it are to come. */
  release_until (self, self->bound_after[self->next_offset - 1]);
}

/* ---- Events -------------------------------------------------------------- */

/* What a weight above 1 adds to what hl_aggregate_alloc_inline() counted
 * (one allocation of SIZE bytes): WEIGHT - 1 more allocations, and the
 * histogram's WEIGHT blocks of SIZE / WEIGHT bytes in their own bucket. */
static void
add_weight (HlAggregate *self,
            guint64      id,
            guint32      thread,
            guint32      stack,
            guint64      size,
            guint64      weight)
{
  HlAggTotals *s = hl_agg_at (self->stacks, stack), *t = hl_agg_at (self->threads, thread);
  HlAggTotals *pair = hl_agg_pair_of (self, s, stack, thread);
  guint b = hl_agg_size_bucket (size), u = hl_agg_size_bucket (size / weight);
  guint64 *key = g_new (guint64, 2);

  s->costs.allocations += weight - 1;
  t->costs.allocations += weight - 1;
  if (pair != NULL)
    pair->costs.allocations += weight - 1;
  self->histogram.count[b]--;
  self->histogram.bytes[b] -= size;
  self->histogram.count[u] += weight;
  self->histogram.bytes[u] += size;
  if (self->weights == NULL)
    self->weights = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  key[0] = id;
  key[1] = weight;
  g_hash_table_add (self->weights, key);
}

static guint64
weight_of (const HlAggregate *self,
           guint64            id)
{
  const guint64 *key;

  if (G_LIKELY (self->weights == NULL))
    return 1;
  key = g_hash_table_lookup (self->weights, &id);
  return key != NULL ? key[1] : 1;
}

static void
sum_live_one (const HlAggregate *self,
              const HlAggLive   *r,
              guint              n_stacks,
              guint64           *objects,
              guint64           *bytes)
{
  if (r->id_plus_1 == 0 || r->stack >= n_stacks)
    return;
  objects[r->stack] += weight_of (self, r->id_plus_1 - 1);
  bytes[r->stack] += r->size;
}

void
hl_aggregate_sum_live (const HlAggregate *self,
                       guint              n_stacks,
                       guint64           *objects,
                       guint64           *bytes)
{
  for (guint64 i = 0; i < HL_AGG_RING_SLOTS; i++)
    sum_live_one (self, &self->ring[i], n_stacks, objects, bytes);
  if (self->n_live == 0)
    return;
  for (guint64 i = 0; i <= self->live_mask; i++)
    sum_live_one (self, &self->live[i], n_stacks, objects, bytes);
  for (guint64 i = 0; i < self->log_len; i++)
    sum_live_one (self, &self->log[i], n_stacks, objects, bytes);
}

void
hl_aggregate_alloc (HlAggregate *self,
                    guint64      id,
                    guint64      time_ns,
                    guint32      seq,
                    guint32      thread,
                    guint32      stack,
                    guint64      size,
                    guint64      address,
                    guint64      weight)
{
  hl_aggregate_alloc_inline (self, id, time_ns, seq, thread, stack, size, address);
  if (G_UNLIKELY (weight > 1))
    add_weight (self, id, thread, stack, size, weight);
}

gboolean
hl_aggregate_free_id (HlAggregate   *self,
                      guint64        id,
                      guint64        time_ns,
                      guint32        seq,
                      const guint64 *thread_last,
                      gboolean       late,
                      gboolean      *temporary,
                      guint64       *weight)
{
  guint64 w = weight_of (self, id);
  guint32 stack = 0, thread = 0;

  if (G_UNLIKELY (w > 1))
    {
      const HlAggLive *r = hl_agg_live_find (self, id);
      if (r != NULL)
        {
          stack = r->stack;
          thread = r->thread;
        }
    }
  if (weight != NULL)
    *weight = 1;
  if (!hl_aggregate_free_id_inline (self, id, time_ns, seq, thread_last, late, temporary))
    return FALSE;
  if (G_UNLIKELY (w > 1))
    {
      if (*temporary)
        {
          HlAggTotals *s = hl_agg_at (self->stacks, stack);
          HlAggTotals *pair = hl_agg_pair_of (self, s, stack, thread);

          s->costs.temporary += w - 1;
          hl_agg_at (self->threads, thread)->costs.temporary += w - 1;
          if (pair != NULL)
            pair->costs.temporary += w - 1;
        }
      g_hash_table_remove (self->weights, &id);
    }
  if (weight != NULL)
    *weight = w;
  return TRUE;
}

void
hl_aggregate_finish (HlAggregate *self)
{
  release_until (self, G_MAXUINT64);
  for (guint i = 0; i < self->stacks->len; i++)
    {
      HlAggTotals *a = &g_array_index (self->stacks, HlAggTotals, i);
      if (a->last_epoch <= self->peak_epoch)
        a->at_peak = a->live;
      a->costs.peak_bytes = self->peak_epoch > 0 ? a->at_peak : 0;
    }
  for (guint i = 0; i < self->threads->len; i++)
    {
      HlAggTotals *a = &g_array_index (self->threads, HlAggTotals, i);
      if (a->last_epoch <= self->peak_epoch)
        a->at_peak = a->live;
      a->costs.peak_bytes = self->peak_epoch > 0 ? a->at_peak : 0;
    }
  for (guint i = 0; i < self->pairs->len; i++)
    {
      HlAggTotals *a = &g_array_index (self->pairs, HlAggTotals, i);
      if (a->last_epoch <= self->peak_epoch)
        a->at_peak = a->live;
      a->costs.peak_bytes = self->peak_epoch > 0 ? a->at_peak : 0;
    }
  self->leaked_bytes = 0;
  self->leaked_blocks = 0;
  for (guint64 k = 0; k < n_slots (self); k++)
    {
      const HlAggLive *r = slot_at (self, k);
      HlAggTotals *s, *t;
      guint64 w;

      if (r->id_plus_1 == 0)
        continue;
      w = weight_of (self, r->id_plus_1 - 1);
      s = hl_agg_at (self->stacks, r->stack);
      t = hl_agg_at (self->threads, r->thread);
      {
        HlAggTotals *pair = hl_aggregate_pair_at (self, s, r->stack, r->thread);
        if (pair != NULL)
          {
            pair->costs.leaked_bytes += r->size;
            pair->costs.leaked_blocks += w;
            pair->costs.live_bytes += r->size;
          }
      }
      s->costs.leaked_bytes += r->size;
      s->costs.leaked_blocks += w;
      s->costs.live_bytes += r->size;
      t->costs.leaked_bytes += r->size;
      t->costs.leaked_blocks += w;
      t->costs.live_bytes += r->size;
      self->leaked_bytes += r->size;
      self->leaked_blocks += w;
    }
}

gboolean
hl_aggregate_order_broken (const HlAggregate *self)
{
  return self->order_broken;
}

void
hl_aggregate_get_peak (const HlAggregate *self,
                       guint64           *peak_bytes,
                       guint64           *peak_time_ns)
{
  *peak_bytes = self->peak_bytes;
  *peak_time_ns = self->peak_epoch > 0 ? self->peak_time_ns : 0;
}

void
hl_aggregate_get_leaks (const HlAggregate *self,
                        guint64           *bytes,
                        guint64           *blocks)
{
  *bytes = self->leaked_bytes;
  *blocks = self->leaked_blocks;
}

static HlCosts *
dup_costs (GArray *array,
           guint   n)
{
  HlCosts *out = g_new0 (HlCosts, n + 1);

  for (guint i = 0; i < MIN (n, array->len); i++)
    out[i] = g_array_index (array, HlAggTotals, i).costs;
  return out;
}

HlCosts *
hl_aggregate_dup_stack_costs (const HlAggregate *self,
                              guint              n_stacks)
{
  return dup_costs (self->stacks, n_stacks);
}

HlCosts *
hl_aggregate_dup_thread_costs (const HlAggregate *self,
                               guint              n_threads)
{
  return dup_costs (self->threads, n_threads);
}

guint32
hl_aggregate_get_stack_owner (const HlAggregate *self,
                              guint32            stack)
{
  return stack < self->stacks->len ? g_array_index (self->stacks, HlAggTotals, stack).owner_plus_1 : 0;
}

guint
hl_aggregate_get_n_pairs (const HlAggregate *self)
{
  return self->pairs->len;
}

void
hl_aggregate_get_pair (const HlAggregate *self,
                       guint              i,
                       guint32           *stack,
                       guint32           *thread,
                       HlCosts           *costs)
{
  guint64 key = g_array_index (self->pair_keys, guint64, i);

  *stack = (guint32) (key >> 32);
  *thread = (guint32) key;
  *costs = g_array_index (self->pairs, HlAggTotals, i).costs;
}

void
hl_aggregate_get_histogram (const HlAggregate *self,
                            HlSizeHistogram   *out)
{
  *out = self->histogram;
}
