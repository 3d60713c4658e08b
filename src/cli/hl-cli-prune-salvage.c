/* hl-cli-prune-salvage.c — dead sessions salvaged before they are pruned
 * (hl-cli-prune-salvage.h). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <stdio.h>

#include "hl-cli-prune-salvage.h"
#include "hl-cli-session-file.h"
#include "hl-model.h"

/* A session that died without END and that nobody else will salvage: a
 * launcher that kept it and still runs does it itself. */
static gboolean
left_unsalvaged (const HlLiveSessionInfo *s)
{
  if (!s->readable || s->not_segment || s->alive || s->trace_path == NULL || s->trace_path[0] == '\0')
    return FALSE;
  if (s->state == HL_LIVE_STATE_ENDED || s->state == HL_LIVE_STATE_RESTARTED || s->state == HL_LIVE_STATE_VANISHED)
    return FALSE;
  guint32 launcher = hl_live_session_info_get_launcher (s);
  return !(s->kept && launcher > 1 && hl_cli_pid_alive (launcher));
}

void
hl_cli_prune_salvage (GPtrArray *list,
                      FILE      *out)
{
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const HlLiveSessionInfo *s = g_ptr_array_index (list, i);
      g_autoptr (GError) error = NULL;
      HlSessionSalvage salvage;
      gboolean salvaged = FALSE;

      if (!left_unsalvaged (s))
        continue;
      if (!hl_session_salvage_unseen (s->name, &salvaged, &salvage, &error))
        fprintf (out, _("%s: pid %u died without ending its trace, which could not be salvaged: %s\n"), s->name,
                 (unsigned) s->pid, error->message);
      else if (salvaged && salvage.lost_known)
        fprintf (out, _("salvaged %" PRIu64 " events of pid %u, which died without ending its trace, "
                        "into %s (%" PRIu64 " lost)\n"),
                 salvage.events, (unsigned) s->pid, s->trace_path, salvage.lost);
      else if (salvaged)
        fprintf (out, _("salvaged %" PRIu64 " events of pid %u, which died without ending its trace, "
                        "into %s (lost unknown)\n"),
                 salvage.events, (unsigned) s->pid, s->trace_path);
    }
}
