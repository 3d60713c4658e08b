/* hl-diff-window.c — a window comparing two recordings. */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-cost.h"
#include "hl-diff-filter.h"
#include "hl-diff-flame.h"
#include "hl-diff-window.h"
#include "hl-filter-bar.h"
#include "hl-flame-export-dialog.h"

struct _HlDiffWindow
{
  AdwApplicationWindow parent_instance;

  /* Borrowed widgets */
  AdwToastOverlay *toast_overlay;
  AdwWindowTitle  *title;
  GtkStack        *stack;
  AdwStatusPage   *error_page;
  HlFilterBar     *filter_bar;
  HlDiffView      *view;

  /* Owned */
  GCancellable    *cancellable;
  GFile           *files[2];
  HlRecording     *recordings[2];
  HlAnalysis      *analyses[2];
  HlViewState       *session;       /* the filters, or NULL */
  HlRecording     *origin;        /* whose thread ids the session names */
  guint            generation;    /* of compare(): late answers of an earlier one are dropped */
};

typedef struct
{
  HlDiffWindow *self;
  guint         generation;
  guint         side;
} Pending;

static Pending *
pending_new (HlDiffWindow *self,
             guint         side)
{
  Pending *p = g_new (Pending, 1);

  p->self = g_object_ref (self);
  p->generation = self->generation;
  p->side = side;
  return p;
}

/* Frees P and its reference (callers hold their own); returns its window
 * when the answer is still wanted, NULL when compare() was called again. */
static HlDiffWindow *
pending_finish (Pending *p)
{
  HlDiffWindow *self = p->self;
  gboolean current = p->generation == self->generation;

  g_free (p);
  g_object_unref (self);
  return current ? self : NULL;
}

G_DEFINE_FINAL_TYPE (HlDiffWindow, hl_diff_window, ADW_TYPE_APPLICATION_WINDOW)

HlDiffWindow *
hl_diff_window_new (GtkApplication *app)
{
  return g_object_new (HL_TYPE_DIFF_WINDOW, "application", app, NULL);
}

static void
update_actions (HlDiffWindow *self)
{
  gboolean shown = g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "diff") == 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.swap", shown);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-flame-graph", shown);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find", shown);
}

static void
show_page (HlDiffWindow *self,
           const char   *name)
{
  gtk_stack_set_visible_child_name (self->stack, name);
  update_actions (self);
}

static void
show_error (HlDiffWindow *self,
            GFile        *file,
            const char   *message)
{
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : NULL;
  g_autofree char *text = name != NULL ? g_strdup_printf ("%s: %s", name, message) : g_strdup (message);

  adw_status_page_set_description (self->error_page, text);
  show_page (self, "error");
}

static void step (HlDiffWindow *self);

static void
on_analysis_ready (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  HlAnalysis *analysis = hl_analysis_new_finish (result, &error);
  guint side = ((Pending *) user_data)->side;
  HlDiffWindow *self = g_object_ref (((Pending *) user_data)->self);

  if (pending_finish (user_data) == NULL)
    g_clear_object (&analysis);
  else if (analysis == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, NULL, error->message);
    }
  else
    {
      g_clear_object (&self->analyses[side]);
      self->analyses[side] = analysis;
      step (self);
    }
  g_object_unref (self);
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  HlRecording *recording = hl_recording_load_finish (result, &error);
  guint side = ((Pending *) user_data)->side;
  HlDiffWindow *self = g_object_ref (((Pending *) user_data)->self);

  if (pending_finish (user_data) == NULL)
    g_clear_object (&recording);
  else if (recording == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, self->files[side], error->message);
    }
  else
    {
      g_clear_object (&self->recordings[side]);
      self->recordings[side] = recording;
      step (self);
    }
  g_object_unref (self);
}

static char *
display_name (GFile       *file,
              const char  *fallback)
{
  return file != NULL ? g_file_get_basename (file) : g_strdup (fallback);
}

/* COMPARED: the view shows these two recordings (the subtitle says how
 * many frames matched). */
static void
update_title (HlDiffWindow *self,
              gboolean      compared)
{
  g_autofree char *a_name = display_name (self->files[0], "A");
  g_autofree char *b_name = display_name (self->files[1], "B");
  /* Translators: window title, "a.hltrace → b.hltrace" */
  g_autofree char *title = g_strdup_printf (_("%s → %s"), a_name, b_name);
  /* Translators: window subtitle, which recording is A and which is B */
  g_autofree char *subtitle = g_strdup_printf (_("A: %s · B: %s"), a_name, b_name);

  /* and, once compared, how many of their frames matched */
  if (compared && hl_diff_view_get_tree (self->view) != NULL)
    {
      char *with_matches = g_strdup_printf ("%s · %s", subtitle, hl_diff_view_get_match_text (self->view));

      g_free (subtitle);
      subtitle = with_matches;
    }

  gtk_window_set_title (GTK_WINDOW (self), title);
  adw_window_title_set_title (self->title, _("Compare Recordings"));
  adw_window_title_set_subtitle (self->title, subtitle);
}

/* One thing at a time: load A, load B, analyse A, analyse B, show. */
static void
step (HlDiffWindow *self)
{
  for (guint i = 0; i < 2; i++)
    if (self->recordings[i] == NULL)
      {
        hl_recording_load_async (self->files[i], HL_LOAD_FLAGS_NONE, self->cancellable,
                                 NULL, NULL, NULL, on_loaded, pending_new (self, i));
        return;
      }
  for (guint i = 0; i < 2; i++)
    if (self->analyses[i] == NULL)
      {
        g_autoptr(HlFilter) filter = self->session != NULL
                                       ? hl_diff_filter_for (self->session, self->origin, self->recordings[i])
                                       : hl_filter_new ();

        hl_analysis_new_async (self->recordings[i], filter, self->cancellable,
                               on_analysis_ready, pending_new (self, i));
        return;
      }
  hl_diff_view_set_analyses (self->view, self->analyses[0], self->analyses[1]);
  update_title (self, TRUE);
  show_page (self, "diff");
}

/* Drops what is under way and starts again from what is loaded. */
static void
restart (HlDiffWindow *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->generation++;
}

void
hl_diff_window_compare (HlDiffWindow *self,
                        GFile        *a_file,
                        HlRecording  *a_recording,
                        GFile        *b_file,
                        HlRecording  *b_recording)
{
  g_return_if_fail (HL_IS_DIFF_WINDOW (self));
  g_return_if_fail (a_file != NULL || a_recording != NULL);
  g_return_if_fail (b_file != NULL || b_recording != NULL);

  restart (self);
  for (guint i = 0; i < 2; i++)
    {
      g_clear_object (&self->files[i]);
      g_clear_object (&self->recordings[i]);
      g_clear_object (&self->analyses[i]);
    }
  if (a_file != NULL)
    self->files[0] = g_object_ref (a_file);
  if (b_file != NULL)
    self->files[1] = g_object_ref (b_file);
  if (a_recording != NULL)
    self->recordings[0] = g_object_ref (a_recording);
  if (b_recording != NULL)
    self->recordings[1] = g_object_ref (b_recording);

  update_title (self, FALSE);
  show_page (self, "loading");
  step (self);
}

/* ---- Filters ---------------------------------------------------------- */

static void
on_session_changed (HlDiffWindow *self)
{
  hl_filter_bar_show_session (self->filter_bar, self->session);
  if (self->recordings[0] == NULL && self->recordings[1] == NULL)
    return;  /* nothing to compare yet: compare() analyses with these */
  restart (self);
  g_clear_object (&self->analyses[0]);
  g_clear_object (&self->analyses[1]);
  show_page (self, "loading");
  step (self);
}

static void
on_chip_removed (HlDiffWindow *self,
                 const char   *id)
{
  if (self->session != NULL)
    hl_view_state_remove_filter (self->session, id);
}

void
hl_diff_window_set_filters (HlDiffWindow *self,
                            HlViewState    *session,
                            HlRecording  *origin)
{
  g_return_if_fail (HL_IS_DIFF_WINDOW (self));
  g_return_if_fail (session == NULL || HL_IS_VIEW_STATE (session));

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_set_object (&self->origin, origin);
  if (session != NULL)
    {
      self->session = hl_view_state_copy (session);
      g_signal_connect_swapped (self->session, "changed", G_CALLBACK (on_session_changed), self);
    }
  hl_filter_bar_show_session (self->filter_bar, self->session);
}

HlViewState *
hl_diff_window_get_session (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return self->session;
}

HlFilterBar *
hl_diff_window_get_filter_bar (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return self->filter_bar;
}

/* ---- Swap ------------------------------------------------------------- */

#define SWAP(type, x, y) G_STMT_START { type t_ = (x); (x) = (y); (y) = t_; } G_STMT_END

void
hl_diff_window_swap (HlDiffWindow *self)
{
  g_return_if_fail (HL_IS_DIFF_WINDOW (self));

  SWAP (GFile *, self->files[0], self->files[1]);
  SWAP (HlRecording *, self->recordings[0], self->recordings[1]);
  SWAP (HlAnalysis *, self->analyses[0], self->analyses[1]);
  if (self->analyses[0] != NULL && self->analyses[1] != NULL)
    {
      hl_diff_view_set_analyses (self->view, self->analyses[0], self->analyses[1]);
      update_title (self, TRUE);
    }
  else
    {
      update_title (self, FALSE);
      /* Half-way: start the remaining steps again for the new sides. */
      restart (self);
      show_page (self, "loading");
      step (self);
    }
}

static void
action_swap (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  hl_diff_window_swap (HL_DIFF_WINDOW (widget));
}

static void
action_find (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  hl_flame_view_focus_search (hl_diff_view_get_flame_view (HL_DIFF_WINDOW (widget)->view));
}

/* ---- Export ----------------------------------------------------------- */

gboolean
hl_diff_window_export_flame_graph (HlDiffWindow *self,
                                   GFile        *file,
                                   GError      **error)
{
  HlFlameGraph *graph;
  HlFlameData *data;
  HlFlameExportFormat format;

  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  graph = hl_diff_view_get_graph (self->view);
  data = hl_flame_graph_get_data (graph);
  if (data == NULL || hl_diff_view_get_graph_tree (self->view) == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("There is no flame graph to export"));
      return FALSE;
    }
  format = hl_flame_export_format_for_file (file);
  if (format == HL_FLAME_EXPORT_COLLAPSED)
    {
      HlDiffFlameInfo *info = hl_diff_flame_info_new (hl_diff_view_get_graph_tree (self->view),
                                                      hl_diff_view_get_cost (self->view));
      g_autofree char *text = hl_diff_flame_to_collapsed (data, info);

      hl_diff_flame_info_free (info);
      return g_file_replace_contents (file, text, strlen (text), NULL, FALSE,
                                      G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
    }
  /* SVG and PNG: drawn as on screen, colours by growth included. */
  return hl_flame_graph_export (graph, format, file, error);
}

static void
on_export_response (GtkNativeDialog *dialog,
                    int              response,
                    HlDiffWindow    *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GError) error = NULL;

      if (!hl_diff_window_export_flame_graph (self, file, &error))
        adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (error->message));
      else
        adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (_("Flame graph exported")));
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
action_export_flame_graph (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  HlDiffWindow *self = HL_DIFF_WINDOW (widget);
  GtkFileChooserNative *dialog;

  dialog = hl_flame_export_dialog_new (GTK_WINDOW (self), "heaplens-diff.svg",
                                       _("Collapsed stacks of A and B (flamegraph.pl)"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ---- For tests -------------------------------------------------------- */

HlDiffView *
hl_diff_window_get_view (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return self->view;
}

const char *
hl_diff_window_get_page (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
hl_diff_window_get_error (HlDiffWindow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_WINDOW (self), NULL);
  return adw_status_page_get_description (self->error_page);
}

/* ---- GObject ---------------------------------------------------------- */

static void
hl_diff_window_dispose (GObject *object)
{
  HlDiffWindow *self = HL_DIFF_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  for (guint i = 0; i < 2; i++)
    {
      g_clear_object (&self->files[i]);
      g_clear_object (&self->recordings[i]);
      g_clear_object (&self->analyses[i]);
    }
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_object (&self->origin);
  G_OBJECT_CLASS (hl_diff_window_parent_class)->dispose (object);
}

static void
hl_diff_window_class_init (HlDiffWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = hl_diff_window_dispose;
  gtk_widget_class_install_action (widget_class, "win.swap", NULL, action_swap);
  gtk_widget_class_install_action (widget_class, "win.export-flame-graph", NULL, action_export_flame_graph);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, action_find);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.find", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.export-flame-graph", NULL);
}

static GtkWidget *
header_button (const char *icon,
               const char *tooltip,
               const char *action)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  return button;
}

static void
hl_diff_window_init (HlDiffWindow *self)
{
  GtkWidget *toolbar = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *loading = adw_status_page_new ();
  GtkWidget *spinner = gtk_spinner_new ();

  gtk_window_set_default_size (GTK_WINDOW (self), 1200, 800);
  gtk_window_set_title (GTK_WINDOW (self), _("Compare Recordings"));
  self->title = ADW_WINDOW_TITLE (adw_window_title_new (_("Compare Recordings"), NULL));
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), GTK_WIDGET (self->title));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header),
                             header_button ("object-flip-horizontal-symbolic", _("Swap A and B"), "win.swap"));
  adw_header_bar_pack_end (ADW_HEADER_BAR (header),
                           header_button ("document-save-symbolic", _("Export Flame Graph…"),
                                          "win.export-flame-graph"));
  gtk_box_append (GTK_BOX (toolbar), header);

  self->filter_bar = HL_FILTER_BAR (hl_filter_bar_new ());
  g_signal_connect_swapped (self->filter_bar, "chip-removed", G_CALLBACK (on_chip_removed), self);
  gtk_box_append (GTK_BOX (toolbar), GTK_WIDGET (self->filter_bar));

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
  adw_status_page_set_title (ADW_STATUS_PAGE (loading), _("Comparing Recordings…"));
  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_widget_set_halign (spinner, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spinner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Comparing Recordings…"), -1);
  adw_status_page_set_child (ADW_STATUS_PAGE (loading), spinner);
  gtk_stack_add_named (self->stack, loading, "loading");

  self->error_page = ADW_STATUS_PAGE (adw_status_page_new ());
  adw_status_page_set_icon_name (self->error_page, "dialog-error-symbolic");
  adw_status_page_set_title (self->error_page, _("Could Not Compare"));
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->error_page), "error");

  self->view = HL_DIFF_VIEW (hl_diff_view_new ());
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->view), "diff");
  gtk_box_append (GTK_BOX (toolbar), GTK_WIDGET (self->stack));
  self->toast_overlay = ADW_TOAST_OVERLAY (adw_toast_overlay_new ());
  adw_toast_overlay_set_child (self->toast_overlay, toolbar);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (self), GTK_WIDGET (self->toast_overlay));
  show_page (self, "loading");
}
