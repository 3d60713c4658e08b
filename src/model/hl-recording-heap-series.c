/* hl-recording-heap-series.c — the heap-over-time series, downsampled to min/max per
 * bucket for any range and zoom, with the cumulative counts of allocations
 * and temporary allocations. */
#include "hl-recording-counts.h"
#include "hl-recording-tables.h"

GArray *
hl_recording_get_series (HlRecording *self,
                         guint64      t0_ns,
                         guint64      t1_ns,
                         guint        n_buckets)
{
  GArray *out;
  guint64 n_points;
  const HlHeapPoint *pts;
  guint64 n_allocs;
  const HlAllocRec *allocs = hl_recording_get_allocs (self, &n_allocs);
  guint n_counters, n_drops;
  const HlCounterSample *counters = hl_recording_get_counter_samples (self, &n_counters);
  const HlDropSample *drops = hl_recording_get_drop_samples (self, &n_drops);
  guint64 i, width;
  const guint64 *weights = hl_recording_get_alloc_weights (self);
  guint64 heap_before;
  guint64 allocations_total, temporary_total;
  guint ci = 0, di = 0;
  guint64 rss_prev = 0;
  /* A live session's recording holds the allocations that lived through
   * one of its polls, and their frees at the poll's time: a sample. Its
   * heap is the preload's counter, sampled every few milliseconds. */
  gboolean sampled = hl_recording_is_sampled (self) && n_counters > 0;
  guint64 counter_heap = 0;

  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  g_return_val_if_fail (n_buckets > 0, NULL);

  if (t1_ns == HL_TIME_END)
    t1_ns = hl_recording_get_end_ns (self) + 1;
  if (t1_ns <= t0_ns)
    t1_ns = t0_ns + 1;
  out = g_array_sized_new (FALSE, TRUE, sizeof (HlSeriesBucket), n_buckets);
  g_array_set_size (out, n_buckets);
  pts = hl_recording_get_heap_curve (self, &n_points);

  /* First point at or after t0. */
  i = hl_heap_points_first_at (allocs, pts, n_points, t0_ns);
  heap_before = hl_recording_heap_before (self, i);
  hl_recording_counts_before (self, i, &allocations_total, &temporary_total);
  width = t1_ns - t0_ns;
  while (ci < n_counters && counters[ci].time_ns < t0_ns)
    {
      counter_heap = counters[ci].heap_bytes;
      rss_prev = counters[ci++].rss_bytes;
    }
  while (di < n_drops && drops[di].time_ns < t0_ns)
    di++;

  for (guint b = 0; b < n_buckets; b++)
    {
      HlSeriesBucket *bk = &g_array_index (out, HlSeriesBucket, b);
      guint64 end = t0_ns + (guint64) ((double) width * (b + 1) / n_buckets);

      if (b + 1 == n_buckets)
        end = t1_ns;
      bk->start_ns = t0_ns + (guint64) ((double) width * b / n_buckets);
      bk->end_ns = end;
      bk->heap_min = bk->heap_max = heap_before;
      for (; i < n_points && hl_heap_point_time (allocs, &pts[i]) < end; i++)
        {
          guint64 heap = hl_heap_point_apply (allocs, &pts[i], heap_before);
          bk->heap_min = MIN (bk->heap_min, heap);
          bk->heap_max = MAX (bk->heap_max, heap);
          if (!HL_HEAP_POINT_IS_FREE (&pts[i]))
            {
              bk->allocations += hl_alloc_weight (weights, HL_HEAP_POINT_ALLOC (&pts[i]));
              bk->bytes_allocated += allocs[HL_HEAP_POINT_ALLOC (&pts[i])].size;
            }
          hl_heap_point_count (allocs, weights, &pts[i], &allocations_total, &temporary_total);
          heap_before = heap;
        }
      bk->allocations_total = allocations_total;
      bk->temporary_total = temporary_total;
      bk->rss_min = bk->rss_max = 0;
      if (sampled)
        bk->heap_min = bk->heap_max = counter_heap;
      for (gboolean first = TRUE; ci < n_counters &&
           counters[ci].time_ns < end; ci++)
        {
          guint64 r = counters[ci].rss_bytes;
          bk->rss_min = first ? r : MIN (bk->rss_min, r);
          bk->rss_max = MAX (bk->rss_max, r);
          if (sampled)
            {
              counter_heap = counters[ci].heap_bytes;
              bk->heap_min = first ? counter_heap : MIN (bk->heap_min, counter_heap);
              bk->heap_max = first ? counter_heap : MAX (bk->heap_max, counter_heap);
            }
          first = FALSE;
          rss_prev = r;
        }
      for (; di < n_drops && drops[di].time_ns < end; di++)
        bk->dropped += drops[di].count;
    }
  (void) rss_prev;
  return out;
}

void
hl_series_hold_rss (GArray *series)
{
  guint64 last = 0;

  for (guint i = 0; series != NULL && i < series->len; i++)
    {
      HlSeriesBucket *b = &g_array_index (series, HlSeriesBucket, i);

      if (b->rss_max > 0)
        last = b->rss_max;
      else
        b->rss_min = b->rss_max = last;
    }
}
