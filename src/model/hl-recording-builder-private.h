/* hl-recording-builder-private.h — HlRecordingBuilder, the state a
 * recording needs only while events are appended to it: finding a thread
 * by tid, each thread's last allocation (temporary allocations), the
 * address map of frees by address, the frees read before their
 * allocation, the loader's reservation. Shared by the builder's files:
 * hl-recording-builder.c (the event sink), hl-recording-costs-stream.c
 * (which inlines the sink's common events) and hl-recording-costs-packet.c
 * (which restores a recording's threads). The recording holds its builder
 * while it is filled (a live one for its whole life) and drops it with
 * hl_recording_end_filling() (hl-recording-builder.h). */
#pragma once

#include "hl-recording-private.h"
#include "hl-address-map.h"

G_BEGIN_DECLS

/* A free whose allocation is in a packet not read yet (another thread's
 * packet reached the file later): applied when the allocation arrives. */
typedef struct
{
  guint64 time_ns;
  guint32 tid;
} PendingFree;

struct _HlRecordingBuilder
{
  /* Owned */
  GHashTable   *tid_to_thread;   /* tid → index + 1 into the recording's threads */
  GArray       *thread_last;     /* guint64 per thread: its last allocation id */
  HlAddressMap *addr_to_id;      /* address → id + 1 of live blocks, once needed */
  GHashTable   *pending_frees;   /* id → PendingFree: freed before its allocation arrived */

  guint64       allocs_reserved; /* room hl_recording_reserve() made */
  guint32       last_tid;        /* cache of the thread lookup */
  guint32       last_thread;
  gboolean      applying_pending;
};

/* The internal index of TRACE_STACK_ID (a new one when unseen). */
guint32             hl_recording_builder_stack_index (HlRecording *self,
                                                      guint32      trace_stack_id);
/* A REACHABILITY event's payload (checked by the cursor): its first
 * event's totals replace the recording's, its records are added. */
void                hl_recording_append_reachability (HlRecording  *self,
                                                      guint64       time_ns,
                                                      const guint8 *data,
                                                      gsize         size);

/* An empty builder, for an empty recording. */
HlRecordingBuilder *hl_recording_builder_new        (void);
void                hl_recording_builder_free       (HlRecordingBuilder *self);
/* The frees still waiting for their allocation. */
guint               hl_recording_builder_n_pending  (const HlRecordingBuilder *self);
/* Thread THREAD of the recording has tid TID (restored, not appended). */
void                hl_recording_builder_add_thread (HlRecordingBuilder *self,
                                                     guint32             tid,
                                                     guint               thread);
gboolean            hl_recording_builder_has_tid    (const HlRecordingBuilder *self,
                                                     guint32             tid);

/* SELF's builder; made again from the recording's tables when
 * hl_recording_end_filling() dropped it and appends come after all. */
HlRecordingBuilder *hl_recording_get_builder        (HlRecording        *self);

G_END_DECLS
