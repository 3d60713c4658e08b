/* hl-window-leak-scan.c — live mode's Scan for Leaks: asks the running
 * program for a leak scan on demand (docs/capture.md, "Leaks on demand")
 * and, when a poll reads its outcome, says what it found in a toast; the
 * summary's Leaked card shows it too (hl-adapter-summary.c). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "hl-units.h"
#include "hl-window-leak-scan.h"
#include "hl-window-private.h"

static void
set_asked (HlWindow *self,
           gboolean  asked)
{
  self->live_scan_asked = asked;
  gtk_widget_set_sensitive (GTK_WIDGET (self->live_scan_button), !asked);
  gtk_button_set_label (self->live_scan_button, asked ? _("Scanning…") : _("Scan for _Leaks"));
}

void
hl_window_live_scan_leaks (HlWindow *self)
{
  HlLiveSession *session;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (HL_IS_WINDOW (self));
  session = hl_window_live_session (self);
  if (session == NULL || self->live_scan_asked)
    return;
  if (!hl_live_session_request_leak_scan (session, &error))
    {
      hl_window_show_toast (self, error->message);
      return;
    }
  set_asked (self, TRUE);
}

char *
hl_window_leak_scan_sentence (const HlLiveLeakScan *l)
{
  switch (l->status)
    {
    case HL_LIVE_LEAK_SCAN_DONE:
      {
        g_autofree char *at = hl_format_time (l->time_ns);
        g_autofree char *lost = hl_format_size (l->bytes[HL_REACHABILITY_DEFINITELY_LOST]);
        g_autofree char *indirect = hl_format_size (l->bytes[HL_REACHABILITY_INDIRECTLY_LOST]);
        g_autofree char *possibly = hl_format_size (l->bytes[HL_REACHABILITY_POSSIBLY_LOST]);
        g_autofree char *still = hl_format_size (l->bytes[HL_REACHABILITY_STILL_REACHABLE]);

        /* Translators: the toast after Scan for Leaks, Valgrind memcheck's kinds */
        return g_strdup_printf (_("Leak scan at %s: definitely lost %s in %" PRIu64 " blocks, indirectly "
                                  "lost %s, possibly lost %s, still reachable %s"),
                                at, lost, (uint64_t) l->blocks[HL_REACHABILITY_DEFINITELY_LOST], indirect, possibly, still);
      }
    case HL_LIVE_LEAK_SCAN_OFF:
      return g_strdup (_("No leak scan: it is turned off for this program (HEAPLENS_LEAK_SCAN=0)"));
    case HL_LIVE_LEAK_SCAN_SAMPLED:
      return g_strdup (_("No leak scan: a sampled recording knows only its sampled blocks"));
    case HL_LIVE_LEAK_SCAN_ATTACHED:
      return g_strdup (_("No leak scan: blocks allocated before the attach are unknown"));
    case HL_LIVE_LEAK_SCAN_UNREADABLE:
      return g_strdup (_("No leak scan: the program may not read its own memory (process_vm_readv refused)"));
    default:
      return g_strdup (_("No leak scan: the program could not run it"));
    }
}

void
hl_window_live_leak_scan_update (HlWindow *self)
{
  HlLiveSession *session = hl_window_live_session (self);
  HlLiveLeakScan l;

  if (session == NULL)
    return;
  hl_live_session_get_leak_scan (session, &l);
  if (l.n_scans == self->live_scans_seen)
    {
      /* the program ended before it scanned: its exit's scan is in the trace */
      if (self->live_scan_asked && hl_live_session_get_state (session) != HL_LIVE_STATE_RUNNING)
        {
          set_asked (self, FALSE);
          hl_window_show_toast (self, _("The program ended before it scanned: its leaks at exit are in its trace"));
        }
      return;
    }
  self->live_scans_seen = l.n_scans;
  if (self->live_scan_asked)
    {
      g_autofree char *sentence = hl_window_leak_scan_sentence (&l);

      set_asked (self, FALSE);
      hl_window_show_toast (self, sentence);
    }
  self->summary_stale = TRUE;
}

void
hl_window_live_leak_scan_reset (HlWindow *self,
                                gboolean  visible)
{
  HlLiveSession *session = hl_window_live_session (self);
  HlLiveLeakScan l = { 0 };

  if (session != NULL)
    hl_live_session_get_leak_scan (session, &l);
  self->live_scans_seen = l.n_scans;
  set_asked (self, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->live_scan_button), visible);
}
