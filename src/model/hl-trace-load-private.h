/* hl-trace-load-private.h — the loader's parts: decoded batches
 * (hl-trace-batch.c) and the parallel load over the packet index
 * (hl-trace-load-parallel.c). */
#pragma once

#include "hl-recording-private.h"

#include "hl-trace-reader.h"
#include "hl-trace-index.h"

G_BEGIN_DECLS

#define HL_DECODED_BATCH_EVENTS 32768

/* Events decoded from consecutive packets, independent of the cursor. */
typedef struct
{
  GArray       *events;   /* HlEvent; STACK frames hold offsets into frames */
  GArray       *frames;   /* guint64 */
  GStringChunk *strings;
  GPtrArray    *blocks;   /* g_free'd arrays of pointers (INFO) */
  guint64       last_offset;
  guint64       corrupt_packets;
  gboolean      last;
} HlDecodedBatch;

HlDecodedBatch *hl_decoded_batch_new   (void);
void            hl_decoded_batch_free  (HlDecodedBatch *b);
/* Empty again, its memory kept for the next run (no page faults). */
void            hl_decoded_batch_reset (HlDecodedBatch *b);
void            hl_decoded_batch_add   (HlDecodedBatch *b,
                                        const HlEvent  *ev);
/* Applies the batch's events in order (fixes up its STACK frames). */
void            hl_decoded_batch_apply (HlDecodedBatch *b,
                                        HlRecording    *rec);
void            hl_trace_apply_event   (HlRecording    *rec,
                                        const HlEvent  *ev);

typedef void (*HlLoadReportFunc) (gpointer user_data,
                                  guint64  offset,
                                  guint64  events);

/* Decodes the packets INDEX lists, from the reader's walk position on
 * while they follow each other without a gap, on N_THREADS workers, and
 * applies them to REC in file order on this thread. Returns the offset
 * the serial walk must go on from (after the last packet applied; where
 * a packet failed to load; at a gap), or G_MAXUINT64 when cancelled.
 * Adds to *EVENTS and *CORRUPT_PACKETS; *PACKETS counts packets applied. */
guint64 hl_trace_load_parallel (HlTraceReader      *reader,
                                const HlTraceIndex *index,
                                HlRecording        *rec,
                                guint               n_threads,
                                GCancellable       *cancellable,
                                HlLoadReportFunc    report,
                                gpointer            report_data,
                                guint64            *events,
                                guint64            *corrupt_packets,
                                guint64            *packets);

G_END_DECLS
