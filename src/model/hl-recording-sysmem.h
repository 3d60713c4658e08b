/* hl-recording-sysmem.h — inside the model: where a recording's memory
 * the system sees goes, beside the heap (the program's own anonymous
 * mappings, the allocator's samples). HlRecording's files fill it; the
 * readers are in hl-recording.h. */
#pragma once

#include <glib.h>

#include "hl-costs-payload.h"
#include "hl-trace-format.h"

G_BEGIN_DECLS

typedef struct _HlSysmem HlSysmem;

void hl_sysmem_free (HlSysmem *self);

#include "hl-recording.h"

/* The MMAP, MUNMAP, MREMAP and ALLOCATOR events (docs/trace-format.md
 * 5.3), in the order they are applied. */
void hl_recording_append_mmap      (HlRecording *self,
                                    guint64      time_ns,
                                    guint32      tid,
                                    guint64      address,
                                    guint64      size,
                                    guint32      trace_stack_id);
void hl_recording_append_munmap    (HlRecording *self,
                                    guint64      time_ns,
                                    guint64      address,
                                    guint64      size);
void hl_recording_append_mremap    (HlRecording *self,
                                    guint64      time_ns,
                                    guint32      tid,
                                    guint64      old_address,
                                    guint64      old_size,
                                    guint64      address,
                                    guint64      size,
                                    guint32      trace_stack_id);
/* The history of the mappings, for the MMAP cost of any selection
 * (hl-analysis-mmap.c): each MMAP or MREMAP call is a piece of BYTES
 * mapped at TIME_NS; a munmap of part of it (or a call mapping over it)
 * splits off a piece of the pages it took, with their UNMAP_TIME_NS, so
 * that the pieces of a call add up to its length. Not in the saved costs
 * (a recording filled from them has none). */
typedef struct
{
  guint64 time_ns;          /* the call's */
  guint64 unmap_time_ns;    /* HL_TIME_NONE: still mapped */
  guint64 bytes;
  guint64 call_bytes;       /* the call's length (the size filter's) */
  guint32 stack;            /* trace stack id */
  guint32 tid;
} HlMmapPiece;

const HlMmapPiece *hl_recording_get_mmap_pieces (HlRecording *self,
                                                 guint       *n_pieces);
/* Puts the allocator samples in time order (packets of several threads
 * bring them out of it): hl_recording_commit() and the costs packet's
 * serializer call it, readers never do (they may run at once). */
void hl_recording_sort_allocator_samples (HlRecording *self);
void hl_recording_append_allocator (HlRecording             *self,
                                    guint64                  time_ns,
                                    const HlAllocatorSample *s);

/* The saved costs (docs/trace-format.md 7e): P's allocator samples and
 * mappings from the recording (the arrays g_new'd into *ALLOCATOR and
 * *SITES, the caller's to free), and back into a recording filled from
 * saved costs. */
void hl_recording_sysmem_to_payload   (HlRecording       *self,
                                       HlCostsPayload    *p,
                                       HlCostsAllocator **allocator,
                                       HlCostsMmapSite  **sites);
void hl_recording_sysmem_from_payload (HlRecording          *self,
                                       const HlCostsPayload *p);

G_END_DECLS
