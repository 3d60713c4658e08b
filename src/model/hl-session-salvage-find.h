/* hl-session-salvage-find.h — the session a reader's trace was left by,
 * salvaged before the trace is read: a program run with a bare
 * LD_PRELOAD and killed by SIGKILL (or the OOM killer) leaves its
 * segment in /dev/shm holding the packets its threads were still
 * building (an idle thread's last packet lives only there); until
 * `sessions --prune` salvages them, every reader of the trace (report,
 * timeline, flamegraph, export, diff, dump, the application) salvages
 * them first (issue 26 point 1). Plain files and the session segments,
 * no main loop: any thread. */
#pragma once

#include <glib.h>

#include "hl-live-discovery.h"
#include "hl-session-salvage.h"

G_BEGIN_DECLS

/* Whether INFO is the session of a process that died without END and
 * that nobody else will salvage: readable, its process gone (or a
 * zombie), a trace
 * named, neither ended, replaced by exec nor removed; and its launcher,
 * when it kept the session or was named (HEAPLENS_LAUNCHER: `record`,
 * the application, `attach`, which salvage their family after a death
 * themselves), gone too (a zombie is gone). The one definition of what
 * `sessions --prune`, record's prune and the readers salvage. */
gboolean   hl_session_salvage_is_left      (const HlLiveSessionInfo *info);

/* One session salvaged (or tried) for a reader. */
typedef struct
{
  char                    *name;      /* the session, "heaplens-1000-4242-ab12cd" */
  guint32                  pid;
  char                    *trace;     /* the session's trace path (the file read, by device and inode) */
  HlSessionSalvageOutcome  outcome;   /* DONE or BUSY; NOTHING with ERROR set */
  HlSessionSalvage         salvage;   /* what was salvaged, when DONE */
  GError                  *error;     /* why it could not be salvaged; NULL otherwise */
} HlSessionSalvageFound;

void       hl_session_salvage_found_free   (HlSessionSalvageFound *found);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlSessionSalvageFound, hl_session_salvage_found_free)

/* Before PATH (a file) is read: each session of this user whose trace is
 * PATH (the same device and inode, not the same name) and that
 * hl_session_salvage_is_left, salvaged into it
 * (hl_session_salvage_unseen); the segment is left for `sessions
 * --prune`, and a second call finds nothing more to do. A GPtrArray of
 * HlSessionSalvageFound, one per session salvaged, found locked by
 * another salvager (BUSY: skipped) or that failed (ERROR); empty when
 * there is none, or PATH is not a plain trace (compressed, a missing
 * file, /dev/shm unreadable). Never NULL. */
GPtrArray *hl_session_salvage_for_trace    (const char              *path);

G_END_DECLS
