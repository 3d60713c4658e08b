/* hl-window-load.c — opening a file: the window shows its HlDocument's
 * load (progress, the saved costs first, the events, an error) and
 * Cancel. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-units.h"
#include "hl-window-private.h"

void
hl_window_open (HlWindow *self,
                GFile    *file)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  hl_window_open_file (self, file, FALSE);
}

void
hl_window_hold_events (HlWindow *self,
                       gboolean  hold)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  hl_document_hold_events (self->document, hold);
}

/* The strip of the events' progress over the views. A revealer without a
 * transition keeps its child's height when hidden (GTK 4.8 scales only
 * the sliding transitions), so the strip is hidden as well. */
void
hl_window_show_events_strip (HlWindow *self,
                             gboolean  show)
{
  gtk_revealer_set_reveal_child (self->events_revealer, show);
  gtk_widget_set_visible (GTK_WIDGET (self->events_revealer), show);
}

void
hl_window_open_file (HlWindow *self,
                     GFile    *file,
                     gboolean  in_place)
{
  g_autofree char *name = g_file_get_basename (file);

  gtk_window_set_title (GTK_WINDOW (self), name);
  /* where it is saved: a recording's folder says what it was (issue 27,
   * point 7); ~ for the home folder */
  g_autoptr (GFile) folder = g_file_get_parent (file);
  g_autofree char *where = folder != NULL ? g_file_get_path (folder) : NULL;
  const char *home = g_get_home_dir ();
  gsize home_len = home != NULL ? strlen (home) : 0;
  g_autofree char *shown = where != NULL && home_len > 1 && g_str_has_prefix (where, home)
                               && (where[home_len] == '/' || where[home_len] == '\0')
                             ? g_strconcat ("~", where + home_len, NULL)
                             : g_strdup (where);
  adw_view_switcher_title_set_subtitle (self->switcher_title, shown);
  hl_summary_view_set_saved_in (self->summary_view, where, shown);
  adw_status_page_set_description (self->loading_page, name);
  gtk_progress_bar_set_fraction (self->loading_progress, 0);
  gtk_progress_bar_set_text (self->loading_progress, _("Opening…"));

  hl_timing_mark (&self->open_mark);
  self->open_frames = self->frames_painted;
  self->open_paint_cpu_us = self->paint_cpu_us;
  self->opening = TRUE;
  /* In place (a live view becoming its saved trace): the views stay until
   * the trace replaces their recording. */
  if (!in_place)
    hl_window_show_page (self, "loading");
  self->filters_waiting = FALSE;
  self->log_fully_loaded = FALSE;
  hl_window_show_events_strip (self, FALSE);
  gtk_progress_bar_set_fraction (self->events_progress, 0);
  hl_document_open (self->document, file, !in_place);
}

static void
on_progress (HlWindow *self,
             guint64   bytes_done,
             guint64   bytes_total,
             guint64   events_done)
{
  g_autofree char *done = hl_format_size (bytes_done);
  g_autofree char *total = hl_format_size (bytes_total);
  g_autofree char *events = hl_format_count (events_done);
  g_autofree char *text = NULL;

  if (bytes_total > 0)
    {
      gtk_progress_bar_set_fraction (self->loading_progress, MIN ((double) bytes_done / (double) bytes_total, 1.0));
      gtk_progress_bar_set_fraction (self->events_progress, MIN ((double) bytes_done / (double) bytes_total, 1.0));
    }
  else
    gtk_progress_bar_pulse (self->loading_progress);
  /* Translators: loading progress, e.g. "12.0 MiB of 40.0 MiB · 1,234,567 events" */
  text = g_strdup_printf (_("%s of %s · %s events"), done, total, events);
  gtk_progress_bar_set_text (self->loading_progress, text);
  gtk_progress_bar_set_text (self->events_progress, text);
}

static void
on_failed (HlWindow     *self,
           const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Cancelled by the user: back to an empty window. */
      gtk_window_set_title (GTK_WINDOW (self), _("Heaplens"));
      adw_view_switcher_title_set_subtitle (self->switcher_title, NULL);
      hl_summary_view_set_saved_in (self->summary_view, NULL, NULL);
      hl_window_show_page (self, "start");
      return;
    }
  hl_window_show_events_strip (self, FALSE);
  adw_status_page_set_description (self->error_page, error->message);
  hl_window_show_page (self, "error");
}

static void
on_loaded (HlWindow    *self,
           HlRecording *recording)
{
  hl_timing_log (&self->open_mark, "open to loaded");
  /* The events replace the saved costs (the flame view keeps its zoom and
   * selection by path; waiting filters apply now). */
  self->filters_waiting = FALSE;
  self->log_fully_loaded = TRUE;
  hl_window_show_events_strip (self, FALSE);
  /* Live no more: the saved trace is complete (analyses in flight keep
   * their own hold of the session until they land). */
  hl_analysis_scheduler_set_live_session (self->analyses, NULL);
  self->call_tree_stale = TRUE;
  hl_window_set_recording (self, recording);
  /* a timeline that followed the run shows the whole trace; a zoomed one
   * keeps its zoom */
  if (self->live_follow)
    hl_timeline_reset_zoom (self->timeline);
  self->live_follow = FALSE;
  if (self->call_tree_stale)
    hl_window_refresh_call_tree (self);
}

/* The costs saved in a large trace, while its events load: the views
 * show them (no timeline yet), the progress of the events above them. */
static void
on_saved_costs_loaded (HlWindow    *self,
                       HlRecording *recording)
{
  hl_timing_log (&self->open_mark, "open to saved costs loaded");
  gtk_label_set_label (self->events_label, _("Saved costs shown while the events load"));
  if (gtk_progress_bar_get_fraction (self->events_progress) == 0)
    gtk_progress_bar_set_text (self->events_progress, _("Opening…"));
  hl_window_show_events_strip (self, TRUE);
  hl_window_set_recording (self, recording);
  /* the saved costs have no times */
  hl_window_set_timeline_legend_text (self, _("The heap over time is drawn once the events are loaded"));
}

/* Cancel returns to the empty window at once: the load's workers stop at
 * their next check, and what they return then is dropped. */
void
hl_window_on_cancel_clicked (HlWindow *self)
{
  hl_document_cancel (self->document);
  /* Loaded already, the first views still being built: those go too, and
   * the window is as a new one (the hidden views keep their last data
   * until the next recording replaces it). */
  hl_window_forget_analysis (self);
  hl_analysis_scheduler_set_recording (self->analyses, NULL);
  hl_window_forget_sites (self);
  self->opening = FALSE;
  self->log_fully_loaded = FALSE;
  hl_window_show_events_strip (self, FALSE);
  gtk_window_set_title (GTK_WINDOW (self), _("Heaplens"));
  adw_view_switcher_title_set_subtitle (self->switcher_title, NULL);
  hl_summary_view_set_saved_in (self->summary_view, NULL, NULL);
  hl_window_show_page (self, "start");
}

/* What a killed program left in its session was salvaged into the trace
 * being opened: said in a toast; the summary's Duration card shows the
 * counts (from the trace). */
static void
on_salvaged (HlWindow   *self,
             const char *sentence)
{
  hl_window_show_toast (self, sentence);
}

void
hl_window_init_load (HlWindow *self)
{
  self->document = hl_document_new ();
  g_signal_connect_object (self->document, "progress", G_CALLBACK (on_progress), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "saved-costs-loaded", G_CALLBACK (on_saved_costs_loaded), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "loaded", G_CALLBACK (on_loaded), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "failed", G_CALLBACK (on_failed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "salvaged", G_CALLBACK (on_salvaged), self, G_CONNECT_SWAPPED);
}
