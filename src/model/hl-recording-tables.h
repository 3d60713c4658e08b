/* hl-recording-tables.h — the recording's tables as the model's readers
 * see them (analyses, call sites, series): allocation records, the heap
 * curve, samples, expanded stacks and their tries. Read-only; what fills
 * them is in hl-recording-builder.h. Fast paths are inline here. */
#pragma once

#include "hl-recording.h"
#include "hl-filter.h"          /* HL_TIME_NONE */
#include "hl-frame-table.h"
#include "hl-stack-trie.h"

G_BEGIN_DECLS

typedef struct _HlAggregate HlAggregate;

enum
{
  HL_ALLOC_PRESENT      = 1 << 0,
  HL_ALLOC_FREED        = 1 << 1,
  HL_ALLOC_TEMPORARY    = 1 << 2,
  HL_ALLOC_LIVE_AT_PEAK = 1 << 3,
};

/* One allocation, indexed by its trace id. */
typedef struct
{
  guint64 time_ns;
  guint64 size;
  guint64 address;
  guint64 free_time_ns;   /* HL_TIME_NONE while live */
  guint32 seq;            /* order of arrival of the allocation event */
  guint32 free_seq;       /* order of arrival of its free */
  guint32 stack;          /* internal stack index (0 = unknown) */
  guint32 thread : 24;    /* index into threads (HL_MAX_THREADS) */
  guint32 flags  : 8;     /* HL_ALLOC_* */
} HlAllocRec;

/* 48 bytes an allocation: a 20 M-event trace keeps 10 M of them. */
G_STATIC_ASSERT (sizeof (HlAllocRec) == 48);
#define HL_MAX_THREADS (1u << 24)

/* A point of the heap curve, in (time, seq) order: one allocation or free.
 * Only the allocation and which of its two events is stored (4 bytes a
 * point): the time and seq are the allocation's (time_ns, seq) or
 * (free_time_ns, free_seq), which never change once set. The heap after
 * each point is not stored either: it is the heap before the point's
 * checkpoint (one per HL_HEAP_CHECKPOINT_EVERY points) plus the sizes
 * since; see hl_recording_heap_before(). */
typedef struct
{
  guint32 alloc_free;     /* allocation index << 1 | 1 for its free */
} HlHeapPoint;

#define HL_HEAP_CHECKPOINT_SHIFT 8
#define HL_HEAP_CHECKPOINT_EVERY (1u << HL_HEAP_CHECKPOINT_SHIFT)

#define HL_HEAP_POINT_ALLOC(p)   ((p)->alloc_free >> 1)
#define HL_HEAP_POINT_IS_FREE(p) (((p)->alloc_free & 1) != 0)

static inline guint64
hl_heap_point_time (const HlAllocRec  *allocs,
                    const HlHeapPoint *p)
{
  const HlAllocRec *a = &allocs[HL_HEAP_POINT_ALLOC (p)];
  return HL_HEAP_POINT_IS_FREE (p) ? a->free_time_ns : a->time_ns;
}

/* The first of the N time-sorted points PTS at or after T_NS (N if none). */
static inline guint64
hl_heap_points_first_at (const HlAllocRec  *allocs,
                         const HlHeapPoint *pts,
                         guint64            n,
                         guint64            t_ns)
{
  guint64 lo = 0, hi = n;
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (hl_heap_point_time (allocs, &pts[mid]) < t_ns)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static inline guint32
hl_heap_point_seq (const HlAllocRec  *allocs,
                   const HlHeapPoint *p)
{
  const HlAllocRec *a = &allocs[HL_HEAP_POINT_ALLOC (p)];
  return HL_HEAP_POINT_IS_FREE (p) ? a->free_seq : a->seq;
}

typedef struct
{
  guint64 time_ns;
  guint64 heap_bytes;
  guint64 rss_bytes;
} HlCounterSample;

typedef struct
{
  guint64 time_ns;
  guint64 count;
} HlDropSample;

/* ---- Accessors for the other model files ------------------------------ */

/* The weights of the allocations by id in a sampled recording (how many of
 * the program's allocations each stands for, hl-sample-weight.h), or NULL
 * when every allocation weighs 1. Valid as long as the allocations are. */
const guint64       *hl_recording_get_alloc_weights (HlRecording *self);

/* The weight of allocation ID, WEIGHTS being hl_recording_get_alloc_weights(). */
static inline guint64
hl_alloc_weight (const guint64 *weights,
                 guint64        id)
{
  return weights == NULL ? 1 : weights[id];
}

/* The requested size of one of the program's allocations that allocation
 * ID stands for (its size is that times its weight). */
static inline guint64
hl_alloc_unit_size (const HlAllocRec *allocs,
                    const guint64    *weights,
                    guint64           id)
{
  return weights == NULL || weights[id] <= 1 ? allocs[id].size : allocs[id].size / weights[id];
}

const HlAllocRec    *hl_recording_get_allocs        (HlRecording *self,
                                                     guint64     *n_allocs);
const HlHeapPoint   *hl_recording_get_heap_curve    (HlRecording *self,
                                                     guint64     *n_points);
/* The earliest and latest allocation time of each block of HL_ALLOC_BLOCK
 * allocations (by id; min > max when the block has none), so a time-range
 * filter skips the blocks outside its range: ids follow time closely. */
typedef struct
{
  guint64 min_time_ns;
  guint64 max_time_ns;
} HlAllocTimeBlock;

#define HL_ALLOC_BLOCK_SHIFT 12
#define HL_ALLOC_BLOCK (1u << HL_ALLOC_BLOCK_SHIFT)

const HlAllocTimeBlock *hl_recording_get_alloc_time_blocks (HlRecording *self,
                                                     guint64     *n_blocks);
/* The peak inside [T0, T1]: the first point where the heap is highest
 * (or the heap at T0 when that is higher), as (time, seq); FALSE when the
 * recording has no point up to T1. O(points / HL_HEAP_CHECKPOINT_EVERY). */
gboolean             hl_recording_find_peak_in      (HlRecording *self,
                                                     guint64      t0_ns,
                                                     guint64      t1_ns,
                                                     guint64     *time_ns,
                                                     guint32     *seq);
/* Heap bytes just before point I of the curve (I ≤ n_points), exact. */
guint64              hl_recording_heap_before       (HlRecording *self,
                                                     guint64      i);
/* The heap after point P, given the heap before it. */
static inline guint64
hl_heap_point_apply (const HlAllocRec  *allocs,
                     const HlHeapPoint *p,
                     guint64            heap)
{
  guint64 size = allocs[HL_HEAP_POINT_ALLOC (p)].size;
  return HL_HEAP_POINT_IS_FREE (p) ? heap - size : heap + size;
}
/* A live session's recording (info "live" = "1"): it holds samples of the
 * allocations (those that lived through a poll), not every one. */
static inline gboolean
hl_recording_is_sampled (HlRecording *self)
{
  return g_strcmp0 (hl_recording_get_info (self, "live"), "1") == 0;
}

/* Expanded frames of an internal stack, innermost first. */
const HlFrameEntry * const *hl_recording_get_stack_entries (HlRecording *self,
                                                     guint32      stack,
                                                     guint       *n_frames);
/* Built on first use after the stacks or symbols changed. */
const HlTrie        *hl_recording_get_trie          (HlRecording *self,
                                                     gboolean     bottom_up);
guint32              hl_recording_get_thread_tid    (HlRecording *self,
                                                     guint32      thread);
guint                hl_recording_get_n_threads_internal (HlRecording *self);
/* Metadata intervals matching the filter's key=value conditions; returns
 * FALSE when the filter has none. */
gboolean             hl_recording_metadata_selects  (HlRecording *self,
                                                     const char  *key,
                                                     const char  *value,
                                                     guint64      time_ns);

/* NULL for a recording with allocation records (HL_LOAD_FLAGS_AGGREGATE:
 * hl-recording-aggregate.h). */
const HlAggregate   *hl_recording_get_aggregate     (HlRecording *self);
const HlCounterSample *hl_recording_get_counter_samples (HlRecording *self,
                                                         guint       *n);
const HlDropSample    *hl_recording_get_drop_samples    (HlRecording *self,
                                                         guint       *n);
guint64                hl_recording_get_end_ns          (HlRecording *self);

G_END_DECLS
