/* hl-recording-counts.h — how many allocations, and how many temporary
 * allocations, the heap curve holds before any of its points: the
 * cumulative series of the timeline's Allocations and Temporary charts.
 * An index of one count pair per HL_HEAP_CHECKPOINT_EVERY points, built
 * on first use after the curve changed, answers in at most that many
 * steps. For the model's series files (hl-recording-heap-series.c). */
#pragma once

#include "hl-recording-tables.h"

G_BEGIN_DECLS

/* Among the first I points of the curve (I ≤ n_points): *ALLOCATIONS,
 * the allocations, and *TEMPORARY, the frees of temporary allocations
 * (a temporary counts when it is freed, as heaptrack counts it). */
void hl_recording_counts_before (HlRecording *self,
                                 guint64      i,
                                 guint64     *allocations,
                                 guint64     *temporary);

/* What point P adds to the two counts; WEIGHTS as
 * hl_recording_get_alloc_weights() (a sampled block counts its weight). */
static inline void
hl_heap_point_count (const HlAllocRec  *allocs,
                     const guint64     *weights,
                     const HlHeapPoint *p,
                     guint64           *allocations,
                     guint64           *temporary)
{
  guint64 id = HL_HEAP_POINT_ALLOC (p);

  if (!HL_HEAP_POINT_IS_FREE (p))
    *allocations += hl_alloc_weight (weights, id);
  else if ((allocs[id].flags & HL_ALLOC_TEMPORARY) != 0)
    *temporary += hl_alloc_weight (weights, id);
}

G_END_DECLS
