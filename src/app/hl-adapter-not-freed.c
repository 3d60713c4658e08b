/* hl-adapter-not-freed.c — the names of what an analysis did not free. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-not-freed.h"
#include "hl-units.h"

static void
set_titles (HlNotFreedTitles *out,
            char             *card,
            char             *most,
            char             *tab,
            char             *column,
            char             *none)
{
  out->card = card;
  out->most = most;
  out->tab = tab;
  out->column = column;
  out->none = none;
}

/* TRUE when the analysis's time range ends (at *END) before DURATION_NS. */
static gboolean
range_ends_early (HlAnalysis *analysis,
                  guint64     duration_ns,
                  guint64    *end)
{
  const HlFilter *filter = hl_analysis_get_filter (analysis);
  guint64 start;

  if (!hl_filter_has_time_range (filter))
    return FALSE;
  hl_filter_get_time_range (filter, &start, end);
  return *end < duration_ns;
}

/* The time info KEY of RECORDING says, in ns. */
static gboolean
info_time (HlRecording *recording,
           const char  *key,
           guint64     *t_ns)
{
  const char *text = hl_recording_get_info (recording, key);

  return text != NULL && g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64 - 1, t_ns, NULL);
}

gboolean
hl_adapter_recording_stops_early (HlRecording *recording,
                                  guint64     *t_ns)
{
  return info_time (recording, "trace_cut_ns", t_ns) || info_time (recording, "detached_ns", t_ns)
         || info_time (recording, "replaced_by_exec_ns", t_ns);
}

void
hl_adapter_not_freed_titles (HlAnalysis        *analysis,
                             guint64            duration_ns,
                             const HlLiveState *live_state,
                             HlNotFreedTitles  *out)
{
  guint64 t1;

  if (live_state != NULL && (*live_state == HL_LIVE_STATE_RUNNING || *live_state == HL_LIVE_STATE_STARTING))
    /* a program still running has not leaked anything yet */
    set_titles (out, g_strdup (_("Not Freed Yet")), g_strdup (_("Most Not Freed Yet")),
                g_strdup (_("Not Freed Yet")), g_strdup (_("Not Freed")), g_strdup (_("Nothing Held")));
  else if (live_state != NULL && *live_state != HL_LIVE_STATE_ENDED)
    /* it vanished: nobody knows what it freed at its end */
    set_titles (out, g_strdup (_("Not Freed")), g_strdup (_("Most Not Freed")),
                g_strdup (_("Not Freed")), g_strdup (_("Not Freed")), g_strdup (_("Nothing Held")));
  else if (range_ends_early (analysis, duration_ns, &t1)
           || (live_state == NULL && hl_adapter_recording_stops_early (hl_analysis_get_recording (analysis), &t1)))
    {
      /* a range that ends before the recording, or a trace cut by a full
       * disk, a detach, an exec: what was not freed by then, not what
       * leaked (issue 26 points 7 and 12) */
      g_autofree char *end = hl_format_time (t1);
      /* Translators: a summary card's and a tab's title, e.g. "Not Freed by 4.6 s" */
      char *by = g_strdup_printf (_("Not Freed by %s"), end);

      set_titles (out, by,
                  /* Translators: the title of a list of call sites, e.g. "Most Not Freed by 4.6 s" */
                  g_strdup_printf (_("Most Not Freed by %s"), end),
                  g_strdup (by), g_strdup (_("Not Freed")),
                  /* Translators: e.g. "Everything Freed by 4.6 s" */
                  g_strdup_printf (_("Everything Freed by %s"), end));
    }
  else if (hl_recording_get_end (hl_analysis_get_recording (analysis)) == HL_RECORDING_END_DIED)
    /* killed (SIGKILL, the OOM killer): what it held was in use then */
    set_titles (out, g_strdup (_("Not Freed When It Died")), g_strdup (_("Most Not Freed When It Died")),
                g_strdup (_("Not Freed When It Died")), g_strdup (_("Not Freed")), g_strdup (_("Nothing Held")));
  else if (hl_recording_get_end (hl_analysis_get_recording (analysis)) == HL_RECORDING_END_UNRECORDED)
    /* no exit in the trace: killed and not salvaged, or still running */
    set_titles (out, g_strdup (_("Not Freed at the End")), g_strdup (_("Most Not Freed at the End")),
                g_strdup (_("Not Freed at the End")), g_strdup (_("Not Freed")), g_strdup (_("Nothing Held")));
  else
    set_titles (out, g_strdup (_("Leaked")), NULL, g_strdup (_("Leaks")), g_strdup (_("Leaked")),
                g_strdup (_("No Leaks")));
}

void
hl_not_freed_titles_clear (HlNotFreedTitles *titles)
{
  g_clear_pointer (&titles->card, g_free);
  g_clear_pointer (&titles->most, g_free);
  g_clear_pointer (&titles->tab, g_free);
  g_clear_pointer (&titles->column, g_free);
  g_clear_pointer (&titles->none, g_free);
}
