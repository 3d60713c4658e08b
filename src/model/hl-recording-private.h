/* hl-recording-private.h — HlRecording's instance struct, shared by the
 * files of that one object and nobody else: hl-recording.c (life cycle,
 * readers), hl-recording-builder.c (the event sink), hl-recording-commit.c
 * (the sorted curve, peak, leaks) and the costs packet and stream that
 * fill a recording from saved costs (hl-recording-costs-*.c). What only
 * appending needs is the builder's (hl-recording-builder-private.h), the
 * tries are the trie cache's (hl-stack-trie.h). Other model files read it
 * through hl-recording-tables.h and fill it through hl-recording.h's sink
 * and hl-recording-builder.h. */
#pragma once

#include "hl-recording-tables.h"
#include "hl-recording-builder.h"
#include "hl-recording-aggregate.h"
#include "hl-recording-sysmem.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 begin;
  guint32 n;
  guint32 defined;
} StackSpan;

/* The fill state (hl-recording-builder-private.h). */
typedef struct _HlRecordingBuilder HlRecordingBuilder;

/* A metadata change as it arrived (hl-recording-metadata.c). */
typedef struct
{
  guint64     time_ns;
  const char *key;       /* interned */
  const char *value;     /* interned; NULL: the key was removed */
  guint32     tid;
} HlMetaChange;

/* The curve's state before point k << HL_HEAP_CHECKPOINT_SHIFT. */
typedef struct
{
  guint64 heap;
  guint64 peak;          /* highest heap after any earlier point */
  guint64 peak_i;        /* that point, G_MAXUINT64 when none */
  guint64 chunk_max;     /* the highest heap after a point of this chunk */
  guint64 chunk_max_i;   /* the first such point */
} HeapCheckpoint;

struct _HlRecording
{
  GObject parent_instance;

  /* Owned */
  GStringChunk *strings;
  GHashTable   *info;            /* key → value, interned */
  GPtrArray    *info_keys;       /* NULL-terminated */
  GPtrArray    *warnings;        /* NULL-terminated, owned strings */
  GArray       *modules;         /* HlModuleInfo */
  GArray       *threads;         /* HlThreadInfo */
  GArray       *allocs;          /* HlAllocRec by id */
  GArray       *curve;           /* HlHeapPoint */
  GArray       *checkpoints;     /* HeapCheckpoint per HL_HEAP_CHECKPOINT_EVERY points */
  GArray       *time_blocks;     /* HlAllocTimeBlock per HL_ALLOC_BLOCK allocations */
  GArray       *counters;        /* HlCounterSample */
  GArray       *drops;           /* HlDropSample */
  /* Sampling (INFO sample_bytes, hl-sample-weight.h): the mean bytes
   * between samples, 0 for a full recording; the weight of each
   * allocation by id, NULL when all weigh 1 (full, or costs only). */
  guint64       sample_bytes;
  GArray       *weights;         /* guint64 by id */
  GArray       *meta;            /* HlMetaInterval, by key in time order */
  GHashTable   *meta_open;       /* key → index + 1 of the open interval */
  GArray       *meta_changes;    /* HlMetaChange, as they arrived; none when
                                  * filled from saved costs (meta is then final) */
  guint64       meta_last_ns;    /* the latest change's time */
  gboolean      meta_unsorted;   /* a change came before the latest: meta is
                                  * rebuilt from meta_changes at the commit */
  GArray       *marks;           /* HlMark */
  gboolean      marks_unsorted;  /* sorted (stable, by time) when asked for */
  HlAggregate  *aggregate;       /* costs only, no allocation records (report) */
  /* The leak scan at exit (REACHABILITY events, hl-recording-reachability.c):
   * its totals, and the blocks not still reachable (HlReachabilityBlock,
   * stack as an internal index) */
  gboolean      reach_present;
  HlReachability reach;
  GArray       *reach_blocks;
  HlSysmem     *sysmem;          /* mappings and allocator samples, NULL when none (hl-recording-sysmem.c) */

  /* Stacks: trace id → internal index; addresses per stack. */
  GArray       *stack_ids;       /* guint32 by trace stack id: index + 1, 0 = unseen */
  GArray       *stack_spans;     /* StackSpan per internal stack: into stack_addrs */
  GArray       *stack_addrs;     /* guint64 */

  /* Frames of the addresses, the expanded stacks and the symbolization
   * state; it expands stacks [0, its n_stacks) of stack_spans. */
  HlFrameTable *frame_table;
  HlTrieCache  *tries;           /* the two tries of the expanded stacks */

  /* What only appending needs; NULL once hl_recording_end_filling(). */
  HlRecordingBuilder *builder;

  /* Totals; SEQ orders the events (saved with the costs). */
  guint32       seq;
  guint64       n_allocs;
  guint64       n_frees;
  guint64       bytes_allocated;
  guint64       temporary;
  guint64       frees_unknown;
  guint64       ids_out_of_range;
  guint64       dropped;
  guint64       end_ns;
  guint64       peak_heap;
  guint64       peak_time_ns;
  guint64       peak_rss;
  guint64       leaked_bytes;
  guint64       leaked_blocks;
  guint64       committed_allocs;
  guint64       curve_sorted;    /* points already in (time, seq) order */
  gboolean      curve_dirty;
  gboolean      frames_dirty;
  gboolean      has_exit;
  int           exit_status;
  gboolean      truncated;
  guint64       lost_events_damaged; /* bounds: hl_recording_set_lost_events() */
  guint64       lost_events_cut;
  guint64       lost_regions_unknown;
};

/* hl-recording.c: expands into frames the stacks the frame table has not
 * expanded yet, or, with ALL, every stack again. */
void hl_recording_expand_stack_frames (HlRecording *self,
                                      gboolean     all);
/* hl-recording-commit.c: sorts new curve points, recomputes heap, peak,
 * leaks and the live-at-peak flags. */
void hl_recording_update_curve        (HlRecording *self);
/* Adds M to the marks; hl_recording_get_marks() gives them in time order
 * (packets of several threads reach the model out of time order). */
void hl_recording_insert_mark        (HlRecording  *self,
                                      const HlMark *m);
/* hl-recording-metadata.c: rebuilds the metadata intervals in time order
 * if a change arrived out of order; hl_recording_commit() and the costs
 * packet's serializer call it (readers never do: they may run at once). */
void hl_recording_sort_metadata      (HlRecording  *self);
/* hl-recording.c: emits ::changed. */
void hl_recording_emit_changed        (HlRecording *self,
                                      guint64      n_new);

G_END_DECLS
