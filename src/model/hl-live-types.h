/* hl-live-types.h — what a live session's parts share and tell: its
 * state, the samples, call sites, metadata intervals and totals it reads
 * from the segment, a snapshot of them, and its error domain. The parts
 * (hl-live-segment, -discovery, -metadata, -feed, -scan) include this, not
 * hl-live-session.h, so that the session depends on its parts and never
 * the other way round. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  HL_LIVE_STATE_STARTING,
  HL_LIVE_STATE_RUNNING,
  HL_LIVE_STATE_ENDED,      /* exit-status is valid */
  HL_LIVE_STATE_STALE,      /* process gone, or no heartbeat for 5 s */
  HL_LIVE_STATE_VANISHED,   /* the segment's name was removed */
  HL_LIVE_STATE_RESTARTED,  /* ended by exec; "next-session" names the new one */
} HlLiveState;

GType        hl_live_state_get_type (void) G_GNUC_CONST;
#define HL_TYPE_LIVE_STATE (hl_live_state_get_type ())
/* "running", "ended", ... (untranslated, for logs and tests) */
const char  *hl_live_state_to_string (HlLiveState state);

typedef struct
{
  guint64 time_ns;         /* since the process started */
  guint64 heap_bytes;
  guint64 rss_bytes;
  guint64 n_allocs;        /* total so far */
  double  rate;            /* allocations per second since the previous sample */
  guint64 dropped;         /* dropped events so far (as of the poll that read the sample) */
} HlLiveSample;

typedef struct
{
  guint32        stack_id;
  guint64        calls;
  guint64        bytes;
  guint64        live_bytes;
  guint64        live_count;
  const guint64 *frames;   /* return addresses, innermost first; owned by the session */
  guint          n_frames;
} HlLiveCallsite;

typedef struct
{
  char    *key;
  char    *value;          /* integers as decimal text */
  guint64  start_ns;
  guint64  end_ns;         /* G_MAXUINT64 while still set */
} HlLiveMetaInterval;

typedef struct
{
  guint64 n_allocs, n_frees, bytes_allocated, bytes_freed;
  guint64 heap_bytes, peak_heap_bytes, peak_heap_time_ns;
  guint64 rss_bytes, peak_rss_bytes;
  guint64 dropped;
  guint64 n_stacks, n_threads;
  guint64 stacks_dropped;   /* stacks not interned: the resources table was full */
  guint64 live_dropped;     /* allocations the live table could not hold (in dropped too) */
} HlLiveTotals;

/* How the last leak scan on demand went (HL_SHM_LEAK_SCAN_*). */
typedef enum
{
  HL_LIVE_LEAK_SCAN_NONE       = 0, /* none yet */
  HL_LIVE_LEAK_SCAN_DONE       = 1,
  HL_LIVE_LEAK_SCAN_OFF        = 2, /* HEAPLENS_LEAK_SCAN=0 */
  HL_LIVE_LEAK_SCAN_SAMPLED    = 3, /* sampling mode */
  HL_LIVE_LEAK_SCAN_ATTACHED   = 4, /* attached */
  HL_LIVE_LEAK_SCAN_UNREADABLE = 5, /* process_vm_readv refused */
  HL_LIVE_LEAK_SCAN_NO_MEMORY  = 6,
  HL_LIVE_LEAK_SCAN_NO_TRACE   = 7,
} HlLiveLeakScanStatus;

/* The last leak scan on demand of a live session: blocks and bytes per
 * kind (by HlReachabilityKind), when it ran (ns since the process
 * started) and how long it took. */
typedef struct
{
  guint                n_scans;     /* scans published so far (0: none) */
  HlLiveLeakScanStatus status;
  gboolean             complete;    /* no live-table drops, every byte read */
  int                  read_errno;  /* UNREADABLE: process_vm_readv's */
  guint64              time_ns;
  guint64              scan_ns;
  guint64              blocks[4];
  guint64              bytes[4];
} HlLiveLeakScan;

/* A frozen copy of a session's state (hl_live_session_snapshot). */
typedef struct
{
  HlLiveState  state;
  int          exit_status;
  guint64      time_ns;        /* last heartbeat */
  HlLiveTotals totals;
  GArray      *samples;        /* HlLiveSample */
  GArray      *callsites;      /* HlLiveCallsite; frames owned by the snapshot */
  GPtrArray   *metadata;       /* HlLiveMetaInterval*, current values (end_ns = G_MAXUINT64) */
  GPtrArray   *history;        /* HlLiveMetaInterval*, all intervals seen */
} HlLiveSnapshot;

#define HL_LIVE_ERROR (hl_live_error_quark ())
GQuark hl_live_error_quark (void);
typedef enum
{
  HL_LIVE_ERROR_NOT_FOUND,  /* no session for that pid / name */
  HL_LIVE_ERROR_REFUSED,    /* the reader refused it: reason in the message */
} HlLiveError;

G_END_DECLS
