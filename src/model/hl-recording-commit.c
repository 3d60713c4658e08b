/* hl-recording-commit.c — commit: the sorted heap curve, peak, leaks
 * and the ::changed signal. */
#include "hl-recording-private.h"
#include "hl-model-i18n.h"

#include <string.h>

/* ---- Commit ------------------------------------------------------------- */

static inline int
compare_points (const HlAllocRec  *allocs,
                const HlHeapPoint *pa,
                const HlHeapPoint *pb)
{
  guint64 ta = hl_heap_point_time (allocs, pa), tb = hl_heap_point_time (allocs, pb);
  guint32 sa, sb;

  if (ta != tb)
    return ta < tb ? -1 : 1;
  sa = hl_heap_point_seq (allocs, pa);
  sb = hl_heap_point_seq (allocs, pb);
  return sa < sb ? -1 : sa > sb;
}

static gint
compare_points_data (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  return compare_points (user_data, a, b);
}

/* Sorts the points appended since the last update and merges them into
 * the sorted prefix; the heap is recomputed from the first point that
 * moved, so a live recording's commit costs O(new log new + n). Without
 * CHECK and with no prefix, the points are taken as they are: the caller
 * checks their order while it walks them. */
static guint64
merge_new_points (HlRecording *self,
                  gboolean     check)
{
  HlHeapPoint *pts = (HlHeapPoint *) self->curve->data;
  const HlAllocRec *allocs = (const HlAllocRec *) self->allocs->data;
  guint64 n = self->curve->len, old = self->curve_sorted;
  guint64 lo, hi, first_changed;
  HlHeapPoint *merged;
  guint64 a, b, k;

  if (old >= n)
    return n;
  if (!check && old == 0)
    return 0;
  /* Often already in order (one thread, or a live batch). */
  {
    gboolean sorted = TRUE;
    for (guint64 i = old + 1; sorted && i < n; i++)
      sorted = compare_points (allocs, &pts[i - 1], &pts[i]) <= 0;
    if (!sorted)
      g_qsort_with_data (pts + old, (gint) (n - old), sizeof (HlHeapPoint),
                         compare_points_data, (gpointer) allocs);
  }
  if (old == 0)
    return 0;
  if (compare_points (allocs, &pts[old - 1], &pts[old]) <= 0)
    return old;

  /* Where the first new point goes in the prefix. */
  lo = 0;
  hi = old;
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (compare_points (allocs, &pts[mid], &pts[old]) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  first_changed = lo;
  merged = g_new (HlHeapPoint, n - first_changed);
  for (a = first_changed, b = old, k = 0; a < old || b < n; k++)
    {
      if (b >= n || (a < old && compare_points (allocs, &pts[a], &pts[b]) <= 0))
        merged[k] = pts[a++];
      else
        merged[k] = pts[b++];
    }
  memcpy (pts + first_changed, merged, (n - first_changed) * sizeof (HlHeapPoint));
  g_free (merged);
  return first_changed;
}

/* Leaks, the live-at-peak flags and the time blocks of allocations
 * [from, to) (whole blocks). */
typedef struct
{
  HlAllocRec       *allocs;
  const guint64    *weights;      /* NULL: all weigh 1 */
  HlAllocTimeBlock *blocks;
  guint64           from, to;
  gboolean          has_peak;
  guint64           peak_time;
  guint32           peak_seq;
  guint64           leaked_bytes, leaked_blocks;
} AllocPass;

static gpointer
alloc_pass (gpointer data)
{
  AllocPass *p = data;

  for (guint64 b = p->from >> HL_ALLOC_BLOCK_SHIFT; b << HL_ALLOC_BLOCK_SHIFT < p->to; b++)
    {
      p->blocks[b].min_time_ns = G_MAXUINT64;
      p->blocks[b].max_time_ns = 0;
    }
  for (guint64 i = p->from; i < p->to; i++)
    {
      HlAllocRec *a = &p->allocs[i];
      HlAllocTimeBlock *tb;
      gboolean live_at_peak;

      if ((a->flags & HL_ALLOC_PRESENT) == 0)
        continue;
      tb = &p->blocks[i >> HL_ALLOC_BLOCK_SHIFT];
      tb->min_time_ns = MIN (tb->min_time_ns, a->time_ns);
      tb->max_time_ns = MAX (tb->max_time_ns, a->time_ns);
      if ((a->flags & HL_ALLOC_FREED) == 0)
        {
          p->leaked_bytes += a->size;
          p->leaked_blocks += hl_alloc_weight (p->weights, i);
        }
      live_at_peak = p->has_peak &&
        (a->time_ns < p->peak_time ||
         (a->time_ns == p->peak_time && a->seq <= p->peak_seq)) &&
        ((a->flags & HL_ALLOC_FREED) == 0 ||
         a->free_time_ns > p->peak_time ||
         (a->free_time_ns == p->peak_time && a->free_seq > p->peak_seq));
      if (live_at_peak)
        a->flags |= HL_ALLOC_LIVE_AT_PEAK;
      else
        a->flags &= ~HL_ALLOC_LIVE_AT_PEAK;
    }
  return NULL;
}

void
hl_recording_update_curve (HlRecording *self)
{
  const HlHeapPoint *pts;
  guint64 n = self->curve->len;
  guint64 heap = 0, peak = 0, peak_i = G_MAXUINT64;
  guint64 from, k0, peak_time;
  guint32 peak_seq;
  HeapCheckpoint *cp = NULL;
  HlAllocRec *allocs = (HlAllocRec *) self->allocs->data;
  /* The first commit of a load: the walk below checks the order of the
   * points as it goes (one pass over them instead of two), and sorts them
   * and walks again only when they are not in order. */
  gboolean unchecked = self->curve_sorted == 0;

  /* Checkpoints before the first point that moved stay right. */
  from = merge_new_points (self, !unchecked);
  pts = (const HlHeapPoint *) self->curve->data;
  k0 = MIN (from >> HL_HEAP_CHECKPOINT_SHIFT, self->checkpoints->len > 0 ? self->checkpoints->len - 1 : 0);
  if (k0 < self->checkpoints->len)
    {
      const HeapCheckpoint *c = &g_array_index (self->checkpoints, HeapCheckpoint, k0);
      heap = c->heap;
      peak = c->peak;
      peak_i = c->peak_i;
    }
  g_array_set_size (self->checkpoints, k0);
  for (guint64 i = k0 << HL_HEAP_CHECKPOINT_SHIFT; i < n; i++)
    {
      if (unchecked && i > 0 && compare_points (allocs, &pts[i - 1], &pts[i]) > 0)
        {
          /* out of order: sorted, and walked from the start */
          unchecked = FALSE;
          self->curve_sorted = 0;
          merge_new_points (self, TRUE);
          heap = peak = 0;
          peak_i = G_MAXUINT64;
          g_array_set_size (self->checkpoints, 0);
          i = G_MAXUINT64; /* 0 after i++ */
          continue;
        }
      if ((i & (HL_HEAP_CHECKPOINT_EVERY - 1)) == 0)
        {
          HeapCheckpoint c = { heap, peak, peak_i, 0, G_MAXUINT64 };
          g_array_append_val (self->checkpoints, c);
          cp = &g_array_index (self->checkpoints, HeapCheckpoint, self->checkpoints->len - 1);
        }
      heap = hl_heap_point_apply (allocs, &pts[i], heap);
      if (cp->chunk_max_i == G_MAXUINT64 || heap > cp->chunk_max)
        {
          cp->chunk_max = heap;
          cp->chunk_max_i = i;
        }
      if (heap > peak)
        {
          peak = heap;
          peak_i = i;
        }
    }
  self->curve_sorted = n;

  self->peak_heap = peak;
  peak_time = peak_i != G_MAXUINT64 ? hl_heap_point_time (allocs, &pts[peak_i]) : 0;
  peak_seq = peak_i != G_MAXUINT64 ? hl_heap_point_seq (allocs, &pts[peak_i]) : 0;
  self->peak_time_ns = peak_time;
  g_array_set_size (self->time_blocks, (self->allocs->len + HL_ALLOC_BLOCK - 1) >> HL_ALLOC_BLOCK_SHIFT);
  {
    /* Two threads from a million allocations on, each over whole blocks. */
    guint64 n_blocks = self->time_blocks->len;
    AllocPass parts[2];
    GThread *second = NULL;
    guint n_parts = self->allocs->len >= (1u << 20) && g_get_num_processors () > 1 ? 2 : 1;

    for (guint p = 0; p < n_parts; p++)
      {
        parts[p] = (AllocPass) {
          .allocs = allocs, .weights = hl_recording_get_alloc_weights (self), .blocks = (HlAllocTimeBlock *) self->time_blocks->data,
          .from = MIN ((n_blocks * p / n_parts) << HL_ALLOC_BLOCK_SHIFT, self->allocs->len),
          .to = MIN ((n_blocks * (p + 1) / n_parts) << HL_ALLOC_BLOCK_SHIFT, self->allocs->len),
          .has_peak = peak_i != G_MAXUINT64, .peak_time = peak_time, .peak_seq = peak_seq,
        };
      }
    if (n_parts > 1)
      second = g_thread_new ("hl-commit", alloc_pass, &parts[1]);
    alloc_pass (&parts[0]);
    if (second != NULL)
      g_thread_join (second);
    self->leaked_bytes = 0;
    self->leaked_blocks = 0;
    for (guint p = 0; p < n_parts; p++)
      {
        self->leaked_bytes += parts[p].leaked_bytes;
        self->leaked_blocks += parts[p].leaked_blocks;
      }
  }
  self->curve_dirty = FALSE;
}

guint64
hl_recording_heap_before (HlRecording *self,
                          guint64      i)
{
  const HlHeapPoint *pts;
  const HlAllocRec *allocs = (const HlAllocRec *) self->allocs->data;
  guint64 n, k, heap;

  pts = hl_recording_get_heap_curve (self, &n);
  i = MIN (i, n);
  if (i == 0 || self->checkpoints->len == 0)
    return 0;
  k = MIN ((i - 1) >> HL_HEAP_CHECKPOINT_SHIFT, self->checkpoints->len - 1);
  heap = g_array_index (self->checkpoints, HeapCheckpoint, k).heap;
  for (guint64 j = k << HL_HEAP_CHECKPOINT_SHIFT; j < i; j++)
    heap = hl_heap_point_apply (allocs, &pts[j], heap);
  return heap;
}

void
hl_recording_commit (HlRecording *self)
{
  guint64 n_new;

  g_return_if_fail (HL_IS_RECORDING (self));

  /* packets of several threads brought metadata out of time order */
  hl_recording_sort_metadata (self);
  hl_recording_sort_allocator_samples (self);
  if (self->curve_dirty)
    hl_recording_update_curve (self);
  if (self->frames_dirty)
    {
      hl_recording_symbols_changed (self);
      self->frames_dirty = FALSE;
    }
  else if (hl_frame_table_get_n_stacks (self->frame_table) < self->stack_spans->len)
    {
      hl_recording_expand_stack_frames (self, FALSE);
      hl_trie_cache_clear (self->tries);
    }
  if (self->ids_out_of_range > 0)
    {
      hl_recording_append_warning (self, _("Allocations with impossible ids were ignored (a damaged trace)"));
    }
  n_new = self->n_allocs - self->committed_allocs;
  self->committed_allocs = self->n_allocs;
  hl_recording_emit_changed (self, n_new);
}

gboolean
hl_recording_find_peak_in (HlRecording *self,
                           guint64      t0_ns,
                           guint64      t1_ns,
                           guint64     *time_ns,
                           guint32     *seq)
{
  const HlAllocRec *allocs = (const HlAllocRec *) self->allocs->data;
  const HeapCheckpoint *cps;
  const HlHeapPoint *pts;
  guint64 n, n_cps, lo, hi, i, heap, best = G_MAXUINT64, best_heap;

  pts = hl_recording_get_heap_curve (self, &n);
  cps = (const HeapCheckpoint *) self->checkpoints->data;
  n_cps = self->checkpoints->len;

  /* The points in [lo, hi) are those in [t0, t1]. */
  lo = hl_heap_points_first_at (allocs, pts, n, t0_ns);
  hi = n;
  for (guint64 l = lo; l < hi;)
    {
      guint64 mid = l + (hi - l) / 2;
      if (hl_heap_point_time (allocs, &pts[mid]) <= t1_ns)
        l = mid + 1;
      else
        hi = mid;
    }

  /* The earliest highest heap: the heap at t0 (the point before lo), then
   * each point's, a whole chunk at a time from its checkpoint's maximum. */
  heap = hl_recording_heap_before (self, lo);
  best_heap = heap;
  if (lo > 0)
    best = lo - 1;
  for (i = lo; i < hi;)
    {
      guint64 k = i >> HL_HEAP_CHECKPOINT_SHIFT;

      if ((i & (HL_HEAP_CHECKPOINT_EVERY - 1)) == 0 && i + HL_HEAP_CHECKPOINT_EVERY <= hi && k < n_cps &&
          cps[k].chunk_max_i != G_MAXUINT64)
        {
          if (best == G_MAXUINT64 || cps[k].chunk_max > best_heap)
            {
              best = cps[k].chunk_max_i;
              best_heap = cps[k].chunk_max;
            }
          i += HL_HEAP_CHECKPOINT_EVERY;
          if (i < hi)
            heap = k + 1 < n_cps ? cps[k + 1].heap : hl_recording_heap_before (self, i);
          continue;
        }
      heap = hl_heap_point_apply (allocs, &pts[i], heap);
      if (best == G_MAXUINT64 || heap > best_heap)
        {
          best = i;
          best_heap = heap;
        }
      i++;
    }
  if (best == G_MAXUINT64)
    return FALSE;
  *time_ns = hl_heap_point_time (allocs, &pts[best]);
  *seq = hl_heap_point_seq (allocs, &pts[best]);
  return TRUE;
}
