/* hl-recording-builder.h — what fills a recording, inside the model: the
 * event sink (the loader, the live session, tests), what only the trace
 * loader needs (reservation, truncation, costs-only recordings) and the
 * symbolizers' side (module status, frames).
 * Called by the thread that owns the recording while it is being filled:
 * the loading thread, or the main thread for a live session. */
#pragma once

#include "hl-recording.h"
#include "hl-frame-table.h"
#include "hl-trace-index.h"
#include "hl-trace-reader.h" /* HlEvent */

G_BEGIN_DECLS

/* An empty recording, to fill through the sink below (the live session
 * reader, the symbolizer prefetch's module map, tests). */
HlRecording  *hl_recording_new                 (void);

/* ---- The event sink ------------------------------------------------------ *
 * Ids are the trace's allocation ids (sequential, 0-based, may arrive out
 * of order across threads). Frames are return addresses, innermost first. */

void     hl_recording_append_info        (HlRecording    *self,
                                          const char     *key,
                                          const char     *value);
void     hl_recording_append_module      (HlRecording    *self,
                                          const char     *path,
                                          guint64         start,
                                          guint64         size,
                                          guint64         file_offset,
                                          const guint8   *build_id,
                                          gsize           build_id_len);
void     hl_recording_append_stack       (HlRecording    *self,
                                          guint32         trace_stack_id,
                                          const guint64  *frames,
                                          guint           n_frames);
void     hl_recording_append_alloc       (HlRecording    *self,
                                          guint64         id,
                                          guint64         time_ns,
                                          guint32         tid,
                                          guint64         size,
                                          guint64         address,
                                          guint32         trace_stack_id);
/* A free by allocation id; by address when id is HL_ALLOC_ID_NONE. */
void     hl_recording_append_free        (HlRecording    *self,
                                          guint64         id,
                                          guint64         address,
                                          guint64         time_ns,
                                          guint32         tid);
void     hl_recording_append_thread      (HlRecording    *self,
                                          guint64         time_ns,
                                          guint32         tid,
                                          const char     *name,
                                          gboolean        exited);
/* VALUE NULL removes KEY. */
void     hl_recording_append_metadata    (HlRecording    *self,
                                          guint64         time_ns,
                                          guint32         tid,
                                          const char     *key,
                                          const char     *value);
void     hl_recording_append_mark        (HlRecording    *self,
                                          guint64         time_ns,
                                          guint32         tid,
                                          const char     *text);
void     hl_recording_append_counters    (HlRecording    *self,
                                          guint64         time_ns,
                                          guint64         heap_bytes,
                                          guint64         rss_bytes);
void     hl_recording_append_dropped     (HlRecording    *self,
                                          guint64         time_ns,
                                          guint64         count);
void     hl_recording_append_end         (HlRecording    *self,
                                          guint64         time_ns,
                                          int             exit_status);
void     hl_recording_append_warning     (HlRecording    *self,
                                          const char     *warning);
/* Ends a batch of appends: derived data is brought up to date and
 * ::changed is emitted (on the calling thread). */
void     hl_recording_commit             (HlRecording    *self);
/* After the last append and commit (a loaded trace): the state only
 * appending needs (the thread lookup, the address map, the frees waiting
 * for their allocation, which count as unknown) is freed. Appends after
 * it still work, on that state made again from the tables. */
void     hl_recording_end_filling        (HlRecording    *self);

#define HL_ALLOC_ID_NONE G_MAXUINT64

/* ---- Loading ------------------------------------------------------------- */

/* Room for N_ALLOCS allocations (and their frees), when the loader knows. */
void          hl_recording_reserve             (HlRecording        *self,
                                                guint64             n_allocs);
/* The memory of that room (the allocations' table, the heap curve's), for
 * hl-prefault.h: valid while the appends stay within it. */
void          hl_recording_get_reserved        (HlRecording        *self,
                                                gpointer            start[2],
                                                gsize               len[2]);
void          hl_recording_set_truncated       (HlRecording        *self,
                                                gboolean            truncated);
/* What the reader says damaged and cut compressed frames lost
 * (HlTraceReaderStats: bounds, see HlSummary). */
void          hl_recording_set_lost_events     (HlRecording        *self,
                                                guint64             damaged_bound,
                                                guint64             cut_bound,
                                                guint64             regions_unknown);
/* S copied into the recording's strings (NULL stays NULL). */
const char   *hl_recording_intern              (HlRecording        *self,
                                                const char         *s);

/* Costs-only recordings (HL_LOAD_FLAGS_AGGREGATE, hl-recording-aggregate.h).
 * Before the first event: SELF keeps costs, not allocations. */
void          hl_recording_begin_aggregate     (HlRecording        *self,
                                                const HlTraceIndex *index);
void          hl_recording_aggregate_packets_done (HlRecording     *self,
                                                   guint64          offset);
/* After the last event: settles peak and leaks. FALSE when the trace broke
 * the time order the index promised: its numbers are not to be used. */
gboolean      hl_recording_end_aggregate       (HlRecording        *self);

/* Whether some thread's last allocation, made in [T0_NS, T1_NS], is still
 * live: a free of it before that thread allocates again would make it
 * temporary. A range load (hl_recording_load_range()) reads on past the
 * range until this is FALSE, so that the temporary flags of the range's
 * allocations are those of a full load. */
gboolean      hl_recording_last_allocs_open    (HlRecording        *self,
                                                guint64             t0_ns,
                                                guint64             t1_ns);

/* ---- Symbols ------------------------------------------------------------- */

/* The recording's frame service (hl-frame-table.h): frames of addresses,
 * addresses still to symbolize, the kept symbolizer. Expanding the new
 * stacks is the recording's (hl_recording_get_trie() does it first). */
HlFrameTable *hl_recording_get_frame_table     (HlRecording        *self);
/* The module map, to set what the symbolizer found for each module. */
HlModuleInfo *hl_recording_get_modules_mutable (HlRecording        *self,
                                                guint              *n_modules);
/* Finishes a symbolization: expands the stacks again, drops the tries. */
void          hl_recording_symbols_changed     (HlRecording        *self);

/* One decoded trace event (format's HlEvent) into REC, through the
 * functions above: the loader, its batches and the costs stream. */
void hl_recording_load_apply_event  (HlRecording   *rec,
                                     const HlEvent *ev);
/* After the events and hl_recording_commit(): the warning a load adds
 * when events were dropped. */
void hl_recording_load_warn_dropped (HlRecording   *rec);

G_END_DECLS
