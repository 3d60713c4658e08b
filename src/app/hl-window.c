/* hl-window.c — the window of one recording: a thin shell around the
 * views. It holds the header bar, the pages, the actions, the view state
 * (HlViewState) and the document (HlDocument); the other parts of the class
 * are in the files hl-window-private.h lists. */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-adapter-filter.h"
#include "hl-cost.h"
#include "hl-filter-dialogs.h"
#include "hl-start-page.h"
#include "hl-window-private.h"

G_DEFINE_FINAL_TYPE (HlWindow, hl_window, ADW_TYPE_APPLICATION_WINDOW)

HlWindow *
hl_window_new (HlApplication *app)
{
  return g_object_new (HL_TYPE_WINDOW, "application", app, NULL);
}

gboolean
hl_window_is_empty (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return hl_document_get_file (self->document) == NULL && hl_window_recording (self) == NULL;
}

HlDocument *
hl_window_get_document (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return self->document;
}

void
hl_window_bind_settings (HlWindow  *self,
                         GSettings *settings)
{
  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (G_IS_SETTINGS (settings));
  /* every window shows the columns chosen last, in any of them */
  g_settings_bind (settings, "tree-columns", self->call_tree_view, "columns", G_SETTINGS_BIND_DEFAULT);
}

const char *
hl_window_get_page (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->main_stack);
}

const char *
hl_window_get_banner_text (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return gtk_revealer_get_reveal_child (self->banner_revealer) ? gtk_label_get_label (self->banner_label) : NULL;
}

gboolean
hl_window_shows_saved_costs (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  return hl_document_get_partial (self->document);
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

HlViewState *
hl_window_get_view_state (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return self->session;
}

HlRecording *
hl_window_get_recording (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return hl_window_recording (self);
}

HlAnalysis *
hl_window_get_analysis (HlWindow *self)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), NULL);
  return hl_window_analysis (self);
}

/* ---- Actions and view state ------------------------------------------ */

gboolean
hl_window_has_views (HlWindow *self)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "views") == 0;
}

/* The enabled state of every window action, computed in one place. */
void
hl_window_update_actions (HlWindow *self)
{
  gboolean views = hl_window_has_views (self);
  guint64 start, end;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-view", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.filter-function", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.filter-size", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.timeline-reset-zoom", views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-flame-graph",
                                 views && hl_flame_graph_get_data (hl_flame_view_get_graph (self->flame_view)) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-report", views && hl_window_analysis (self) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-profile", views && hl_window_analysis (self) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare", views && hl_window_recording (self) != NULL
                                 && !hl_document_get_partial (self->document));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clear-filters",
                                 views && hl_view_state_has_filters (self->session));
  gtk_widget_set_visible (GTK_WIDGET (self->filter_button), views);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clear-range",
                                 views && hl_view_state_get_range (self->session, &start, &end));
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

void
hl_window_show_page (HlWindow   *self,
                     const char *name)
{
  gtk_stack_set_visible_child_name (self->main_stack, name);
  /* The view switcher only means something when there are views. */
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title, g_str_equal (name, "views"));
  update_switcher_bar (self);
  hl_window_update_actions (self);
}

static void
on_session_changed (HlWindow *self)
{
  guint64 start, end;

  /* Chips and the timeline follow the session; then every view refilters. */
  hl_filter_bar_show_session (self->filter_bar, self->session);
  if (hl_view_state_get_range (self->session, &start, &end))
    hl_timeline_set_selection (self->timeline, start, end);
  else
    hl_timeline_clear_selection (self->timeline);
  hl_window_update_actions (self);
  hl_window_start_analysis (self);
}

static void
on_chip_removed (HlWindow   *self,
                 const char *id)
{
  hl_view_state_remove_filter (self->session, id);
}

static void
on_timeline_selection_changed (HlWindow *self)
{
  guint64 start, end;

  if (hl_timeline_get_selection (self->timeline, &start, &end))
    hl_view_state_set_range (self->session, start, end);
  else
    hl_view_state_clear_range (self->session);
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

/* A thread of the summary's table: the window shows only its allocations,
 * as its entry in the filter menu does. */
static void
on_thread_activated (HlWindow *self,
                     guint     tid)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.filter-thread", "u", tid);
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

/* The actions without a parameter: win.find, win.clear-range,
 * win.timeline-reset-zoom, win.clear-filters. */
static void
action_activate (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);

  if (g_str_equal (action_name, "win.find"))
    {
      adw_view_stack_set_visible_child_name (self->view_stack, "flamegraph");
      hl_flame_view_focus_search (self->flame_view);
    }
  else if (g_str_equal (action_name, "win.clear-range"))
    hl_view_state_clear_range (self->session);
  else if (g_str_equal (action_name, "win.timeline-reset-zoom"))
    hl_timeline_reset_zoom (self->timeline);
  else if (g_str_equal (action_name, "win.clear-filters"))
    hl_view_state_clear_filters (self->session);
}

/* win.show-toast (s): for the parts of the application that only know
 * a GtkWindow (the live actions' errors). */
static void
action_show_toast (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  hl_window_show_toast (HL_WINDOW (widget), g_variant_get_string (param, NULL));
}

static void
action_live_scan_leaks (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  hl_window_live_scan_leaks (HL_WINDOW (widget));
}

static void
action_live_mark (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  hl_window_live_mark (HL_WINDOW (widget));
}

static void
action_filter_thread (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  guint tid = g_variant_get_uint32 (param);

  hl_view_state_add_thread (self->session, tid,
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
  hl_view_state_add_metadata (self->session, key, eq + 1);
}

static void
action_filter_module (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  hl_view_state_add_module (HL_WINDOW (widget)->session, g_variant_get_string (param, NULL));
}

static void
action_filter_dialog (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  AdwMessageDialog *dialog = g_str_equal (action_name, "win.filter-size")
                               ? hl_filter_dialog_size_new (GTK_WINDOW (self), self->session)
                               : hl_filter_dialog_function_new (GTK_WINDOW (self), self->session);

  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- The recording ---------------------------------------------------- */

static void
show_banner (HlWindow *self)
{
  const char * const *warnings = hl_recording_get_warnings (hl_window_recording (self));
  g_autoptr(GPtrArray) no_debug = hl_recording_get_modules_without_debug_info (hl_window_recording (self));
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
  if (hl_recording_get_sample_bytes (hl_window_recording (self)) != 0)
    {
      /* sampled: every number but the live counters is an estimate, which
       * matters more than missing source lines (in Details with the rest) */
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, hl_recording_get_sample_bytes (hl_window_recording (self)));
      self->banner_title = g_strdup (_("Sampled Recording"));
      /* Translators: %s is a number of bytes, e.g. "Sampled every 524288 bytes…" */
      text = g_strdup_printf (_("Sampled every %s bytes allocated on average: counts and sizes are estimates (≈)"), n);
    }
  else if (no_debug != NULL && no_debug->len > 0)
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

void
hl_window_set_recording (HlWindow    *self,
                         HlRecording *recording)
{
  g_autoptr(GMenuModel) menu = NULL;
  const HlThreadInfo *threads;
  HlTimingMark begin, stage;
  guint n;

  g_return_if_fail (HL_IS_WINDOW (self));
  g_return_if_fail (HL_IS_RECORDING (recording));

  hl_timing_mark (&begin);
  if (hl_window_recording (self) != recording)
    hl_window_forget_sites (self);
  hl_analysis_scheduler_set_recording (self->analyses, recording);
  g_hash_table_remove_all (self->thread_names);
  threads = hl_recording_get_threads (recording, &n);
  for (guint i = 0; i < n; i++)
    if (threads[i].name != NULL && threads[i].name[0] != '\0')
      g_hash_table_insert (self->thread_names, GUINT_TO_POINTER (threads[i].tid), g_strdup (threads[i].name));
  /* The analysis runs on workers while this thread makes the rest. */
  hl_window_start_analysis (self);

  hl_window_show_timeline (self);
  hl_timing_mark (&stage);
  menu = hl_adapter_filter_menu (recording);
  gtk_menu_button_set_menu_model (self->filter_button, menu);
  hl_timing_log (&stage, "  filter menu");
  hl_timing_mark (&stage);
  show_banner (self);
  hl_timing_log (&stage, "  banner");
  hl_timing_log (&begin, "recording set (timeline, filter menu, banner)");
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

/* ---- Drag and drop ---------------------------------------------------- */

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         HlWindow      *self)
{
  GApplication *app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  GSList *files;

  if (app == NULL)
    return FALSE;
  /* Files from a file manager come as a list; one file from some sources. */
  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    files = gdk_file_list_get_files (g_value_get_boxed (value));
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE) && g_value_get_object (value) != NULL)
    files = g_slist_prepend (NULL, g_value_get_object (value));
  else
    return FALSE;
  /* the first here when the window is empty, each other in a window of
   * its own (the application's "open") */
  for (GSList *l = files; l; l = l->next)
    {
      GFile *file = l->data;

      if (hl_window_is_empty (self))
        hl_window_open (self, file);
      else
        g_application_open (app, &file, 1, "");
    }
  g_slist_free (files);
  return TRUE;
}

/* ---- GObject ---------------------------------------------------------- */

static gboolean
hl_window_close_request (GtkWindow *window)
{
  hl_document_stop (HL_WINDOW (window)->document);
  return GTK_WINDOW_CLASS (hl_window_parent_class)->close_request (window);
}

static void
hl_window_dispose (GObject *object)
{
  HlWindow *self = HL_WINDOW (object);

  if (self->document != NULL)
    {
      hl_document_stop (self->document);
      g_signal_handlers_disconnect_by_data (self->document, self);
    }
  g_clear_object (&self->document);
  g_clear_handle_id (&self->timeline_refetch_id, g_source_remove);
  g_clear_handle_id (&self->timeline_fit_id, g_source_remove);
  hl_window_dispose_views (self);
  hl_window_forget_sites (self);
  g_clear_pointer (&self->banner_title, g_free);
  if (self->analyses != NULL)
    {
      hl_analysis_scheduler_set_live_session (self->analyses, NULL);
      hl_analysis_scheduler_set_recording (self->analyses, NULL);
      g_signal_handlers_disconnect_by_data (self->analyses, self);
    }
  g_clear_object (&self->analyses);
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
  gtk_widget_class_install_action (widget_class, "win.find", NULL, action_activate);
  gtk_widget_class_install_action (widget_class, "win.clear-range", NULL, action_activate);
  gtk_widget_class_install_action (widget_class, "win.timeline-reset-zoom", NULL, action_activate);
  hl_window_class_add_export_actions (widget_class);
  hl_window_class_add_compare_action (widget_class);
  gtk_widget_class_install_action (widget_class, "win.filter-thread", "u", action_filter_thread);
  gtk_widget_class_install_action (widget_class, "win.filter-metadata", "s", action_filter_metadata);
  gtk_widget_class_install_action (widget_class, "win.filter-module", "s", action_filter_module);
  gtk_widget_class_install_action (widget_class, "win.filter-function", NULL, action_filter_dialog);
  gtk_widget_class_install_action (widget_class, "win.filter-size", NULL, action_filter_dialog);
  gtk_widget_class_install_action (widget_class, "win.clear-filters", NULL, action_activate);
  gtk_widget_class_install_action (widget_class, "win.show-toast", "s", action_show_toast);
  gtk_widget_class_install_action (widget_class, "win.live-mark", NULL, action_live_mark);
  gtk_widget_class_install_action (widget_class, "win.live-scan-leaks", NULL, action_live_scan_leaks);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/heaplens/Heaplens/ui/hl-window.ui");
  gtk_widget_class_bind_template_child (widget_class, HlWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, switcher_bar);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline_paned);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, loading_page);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, loading_progress);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, banner_revealer);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, banner_label);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, filter_bar);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline_legend_squeezer);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline_legend);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline_legend_keys);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, timeline_legend_short);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, by_site_button);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, live_mark_button);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, live_scan_button);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, summary_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, flame_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, call_tree_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, allocations_view);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, filter_button);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, live_slot);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, events_revealer);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, events_label);
  gtk_widget_class_bind_template_child (widget_class, HlWindow, events_progress);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_call_tree_mode_changed", G_CALLBACK (hl_window_on_call_tree_mode_changed));
  gtk_widget_class_bind_template_callback (widget_class, on_chip_removed);
  gtk_widget_class_bind_template_callback (widget_class, on_timeline_selection_changed);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_by_site_toggled", G_CALLBACK (hl_window_on_by_site_toggled));
  gtk_widget_class_bind_template_callback (widget_class, on_call_site_activated);
  gtk_widget_class_bind_template_callback (widget_class, on_thread_activated);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_flame_cost_changed", G_CALLBACK (hl_window_on_flame_cost_changed));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_flame_lifetime_changed",
                                                G_CALLBACK (hl_window_on_flame_lifetime_changed));
  gtk_widget_class_bind_template_callback (widget_class, on_banner_details_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_banner_close_clicked);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_cancel_clicked", G_CALLBACK (hl_window_on_cancel_clicked));
}

static void
hl_window_init (HlWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));
  /* the application sets the size it saved (hl-application.c) */
  gtk_window_set_default_size (GTK_WINDOW (self), 1100, 760);

  self->thread_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->session = hl_view_state_new ();
  hl_window_init_load (self);
  g_signal_connect_object (self->switcher_title, "notify::title-visible",
                           G_CALLBACK (update_switcher_bar), self, G_CONNECT_SWAPPED);
  g_signal_connect_swapped (self->session, "changed", G_CALLBACK (on_session_changed), self);
  hl_flame_view_set_costs (self->flame_view, hl_cost_get_labels ());
  hl_flame_view_set_cost (self->flame_view, HL_COST_KIND_BYTES);
  hl_flame_view_set_lifetime_cost (self->flame_view, HL_COST_KIND_LONG_LIVED);
  hl_window_init_views (self);
  hl_window_init_timeline (self);
  hl_window_show_page (self, "start");
  hl_window_count_frames (self);

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, (GType[]) { GDK_TYPE_FILE_LIST, G_TYPE_FILE }, 2);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
