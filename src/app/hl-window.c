/* hl-window.c — the window of one recording: a thin shell around the views. */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-allocations-view.h"
#include "hl-call-tree-view.h"
#include "hl-cost.h"
#include "hl-diff-window.h"
#include "hl-filter-bar.h"
#include "hl-flame-export-dialog.h"
#include "hl-flame-view.h"
#include "hl-live-session.h"
#include "hl-model-adapter.h"
#include "hl-report-export.h"
#include "hl-session.h"
#include "hl-start-page.h"
#include "hl-summary-view.h"
#include "hl-timeline.h"
#include "hl-timing.h"
#include "hl-units.h"
#include "hl-window.h"

#define TIMELINE_BUCKETS 1200
/* The heap by call site: the largest sites, over the whole recording in
 * buckets twice the whole timeline's (a zoomed view shows them coarser) */
#define SITE_MAX         8
#define SITE_BUCKETS     (TIMELINE_BUCKETS * 2)
#define MAX_LEAK_ROWS    2000
#define MAX_LARGEST_ROWS 500

struct _HlWindow
{
  AdwApplicationWindow parent_instance;

  /* Template widgets */
  AdwToastOverlay    *toast_overlay;
  AdwViewSwitcherTitle *switcher_title;
  AdwViewSwitcherBar *switcher_bar;
  GtkStack           *main_stack;
  AdwViewStack       *view_stack;
  AdwStatusPage      *loading_page;
  GtkProgressBar     *loading_progress;
  AdwStatusPage      *error_page;
  GtkRevealer        *banner_revealer;
  GtkLabel           *banner_label;
  HlFilterBar        *filter_bar;
  HlTimeline         *timeline;
  GtkLabel           *timeline_legend;
  GtkToggleButton    *by_site_button;
  HlSummaryView      *summary_view;
  HlFlameView        *flame_view;
  HlCallTreeView     *call_tree_view;
  HlAllocationsView  *allocations_view;
  GtkMenuButton      *filter_button;
  GtkBox             *live_slot;
  GtkRevealer        *events_revealer;
  GtkLabel           *events_label;
  GtkProgressBar     *events_progress;

  /* Owned */
  HlSession          *session;
  GHashTable         *thread_names;  /* tid → name, from the recording */
  GFile              *file;
  GCancellable       *cancellable;           /* loading */
  GCancellable       *analysis_cancellable;  /* the analysis being built */
  HlRecording        *recording;
  HlAnalysis         *analysis;
  HlCallTree         *flame_tree;            /* the tree the flame graph shows */
  HlAnalysis         *flame_analysis;        /* the analysis that built it */
  char               *banner_details;
  char               *banner_title;

  guint64             cursor_ns;             /* the timeline's cursor, HL_TIME_NONE */
  HlTimingMark        open_mark;             /* for HEAPLENS_DEBUG=timing */
  gboolean            opening;               /* until the first views are drawn */
  /* A large trace shows the costs saved in it (its COSTS packet) while
   * its events load: the views work, filters by time wait for the load. */
  gboolean            partial;               /* the views show the saved costs */
  gboolean            filters_waiting;       /* a filter by time waits for the events */
  gboolean            full_load_landed;      /* the events' recording arrived */
  gboolean            log_fully_loaded;      /* timing: log when its flame graph is drawn */
  gboolean            hold_events;           /* tests: the events' recording waits */
  GAsyncResult       *held_result;           /* … here */
  gint64              progress_time_us;      /* the last progress shown */
  HlTimingMark        analysis_mark;
  /* HEAPLENS_DEBUG=timing: the frames painted, and the CPU of the whole
   * process while they were (a GL renderer's own threads included) */
  guint               frames_painted;
  gint64              paint_cpu_us;
  HlTimingMark        paint_mark;
  guint               open_frames;           /* frames_painted at open_mark */
  gint64              open_paint_cpu_us;
  guint               analysis_frames;       /* … and at analysis_mark */
  gint64              analysis_paint_cpu_us;
  guint               timeline_refetch_id;
  HlSiteSeries       *site_series;           /* of the recording, once asked for */
  gboolean            site_series_done;
  gboolean            site_series_running;   /* a worker computes it */
  gboolean            timeline_whole;        /* its data covers the whole recording */
  /* Views not shown are refreshed when they are shown. */
  gboolean            summary_stale;
  gboolean            allocations_stale;
  gboolean            call_tree_stale;
  guint               allocations_generation; /* the newest allocations job */
  guint               call_tree_generation;   /* the newest call tree job */
  GCancellable       *call_tree_cancellable;
  gboolean            call_tree_building;     /* its worker has not landed */
  GStrv               call_tree_reveal;       /* a path to reveal when it lands */
  gint64              call_tree_time_us;     /* live: at most every 2 s */

  /* Live mode (hl_window_set_live): the recording grows on this thread
   * between polls; analyses and flame data are built on workers while the
   * session holds its appends back. */
  HlLiveSession      *live_session;
  guint               analyses_running;
  gboolean            analysis_pending;      /* live: another one after this */
  guint               flame_generation;      /* the newest flame data build */
  HlCostKind          flame_kind;            /* of flame_tree's data */
  gboolean            flame_inverted;
  gboolean            flame_pending;         /* live: the session was busy */
  guint               live_updates;
  guint64             live_view_end_ns;      /* the timeline's end as last followed, 0 = zoomed by the user */
  gboolean            live_follow;           /* the timeline shows the whole run as it grows */
};

G_DEFINE_FINAL_TYPE (HlWindow, hl_window, ADW_TYPE_APPLICATION_WINDOW)

static void refresh_views       (HlWindow *self);
static void start_analysis      (HlWindow *self);
static void refresh_flame_graph (HlWindow *self);
static void show_page           (HlWindow   *self,
                                 const char *name);

static void load_window_state (HlWindow *self);

HlWindow *
hl_window_new (HlApplication *app)
{
  HlWindow *self = g_object_new (HL_TYPE_WINDOW, "application", app, NULL);

  /* Not in constructed(): "application" is set after it runs. */
  load_window_state (self);
  return self;
}

gboolean
hl_window_is_empty (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return self->file == NULL && self->recording == NULL;
}

const char *
hl_window_get_page (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->main_stack);
}

gboolean
hl_window_shows_saved_costs (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return self->partial;
}

const char *
hl_window_get_error (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return adw_status_page_get_description (self->error_page);
}

void
hl_window_show_toast (HlWindow   *self,
                      const char *message)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

static void
show_error (HlWindow   *self,
            const char *message)
{
  adw_status_page_set_description (self->error_page, message);
  show_page (self, "error");
}

static void on_load_progress (guint64  bytes_done,
                              guint64  bytes_total,
                              guint64  events_done,
                              gpointer user_data);
static void on_loaded        (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data);
static void on_costs_loaded  (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data);

static void open_file (HlWindow *self,
                       GFile    *file,
                       gboolean  in_place);
static gboolean has_views (HlWindow *self);

void
hl_window_open (HlWindow *self,
                GFile    *file)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  open_file (self, file, FALSE);
}

void
hl_window_hold_events (HlWindow *self,
                       gboolean  hold)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  self->hold_events = hold;
  if (!hold && self->held_result != NULL)
    {
      g_autoptr(GAsyncResult) result = g_steal_pointer (&self->held_result);

      on_loaded (NULL, result, g_object_ref (self));
    }
}

/* ---- Live mode -------------------------------------------------------- */

void
hl_window_set_live (HlWindow      *self,
                    HlLiveSession *session,
                    GtkWidget     *panel)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (HL_IS_LIVE_SESSION (session));

  g_set_object (&self->live_session, session);
  if (panel != NULL && gtk_widget_get_parent (panel) == NULL)
    gtk_box_append (self->live_slot, panel);
  gtk_widget_set_visible (GTK_WIDGET (self->live_slot), TRUE);
  /* what is allocated now, unless the user already chose */
  if (hl_session_get_cost (self->session) == HL_COST_KIND_BYTES)
    hl_flame_view_set_cost (self->flame_view, HL_COST_KIND_LEAKED);
  hl_window_set_recording (self, hl_live_session_get_recording (session));
  /* live: the timeline is there at once, the other views fill in */
  show_page (self, "views");
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
  show_page (self, "loading");
}

gboolean
hl_window_is_live (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return self->live_session != NULL;
}

void
hl_window_live_update (HlWindow *self)
{
  g_autoptr(HlTimelineData) timeline = NULL;
  HlTimelineData *old;
  guint64 start = 0, end = 0;
  gboolean whole;

  g_return_if_fail (HL_IS_WINDOW (self));
  if (self->live_session == NULL || self->recording == NULL)
    return;
  /* The timeline: the whole run so far stays in view as it grows, unless
   * the user zoomed in. */
  old = hl_timeline_get_data (self->timeline);
  hl_timeline_get_visible_range (self->timeline, &start, &end);
  whole = old == NULL || self->live_view_end_ns == 0 || (start == 0 && end >= self->live_view_end_ns);
  self->live_follow = whole;
  timeline = hl_adapter_timeline_data (self->recording, 0, HL_TIME_END, TIMELINE_BUCKETS);
  self->timeline_whole = TRUE;
  hl_timeline_set_data (self->timeline, timeline);
  hl_timeline_set_data (hl_summary_view_get_chart (self->summary_view), timeline);
  if (whole)
    {
      hl_timeline_reset_zoom (self->timeline);
      hl_timeline_get_visible_range (self->timeline, &start, &end);
      self->live_view_end_ns = end;
    }
  /* new threads and metadata keys for the filter menu, now and then */
  if (self->live_updates++ % 10 == 0)
    {
      g_autoptr(GMenuModel) menu = hl_adapter_filter_menu (self->recording);
      gtk_menu_button_set_menu_model (self->filter_button, menu);
    }
  start_analysis (self);
  if (self->flame_pending)
    refresh_flame_graph (self);
}

void
hl_window_switch_to_file (HlWindow *self,
                          GFile    *file)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));
  open_file (self, file, has_views (self));
}

/* TRUE for a trace large enough that its saved costs are worth showing
 * while its events load: HEAPLENS_SAVED_COSTS_FIRST=BYTES sets the size
 * (default 4 MiB, about 7 M events; 0 for every trace, as tests do). */
static gboolean
show_saved_costs_first (GFile *file)
{
  const char *env = g_getenv ("HEAPLENS_SAVED_COSTS_FIRST");
  guint64 min_size = env != NULL ? g_ascii_strtoull (env, NULL, 10) : 4 * 1024 * 1024;
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                                                 NULL, NULL);

  return info != NULL && (guint64) g_file_info_get_size (info) >= min_size;
}

/* The strip of the events' progress over the views. A revealer without a
 * transition keeps its child's height when hidden (GTK 4.8 scales only
 * the sliding transitions), so the strip is hidden as well. */
static void
show_events_strip (HlWindow *self,
                   gboolean  show)
{
  gtk_revealer_set_reveal_child (self->events_revealer, show);
  gtk_widget_set_visible (GTK_WIDGET (self->events_revealer), show);
}

static void
open_file (HlWindow *self,
           GFile    *file,
           gboolean  in_place)
{
  g_autofree char *name = NULL;
  HlApplication *app;

  g_set_object (&self->file, file);
  name = g_file_get_basename (file);
  gtk_window_set_title (GTK_WINDOW (self), name);
  adw_status_page_set_description (self->loading_page, name);
  gtk_progress_bar_set_fraction (self->loading_progress, 0);
  gtk_progress_bar_set_text (self->loading_progress, _("Opening…"));

  app = HL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  if (app != NULL)
    hl_application_add_recent (app, file);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  hl_timing_mark (&self->open_mark);
  self->open_frames = self->frames_painted;
  self->open_paint_cpu_us = self->paint_cpu_us;
  self->opening = TRUE;
  /* In place (a live view becoming its saved trace): the views stay until
   * the trace replaces their recording. */
  if (!in_place)
    show_page (self, "loading");
  self->partial = FALSE;
  self->filters_waiting = FALSE;
  self->full_load_landed = FALSE;
  self->log_fully_loaded = FALSE;
  show_events_strip (self, FALSE);
  gtk_progress_bar_set_fraction (self->events_progress, 0);

  /* A large trace: the costs saved in it are shown while its events load
   * (a small one loads before they would be). */
  if (!in_place && show_saved_costs_first (file))
    hl_recording_load_async (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_SAVED_COSTS_ONLY, self->cancellable,
                             NULL, NULL, NULL, on_costs_loaded, g_object_ref (self));
  /* The model loads on worker threads; progress comes back on this
   * thread's main context. Both callbacks hold the window. */
  hl_recording_load_async (file, HL_LOAD_FLAGS_NONE, self->cancellable,
                           on_load_progress, g_object_ref (self), g_object_unref,
                           on_loaded, g_object_ref (self));
}

static void
on_load_progress (guint64  bytes_done,
                  guint64  bytes_total,
                  guint64  events_done,
                  gpointer user_data)
{
  HlWindow *self = user_data;
  g_autofree char *done = hl_format_size (bytes_done);
  g_autofree char *total = hl_format_size (bytes_total);
  g_autofree char *events = hl_format_count (events_done);
  g_autofree char *text = NULL;
  gint64 now;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;
  /* Five updates a second: each is a frame of the whole window, and a
   * software renderer's frames take CPU from the loading threads; two
   * while the views show the saved costs (a frame of the views costs
   * more than one of the loading page). */
  now = g_get_monotonic_time ();
  if (bytes_done < bytes_total && now - self->progress_time_us < G_USEC_PER_SEC / (self->partial ? 2 : 5))
    return;
  self->progress_time_us = now;
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

/* ---- Actions and view state ------------------------------------------ */

static gboolean
has_views (HlWindow *self)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "views") == 0;
}

/* The enabled state of every window action, computed in one place. */
static void
update_actions (HlWindow *self)
{
  gboolean views = has_views (self);
  guint64 start, end;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-view", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.timeline-reset-zoom", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-flame-graph",
                                 views && hl_flame_graph_get_data (hl_flame_view_get_graph (self->flame_view)) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-report", views && self->analysis != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare", views && self->recording != NULL && !self->partial);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clear-filters",
                                 views && hl_session_has_filters (self->session));
  gtk_widget_set_visible (GTK_WIDGET (self->filter_button), views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clear-range",
                                 views && hl_session_get_range (self->session, &start, &end));
}

/* The bottom switcher bar stands in for the title's switcher when the
 * window is narrow, and only while there are views to switch. */
static void
update_switcher_bar (HlWindow *self)
{
  if (self->switcher_bar == NULL || self->switcher_title == NULL)
    return; /* the template is being disposed */
  adw_view_switcher_bar_set_reveal (self->switcher_bar,
                                    adw_view_switcher_title_get_view_switcher_enabled (self->switcher_title)
                                    && adw_view_switcher_title_get_title_visible (self->switcher_title));
}

static void
show_page (HlWindow   *self,
           const char *name)
{
  gtk_stack_set_visible_child_name (self->main_stack, name);
  /* The view switcher only means something when there are views. */
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title, g_str_equal (name, "views"));
  update_switcher_bar (self);
  update_actions (self);
}

static void
on_session_changed (HlWindow *self)
{
  guint64 start, end;

  /* Chips and the timeline follow the session; then every view refilters. */
  hl_filter_bar_show_session (self->filter_bar, self->session);
  if (hl_session_get_range (self->session, &start, &end))
    hl_timeline_set_selection (self->timeline, start, end);
  else
    hl_timeline_clear_selection (self->timeline);
  update_actions (self);
  start_analysis (self);
}

static void
on_chip_removed (HlWindow   *self,
                 const char *id)
{
  hl_session_remove_filter (self->session, id);
}

static void
on_timeline_selection_changed (HlWindow *self)
{
  guint64 start, end;

  if (hl_timeline_get_selection (self->timeline, &start, &end))
    hl_session_set_range (self->session, start, end);
  else
    hl_session_clear_range (self->session);
}

static void
on_call_site_activated (HlWindow   *self,
                        guint       cost,
                        const char *function)
{
  hl_flame_view_set_cost (self->flame_view, cost);
  hl_flame_view_set_search (self->flame_view, function);
  adw_view_stack_set_visible_child_name (self->view_stack, "flamegraph");
}

static void
on_flame_cost_changed (HlWindow *self,
                       guint     cost)
{
  hl_session_set_cost (self->session, cost);
  if (cost == HL_COST_KIND_LIVE)
    start_analysis (self);   /* LIVE needs the cursor's instant in the filter */
  else
    refresh_flame_graph (self);
}

static void
action_show_view (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  const char *name = g_variant_get_string (param, NULL);

  if (adw_view_stack_get_child_by_name (self->view_stack, name) != NULL)
    adw_view_stack_set_visible_child_name (self->view_stack, name);
}

static void
action_find (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->view_stack, "flamegraph");
  hl_flame_view_focus_search (self->flame_view);
}

static void
action_clear_range (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  hl_session_clear_range (HL_WINDOW (widget)->session);
}

static void
action_timeline_reset_zoom (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *param)
{
  hl_timeline_reset_zoom (HL_WINDOW (widget)->timeline);
}

static void
on_export_response (GtkNativeDialog *dialog,
                    int              response,
                    HlWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GError) error = NULL;

      if (!hl_window_export_flame_graph (self, file, &error))
        hl_window_show_toast (self, error->message);
      else
        hl_window_show_toast (self, _("Flame graph exported"));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
action_export_flame_graph (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autofree char *base = self->file ? g_file_get_basename (self->file) : g_strdup ("heaplens");
  g_autofree char *name = NULL;

  if (g_str_has_suffix (base, ".hltrace"))
    base[strlen (base) - strlen (".hltrace")] = '\0';
  name = g_strdup_printf ("%s-flamegraph.svg", base);
  dialog = hl_flame_export_dialog_new (GTK_WINDOW (self), name,
                                       _("Collapsed stacks (flamegraph.pl, speedscope)"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

gboolean
hl_window_export_flame_graph (HlWindow  *self,
                              GFile     *file,
                              GError   **error)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return hl_flame_graph_export (hl_flame_view_get_graph (self->flame_view),
                                hl_flame_export_format_for_file (file), file, error);
}

/* ---- Report and comparison ------------------------------------------- */

static GtkFileChooserNative *
new_file_dialog (HlWindow             *self,
                 const char           *title,
                 GtkFileChooserAction  action,
                 const char           *accept,
                 const char           *filter_name,
                 const char           *pattern)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, accept, _("_Cancel"));
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, filter_name);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  return dialog;
}

static void
on_export_report_response (GtkNativeDialog *dialog,
                           int              response,
                           HlWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GError) error = NULL;

      if (!hl_window_export_report (self, file, &error))
        hl_window_show_toast (self, error->message);
      else
        hl_window_show_toast (self, _("Report exported"));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
action_export_report (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  g_autofree char *base = self->file ? g_file_get_basename (self->file) : g_strdup ("heaplens");
  g_autofree char *name = NULL;
  GtkFileChooserNative *dialog;

  if (g_str_has_suffix (base, ".hltrace"))
    base[strlen (base) - strlen (".hltrace")] = '\0';
  name = g_strdup_printf ("%s-report.json", base);
  dialog = new_file_dialog (self, _("Export Report"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                            _("JSON report"), "*.json");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_report_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

gboolean
hl_window_export_report (HlWindow  *self,
                         GFile     *file,
                         GError   **error)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  if (self->analysis == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("There is no report to export"));
      return FALSE;
    }
  return hl_report_export (self->analysis, self->file, file, error);
}

static void
on_compare_response (GtkNativeDialog *dialog,
                     int              response,
                     HlWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->recording != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      hl_window_compare_with (self, file);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

HlDiffWindow *
hl_window_compare_with (HlWindow *self,
                        GFile    *file)
{
  HlDiffWindow *window;
  guint cost;

  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (self->recording != NULL, NULL);

  window = hl_diff_window_new (gtk_window_get_application (GTK_WINDOW (self)));
  /* The filters of this window, carried over to both sides, and the
   * flame graph's cost (a diff has no "live at T"). */
  hl_diff_window_set_filters (window, self->session, self->recording);
  cost = hl_flame_view_get_cost (self->flame_view);
  if (cost < HL_N_TREE_COSTS)
    hl_diff_view_set_cost (hl_diff_window_get_view (window), cost);
  hl_diff_window_compare (window, self->file, self->recording, file, NULL);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
action_compare (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  GtkFileChooserNative *dialog;

  dialog = new_file_dialog (self, _("Compare With"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"),
                            _("Heaplens traces"), "*.hltrace");
  g_signal_connect (dialog, "response", G_CALLBACK (on_compare_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
action_filter_thread (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  guint tid = g_variant_get_uint32 (param);

  hl_session_add_thread (self->session, tid,
                         g_hash_table_lookup (self->thread_names, GUINT_TO_POINTER (tid)));
}

static void
action_filter_metadata (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  const char *pair = g_variant_get_string (param, NULL);
  const char *eq = strchr (pair, '=');
  g_autofree char *key = NULL;

  if (eq == NULL)
    return;
  key = g_strndup (pair, (gsize) (eq - pair));
  hl_session_add_metadata (self->session, key, eq + 1);
}

static void
action_filter_module (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  hl_session_add_module (HL_WINDOW (widget)->session, g_variant_get_string (param, NULL));
}

static void
action_clear_filters (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  hl_session_clear_filters (HL_WINDOW (widget)->session);
}

HlSession *
hl_window_get_session (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return self->session;
}

/* ---- The recording ---------------------------------------------------- */

/* The flame graph's data is built on a worker (a call tree, its layout,
 * the drawing nodes: up to a few hundred ms for 10⁵ stacks) from the
 * finished analysis, which is safe to read from any thread. */
typedef struct
{
  HlWindow      *self;
  HlAnalysis    *analysis;
  HlLiveSession *held;      /* live: holds the recording still while building */
  HlCostKind     kind;
  gboolean       inverted;
  guint          generation;
  HlTimingMark   begin;
  /* what the flame graph shows now, when its kind and inversion are the
   * job's: kept if the analysis gives the same tree (a live view of an
   * idle target) */
  HlAnalysis    *shown_analysis;
  HlCallTree    *shown_tree;
  HlFlameData   *shown_data;
  HlCallTree    *tree;      /* results */
  HlFlameData   *data;
  gboolean       unchanged; /* data is shown_data */
} FlameJob;

static void
flame_job_free (gpointer p)
{
  FlameJob *job = p;

  if (job->held != NULL)
    {
      hl_live_session_release (job->held);
      g_object_unref (job->held);
    }
  g_clear_pointer (&job->tree, hl_call_tree_unref);
  g_clear_pointer (&job->data, hl_flame_data_unref);
  g_clear_object (&job->shown_analysis);
  g_clear_pointer (&job->shown_tree, hl_call_tree_unref);
  g_clear_pointer (&job->shown_data, hl_flame_data_unref);
  g_object_unref (job->analysis);
  g_object_unref (job->self);
  g_free (job);
}

static void
flame_job_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  FlameJob *job = task_data;
  g_autoptr(HlFlameLayout) layout = NULL;

  if (job->shown_tree != NULL
      && (job->tree = hl_analysis_reuse_call_tree (job->analysis, job->shown_analysis, job->shown_tree)) != NULL)
    {
      job->data = hl_flame_data_ref (job->shown_data);
      job->unchanged = TRUE;
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* Inverted: the bottom-up tree, allocating functions next to the root. */
  job->tree = hl_analysis_get_call_tree (job->analysis,
                                         job->inverted ? HL_CALL_TREE_BOTTOM_UP : HL_CALL_TREE_TOP_DOWN,
                                         job->kind);
  /* Every node is kept: the drawing merges what is narrower than a pixel. */
  layout = hl_flame_layout_new (job->tree, job->kind, 0.0);
  job->data = hl_adapter_flame_data (layout);
  g_task_return_boolean (task, TRUE);
}

typedef struct
{
  HlWindow    *self;
  const char  *what;
  HlTimingMark since;
  guint        frames;        /* frames_painted at SINCE */
  gint64       paint_cpu_us;  /* paint_cpu_us at SINCE */
  gulong       handler;
} PaintLog;

static void
on_before_paint (GdkFrameClock *clock,
                 HlWindow      *self)
{
  hl_timing_mark (&self->paint_mark);
}

static void
on_after_paint (GdkFrameClock *clock,
                HlWindow      *self)
{
  HlTimingMark now;

  hl_timing_mark (&now);
  self->frames_painted++;
  self->paint_cpu_us += now.cpu_us - self->paint_mark.cpu_us;
}

/* HEAPLENS_DEBUG=timing: counts the frames and their CPU. */
static void
on_realize_timing (HlWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  g_signal_connect_object (clock, "before-paint", G_CALLBACK (on_before_paint), self, 0);
  g_signal_connect_object (clock, "after-paint", G_CALLBACK (on_after_paint), self, G_CONNECT_AFTER);
}

static void
on_logged_paint (GdkFrameClock *clock,
                 PaintLog      *log)
{
  HlWindow *self = log->self;

  hl_timing_log (&log->since, "%s (%u frames painted, %.1f ms cpu in them)", log->what,
                 self->frames_painted - log->frames, (self->paint_cpu_us - log->paint_cpu_us) / 1000.0);
  g_signal_handler_disconnect (clock, log->handler);
}

/* Logs WHAT once the next frame is painted (the views drawn), with the
 * frames painted since SINCE (given their counts at SINCE). */
static void
log_after_paint (HlWindow           *self,
                 const char         *what,
                 const HlTimingMark *since,
                 guint               frames,
                 gint64              paint_cpu_us)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  PaintLog *log;

  if (clock == NULL)
    return;
  log = g_new0 (PaintLog, 1);
  log->self = self;
  log->what = what;
  log->since = *since;
  log->frames = frames;
  log->paint_cpu_us = paint_cpu_us;
  /* after on_after_paint; a paint, without redrawing what did not change */
  log->handler = g_signal_connect_data (clock, "after-paint", G_CALLBACK (on_logged_paint), log,
                                        (GClosureNotify) (void (*) (void)) g_free, G_CONNECT_AFTER);
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_PAINT);
}

static void
flame_job_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  FlameJob *job = g_task_get_task_data (G_TASK (result));
  HlWindow *self = job->self;
  gboolean first;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || job->generation != self->flame_generation
      || hl_analysis_get_recording (job->analysis) != self->recording)
    return; /* a newer build, or recording, replaces this one */
  g_clear_pointer (&self->flame_tree, hl_call_tree_unref);
  self->flame_tree = g_steal_pointer (&job->tree);
  g_set_object (&self->flame_analysis, job->analysis);
  self->flame_kind = job->kind;
  self->flame_inverted = job->inverted;
  if (!job->unchanged)
    hl_flame_view_set_data (self->flame_view, job->data);
  hl_timing_log (&job->begin, "flame graph data %u nodes%s", hl_flame_data_get_n_nodes (job->data),
                 job->unchanged ? " (unchanged, kept)" : "");
  hl_timing_log (&self->analysis_mark, "refilter to flame graph data");
  if (!has_views (self))
    show_page (self, "views");
  first = self->opening;
  if (self->opening)
    {
      self->opening = FALSE;
      hl_timing_log (&self->open_mark, self->partial ? "open to views shown (saved costs)" : "open to views shown");
      if (hl_timing_enabled ())
        log_after_paint (self, self->partial ? "open to flame graph drawn (from the saved costs, events loading)"
                                             : "open to flame graph drawn",
                         &self->open_mark, self->open_frames, self->open_paint_cpu_us);
    }
  if (self->log_fully_loaded && hl_analysis_get_recording (job->analysis) == self->recording)
    {
      /* the views are the events' now */
      self->log_fully_loaded = FALSE;
      if (hl_timing_enabled ())
        log_after_paint (self, "open to fully loaded (events decoded, flame graph drawn from them)",
                         &self->open_mark, self->open_frames, self->open_paint_cpu_us);
    }
  else if (hl_timing_enabled () && !first)
    log_after_paint (self, "refilter to flame graph drawn", &self->analysis_mark,
                     self->analysis_frames, self->analysis_paint_cpu_us);
  update_actions (self);
}

static void
refresh_flame_graph (HlWindow *self)
{
  HlCostKind kind = hl_flame_view_get_cost (self->flame_view);
  FlameJob *job;
  GTask *task;

  if (self->analysis == NULL)
    return;
  if (kind >= HL_N_COST_KINDS)
    kind = HL_COST_KIND_BYTES;
  job = g_new0 (FlameJob, 1);
  if (self->live_session != NULL)
    {
      /* the call tree reads the recording's stack trie: no appends now */
      if (!hl_live_session_hold (self->live_session))
        {
          g_free (job);
          self->flame_pending = TRUE;
          return;
        }
      job->held = g_object_ref (self->live_session);
    }
  self->flame_pending = FALSE;
  job->self = g_object_ref (self);
  job->analysis = g_object_ref (self->analysis);
  job->kind = kind;
  job->inverted = hl_flame_graph_get_inverted (hl_flame_view_get_graph (self->flame_view));
  job->generation = ++self->flame_generation;
  {
    HlFlameData *shown = hl_flame_graph_get_data (hl_flame_view_get_graph (self->flame_view));

    if (self->flame_tree != NULL && self->flame_analysis != NULL && shown != NULL
        && self->flame_kind == job->kind && self->flame_inverted == job->inverted)
      {
        job->shown_analysis = g_object_ref (self->flame_analysis);
        job->shown_tree = hl_call_tree_ref (self->flame_tree);
        job->shown_data = hl_flame_data_ref (shown);
      }
  }
  hl_timing_mark (&job->begin);
  task = g_task_new (NULL, NULL, flame_job_done, NULL);
  g_task_set_task_data (task, job, flame_job_free);
  g_task_run_in_thread (task, flame_job_thread);
  g_object_unref (task);
}

static gboolean
view_shown (HlWindow   *self,
            const char *name)
{
  return g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), name) == 0;
}

static void
refresh_summary (HlWindow *self)
{
  if (self->analysis == NULL)
    return;
  if (!view_shown (self, "summary"))
    {
      self->summary_stale = TRUE;
      return;
    }
  self->summary_stale = FALSE;
  if (self->live_session != NULL)
    {
      HlAdapterLive live = {
        .state = hl_live_session_get_state (self->live_session),
      };
      g_autofree HlCosts *stack_costs = hl_live_session_get_stack_costs (self->live_session, &live.n_stacks);

      live.stack_costs = stack_costs;
      hl_live_session_get_totals (self->live_session, &live.totals);
      hl_adapter_fill_summary (self->summary_view, self->recording, self->analysis, &live);
    }
  else
    hl_adapter_fill_summary (self->summary_view, self->recording, self->analysis, NULL);
}

/* The call tree of the analysis (the heavy part: built over every stack
 * of the range, or waiting for the flame graph's worker that builds the
 * same tree) and its root row: on a worker for a saved trace. */
typedef struct
{
  HlWindow       *self;
  HlAnalysis     *analysis;
  guint           generation;
  HlTimingMark    begin;
  HlCallTreeMode  mode;
  char           *focus;     /* caller/callee: the function */
  HlTreeRow      *root;      /* result; NULL = nothing to show */
} CallTreeJob;

static void
call_tree_job_free (gpointer p)
{
  CallTreeJob *job = p;

  g_clear_object (&job->root);
  g_free (job->focus);
  g_object_unref (job->analysis);
  g_object_unref (job->self);
  g_free (job);
}

static void
call_tree_job_run (CallTreeJob *job)
{
  switch (job->mode)
    {
    case HL_CALL_TREE_MODE_TOP_DOWN:
    case HL_CALL_TREE_MODE_BOTTOM_UP:
      {
        HlCallTreeKind kind = job->mode == HL_CALL_TREE_MODE_TOP_DOWN ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
        g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (job->analysis, kind, HL_COST_KIND_BYTES);

        job->root = hl_adapter_call_tree (tree);
      }
      break;
    case HL_CALL_TREE_MODE_CALLER_CALLEE:
      {
        const HlFrame *frame = job->focus ? hl_adapter_find_function (job->analysis, job->focus) : NULL;

        if (frame != NULL)
          job->root = hl_adapter_caller_callee (job->analysis, frame);
      }
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
call_tree_job_show (CallTreeJob *job)
{
  HlWindow *self = job->self;

  hl_call_tree_view_set_root (self->call_tree_view, job->root);
  /* "Show in call tree" asked while the tree was being built */
  if (self->call_tree_reveal != NULL)
    {
      g_auto(GStrv) names = g_steal_pointer (&self->call_tree_reveal);

      hl_call_tree_view_reveal_path (self->call_tree_view, (const char * const *) names, g_strv_length (names));
    }
}

static void
call_tree_job_thread (GTask        *task,
                      gpointer      source,
                      gpointer      task_data,
                      GCancellable *cancellable)
{
  /* a newer filter or mode replaced this one before it began */
  if (g_task_return_error_if_cancelled (task))
    return;
  call_tree_job_run (task_data);
  g_task_return_boolean (task, TRUE);
}

static void
call_tree_job_done (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  CallTreeJob *job = g_task_get_task_data (G_TASK (result));
  HlWindow *self = job->self;
  gboolean built = g_task_propagate_boolean (G_TASK (result), NULL);

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || job->generation != self->call_tree_generation)
    return; /* a newer one replaces it */
  self->call_tree_building = FALSE;
  if (!built)
    return; /* cancelled by a newer filter, whose analysis brings the next tree */
  call_tree_job_show (job);
  hl_timing_log (&job->begin, "call tree (worker)");
}

static void
refresh_call_tree (HlWindow *self)
{
  CallTreeJob *job;

  if (self->analysis == NULL)
    return;
  /* The tree is rebuilt when looked at (live, that also keeps what the
   * user unfolded from folding at every refresh). */
  if (!view_shown (self, "calltree"))
    {
      self->call_tree_stale = TRUE;
      return;
    }
  if (self->live_session != NULL && !self->call_tree_stale
      && g_get_monotonic_time () < self->call_tree_time_us + 2 * G_USEC_PER_SEC)
    return;
  self->call_tree_stale = FALSE;
  self->call_tree_time_us = g_get_monotonic_time ();

  job = g_new0 (CallTreeJob, 1);
  job->self = g_object_ref (self);
  job->analysis = g_object_ref (self->analysis);
  job->mode = hl_call_tree_view_get_mode (self->call_tree_view);
  job->focus = g_strdup (hl_call_tree_view_get_focus (self->call_tree_view));
  job->generation = ++self->call_tree_generation;
  hl_timing_mark (&job->begin);
  g_cancellable_cancel (self->call_tree_cancellable);
  g_clear_object (&self->call_tree_cancellable);
  if (self->live_session != NULL)
    {
      /* a growing recording is read on this thread only */
      self->call_tree_building = FALSE;
      call_tree_job_run (job);
      call_tree_job_show (job);
      call_tree_job_free (job);
    }
  else
    {
      g_autoptr(GTask) task = NULL;

      self->call_tree_cancellable = g_cancellable_new ();
      self->call_tree_building = TRUE;
      task = g_task_new (NULL, self->call_tree_cancellable, call_tree_job_done, NULL);
      g_task_set_task_data (task, job, call_tree_job_free);
      g_task_run_in_thread (task, call_tree_job_thread);
    }
}

static void
on_call_tree_mode_changed (HlWindow *self)
{
  refresh_call_tree (self);
}

/* The leaks, the largest allocations (a walk over every allocation of
 * the range) and the histogram: on a worker for a saved trace. */
typedef struct
{
  HlWindow          *self;
  HlAnalysis        *analysis;
  guint              generation;
  HlTimingMark       begin;
  GListModel        *leaks;     /* results */
  GListModel        *largest;
  HlHistogramBucket  buckets[HL_SIZE_HISTOGRAM_BUCKETS];
  guint              n_buckets;
} AllocationsJob;

static void
allocations_job_free (gpointer p)
{
  AllocationsJob *job = p;

  g_clear_object (&job->leaks);
  g_clear_object (&job->largest);
  g_object_unref (job->analysis);
  g_object_unref (job->self);
  g_free (job);
}

static void
allocations_job_run (AllocationsJob *job)
{
  job->leaks = hl_adapter_leaks (job->analysis, MAX_LEAK_ROWS);
  job->largest = hl_adapter_largest (job->analysis, MAX_LARGEST_ROWS);
  job->n_buckets = hl_adapter_histogram (job->analysis, job->buckets);
}

static void
allocations_job_show (AllocationsJob *job)
{
  HlWindow *self = job->self;

  hl_allocations_view_set_leaks (self->allocations_view, job->leaks);
  hl_allocations_view_set_largest (self->allocations_view, job->largest);
  hl_allocations_view_set_histogram (self->allocations_view, job->n_buckets, job->buckets);
}

static void
allocations_job_thread (GTask        *task,
                        gpointer      source,
                        gpointer      task_data,
                        GCancellable *cancellable)
{
  allocations_job_run (task_data);
  g_task_return_boolean (task, TRUE);
}

static void
allocations_job_done (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  AllocationsJob *job = g_task_get_task_data (G_TASK (result));
  HlWindow *self = job->self;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || job->generation != self->allocations_generation)
    return; /* a newer one replaces it */
  allocations_job_show (job);
  hl_timing_log (&job->begin, "allocations view (worker)");
}

static void
refresh_allocations (HlWindow *self)
{
  AllocationsJob *job;

  if (self->analysis == NULL)
    return;
  /* The largest allocations and the histogram walk every allocation: do
   * it when the page is looked at, not on every range drag. */
  if (!view_shown (self, "allocations"))
    {
      self->allocations_stale = TRUE;
      return;
    }
  self->allocations_stale = FALSE;
  job = g_new0 (AllocationsJob, 1);
  job->self = g_object_ref (self);
  job->analysis = g_object_ref (self->analysis);
  job->generation = ++self->allocations_generation;
  hl_timing_mark (&job->begin);
  if (self->live_session != NULL)
    {
      /* a growing recording is read on this thread only */
      allocations_job_run (job);
      allocations_job_show (job);
      allocations_job_free (job);
    }
  else
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, allocations_job_done, NULL);

      g_task_set_task_data (task, job, allocations_job_free);
      g_task_run_in_thread (task, allocations_job_thread);
    }
}

/* A view shown for the first time since the analysis changed catches up. */
static void
on_visible_view_changed (HlWindow *self)
{
  HlTimingMark begin;
  gboolean stale = self->summary_stale || self->allocations_stale || self->call_tree_stale;

  hl_timing_mark (&begin);
  if (self->summary_stale)
    refresh_summary (self);
  if (self->allocations_stale)
    refresh_allocations (self);
  if (self->call_tree_stale)
    refresh_call_tree (self);
  if (stale)
    hl_timing_log (&begin, "view %s refreshed when shown",
                   adw_view_stack_get_visible_child_name (self->view_stack));
}

static void
refresh_views (HlWindow *self)
{
  HlTimingMark begin, stage;

  if (self->analysis == NULL)
    return;
  hl_timing_mark (&begin);
  stage = begin;
  /* The workers first (the flame graph's data is on the way to the first
   * frame), then the summary on this thread while they run. */
  refresh_flame_graph (self);
  hl_timing_log (&stage, "  flame graph (to its worker)");
  hl_timing_mark (&stage);
  refresh_call_tree (self);
  hl_timing_log (&stage, "  call tree");
  hl_timing_mark (&stage);
  refresh_allocations (self);
  hl_timing_log (&stage, "  allocations");
  hl_timing_mark (&stage);
  refresh_summary (self);
  hl_timing_log (&stage, "  summary");
  hl_timing_log (&begin, "views refreshed");
}

typedef struct
{
  HlWindow      *self;
  HlLiveSession *held;   /* live: the recording held still while analysed */
} AnalysisCall;

static void
analysis_call_free (AnalysisCall *call)
{
  if (call->held != NULL)
    {
      hl_live_session_release (call->held);
      g_object_unref (call->held);
    }
  g_object_unref (call->self);
  g_free (call);
}

static void
on_analysis_ready (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  AnalysisCall *call = user_data;
  HlWindow *self = call->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(HlAnalysis) analysis = hl_analysis_new_finish (result, &error);

  self->analyses_running--;
  if (analysis == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        hl_window_show_toast (self, error->message);
      analysis_call_free (call);
      return;
    }
  /* of a recording replaced since (another file opened, or the saved
   * costs replaced by the events): the new one's analysis is on its way */
  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || hl_analysis_get_recording (analysis) != self->recording)
    {
      analysis_call_free (call);
      return;
    }
  hl_timing_log (&self->analysis_mark, "analysis");
  g_set_object (&self->analysis, analysis);
  /* the flame graph's worker takes its own hold while this one lasts */
  refresh_views (self);
  hl_timing_log (&self->analysis_mark, "refilter (analysis and every view but the flame graph)");
  analysis_call_free (call);
  if (self->live_session != NULL && self->analysis_pending)
    start_analysis (self);
}

/* A new analysis for the session's filters; the views keep showing the
 * previous one until it is ready. */
static void
start_analysis (HlWindow *self)
{
  g_autoptr(HlFilter) filter = NULL;
  gboolean live = hl_flame_view_get_cost (self->flame_view) == HL_COST_KIND_LIVE;

  AnalysisCall *call;

  if (self->recording == NULL)
    return;
  filter = hl_adapter_filter (self->session, live ? self->cursor_ns : HL_TIME_NONE);
  if (self->partial && hl_filter_selects_by_time (filter))
    {
      /* The saved costs have no times: the views keep what they show and
       * the filter applies when the events have loaded (on_loaded
       * analyses them with the session's filters). */
      if (!self->filters_waiting)
        hl_window_show_toast (self, _("The time range applies once the events are loaded"));
      self->filters_waiting = TRUE;
      gtk_label_set_label (self->events_label, _("The time range applies once the events are loaded"));
      return;
    }
  call = g_new0 (AnalysisCall, 1);
  if (self->live_session != NULL)
    {
      /* A growing recording: one analysis at a time, built while the
       * session holds its appends back (it retries at the next update). */
      self->analysis_pending = TRUE;
      if (self->analyses_running > 0 || !hl_live_session_hold (self->live_session))
        {
          g_free (call);
          return;
        }
      call->held = g_object_ref (self->live_session);
    }
  self->analysis_pending = FALSE;
  call->self = g_object_ref (self);
  g_cancellable_cancel (self->analysis_cancellable);
  g_clear_object (&self->analysis_cancellable);
  /* a call tree of the previous filter is not wanted any more */
  g_cancellable_cancel (self->call_tree_cancellable);
  self->analysis_cancellable = g_cancellable_new ();
  hl_timing_mark (&self->analysis_mark);
  self->analysis_frames = self->frames_painted;
  self->analysis_paint_cpu_us = self->paint_cpu_us;
  self->analyses_running++;
  hl_analysis_new_async (self->recording, filter, self->analysis_cancellable,
                         on_analysis_ready, call);
}

static void
show_banner (HlWindow *self)
{
  const char * const *warnings = hl_recording_get_warnings (self->recording);
  g_autoptr(GPtrArray) no_debug = hl_recording_get_modules_without_debug_info (self->recording);
  GString *details = g_string_new (NULL);
  g_autofree char *text = NULL;
  guint n_warnings = warnings ? g_strv_length ((char **) warnings) : 0;

  for (guint i = 0; i < n_warnings; i++)
    g_string_append_printf (details, "%s%s", details->len ? "\n" : "", warnings[i]);
  for (guint i = 0; no_debug != NULL && i < no_debug->len; i++)
    {
      const HlModuleInfo *m = g_ptr_array_index (no_debug, i);
      g_autofree char *line = m->hint ? g_strdup (m->hint)
                                      : g_strdup_printf (_("no debug info for %s"), m->name);

      if (strstr (details->str, line) == NULL)
        g_string_append_printf (details, "%s%s", details->len ? "\n" : "", line);
    }

  g_free (self->banner_details);
  self->banner_details = g_string_free (details, FALSE);
  g_clear_pointer (&self->banner_title, g_free);
  if (no_debug != NULL && no_debug->len > 0)
    {
      self->banner_title = g_strdup (_("Modules Without Debug Information"));
      text = g_strdup_printf (g_dngettext (HL_GETTEXT_PACKAGE,
                                           "%u module has no debug information: its frames have no source lines",
                                           "%u modules have no debug information: their frames have no source lines",
                                           no_debug->len),
                              no_debug->len);
    }
  else if (n_warnings > 0)
    {
      self->banner_title = g_strdup (_("Warnings"));
      text = g_strdup (warnings[0]);
    }
  if (text != NULL)
    gtk_label_set_label (self->banner_label, text);
  gtk_revealer_set_reveal_child (self->banner_revealer, text != NULL);
}

/* The legend of the heap by call site: each site's colour and function
 * (shortened), then the rest's and RSS's. */
static char *
sites_legend (HlWindow *self)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  HlTimelineData *data = hl_timeline_get_data (self->timeline);
  GString *markup = g_string_new (NULL);
  double rgb[3];

  for (guint k = 0; data != NULL && k < hl_timeline_data_get_n_sites (data); k++)
    {
      const char *label = hl_timeline_data_get_site_label (data, k);
      g_autofree char *shown = hl_format_shortened (label, 36);
      g_autofree char *escaped = g_markup_escape_text (shown, -1);

      hl_timeline_site_color (dark, k, rgb);
      g_string_append_printf (markup, "<span foreground=\"#%02x%02x%02x\">■</span> %s   ",
                              (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255), escaped);
    }
  hl_timeline_heap_color (dark, rgb);
  g_string_append_printf (markup, "<span foreground=\"#%02x%02x%02x\" alpha=\"55%%\">■</span> %s   ",
                          (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255), _("Other call sites"));
  hl_timeline_rss_color (dark, rgb);
  g_string_append_printf (markup, "<span foreground=\"#%02x%02x%02x\">■</span> %s",
                          (int) (rgb[0] * 255), (int) (rgb[1] * 255), (int) (rgb[2] * 255), _("RSS"));
  return g_string_free (markup, FALSE);
}

static void
update_timeline_legend (HlWindow *self)
{
  double heap[3], rss[3], rate[3];
  g_autofree char *markup = NULL;

  if (hl_timeline_get_by_site (self->timeline) && hl_timeline_get_data (self->timeline) != NULL
      && hl_timeline_data_get_n_sites (hl_timeline_get_data (self->timeline)) > 0)
    {
      markup = sites_legend (self);
      gtk_label_set_markup (self->timeline_legend, markup);
      return;
    }

  hl_timeline_heap_color (adw_style_manager_get_dark (adw_style_manager_get_default ()), heap);
  hl_timeline_rss_color (adw_style_manager_get_dark (adw_style_manager_get_default ()), rss);
  hl_timeline_rate_color (adw_style_manager_get_dark (adw_style_manager_get_default ()), rate);
#define HEX(c) (int) ((c)[0] * 255), (int) ((c)[1] * 255), (int) ((c)[2] * 255)
  markup = g_strdup_printf ("<span foreground=\"#%02x%02x%02x\">■</span> %s   "
                            "<span foreground=\"#%02x%02x%02x\">■</span> %s   "
                            "<span foreground=\"#%02x%02x%02x\">■</span> %s   %s",
                            HEX (heap), _("Heap"), HEX (rss), _("RSS"), HEX (rate), _("Allocation rate"),
                            _("Drag or click a band to select; Ctrl+scroll to zoom"));
#undef HEX
  gtk_label_set_markup (self->timeline_legend, markup);
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(HlWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  g_autoptr(HlRecording) recording = NULL;

  if (self->hold_events && cancellable == self->cancellable)
    {
      g_set_object (&self->held_result, result);
      return;
    }
  recording = hl_recording_load_finish (result, &error);
  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;
  /* A load cancelled since (Cancel, or another file opened): its result,
   * or its "cancelled", is not this window's any more. */
  if (cancellable != self->cancellable)
    return;
  /* saved costs arriving after this are not shown (over an error page) */
  self->full_load_landed = TRUE;
  if (recording == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* Cancelled by the user: back to an empty window. */
          g_clear_object (&self->file);
          gtk_window_set_title (GTK_WINDOW (self), _("Heaplens"));
          show_page (self, "start");
          return;
        }
      self->partial = FALSE;
      show_events_strip (self, FALSE);
      show_error (self, error->message);
      return;
    }
  hl_timing_log (&self->open_mark, "open to loaded");
  /* The events replace the saved costs (the flame view keeps its zoom and
   * selection by path; waiting filters apply now). */
  self->partial = FALSE;
  self->filters_waiting = FALSE;
  self->log_fully_loaded = TRUE;
  show_events_strip (self, FALSE);
  /* Live no more: the saved trace is complete (analyses in flight keep
   * their own hold of the session until they land). */
  g_clear_object (&self->live_session);
  self->call_tree_stale = TRUE;
  hl_window_set_recording (self, recording);
  /* a timeline that followed the run shows the whole trace; a zoomed one
   * keeps its zoom */
  if (self->live_follow)
    hl_timeline_reset_zoom (self->timeline);
  self->live_follow = FALSE;
  if (self->call_tree_stale)
    refresh_call_tree (self);
}

/* The costs saved in a large trace, while its events load: the views
 * show them (no timeline yet), the progress of the events above them. */
static void
on_costs_loaded (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(HlWindow) self = user_data;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  g_autoptr(HlRecording) recording = hl_recording_load_finish (result, NULL);

  /* no saved costs (the events will do), another file, or the events
   * were faster */
  if (recording == NULL || gtk_widget_in_destruction (GTK_WIDGET (self)) || cancellable != self->cancellable
      || self->full_load_landed)
    return;
  hl_timing_log (&self->open_mark, "open to saved costs loaded");
  self->partial = TRUE;
  gtk_label_set_label (self->events_label, _("Saved costs shown while the events load"));
  if (gtk_progress_bar_get_fraction (self->events_progress) == 0)
    gtk_progress_bar_set_text (self->events_progress, _("Opening…"));
  show_events_strip (self, TRUE);
  hl_window_set_recording (self, recording);
  /* the saved costs have no times */
  gtk_label_set_label (self->timeline_legend, _("The heap over time is drawn once the events are loaded"));
}

/* The heap by call site of the recording: computed on a worker the first
 * time it is shown (two passes over the allocations and frees: 0.3 s for
 * python3's 10 M events; the recording is only read, as by the analyses'
 * workers), then given to every timeline data the window builds. */
static void
give_sites (HlWindow *self)
{
  HlTimelineData *data = hl_timeline_get_data (self->timeline);

  if (data != NULL && self->site_series != NULL && hl_timeline_data_get_n_sites (data) == 0)
    hl_adapter_timeline_set_sites (data, self->recording, self->site_series);
  gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
  update_timeline_legend (self);
}

static void
site_series_thread (GTask        *task,
                    gpointer      source,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  HlSiteSeries *series = hl_recording_get_site_series (task_data, 0, HL_TIME_END, SITE_BUCKETS, SITE_MAX);

  g_task_return_pointer (task, series, (GDestroyNotify) hl_site_series_free);
}

static void
on_site_series (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(HlWindow) self = user_data;
  HlSiteSeries *series = g_task_propagate_pointer (G_TASK (result), NULL);

  /* another recording since (or the window closed): not this one's */
  if (g_task_get_task_data (G_TASK (result)) != (gpointer) self->recording)
    {
      hl_site_series_free (series);
      return;
    }
  self->site_series = series;
  self->site_series_done = TRUE;
  self->site_series_running = FALSE;
  give_sites (self);
}

static void
show_sites (HlWindow *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->site_series_done || self->site_series_running || self->recording == NULL)
    {
      give_sites (self);
      return;
    }
  self->site_series_running = TRUE;
  task = g_task_new (NULL, NULL, on_site_series, g_object_ref (self));
  g_task_set_task_data (task, g_object_ref (self->recording), g_object_unref);
  g_task_run_in_thread (task, site_series_thread);
}

static void
forget_sites (HlWindow *self)
{
  g_clear_pointer (&self->site_series, hl_site_series_free);
  self->site_series_done = FALSE;
  self->site_series_running = FALSE;
}

static void
on_by_site_toggled (HlWindow *self)
{
  gboolean by_site = gtk_toggle_button_get_active (self->by_site_button);

  if (by_site)
    show_sites (self);
  hl_timeline_set_by_site (self->timeline, by_site);
  update_timeline_legend (self);
}

void
hl_window_set_recording (HlWindow    *self,
                         HlRecording *recording)
{
  g_autoptr(HlTimelineData) timeline = NULL;
  g_autoptr(GMenuModel) menu = NULL;
  const HlThreadInfo *threads;
  HlTimingMark begin, stage;
  guint n;

  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (HL_IS_RECORDING (recording));

  hl_timing_mark (&begin);
  if (self->recording != recording)
    forget_sites (self);
  g_set_object (&self->recording, recording);
  g_hash_table_remove_all (self->thread_names);
  threads = hl_recording_get_threads (recording, &n);
  for (guint i = 0; i < n; i++)
    if (threads[i].name != NULL && threads[i].name[0] != '\0')
      g_hash_table_insert (self->thread_names, GUINT_TO_POINTER (threads[i].tid), g_strdup (threads[i].name));
  /* The analysis runs on workers while this thread makes the rest. */
  start_analysis (self);

  hl_timing_mark (&stage);
  timeline = hl_adapter_timeline_data (recording, 0, HL_TIME_END, TIMELINE_BUCKETS);
  hl_timing_log (&stage, "  timeline data");
  self->timeline_whole = TRUE;
  hl_timeline_set_data (self->timeline, timeline);
  /* a live session's recording holds samples: no call sites over time */
  if (self->live_session != NULL)
    gtk_toggle_button_set_active (self->by_site_button, FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->by_site_button), self->live_session == NULL);
  if (gtk_toggle_button_get_active (self->by_site_button))
    show_sites (self);
  hl_timeline_set_data (hl_summary_view_get_chart (self->summary_view), timeline);
  update_timeline_legend (self);
  hl_timing_mark (&stage);
  menu = hl_adapter_filter_menu (recording);
  gtk_menu_button_set_menu_model (self->filter_button, menu);
  hl_timing_log (&stage, "  filter menu");
  hl_timing_mark (&stage);
  show_banner (self);
  hl_timing_log (&stage, "  banner");
  hl_timing_log (&begin, "recording set (timeline, filter menu, banner)");
}

HlRecording *
hl_window_get_recording (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return self->recording;
}

HlAnalysis *
hl_window_get_analysis (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return self->analysis;
}

static void
on_show_in_call_tree (HlWindow *self,
                      guint     node)
{
  HlFlameData *data = hl_flame_graph_get_data (hl_flame_view_get_graph (self->flame_view));
  HlCallNode call_node;
  g_autoptr(GPtrArray) path = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  if (data == NULL || self->flame_tree == NULL)
    return;
  call_node = hl_adapter_flame_node_call_node (data, node);
  if (call_node == HL_CALL_NODE_NONE)
    return;
  path = hl_call_tree_get_path (self->flame_tree, call_node);
  for (guint i = 0; i < path->len; i++)
    g_ptr_array_add (names, (gpointer) ((const HlFrame *) g_ptr_array_index (path, i))->function);
  /* The inverted graph shows the bottom-up tree: reveal the path there. */
  hl_call_tree_view_set_mode (self->call_tree_view,
                              hl_call_tree_get_kind (self->flame_tree) == HL_CALL_TREE_BOTTOM_UP
                              ? HL_CALL_TREE_MODE_BOTTOM_UP : HL_CALL_TREE_MODE_TOP_DOWN);
  adw_view_stack_set_visible_child_name (self->view_stack, "calltree");
  if (self->call_tree_building)
    {
      /* once the tree being built is shown */
      g_ptr_array_add (names, NULL);
      g_strfreev (self->call_tree_reveal);
      self->call_tree_reveal = g_strdupv ((char **) names->pdata);
    }
  else
    hl_call_tree_view_reveal_path (self->call_tree_view, (const char * const *) names->pdata, names->len);
}

/* Zoomed or panned: fetch the series again for the visible range, so a
 * zoomed timeline shows detail rather than stretched buckets. */
static gboolean
refetch_timeline (gpointer user_data)
{
  HlWindow *self = user_data;
  g_autoptr(HlTimelineData) data = NULL;
  guint64 start, end, duration;

  self->timeline_refetch_id = 0;
  if (self->recording == NULL)
    return G_SOURCE_REMOVE;
  hl_timeline_get_visible_range (self->timeline, &start, &end);
  duration = hl_timeline_data_get_duration (hl_timeline_get_data (self->timeline));
  /* The whole recording is shown from its data already. */
  if (self->timeline_whole && start == 0 && end >= duration)
    return G_SOURCE_REMOVE;
  self->timeline_whole = FALSE;
  /* A margin of a screen on each side keeps panning smooth. */
  data = hl_adapter_timeline_data (self->recording,
                                   start > end - start ? start - (end - start) : 0,
                                   MIN (end + (end - start), duration),
                                   TIMELINE_BUCKETS * 3);
  hl_adapter_timeline_set_sites (data, self->recording, self->site_series);
  hl_timeline_set_data (self->timeline, data);
  return G_SOURCE_REMOVE;
}

static void
on_timeline_visible_range_changed (HlWindow *self)
{
  if (self->recording != NULL && self->timeline_refetch_id == 0)
    self->timeline_refetch_id = g_timeout_add (50, refetch_timeline, self);
}

static void
on_timeline_cursor_changed (HlWindow *self,
                            guint64   time_ns)
{
  self->cursor_ns = time_ns;
  /* The live-at-T flame graph follows the cursor. */
  if (hl_flame_view_get_cost (self->flame_view) == HL_COST_KIND_LIVE)
    start_analysis (self);
}

/* ---- Banner ----------------------------------------------------------- */

static void
on_banner_details_clicked (HlWindow *self)
{
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self),
                                   self->banner_title ? self->banner_title : _("Warnings"),
                                   self->banner_details);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_banner_close_clicked (HlWindow *self)
{
  gtk_revealer_set_reveal_child (self->banner_revealer, FALSE);
}

/* Cancel returns to the empty window at once: the load's workers stop at
 * their next check, and what they return then is dropped (on_loaded). */
static void
on_cancel_clicked (HlWindow *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  /* Loaded already, the first views still being built: those go too, and
   * the window is as a new one (the hidden views keep their last data
   * until the next recording replaces it). */
  g_cancellable_cancel (self->analysis_cancellable);
  g_clear_object (&self->analysis_cancellable);
  self->analysis_cancellable = g_cancellable_new ();
  g_clear_pointer (&self->flame_tree, hl_call_tree_unref);
  g_clear_object (&self->flame_analysis);
  g_clear_object (&self->analysis);
  g_clear_object (&self->recording);
  forget_sites (self);
  self->opening = FALSE;
  self->partial = FALSE;
  self->log_fully_loaded = FALSE;
  show_events_strip (self, FALSE);
  g_clear_object (&self->file);
  gtk_window_set_title (GTK_WINDOW (self), _("Heaplens"));
  show_page (self, "start");
}

/* ---- Drag and drop ---------------------------------------------------- */

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         HlWindow      *self)
{
  GSList *files;
  HlApplication *app = HL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));

  if (app == NULL)
    return FALSE;
  /* Files from a file manager come as a list; one file from some sources. */
  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    files = gdk_file_list_get_files (g_value_get_boxed (value));
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE) && g_value_get_object (value) != NULL)
    files = g_slist_prepend (NULL, g_value_get_object (value));
  else
    return FALSE;
  for (GSList *l = files; l; l = l->next)
    {
      if (hl_window_is_empty (self))
        hl_window_open (self, l->data);
      else
        hl_application_open_file (app, l->data);
    }
  g_slist_free (files);
  return TRUE;
}

/* ---- Window state ----------------------------------------------------- */

static void
load_window_state (HlWindow *self)
{
  HlApplication *app = HL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  GSettings *settings = app ? hl_application_get_settings (app) : NULL;

  if (settings == NULL)
    {
      gtk_window_set_default_size (GTK_WINDOW (self), 1100, 760);
      return;
    }
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (settings, "window-width"),
                               g_settings_get_int (settings, "window-height"));
  if (g_settings_get_boolean (settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static gboolean
hl_window_close_request (GtkWindow *window)
{
  HlWindow *self = HL_WINDOW (window);
  HlApplication *app = HL_APPLICATION (gtk_window_get_application (window));
  GSettings *settings = app ? hl_application_get_settings (app) : NULL;

  if (settings != NULL)
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_delay (settings);
      g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window))
        {
          g_settings_set_int (settings, "window-width", width);
          g_settings_set_int (settings, "window-height", height);
        }
      g_settings_apply (settings);
    }
  g_cancellable_cancel (self->cancellable);
  return GTK_WINDOW_CLASS (hl_window_parent_class)->close_request (window);
}

/* ---- GObject ---------------------------------------------------------- */

static void
hl_window_dispose (GObject *object)
{
  HlWindow *self = HL_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->held_result);
  g_clear_handle_id (&self->timeline_refetch_id, g_source_remove);
  g_cancellable_cancel (self->analysis_cancellable);
  g_clear_object (&self->analysis_cancellable);
  g_cancellable_cancel (self->call_tree_cancellable);
  g_clear_object (&self->call_tree_cancellable);
  g_clear_pointer (&self->call_tree_reveal, g_strfreev);
  g_clear_pointer (&self->flame_tree, hl_call_tree_unref);
  g_clear_object (&self->flame_analysis);
  g_clear_object (&self->analysis);
  g_clear_object (&self->recording);
  forget_sites (self);
  g_clear_pointer (&self->banner_title, g_free);
  g_clear_object (&self->file);
  g_clear_object (&self->live_session);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_pointer (&self->thread_names, g_hash_table_unref);
  g_clear_pointer (&self->banner_details, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), HL_TYPE_WINDOW);
  G_OBJECT_CLASS (hl_window_parent_class)->dispose (object);
}

static void
hl_window_class_init (HlWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = hl_window_dispose;
  window_class->close_request = hl_window_close_request;

  g_type_ensure (HL_TYPE_START_PAGE);
  g_type_ensure (HL_TYPE_FILTER_BAR);
  g_type_ensure (HL_TYPE_TIMELINE);
  g_type_ensure (HL_TYPE_SUMMARY_VIEW);
  g_type_ensure (HL_TYPE_FLAME_VIEW);
  g_type_ensure (HL_TYPE_CALL_TREE_VIEW);
  g_type_ensure (HL_TYPE_ALLOCATIONS_VIEW);

  gtk_widget_class_install_action (widget_class, "win.show-view", "s", action_show_view);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, action_find);
  gtk_widget_class_install_action (widget_class, "win.clear-range", NULL, action_clear_range);
  gtk_widget_class_install_action (widget_class, "win.timeline-reset-zoom", NULL, action_timeline_reset_zoom);
  gtk_widget_class_install_action (widget_class, "win.export-flame-graph", NULL, action_export_flame_graph);
  gtk_widget_class_install_action (widget_class, "win.export-report", NULL, action_export_report);
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, action_compare);
  gtk_widget_class_install_action (widget_class, "win.filter-thread", "u", action_filter_thread);
  gtk_widget_class_install_action (widget_class, "win.filter-metadata", "s", action_filter_metadata);
  gtk_widget_class_install_action (widget_class, "win.filter-module", "s", action_filter_module);
  gtk_widget_class_install_action (widget_class, "win.clear-filters", NULL, action_clear_filters);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HlWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, switcher_bar);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, loading_page);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, loading_progress);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, banner_revealer);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, banner_label);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, filter_bar);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline_legend);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, by_site_button);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, summary_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, flame_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, call_tree_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, allocations_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, filter_button);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, live_slot);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, events_revealer);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, events_label);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, events_progress);
  gtk_widget_class_bind_template_callback (widget_class, on_call_tree_mode_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_chip_removed);
  gtk_widget_class_bind_template_callback (widget_class, on_timeline_selection_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_by_site_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_call_site_activated);
  gtk_widget_class_bind_template_callback (widget_class, on_flame_cost_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_banner_details_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_banner_close_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
}

static void
hl_window_init (HlWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->cursor_ns = HL_TIME_NONE;
  self->thread_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->session = hl_session_new ();
  g_signal_connect_object (self->switcher_title, "notify::title-visible",
                           G_CALLBACK (update_switcher_bar), self, G_CONNECT_SWAPPED);
  g_signal_connect_swapped (self->session, "changed", G_CALLBACK (on_session_changed), self);
  hl_flame_view_set_costs (self->flame_view, hl_cost_get_labels ());
  hl_flame_view_set_cost (self->flame_view, HL_COST_KIND_BYTES);
  g_signal_connect_swapped (hl_flame_view_get_graph (self->flame_view), "notify::inverted",
                            G_CALLBACK (refresh_flame_graph), self);
  g_signal_connect_swapped (hl_flame_view_get_graph (self->flame_view), "show-in-call-tree",
                            G_CALLBACK (on_show_in_call_tree), self);
  g_signal_connect_swapped (self->timeline, "cursor-changed",
                            G_CALLBACK (on_timeline_cursor_changed), self);
  g_signal_connect_swapped (self->timeline, "visible-range-changed",
                            G_CALLBACK (on_timeline_visible_range_changed), self);
  g_signal_connect_swapped (self->view_stack, "notify::visible-child-name",
                            G_CALLBACK (on_visible_view_changed), self);
  show_page (self, "start");
  if (hl_timing_enabled ())
    g_signal_connect (self, "realize", G_CALLBACK (on_realize_timing), NULL);

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, (GType[]) { GDK_TYPE_FILE_LIST, G_TYPE_FILE }, 2);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
