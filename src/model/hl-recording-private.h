/* hl-recording-private.h — the recording's tables, for the other files of
 * the model (analysis, trees, loader, symbolizer). */
#pragma once

#include "hl-recording.h"
#include "hl-filter.h"

G_BEGIN_DECLS

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
  guint32 thread;         /* index into threads */
  guint32 flags;          /* HL_ALLOC_* */
} HlAllocRec;

/* A point of the heap curve, in (time, seq) order: heap after the event. */
typedef struct
{
  guint64 time_ns;
  guint64 heap;
  guint32 seq;
  guint32 alloc;          /* index of the allocation (low 32 bits of its id) */
  gint32  sign;           /* +1 allocation, -1 free */
} HlHeapPoint;

/* A frame with the model's own keys. HlFrame must stay first. */
typedef struct
{
  HlFrame  pub;
  guint32  function_id;   /* same id ⇔ hl_frame_same_function */
  guint32  module;        /* index into modules, G_MAXUINT32 when unknown */
} HlFrameEntry;

/* One node of a stack trie shared by every analysis of a recording. */
typedef struct
{
  const HlFrameEntry *frame;   /* NULL for the root */
  guint32 parent;
  guint32 first_child;
  guint32 next_sibling;
  guint32 depth;
} HlTrieNode;

typedef struct
{
  GArray  *nodes;        /* HlTrieNode, [0] is the root */
  guint32 *stack_leaf;   /* per internal stack: its deepest node */
  guint    n_stacks;
} HlTrie;

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

const HlAllocRec    *hl_recording_get_allocs        (HlRecording *self,
                                                     guint64     *n_allocs);
const HlHeapPoint   *hl_recording_get_heap_curve    (HlRecording *self,
                                                     guint64     *n_points);
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
guint                hl_recording_get_n_function_ids (HlRecording *self);
/* The internal frame of a public one (every HlFrame is an HlFrameEntry). */
static inline const HlFrameEntry *
hl_frame_entry (const HlFrame *frame)
{
  return (const HlFrameEntry *) frame;
}

/* Raw address lists of the stacks, for the symbolizer. */
const guint64       *hl_recording_get_stack_addresses (HlRecording *self,
                                                       guint32      stack,
                                                       guint       *n_frames);
/* Installs the frames for ADDRESS (innermost first); called by the
 * symbolizer, once per unique address. Strings are copied and interned. */
typedef struct
{
  const char *function;
  const char *file;
  guint       line;
  gboolean    is_inline;
} HlResolvedFrame;

void                 hl_recording_set_address_frames (HlRecording           *self,
                                                      guint64                address,
                                                      int                    module,
                                                      const HlResolvedFrame *frames,
                                                      guint                  n_frames);
/* Addresses of stacks not symbolized yet (new array of guint64). */
GArray              *hl_recording_take_unresolved_addresses (HlRecording *self);
HlModuleInfo        *hl_recording_get_modules_mutable (HlRecording *self,
                                                       guint       *n_modules);
/* Module containing ADDRESS, or -1. */
int                  hl_recording_find_module       (HlRecording *self,
                                                     guint64      address);
/* Finishes symbolization: rebuilds expanded stacks, warnings. */
void                 hl_recording_symbols_changed   (HlRecording *self);

/* Metadata intervals matching the filter's key=value conditions; returns
 * FALSE when the filter has none. */
gboolean             hl_recording_metadata_selects  (HlRecording *self,
                                                     const char  *key,
                                                     const char  *value,
                                                     guint64      time_ns);

G_END_DECLS

G_BEGIN_DECLS
void                 hl_recording_set_truncated     (HlRecording *self,
                                                     gboolean     truncated);
G_END_DECLS

G_BEGIN_DECLS
const char          *hl_recording_intern            (HlRecording *self,
                                                     const char  *s);
G_END_DECLS
