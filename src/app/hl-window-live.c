/* hl-window-live.c — live mode: the views show a live session's growing
 * recording, the live panel on the right. The panel tells the window
 * through its signals (hl-live-window.c connects them); the window never
 * calls the panel. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-filter.h"
#include "hl-adapter-timeline.h"
#include "hl-units.h"
#include "hl-window-leak-scan.h"
#include "hl-window-private.h"

/* Mark again from the start: no first mark, the button says Mark. */
static void
reset_live_mark (HlWindow *self)
{
  self->live_mark_set = FALSE;
  hl_timeline_set_user_mark (self->timeline, FALSE, 0);
  gtk_button_set_label (self->live_mark_button, _("_Mark"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->live_mark_button),
                               _("Mark this moment; mark again to see what was allocated between the two marks "
                                 "and is still live"));
}

void
hl_window_live_mark (HlWindow *self)
{
  HlLiveSession *session;
  guint64 now;

  g_return_if_fail (HL_IS_WINDOW (self));
  session = hl_window_live_session (self);
  if (session == NULL)
    return;
  now = hl_live_session_get_totals_time_ns (session);
  if (!self->live_mark_set)
    {
      g_autofree char *at = hl_format_time (now);
      g_autofree char *tip = g_strdup_printf (_("Mark 1 is at %s: mark again to see what was allocated since "
                                                "and is still live then"), at);
      self->live_mark_set = TRUE;
      self->live_mark_ns = now;
      hl_timeline_set_user_mark (self->timeline, TRUE, now);
      gtk_button_set_label (self->live_mark_button, _("_Mark 2"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->live_mark_button), tip);
      return;
    }
  guint64 first = self->live_mark_ns;
  g_autofree char *t1 = hl_format_time (first);
  g_autofree char *t2 = hl_format_time (MAX (now, first + 1));
  g_autofree char *toast = g_strdup_printf (_("Allocated after mark 1 (%s) and still live at mark 2 (%s)"), t1, t2);
  reset_live_mark (self);
  /* Leaked in a range: allocated in it, not freed by its end */
  hl_flame_view_set_cost (self->flame_view, HL_COST_KIND_LEAKED);
  hl_view_state_set_range (self->session, first, MAX (now, first + 1));
  hl_window_show_toast (self, toast);
}

void
hl_window_set_live (HlWindow      *self,
                    HlLiveSession *session,
                    GtkWidget     *panel)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (HL_IS_LIVE_SESSION (session));

  hl_analysis_scheduler_set_live_session (self->analyses, session);
  if (panel != NULL && gtk_widget_get_parent (panel) == NULL)
    gtk_box_append (self->live_slot, panel);
  gtk_widget_set_visible (GTK_WIDGET (self->live_slot), TRUE);
  reset_live_mark (self);
  gtk_widget_set_visible (GTK_WIDGET (self->live_mark_button), TRUE);
  hl_window_live_leak_scan_reset (self, TRUE);
  /* the heap now (live at the cursor, the end of the run so far), unless
   * the user already chose: Leaked would mean "never freed", which a
   * running program cannot say yet */
  if (hl_view_state_get_cost (self->session) == HL_COST_KIND_BYTES)
    hl_flame_view_set_cost (self->flame_view, HL_COST_KIND_LIVE);
  hl_window_set_recording (self, hl_live_session_get_recording (session));
  /* live: the timeline is there at once, the other views fill in */
  hl_window_show_page (self, "views");
}

void
hl_window_set_live_waiting (HlWindow   *self,
                            GtkWidget  *panel,
                            const char *message)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  if (panel != NULL && gtk_widget_get_parent (panel) == NULL)
    gtk_box_append (self->live_slot, panel);
  gtk_widget_set_visible (GTK_WIDGET (self->live_slot), TRUE);
  adw_status_page_set_description (self->loading_page, message);
  gtk_progress_bar_set_text (self->loading_progress, message);
  gtk_progress_bar_pulse (self->loading_progress);
  hl_window_show_page (self, "loading");
}

gboolean
hl_window_is_live (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return hl_window_live_session (self) != NULL;
}

void
hl_window_live_update (HlWindow *self)
{
  g_autoptr(HlTimelineData) timeline = NULL;
  HlTimelineData *old;
  guint64 start = 0, end = 0;
  gboolean whole;

  g_return_if_fail (HL_IS_WINDOW (self));
  if (hl_window_live_session (self) == NULL || hl_window_recording (self) == NULL)
    return;
  /* The timeline: the whole run so far stays in view as it grows, unless
   * the user zoomed in. */
  old = hl_timeline_get_data (self->timeline);
  hl_timeline_get_visible_range (self->timeline, &start, &end);
  whole = old == NULL || self->live_view_end_ns == 0 || (start == 0 && end >= self->live_view_end_ns);
  self->live_follow = whole;
  timeline = hl_adapter_timeline_data (hl_window_recording (self), 0, HL_TIME_END, HL_WINDOW_TIMELINE_BUCKETS);
  self->timeline_whole = TRUE;
  hl_timeline_set_data (self->timeline, timeline);
  if (whole)
    {
      hl_timeline_reset_zoom (self->timeline);
      hl_timeline_get_visible_range (self->timeline, &start, &end);
      self->live_view_end_ns = end;
    }
  /* new threads and metadata keys for the filter menu, now and then */
  if (self->live_updates++ % 10 == 0)
    {
      g_autoptr(GMenuModel) menu = hl_adapter_filter_menu (hl_window_recording (self));
      gtk_menu_button_set_menu_model (self->filter_button, menu);
    }
  hl_window_live_leak_scan_update (self);
  hl_window_start_analysis (self);
  if (self->flame_pending)
    hl_window_refresh_flame_graph (self);
}

void
hl_window_switch_to_file (HlWindow *self,
                          GFile    *file)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  /* a saved trace is selected with the timeline: no marks */
  reset_live_mark (self);
  gtk_widget_set_visible (GTK_WIDGET (self->live_mark_button), FALSE);
  hl_window_live_leak_scan_reset (self, FALSE);
  hl_window_open_file (self, file, hl_window_has_views (self));
}
