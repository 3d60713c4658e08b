/* hl-session-salvage.h — what a launcher (`heaplens-cli record`, the
 * application's Record dialog) saves of a program that died without
 * ending its trace (SIGKILL, the OOM killer): the packets its threads were
 * still building, left in the session's packets region
 * (docs/shm-layout.md), are appended to the plain trace, and the death is
 * written down (docs/capture.md, "What is kept under each way of dying").
 * Plain files and the session segment, no main loop: any thread. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint64  events;       /* events appended from the session */
  guint64  packets;      /* packets appended */
  guint64  lost;         /* at most this many calls counted by the session
                          * are in no packet (threads killed inside the
                          * preload) */
  gboolean lost_known;   /* lost could be counted */
} HlSessionSalvage;

/* Appends to the plain trace TRACE the whole events that the process of
 * the session NAME (under /dev/shm, no leading '/') left in its packet
 * slots, once each: a packet that was being written is appended only when
 * the trace does not hold it already, and a packet cut at the trace's end
 * by the death is cut off first. N_CALLS: the allocations and frees the
 * session counted (for OUT->lost). FALSE with ERROR (HL_MODEL_ERROR_IO)
 * when nothing could be done. */
gboolean hl_session_salvage            (const char       *name,
                                        const char       *trace,
                                        guint64           n_calls,
                                        HlSessionSalvage *out,
                                        GError          **error);

/* Appends the record of the death of PID to TRACE: an INFO packet whose
 * keys `report` and the application read: ended_by_signal (when SIG > 0),
 * and, when SALVAGE (the process wrote no END), salvaged_events and
 * lost_events (a bound, or "unknown"), after an END event with status
 * 128 + SIG (when SIG > 0). SIG < 0: nobody saw the death (ended_unseen,
 * no END). START_MONO_NS: the trace's time base;
 * DIED_MONO_NS: when the death was seen (CLOCK_MONOTONIC). */
gboolean hl_session_salvage_note_death (const char             *trace,
                                        guint32                 pid,
                                        guint64                 start_mono_ns,
                                        guint64                 died_mono_ns,
                                        int                     sig,
                                        const HlSessionSalvage *salvage);

/* The whole of what a launcher does after the death of the process of the
 * session NAME, whose wait status was WAIT_STATUS, seen at DIED_MONO_NS:
 * a session that ended (END written: exit, or a fatal signal the preload
 * caught) gets the signal noted when it was one; one that did not, and
 * whose trace was not cut by a full disk, gets its packets salvaged, the
 * death noted, and the trace index appended (docs/trace-format.md §7).
 * *SALVAGED (may be NULL): TRUE when packets were salvaged, OUT then says
 * what (may be NULL). Before the trace is loaded, and before the session
 * is removed. FALSE with ERROR when the session or trace cannot be read. */
gboolean hl_session_salvage_after_death (const char       *name,
                                         int               wait_status,
                                         guint64           died_mono_ns,
                                         gboolean         *salvaged,
                                         HlSessionSalvage *out,
                                         GError          **error);

/* What hl_session_salvage_unseen did. */
typedef enum
{
  HL_SESSION_SALVAGE_NOTHING,  /* nothing to add: END written, the image
                                * replaced by exec, the trace cut by a full
                                * disk or compressed, or salvaged before */
  HL_SESSION_SALVAGE_DONE,     /* its packets salvaged and the death noted now */
  HL_SESSION_SALVAGE_BUSY,     /* another process holds the trace's lock (it
                                * salvages it now): nothing done */
} HlSessionSalvageOutcome;

/* What `sessions --prune`, record's prune of dead sessions and every
 * reader of a plain trace (hl_session_salvage_for_trace) do with the
 * session NAME of a process that ended without END and whose launcher,
 * if it had one, is gone too (a bare LD_PRELOAD killed by SIGKILL or the
 * OOM killer; hl_session_salvage_is_left): nobody saw how it ended, so
 * its packets are salvaged into its plain trace, the death is noted with
 * the INFO key ended_unseen (no END: the exit status is unknown) and the
 * salvaged and lost counts, and the index appended. Nothing when it wrote
 * END, was replaced by exec or cut by a full disk, when its trace is
 * compressed, or when the trace notes this pid's death already (an
 * earlier salvage: the segment stays until it is pruned, and a second
 * call adds nothing). One caller at a time (a lock on the trace; the one
 * that finds it held is told BUSY). The session is left in /dev/shm.
 * *OUTCOME says what was done (OUT what was salvaged, when DONE). FALSE
 * with ERROR when the session or the trace cannot be read or written. */
gboolean hl_session_salvage_unseen     (const char              *name,
                                        HlSessionSalvageOutcome *outcome,
                                        HlSessionSalvage        *out,
                                        GError                 **error);

/* Writes LEN bytes of BUF to FD whole (EINTR retried); FALSE on an error
 * or a short write that made no progress. */
gboolean hl_session_append_all         (int           fd,
                                        const guint8 *buf,
                                        gsize         len);

G_END_DECLS
