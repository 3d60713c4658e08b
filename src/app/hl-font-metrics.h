/* hl-font-metrics.h — the size of a widget's font, for widgets that draw
 * their own text rows (flame graph, timeline). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The font size of WIDGET's Pango context in device-independent pixels
 * (points converted at 96 dpi); 10 px when the context has none. */
double hl_widget_font_size_px (GtkWidget *widget);

G_END_DECLS
