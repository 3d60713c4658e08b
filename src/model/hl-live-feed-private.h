/* hl-live-feed-private.h — what the files of HlLiveFeed share: its
 * instance struct and the steps one file calls in another.
 *
 *   hl-live-feed.c          the reads: samples, stacks, threads, drops,
 *                           metadata entries, call sites, the end
 *   hl-live-feed-holds.c    who may touch the recording when: holds,
 *                           their fairness, the workers' dispatch, the scan
 *   hl-live-feed-symbols.c  the module map and the symbolization worker
 */
#pragma once

#include "hl-live-feed.h"
#include "hl-live-scan.h"
#include "hl-symbolize-job.h"

G_BEGIN_DECLS

struct _HlLiveFeed
{
  /* Borrowed */
  HlLiveSegment  *segment;
  gpointer        owner;          /* the workers' source object */
  HlLiveFeedEvents events;

  /* Owned: the recording and the live table's feed into it */
  HlRecording    *recording;
  HlLiveScan     *scan;
  guint64         time_ns;        /* the last heartbeat */

  /* What the polls read */
  GArray         *samples;        /* HlLiveSample */
  guint64         next_sample;
  guint64         res_cursor;
  GHashTable     *stacks;         /* stack id -> GArray of guint64 */
  GArray         *callsites;      /* HlLiveCallsite */
  guint64         dropped_fed;
  GArray         *pending_meta;   /* HlShmMetaItem log entries not yet fed (a hold) */
  gboolean        ended_fed;

  /* Holds and fairness */
  gboolean        feeding;        /* appends to the recording are allowed now */
  guint           holds;          /* readers of the recording (analyses) */
  gboolean        was_waiting;    /* the previous poll could not feed */
  gboolean        feed_waiting;   /* this poll could not feed: no new holds until one does */
  gboolean        hold_wanted;    /* a hold was refused: the next poll starts no scan */
  gboolean        scan_skipped;   /* the last feeding poll skipped its scan: this one scans */

  /* Modules and symbols */
  GArray         *modules;        /* HlProcModule, the ones fed */
  guint64         maps_read_ns;
  gboolean        need_maps;
  gboolean        need_symbols;
  gboolean        symbolizing;    /* a worker resolves addresses (the recording is not touched) */
  HlSymbolizeJob *symbols_ready;  /* resolved, to store at the next poll that may append */
};

/* hl-live-feed.c */
void hl_live_feed_warn              (HlLiveFeed          *feed,
                                     const char          *message);
void hl_live_feed_append_meta       (HlLiveFeed          *feed,
                                     const HlShmMetaItem *entry);
/* hl-live-feed-holds.c: after a feeding poll's commit, the symbols found
 * and the next workers, in turn with the readers refused a hold. */
void hl_live_feed_dispatch_workers  (HlLiveFeed          *feed);
/* hl-live-feed-symbols.c */
void hl_live_feed_read_maps         (HlLiveFeed          *feed);
void hl_live_feed_store_symbols     (HlLiveFeed          *feed);
void hl_live_feed_start_symbolize   (HlLiveFeed          *feed);

G_END_DECLS
