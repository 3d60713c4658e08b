/* hl-cli-record-prune.c — the sessions a killed record left, removed by
 * the next one (hl-cli-record-prune.h). */
#include "hl-config.h"

#include <stdio.h>
#include <time.h>

#include "hl-cli-prune-salvage.h"
#include "hl-cli-record-prune.h"
#include "hl-cli-session-file.h"
#include "hl-model.h"

/* A session whose heartbeat is this recent may be one another record is
 * about to salvage (a grandchild killed just before the program ended:
 * its parent is gone, the launcher is not) */
#define RECENT_NS (2 * G_GUINT64_CONSTANT (1000000000))

/* A session a launcher started (a trace, a parent named) whose launcher
 * is gone and that has been silent a while: the only ones record looks
 * at. */
static gboolean
left_by_launcher (const HlLiveSessionInfo *s,
                  guint64                  now_mono_ns)
{
  guint32 launcher = hl_live_session_info_get_launcher (s);
  if (!s->readable || s->not_segment || s->trace_path == NULL || s->trace_path[0] == '\0' || launcher <= 1
      || hl_cli_pid_alive (launcher))
    return FALSE;
  return now_mono_ns > s->start_mono_ns + s->heartbeat_ns + RECENT_NS;
}

void
hl_cli_record_prune (void)
{
  g_autoptr (GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_OWN, NULL);
  if (list == NULL)
    return;
  g_autoptr (GPtrArray) candidates = g_ptr_array_new ();
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  guint64 now = (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
  for (guint i = 0; i < list->len; i++)
    if (left_by_launcher (g_ptr_array_index (list, i), now))
      g_ptr_array_add (candidates, g_ptr_array_index (list, i));
  if (candidates->len == 0)
    return;
  hl_cli_prune_salvage (candidates, stderr);
  g_autoptr (GPtrArray) done = hl_live_session_prune (candidates, NULL);
  for (guint i = 0; done != NULL && i < done->len; i++)
    {
      const HlLivePruneResult *r = g_ptr_array_index (done, i);
      if (r->action == HL_LIVE_PRUNE_REMOVED || r->action == HL_LIVE_PRUNE_FAILED)
        fprintf (stderr, "heaplens: %s\n", r->message);
    }
}
