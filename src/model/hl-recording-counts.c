/* hl-recording-counts.c — allocations and temporary allocations before a
 * point of the heap curve, from an index built once per curve. */
#include "hl-config.h"

#include "hl-recording-counts.h"

/* The index, kept on the recording (its curve only ever grows: a curve of
 * another length is another curve, and the index is built again). */
typedef struct
{
  guint64 n_points;     /* of the curve it was built for */
  GArray *counts;       /* CountPair before point k << HL_HEAP_CHECKPOINT_SHIFT */
} CountIndex;

typedef struct
{
  guint64 allocations;
  guint64 temporary;
} CountPair;

static GMutex index_lock;

static void
count_index_free (gpointer data)
{
  CountIndex *index = data;

  g_array_unref (index->counts);
  g_free (index);
}

static CountIndex *
count_index_build (const HlAllocRec  *allocs,
                   const guint64     *weights,
                   const HlHeapPoint *pts,
                   guint64            n)
{
  CountIndex *index = g_new0 (CountIndex, 1);
  CountPair pair = { 0, 0 };

  index->n_points = n;
  index->counts = g_array_sized_new (FALSE, FALSE, sizeof (CountPair),
                                     (guint) ((n >> HL_HEAP_CHECKPOINT_SHIFT) + 1));
  for (guint64 i = 0; i < n; i++)
    {
      if ((i & (HL_HEAP_CHECKPOINT_EVERY - 1)) == 0)
        g_array_append_val (index->counts, pair);
      hl_heap_point_count (allocs, weights, &pts[i], &pair.allocations, &pair.temporary);
    }
  return index;
}

void
hl_recording_counts_before (HlRecording *self,
                            guint64      i,
                            guint64     *allocations,
                            guint64     *temporary)
{
  static GQuark quark;
  guint64 n_points, n_allocs, k;
  const HlHeapPoint *pts = hl_recording_get_heap_curve (self, &n_points);
  const HlAllocRec *allocs = hl_recording_get_allocs (self, &n_allocs);
  CountIndex *index;
  CountPair pair = { 0, 0 };

  g_return_if_fail (HL_IS_RECORDING (self));

  *allocations = *temporary = 0;
  i = MIN (i, n_points);
  if (i == 0)
    return;
  if (quark == 0)
    quark = g_quark_from_static_string ("hl-recording-count-index");

  /* the series of two windows may be asked for from two threads */
  g_mutex_lock (&index_lock);
  index = g_object_get_qdata (G_OBJECT (self), quark);
  if (index == NULL || index->n_points != n_points)
    {
      index = count_index_build (allocs, hl_recording_get_alloc_weights (self), pts, n_points);
      g_object_set_qdata_full (G_OBJECT (self), quark, index, count_index_free);
    }
  k = MIN ((i - 1) >> HL_HEAP_CHECKPOINT_SHIFT, index->counts->len - 1);
  pair = g_array_index (index->counts, CountPair, k);
  g_mutex_unlock (&index_lock);

  for (guint64 j = k << HL_HEAP_CHECKPOINT_SHIFT; j < i; j++)
    hl_heap_point_count (allocs, hl_recording_get_alloc_weights (self), &pts[j], &pair.allocations, &pair.temporary);
  *allocations = pair.allocations;
  *temporary = pair.temporary;
}
