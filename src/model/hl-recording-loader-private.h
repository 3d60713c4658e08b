/* hl-recording-loader-private.h — the loader's parts: decoded batches
 * (hl-recording-load-batch.c) and the parallel load over the packet index
 * (hl-recording-load-parallel.c). */
#pragma once

#include "hl-recording-builder.h"

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
/* Decodes every event of PKT (with CURSOR) into B; counts a packet with
 * malformed events (the result < 0) and sets B's last offset. */
int             hl_decoded_batch_add_packet (HlDecodedBatch     *b,
                                             HlEventCursor      *cursor,
                                             const HlPacketView *pkt);
/* Applies the batch's events in order (fixes up its STACK frames). */
void            hl_decoded_batch_apply (HlDecodedBatch *b,
                                        HlRecording    *rec);

typedef void (*HlLoadReportFunc) (gpointer user_data,
                                  guint64  offset,
                                  guint64  events);

/* How hl_recording_load_parallel() cuts and keeps its work. */
typedef struct
{
  /* Events per run (a run is decoded by one worker into one batch). A
   * costs-only load takes smaller runs: a decoded event is 88 bytes, and
   * the batches in flight are most of its memory. */
  guint64  run_events;
  /* Give back the reader's pages before the runs still to come
   * (hl_trace_reader_release_before): a compressed trace's plain image is
   * otherwise the largest thing in a costs-only load's memory. */
  gboolean release_behind;
} HlParallelLoadOptions;

/* Decodes the packets INDEX lists, from the reader's walk position on
 * while they follow each other without a gap, on N_THREADS workers, and
 * applies them to REC in file order on this thread. Returns the offset
 * the serial walk must go on from (after the last packet applied; where
 * a packet failed to load; at a gap), or G_MAXUINT64 when cancelled.
 * Adds to *EVENTS and *CORRUPT_PACKETS; *PACKETS counts packets applied.
 * The recording is the one the serial walk builds, whatever OPTIONS. */
guint64 hl_recording_load_parallel (HlTraceReader      *reader,
                                    const HlTraceIndex *index,
                                    HlRecording        *rec,
                                    const HlParallelLoadOptions *options,
                                    guint               n_threads,
                                    GCancellable       *cancellable,
                                    HlLoadReportFunc    report,
                                    gpointer            report_data,
                                    guint64            *events,
                                    guint64            *corrupt_packets,
                                    guint64            *packets);

G_END_DECLS
