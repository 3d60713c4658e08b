/* hl-window-export.c — Export Flame Graph… (SVG or collapsed stacks),
 * Export Report… (JSON, as `heaplens-cli report --json`) and Export
 * Profile… (pprof or speedscope, as `heaplens-cli export`). */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-flame-export-dialog.h"
#include "hl-report-export.h"
#include "hl-window-private.h"

typedef gboolean (*ExportFunc) (HlWindow  *self,
                                GFile     *file,
                                GError   **error);

GtkFileChooserNative *
hl_window_new_file_dialog (HlWindow             *self,
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

/* "trace-SUFFIX" for the file shown (its .hltrace taken off). */
static char *
suggested_name (HlWindow   *self,
                const char *suffix)
{
  GFile *file = hl_document_get_file (self->document);
  g_autofree char *base = file != NULL ? g_file_get_basename (file) : g_strdup ("heaplens");

  if (g_str_has_suffix (base, ".hltrace"))
    base[strlen (base) - strlen (".hltrace")] = '\0';
  return g_strconcat (base, suffix, NULL);
}

static void
on_save_response (GtkNativeDialog *dialog,
                  int              response,
                  HlWindow        *self)
{
  ExportFunc export = (ExportFunc) g_object_get_data (G_OBJECT (dialog), "hl-export");
  const char *done = g_object_get_data (G_OBJECT (dialog), "hl-export-done");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GError) error = NULL;

      if (!export (self, file, &error))
        hl_window_show_toast (self, error->message);
      else
        hl_window_show_toast (self, done);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

/* Shows DIALOG; the file chosen goes to EXPORT, DONE is said after. */
static void
run_save_dialog (HlWindow             *self,
                 GtkFileChooserNative *dialog,
                 ExportFunc            export,
                 const char           *done)
{
  g_object_set_data (G_OBJECT (dialog), "hl-export", (gpointer) export);
  g_object_set_data (G_OBJECT (dialog), "hl-export-done", (gpointer) done);
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
action_export_flame_graph (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  g_autofree char *name = suggested_name (self, "-flamegraph.svg");

  run_save_dialog (self, hl_flame_export_dialog_new (GTK_WINDOW (self), name,
                                                     _("Collapsed stacks (flamegraph.pl, speedscope)")),
                   hl_window_export_flame_graph, _("Flame graph exported"));
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

static void
action_export_report (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  g_autofree char *name = suggested_name (self, "-report.json");
  GtkFileChooserNative *dialog;

  dialog = hl_window_new_file_dialog (self, _("Export Report"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                      _("JSON report"), "*.json");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  run_save_dialog (self, dialog, hl_window_export_report, _("Report exported"));
}

gboolean
hl_window_export_report (HlWindow  *self,
                         GFile     *file,
                         GError   **error)
{
  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  if (hl_window_analysis (self) == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("There is no report to export"));
      return FALSE;
    }
  return hl_report_export (hl_window_analysis (self), hl_document_get_file (self->document), file, error);
}

static void
action_export_profile (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  HlWindow *self = HL_WINDOW (widget);
  g_autofree char *name = suggested_name (self, ".pb.gz");
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) speedscope = gtk_file_filter_new ();

  dialog = hl_window_new_file_dialog (self, _("Export Profile"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                      _("pprof profile (go tool pprof, Pyroscope, Parca)"), "*.pb.gz");
  gtk_file_filter_set_name (speedscope, _("speedscope file"));
  gtk_file_filter_add_pattern (speedscope, "*.json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), speedscope);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  run_save_dialog (self, dialog, hl_window_export_profile, _("Profile exported"));
}

static gboolean
is_pprof_name (const char *base)
{
  return g_str_has_suffix (base, ".pb.gz") || g_str_has_suffix (base, ".pprof") || g_str_has_suffix (base, ".pb");
}

gboolean
hl_window_export_profile (HlWindow  *self,
                          GFile     *file,
                          GError   **error)
{
  HlAnalysis *analysis;
  GFile *source;
  g_autofree char *base = NULL, *source_name = NULL;
  g_autoptr(GBytes) bytes = NULL;
  HlCostKind kind;

  g_return_val_if_fail (HL_IS_WINDOW (self), FALSE);
  analysis = hl_window_analysis (self);
  if (analysis == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("There is no profile to export"));
      return FALSE;
    }
  kind = (HlCostKind) hl_flame_view_get_cost (self->flame_view);
  source = hl_document_get_file (self->document);
  source_name = source != NULL ? g_file_get_basename (source) : g_strdup ("heaplens");
  base = g_file_get_basename (file);
  if (is_pprof_name (base))
    {
      g_autofree char *path = source != NULL ? g_file_get_path (source) : NULL;
      bytes = hl_export_pprof (analysis, path != NULL ? path : source_name, kind, error);
      if (bytes == NULL)
        return FALSE;
    }
  else
    {
      char *text = hl_export_speedscope (analysis, source_name, kind);
      bytes = g_bytes_new_take (text, strlen (text));
    }
  return g_file_replace_contents (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL, FALSE,
                                  G_FILE_CREATE_PRIVATE | G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}

void
hl_window_class_add_export_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.export-profile", NULL, action_export_profile);
  gtk_widget_class_install_action (widget_class, "win.export-flame-graph", NULL, action_export_flame_graph);
  gtk_widget_class_install_action (widget_class, "win.export-report", NULL, action_export_report);
}
