/* hl-live-discovery.h — the live sessions there are: the one way the
 * application and heaplens-cli find the shared-memory segments of
 * profiled processes (/dev/shm/heaplens-UID-PID-NONCE), and what each
 * says about its process.
 *
 * Every segment is opened through the format's validating reader, under
 * the SIGBUS guard (hl-shm-guard.h): a segment its owner shrinks while
 * it is read is reported as refused, never a crash. Only the caller's
 * own sessions can be read (the reader checks the owner); another
 * user's are listed, when asked for, as refused with the reason, so that
 * a caller can say why it does not attach to them.
 *
 * Plain data, no main loop: callable from any thread (heaplens-cli
 * record's compress thread and the recorder's clock thread list every
 * few milliseconds; see docs/live.md).
 */
#pragma once

#include <glib-object.h>

#include "hl-live-types.h"

G_BEGIN_DECLS

typedef enum
{
  HL_LIVE_LIST_OWN        = 0,       /* the caller's sessions, each read */
  HL_LIVE_LIST_ALL_USERS  = 1 << 0,  /* other users' too, refused with the reason */
  HL_LIVE_LIST_NAMES_ONLY = 1 << 1,  /* not opened: name, uid, pid, same_user only */
} HlLiveListFlags;

/* One segment and what it said when it was read. Fields are read-only. */
typedef struct
{
  char        *name;           /* "heaplens-1000-4242-ab12cd" */
  guint32      uid;            /* from the name */
  guint32      pid;            /* from the name; once readable, the segment's own */
  gboolean     same_user;      /* uid is the caller's */
  gboolean     readable;       /* opened and read: the fields below are valid */
  /* Why it cannot be read (another user's, invalid, being created, shrank
   * while read); NULL when readable or not opened (NAMES_ONLY). */
  char        *refusal;
  gboolean     being_created;  /* not ready yet (refusal says so): not refused for good */
  /* Not a regular file of the caller's (a FIFO, a symlink, another
   * user's file named like one of ours): never opened for reading, never
   * removed. /dev/shm is world-writable. */
  gboolean     not_segment;

  /* From the segment (readable only) */
  guint32      ppid;
  guint32      launcher_pid;   /* HEAPLENS_LAUNCHER of its family; 0: none named (or an older preload) */
  char        *exe;
  char        *cmdline;        /* arguments joined by spaces */
  char        *trace_path;     /* "" when none (yet: it comes with RUNNING) */
  guint64      start_wall_ns;  /* CLOCK_REALTIME */
  guint64      start_mono_ns;  /* CLOCK_MONOTONIC */
  HlLiveState  state;          /* as the segment says: STARTING, RUNNING, ENDED, RESTARTED (ended by exec) */
  gboolean     alive;          /* a process with its pid exists */
  gboolean     kept;           /* HL_SHM_FLAG_KEPT: its launcher removes it after the end */
  gboolean     unfollowed;     /* HL_SHM_FLAG_UNFOLLOWED */
  gboolean     shm_full;       /* HL_SHM_FLAG_SHM_FULL: the live table stopped growing */
  gboolean     attached;       /* HL_SHM_FLAG_ATTACHED: made by an attach (heaplens__attach) */
  int          exit_status;    /* once ended */
  guint64      ended_ns;       /* since the start, once ended */
  guint64      heartbeat_ns;   /* since the start */
  HlLiveTotals totals;
  guint64      frees_unknown;  /* frees of blocks the live table did not hold */
} HlLiveSessionInfo;

GType               hl_live_session_info_get_type (void) G_GNUC_CONST;
#define HL_TYPE_LIVE_SESSION_INFO (hl_live_session_info_get_type ())
HlLiveSessionInfo  *hl_live_session_info_copy     (const HlLiveSessionInfo *info);
void                hl_live_session_info_free     (HlLiveSessionInfo       *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlLiveSessionInfo, hl_live_session_info_free)

/* The segments in /dev/shm, in directory order: a GPtrArray of
 * HlLiveSessionInfo (freed with it), or NULL with ERROR when /dev/shm
 * cannot be read. */
GPtrArray          *hl_live_session_list          (HlLiveListFlags  flags,
                                                   GError         **error);
/* Reads one segment, NAME as in /dev/shm or a path; never NULL (refusal
 * says why it cannot be read). */
HlLiveSessionInfo  *hl_live_session_info_read     (const char      *name);
/* The launcher that keeps INFO's session: the one it names
 * (HEAPLENS_LAUNCHER, inherited by every process of the family, so a
 * grandchild's too), else its parent when it started (a segment of an
 * older preload); 0 or 1 when none. */
guint32             hl_live_session_info_get_launcher (const HlLiveSessionInfo *info);

/* The segments whose name has PID (any user's; only the caller's are
 * opened): as hl_live_session_list (ALL_USERS), without reading the
 * others. */
GPtrArray          *hl_live_session_list_pid      (guint32          pid,
                                                   GError         **error);
/* PID's session in LIST (borrowed): of the readable ones, the image that
 * did not end by exec'ing another, the newest first; NULL when none. */
HlLiveSessionInfo  *hl_live_session_list_find_pid (GPtrArray       *list,
                                                   guint32          pid);
/* The name of PID's session, or NULL with ERROR (HL_LIVE_ERROR):
 * NOT_FOUND when there is none or it is still being created, REFUSED
 * with the reason (another user's, an invalid segment). */
char               *hl_live_session_find_pid      (guint32          pid,
                                                   GError         **error);

/* ---- Pruning ---------------------------------------------------------- */

typedef enum
{
  HL_LIVE_PRUNE_REMOVED,        /* provably dead: removed */
  HL_LIVE_PRUNE_KEPT_RUNNING,   /* its process runs (a session, or one this reader refuses) */
  HL_LIVE_PRUNE_KEPT_LAUNCHER,  /* ended, left to its launcher (which runs, or ended < 1 min ago) */
  HL_LIVE_PRUNE_LEFT_ALONE,     /* not a session segment of ours (not_segment): not touched */
  HL_LIVE_PRUNE_FAILED,         /* dead, but the unlink failed (message says why) */
} HlLivePruneAction;

/* What hl_live_session_prune did with one entry. */
typedef struct
{
  char              *name;     /* "heaplens-1000-4242-ab12cd" */
  HlLivePruneAction  action;
  /* A line to show: "removed heaplens-1000-4242-ab12cd (pid 4242 ended)",
   * "removed heaplens-1000-4242-ab12cd (pid 4242 and its launcher 4200
   * ended); removed /tmp/x.hltrace.tmp-compress", "heaplens-...: ended,
   * kept for its launcher ...", "heaplens-0-1-0000000000: a FIFO, not a
   * session segment: left alone". */
  char              *message;
} HlLivePruneResult;

void                hl_live_prune_result_free     (HlLivePruneResult *result);

/* Removes from /dev/shm only what is provably dead, and the
 * TRACE.tmp-compress its dead launcher left beside its trace:
 * - a readable session whose process is gone, unless it was kept for its
 *   launcher (HL_SHM_FLAG_KEPT) and that launcher (the ppid in the
 *   header) runs or the end was less than a minute ago;
 * - a regular file of the caller's named like a session that this reader
 *   refuses (another version's layout, a damaged one) whose pid (from the
 *   name) is gone.
 * Never an entry that is not a regular file of the caller's. LIST is
 * what hl_live_session_list (HL_LIVE_LIST_OWN) gave, or NULL to list now.
 * Returns a GPtrArray of HlLivePruneResult, one per entry of the
 * caller's looked at (freed with it), or NULL with ERROR when /dev/shm
 * cannot be read. Called by `heaplens-cli sessions --prune` and, before it
 * starts its program, `heaplens-cli record`. */
GPtrArray          *hl_live_session_prune         (GPtrArray       *list,
                                                   GError         **error);

G_END_DECLS
