/* hl-live-status.c — see hl-live-status.h. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-live-status.h"
#include "hl-units.h"

char *
hl_live_status_line (HlLiveSession *session,
                     gboolean       frozen)
{
  if (session == NULL)
    return g_strdup (_("Starting the program…"));
  HlLiveTotals t;
  hl_live_session_get_totals (session, &t);
  guint n;
  const HlLiveSample *samples = hl_live_session_get_samples (session, &n);
  double rate = 0;
  for (guint i = n; i > 0 && i + 10 > n; i--)
    rate = MAX (rate, samples[i - 1].rate);
  g_autofree char *duration = hl_format_duration (hl_live_session_get_totals_time_ns (session));
  g_autofree char *heap = hl_format_size (t.heap_bytes);
  g_autofree char *peak = hl_format_size (t.peak_heap_bytes);
  g_autofree char *rss = hl_format_size (t.rss_bytes);
  g_autofree char *allocs = hl_format_count (t.n_allocs);
  g_autofree char *per_second = hl_format_count ((guint64) (rate + 0.5));
  g_autofree char *dropped = hl_format_count (t.dropped);
  const char *state;
  g_autofree char *state_owned = NULL;
  switch (hl_live_session_get_state (session))
    {
    case HL_LIVE_STATE_STARTING:
      state = _("Starting");
      break;
    case HL_LIVE_STATE_RUNNING:
      state = frozen ? _("Running (views frozen on a snapshot)") : _("Running");
      break;
    case HL_LIVE_STATE_ENDED:
      /* a detach (Stop on an attached process) ends with -1, the process running */
      if (hl_live_session_get_exit_status (session) == -1 && hl_live_session_get_attached (session))
        state = _("Detached: the allocator is put back and the program goes on running");
      else
        state = state_owned = g_strdup_printf (_("Target exited with status %d"),
                                               hl_live_session_get_exit_status (session));
      break;
    case HL_LIVE_STATE_STALE:
    case HL_LIVE_STATE_VANISHED:
      state = _("Target vanished without ending its session (killed?): its data as last read");
      break;
    case HL_LIVE_STATE_RESTARTED:
    default:
      state = _("Target started another program (exec)");
      break;
    }
  /* Translators: the live status line: state · time since the start ·
   * heap · peak · RSS · allocations per second · calls · dropped events
   * (numbers come formatted; all of one reading of the counters) */
  g_autofree char *line = g_strdup_printf (_("%s · %s · heap %s (peak %s) · RSS %s · %s allocations/s · %s calls · %s dropped"),
                                           state, duration, heap, peak, rss, per_second, allocs, dropped);
  if (hl_live_session_get_shm_full (session))
    {
      g_autofree char *untracked = hl_format_count (t.live_dropped);
      g_autofree char *full = g_strdup_printf (_("%s · live table stopped growing: /dev/shm is full (%s allocations "
                                                 "not tracked live; the trace is complete)"), line, untracked);
      g_free (line);
      line = g_steal_pointer (&full);
    }
  if (!hl_live_session_get_unfollowed (session))
    return g_steal_pointer (&line);
  /* the preload started them without itself (hl-capture-exec.c); the
   * trace's marks name them */
  return g_strdup_printf ("%s · %s", line,
                          _("programs it started ran unrecorded (built with a sanitizer, or for another machine)"));
}
