/* hl-live-segment.h — the shared-memory segment an HlLiveSession reads
 * (model-internal; the format calls it a session, the model a segment):
 * the format's validating reader opened under the SIGBUS guard, its
 * header copy, and what the segment and the system say about its process
 * (state, liveness, the clock since its start).
 *
 * Opening runs under hl_shm_guard_run(); every later read of the mapping
 * must too (a segment its owner shrinks raises SIGBUS): the poll runs
 * whole inside one guard, the live-table scan inside another. Reads are
 * safe on any thread, one at a time per call site (the reader keeps no
 * state between calls but the header copy).
 */
#pragma once

#include <glib.h>

#include "hl-live-types.h"
#include "hl-shm-reader.h"

G_BEGIN_DECLS

typedef struct _HlLiveSegment HlLiveSegment;

/* NAME as in /dev/shm or a path; NULL with ERROR (HL_LIVE_ERROR_NOT_FOUND
 * for a segment still being created, else REFUSED with the reason). */
HlLiveSegment     *hl_live_segment_open        (const char     *name,
                                                GError        **error);
/* DATA is borrowed and may change under the reader. */
HlLiveSegment     *hl_live_segment_open_memory (const void     *data,
                                                gsize           size,
                                                guint32         expected_uid,
                                                GError        **error);
void               hl_live_segment_free        (HlLiveSegment  *segment);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlLiveSegment, hl_live_segment_free)

HlShmReader       *hl_live_segment_get_reader  (HlLiveSegment  *segment);
/* The validated header copy taken at open (strings NUL-terminated). */
const HlShmHeader *hl_live_segment_get_header  (HlLiveSegment  *segment);
/* The base name ("heaplens-1000-4242-ab12cd"), NULL for memory segments. */
const char        *hl_live_segment_get_name    (HlLiveSegment  *segment);
/* The command line, arguments joined by spaces. */
const char        *hl_live_segment_get_cmdline (HlLiveSegment  *segment);
/* The trace's path, "" when none; one opened while STARTING gets it with
 * RUNNING (read from the mapping: guarded). */
const char        *hl_live_segment_get_trace_path (HlLiveSegment *segment);

/* The state the segment says now (guarded): STARTING, RUNNING, ENDED,
 * or RESTARTED when it ended by exec; HEARTBEAT_NS, EXIT_STATUS and
 * FLAGS (HL_SHM_FLAG_*) may be NULL. */
HlLiveState        hl_live_segment_read_state  (HlLiveSegment  *segment,
                                                guint64        *heartbeat_ns,
                                                int            *exit_status,
                                                guint32        *flags);

/* The counters now (guarded): TOTALS (drops summed over their reasons)
 * and *N_SAMPLES, the counter samples written so far. 0, or -1 with ERR. */
int                hl_live_segment_read_totals (HlLiveSegment  *segment,
                                                HlLiveTotals   *totals,
                                                guint64        *n_samples,
                                                HlFormatError  *err);

/* A process with the segment's pid exists (another user's included). */
gboolean           hl_live_segment_pid_alive   (HlLiveSegment  *segment);
/* That process is still the program that made the segment: not a
 * zombie, not another program that took the pid over. */
gboolean           hl_live_segment_pid_is_target (HlLiveSegment *segment);
/* The segment's name is still in /dev/shm (always for memory segments). */
gboolean           hl_live_segment_name_exists (HlLiveSegment  *segment);
/* CLOCK_MONOTONIC now, since the process started. */
guint64            hl_live_segment_now_ns      (HlLiveSegment  *segment);

/* CMDLINE (SIZE bytes of NUL-separated arguments) joined by spaces. */
char              *hl_live_cmdline_join        (const char     *cmdline,
                                                gsize           size);
gboolean           hl_live_pid_alive           (guint32         pid);

G_END_DECLS
