/* hl-cli-prune-salvage.c — dead sessions salvaged before they are pruned
 * (hl-cli-prune-salvage.h). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <stdio.h>

#include "hl-cli-prune-salvage.h"

void
hl_cli_prune_salvage_print (FILE                    *out,
                            const char              *name,
                            guint32                  pid,
                            const char              *trace,
                            HlSessionSalvageOutcome  outcome,
                            const HlSessionSalvage  *salvage,
                            const GError            *error)
{
  if (error != NULL)
    fprintf (out, _("%s: pid %u died without ending its trace, which could not be salvaged: %s\n"), name,
             (unsigned) pid, error->message);
  else if (outcome == HL_SESSION_SALVAGE_BUSY)
    fprintf (out, _("%s: pid %u died without ending its trace, which another process is salvaging now: "
                    "%s is read without what it adds\n"),
             name, (unsigned) pid, trace);
  else if (outcome == HL_SESSION_SALVAGE_DONE && salvage->lost_known)
    fprintf (out, _("salvaged %" PRIu64 " events of pid %u, which died without ending its trace, "
                    "into %s (%" PRIu64 " lost)\n"),
             salvage->events, (unsigned) pid, trace, salvage->lost);
  else if (outcome == HL_SESSION_SALVAGE_DONE)
    fprintf (out, _("salvaged %" PRIu64 " events of pid %u, which died without ending its trace, "
                    "into %s (lost unknown)\n"),
             salvage->events, (unsigned) pid, trace);
}

void
hl_cli_prune_salvage (GPtrArray *list,
                      FILE      *out)
{
  for (guint i = 0; list != NULL && i < list->len;)
    {
      const HlLiveSessionInfo *s = g_ptr_array_index (list, i);
      g_autoptr (GError) error = NULL;
      HlSessionSalvage salvage;
      HlSessionSalvageOutcome outcome = HL_SESSION_SALVAGE_NOTHING;

      if (!hl_session_salvage_is_left (s))
        {
          i++;
          continue;
        }
      if (!hl_session_salvage_unseen (s->name, &outcome, &salvage, &error))
        outcome = HL_SESSION_SALVAGE_NOTHING;
      if (outcome != HL_SESSION_SALVAGE_BUSY)
        {
          hl_cli_prune_salvage_print (out, s->name, s->pid, s->trace_path, outcome, &salvage, error);
          i++;
          continue;
        }
      fprintf (out, _("%s: pid %u died without ending its trace, which another process is salvaging now: "
                      "kept until the next prune\n"),
               s->name, (unsigned) s->pid);
      /* removed now, its segment would be gone from under the salvager
       * (a reader of the trace, another prune) */
      g_ptr_array_remove_index (list, i);
    }
}
