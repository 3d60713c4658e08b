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
                                    guint64      address,
                                    guint64      size,
                                    guint32      trace_stack_id);
void hl_recording_append_munmap    (HlRecording *self,
                                    guint64      time_ns,
                                    guint64      address,
                                    guint64      size);
void hl_recording_append_mremap    (HlRecording *self,
                                    guint64      time_ns,
                                    guint64      old_address,
                                    guint64      old_size,
                                    guint64      address,
                                    guint64      size,
                                    guint32      trace_stack_id);
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
