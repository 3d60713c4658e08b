/* hl-live-feed.h — a live session's feed into its recording
 * (model-internal): it owns the HlRecording and everything that appends
 * to it, and what the session serves from the same reads (the counter
 * samples, the call-site table with its frames, the call sites' costs).
 *
 * A poll of the session calls, inside its SIGBUS guard and in this order:
 *
 *   hl_live_feed_begin (feed);                 // may it append now?
 *   hl_live_feed_read_samples (feed, n, dropped);
 *   hl_live_feed_read_resources (feed, dropped);
 *   ...hl_live_feed_meta_entry () for each metadata log entry...
 *   hl_live_feed_read_callsites (feed);
 *   hl_live_feed_end (feed, state, exit_status);
 *
 * Holds: hl_live_feed_hold() keeps the recording still for an analysis
 * built on a worker; appends wait for the polls after the last release
 * (metadata log entries are queued, samples and stacks are read later).
 * A poll that could not feed refuses new holds until one has fed, and a
 * hold refused because a scan was in flight goes before the next scan, so
 * neither the feeding nor the readers starve.
 *
 * Workers, one of each at a time: the live table's scan (hl-live-scan.h)
 * and the symbolization of new addresses (hl-symbolize-job.h); both are
 * started by hl_live_feed_end() (a symbolization also when a scan lands),
 * never while a hold is on, and their results are applied on the main
 * context. Their tasks have OWNER as the
 * source object, so the owner (which owns the feed and the segment)
 * outlives them.
 *
 * Threads: everything here on the owner's main context.
 */
#pragma once

#include <gio/gio.h>

#include "hl-live-segment.h"
#include "hl-live-types.h"
#include "hl-recording.h"

G_BEGIN_DECLS

typedef struct _HlLiveFeed HlLiveFeed;

/* What the feed tells its owner, on the main context. */
typedef struct
{
  /* a read or a worker failed: MESSAGE says why (the feed goes on) */
  void (*warn)    (gpointer    owner,
                   const char *message);
  /* a worker's result reached the recording (outside any poll) */
  void (*updated) (gpointer    owner);
} HlLiveFeedEvents;

/* SEGMENT is borrowed; OWNER, a GObject that owns SEGMENT and the feed,
 * is the source object of the workers' tasks. */
HlLiveFeed     *hl_live_feed_new            (HlLiveSegment          *segment,
                                             gpointer                owner,
                                             const HlLiveFeedEvents *events);
void            hl_live_feed_free           (HlLiveFeed             *feed);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlLiveFeed, hl_live_feed_free)

/* The time that dates new threads, drops and frees: the last heartbeat. */
void            hl_live_feed_set_time       (HlLiveFeed   *feed,
                                             guint64       time_ns);

/* -- a poll's steps, inside its SIGBUS guard ------------------------------ */

/* Appends are allowed in this poll unless a hold is on (the metadata
 * entries a hold deferred go in now). */
void            hl_live_feed_begin          (HlLiveFeed   *feed);
/* The counter samples up to N_SAMPLES (the ring's total count); DROPPED
 * is the dropped events so far. TRUE when it read new ones. */
gboolean        hl_live_feed_read_samples   (HlLiveFeed   *feed,
                                             guint64       n_samples,
                                             guint64       dropped);
/* New stacks and threads, the module map when an address is outside it,
 * and the drops since the last poll. TRUE when new resources were read. */
gboolean        hl_live_feed_read_resources (HlLiveFeed   *feed,
                                             guint64       dropped);
/* An HlShmMetaFunc (USER_DATA: the feed): a metadata log entry into the
 * recording, now or after the hold. */
void            hl_live_feed_meta_entry     (void                *user_data,
                                             const HlShmMetaItem *entry);
/* The call-site table, sorted by live bytes (read in every poll, held or
 * not: it does not touch the recording). */
void            hl_live_feed_read_callsites (HlLiveFeed   *feed);
/* The program's end (STATE ENDED, with EXIT_STATUS) into the recording,
 * the commit, the symbols found, and the next workers. TRUE when appends
 * that waited for a hold went in (refused readers may try again). */
gboolean        hl_live_feed_end            (HlLiveFeed   *feed,
                                             HlLiveState   state,
                                             int           exit_status);

/* -- holds (hl_live_session_hold) ----------------------------------------- */

/* FALSE, without holding, while a poll waits to feed or a scan is in
 * flight (try again later). Counted. */
gboolean        hl_live_feed_hold           (HlLiveFeed   *feed);
void            hl_live_feed_release        (HlLiveFeed   *feed);
gboolean        hl_live_feed_is_held        (HlLiveFeed   *feed);
/* The last poll could not feed because of a hold. */
gboolean        hl_live_feed_is_waiting     (HlLiveFeed   *feed);

/* -- what it serves -------------------------------------------------------- */

/* Borrowed; grows at each poll that feeds. */
HlRecording    *hl_live_feed_get_recording  (HlLiveFeed   *feed);
/* A worker scans the live table or symbolizes. */
gboolean        hl_live_feed_is_busy        (HlLiveFeed   *feed);
gboolean        hl_live_feed_is_symbolizing (HlLiveFeed   *feed);
/* Borrowed, valid until the next poll. */
const HlLiveSample   *hl_live_feed_get_samples   (HlLiveFeed *feed,
                                                  guint      *n_samples);
const HlLiveCallsite *hl_live_feed_get_callsites (HlLiveFeed *feed,
                                                  guint      *n_callsites);
/* Copies of the samples and call sites (frames included) into SNAPSHOT. */
void            hl_live_feed_snapshot       (HlLiveFeed     *feed,
                                             HlLiveSnapshot *snapshot);
/* The call-site table per stack of the recording, see
 * hl_live_session_get_stack_costs. New array (g_free). */
HlCosts        *hl_live_feed_get_stack_costs (HlLiveFeed  *feed,
                                              guint       *n_stacks);

G_END_DECLS
