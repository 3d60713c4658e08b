/* hl-live-session.h — a profiled process watched while it runs, from its
 * shared-memory session (src/format/hl-shm-reader.h), GLib only.
 *
 * An HlLiveSession polls the segment on the thread-default main context of
 * its creator (hl_live_session_start, ≥ 5 times per second). A poll reads
 * what is cheap to read (state, counters, new samples, new stacks, the
 * call-site table, metadata) on that thread; copying the live-allocations
 * table and symbolizing run on worker threads, one at a time, so the main
 * context is never blocked for long. Every poll that saw something new
 * emits ::updated; state changes notify "state".
 *
 * What it exposes:
 *  - state: running, ended (with the exit status), stale (the process is
 *    gone without ending its session, or stopped beating), vanished (the
 *    segment's name was removed), restarted (the process exec'd: a new
 *    session follows, see "next-session");
 *  - the counters as a growing time series (heap, RSS, allocation rate,
 *    dropped events);
 *  - the call-site table: live bytes and blocks per stack, with frames;
 *  - the current metadata and its history (intervals);
 *  - a snapshot: a frozen copy of all of the above;
 *  - an HlRecording fed through the model's event sink, so that the views
 *    of a saved trace show the live process too (see docs/live.md for what
 *    it holds: allocations seen live at a poll, exact counters).
 *
 * Symbols: the session has no module map, so modules come from
 * /proc/PID/maps of the target (same user only, as for the segment) and
 * are re-read when a new stack has an address outside the known modules.
 *
 * Nothing read from the segment is trusted: the reader bounds-checks every
 * field, and a malformed region is reported as a warning, never a crash.
 */
#pragma once

#include <gio/gio.h>

#include "hl-live-types.h"
#include "hl-recording.h"

G_BEGIN_DECLS

#define HL_TYPE_LIVE_SESSION (hl_live_session_get_type ())
G_DECLARE_FINAL_TYPE (HlLiveSession, hl_live_session, HL, LIVE_SESSION, GObject)


/* PID's newest session (the image that did not exec away). */
HlLiveSession   *hl_live_session_open_pid     (guint32       pid,
                                               GError      **error);
/* NAME as in /dev/shm ("heaplens-1000-4242-ab12cd") or a path. */
HlLiveSession   *hl_live_session_open_name    (const char   *name,
                                               GError      **error);
/* A segment in memory (tests, fuzzing); DATA is borrowed and may change
 * under the session (as a real segment does). */
HlLiveSession   *hl_live_session_open_memory  (const void   *data,
                                               gsize         size,
                                               guint32       expected_uid,
                                               GError      **error);

/* Polls every INTERVAL_MS (≤ 200 keeps ≥ 5 Hz) on the thread-default main
 * context until stop() or until the state is final (ended, stale,
 * vanished, restarted; one last poll reads the final numbers). */
void             hl_live_session_start        (HlLiveSession *self,
                                               guint          interval_ms);
void             hl_live_session_stop         (HlLiveSession *self);
/* One poll now; TRUE when something changed. */
gboolean         hl_live_session_poll         (HlLiveSession *self);

HlLiveState      hl_live_session_get_state    (HlLiveSession *self);
int              hl_live_session_get_exit_status (HlLiveSession *self);
guint32          hl_live_session_get_pid      (HlLiveSession *self);
const char      *hl_live_session_get_name     (HlLiveSession *self);
const char      *hl_live_session_get_exe      (HlLiveSession *self);
/* Arguments joined by spaces. */
const char      *hl_live_session_get_cmdline  (HlLiveSession *self);
/* The trace the preload writes, "" when none. */
const char      *hl_live_session_get_trace_path (HlLiveSession *self);
/* The session that followed an exec, or NULL. */
const char      *hl_live_session_get_next_session (HlLiveSession *self);
/* The process started programs that cannot take the preload (built with a
 * sanitizer, or for another machine) without it (HL_SHM_FLAG_UNFOLLOWED). */
gboolean         hl_live_session_get_unfollowed (HlLiveSession *self);
/* The preload was loaded into the running process by an attach
 * (HL_SHM_FLAG_ATTACHED): a detach ends it with status -1, the process
 * running. */
gboolean         hl_live_session_get_attached   (HlLiveSession *self);
/* Whether /dev/shm filled up and the live table stopped growing
 * (HL_SHM_FLAG_SHM_FULL): the totals' live_dropped allocations are not in
 * the live table; the trace has them all. */
gboolean         hl_live_session_get_shm_full   (HlLiveSession *self);
guint64          hl_live_session_get_start_wall_ns (HlLiveSession *self);
/* Problems met while reading (a malformed region...), NULL-terminated. */
const char * const *hl_live_session_get_warnings (HlLiveSession *self);
guint            hl_live_session_get_n_polls  (HlLiveSession *self);
/* A worker is copying the live table or symbolizing (tests wait on it). */
gboolean         hl_live_session_is_busy      (HlLiveSession *self);
/* A worker resolves the recording's new addresses (it does not touch the
 * recording: feeding and analyses go on; the frames are stored at a poll). */
gboolean         hl_live_session_is_symbolizing (HlLiveSession *self);
/* Holds the recording still: no appends (they are deferred to the polls
 * after the last release) so that an analysis of it can be built on a
 * worker thread. FALSE, without holding, while a worker of the session
 * itself uses the recording (try again later). Counted. */
gboolean         hl_live_session_hold         (HlLiveSession *self);
void             hl_live_session_release      (HlLiveSession *self);

void             hl_live_session_get_totals   (HlLiveSession *self,
                                               HlLiveTotals  *out);
/* When the totals were read (the program's time since its start, on the
 * trace's clock): the moment a live view's numbers are of, never before
 * their peak. 0 before the first poll. */
guint64          hl_live_session_get_totals_time_ns (HlLiveSession *self);
/* Borrowed, valid until the next poll. */
const HlLiveSample   *hl_live_session_get_samples   (HlLiveSession *self,
                                                     guint         *n_samples);
/* Sorted by live bytes, largest first. Borrowed, valid until the next poll. */
const HlLiveCallsite *hl_live_session_get_callsites (HlLiveSession *self,
                                                     guint         *n_callsites);
/* The call-site table's exact counters per stack of the recording
 * (indexed by HlStackId, *N_STACKS of them): allocations and bytes
 * (calls and bytes so far), leaked_bytes and leaked_blocks (not freed
 * yet). The recording's own costs are a sample (allocations that lived
 * through a poll); these count every call. New array (g_free). */
HlCosts         *hl_live_session_get_stack_costs (HlLiveSession *self,
                                                  guint         *n_stacks);
/* HlLiveMetaInterval*; borrowed, valid until the next poll. */
GPtrArray       *hl_live_session_get_metadata (HlLiveSession *self);
GPtrArray       *hl_live_session_get_history  (HlLiveSession *self);

/* The recording fed from the session (borrowed; grows at each poll,
 * emitting ::changed). Appends happen on the session's main context. */
HlRecording     *hl_live_session_get_recording (HlLiveSession *self);

HlLiveSnapshot  *hl_live_session_snapshot     (HlLiveSession *self);
/* Asks the process for a leak scan now (docs/capture.md, "Leaks on
 * demand"): it runs at the process's next allocation call (the preload
 * has no thread of its own, so an idle program answers when it next
 * allocates), and its outcome is read by the polls that follow
 * (hl_live_session_get_leak_scan's n_scans grows). FALSE with ERROR when
 * the request could not be made (the session ended, not ours). */
gboolean         hl_live_session_request_leak_scan (HlLiveSession *self,
                                                    GError       **error);
/* The last leak scan on demand, as of the last poll. */
void             hl_live_session_get_leak_scan (HlLiveSession  *self,
                                                HlLiveLeakScan *out);
void             hl_live_snapshot_free        (HlLiveSnapshot *snapshot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlLiveSnapshot, hl_live_snapshot_free)

G_END_DECLS
