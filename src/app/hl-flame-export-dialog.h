/* hl-flame-export-dialog.h — exporting a flame graph widget: the file
 * chooser and the image as the widget draws it (shared by the recording
 * window and the diff window). */
#pragma once

#include <gtk/gtk.h>

#include "hl-flame-export.h"
#include "hl-flame-graph.h"

G_BEGIN_DECLS

/* A modal save dialog titled "Export Flame Graph" over PARENT, proposing
 * NAME, with filters for SVG, PNG and collapsed stacks (COLLAPSED_LABEL
 * names that filter). Show it; it is the caller's to destroy and unref. */
GtkFileChooserNative *hl_flame_export_dialog_new (GtkWindow  *parent,
                                                  const char *name,
                                                  const char *collapsed_label);

/* Writes GRAPH's data to FILE in FORMAT as the widget draws it (its
 * colours, search and zoom; light colours, no selection outline; at least
 * 1200 pixels wide). An error when the graph has no data. */
gboolean hl_flame_graph_export (HlFlameGraph         *graph,
                                HlFlameExportFormat   format,
                                GFile                *file,
                                GError              **error);

G_END_DECLS
