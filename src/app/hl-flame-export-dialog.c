/* hl-flame-export-dialog.c — exporting a flame graph widget. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-flame-export-dialog.h"

GtkFileChooserNative *
hl_flame_export_dialog_new (GtkWindow  *parent,
                            const char *name,
                            const char *collapsed_label)
{
  GtkFileChooserNative *dialog;
  const struct { const char *name, *pattern; } filters[] = {
    { _("SVG image"), "*.svg" },
    { _("PNG image"), "*.png" },
    { collapsed_label, "*.txt" },
  };

  dialog = gtk_file_chooser_native_new (_("Export Flame Graph"), parent,
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  for (guint i = 0; i < G_N_ELEMENTS (filters); i++)
    {
      g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, filters[i].name);
      gtk_file_filter_add_pattern (filter, filters[i].pattern);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
    }
  return dialog;
}

gboolean
hl_flame_graph_export (HlFlameGraph         *graph,
                       HlFlameExportFormat   format,
                       GFile                *file,
                       GError              **error)
{
  HlFlameData *data;
  HlFlameViewport vp;
  HlFlameStyle style;

  g_return_val_if_fail (HL_IS_FLAME_GRAPH (graph), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  data = hl_flame_graph_get_data (graph);
  if (data == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("There is no flame graph to export"));
      return FALSE;
    }
  hl_flame_graph_get_viewport (graph, &vp);
  if (vp.width < 100)
    vp.width = 1200;
  hl_flame_graph_get_style (graph, &style);
  /* A file to share: light colours, the default font, no outline. */
  style.dark = FALSE;
  style.selected = -1;
  style.font = NULL;
  return hl_flame_export (data, &vp, &style, format, file, error);
}
