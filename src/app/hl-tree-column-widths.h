/* hl-tree-column-widths.h — how wide the numeric cells of the call
 * trees and of Callers and Callees are: the width of the widest value a
 * column can show, so that it is as wide whichever rows are in view and
 * never cuts a number. */
#pragma once

#include <gtk/gtk.h>

#include "hl-cost.h"

G_BEGIN_DECLS

/* The width in pixels, in WIDGET's font with tabular figures (the cells'
 * "numeric" style class), of the widest value a numeric cell of COST
 * shows: a count no wider than MAX_COUNT (and at least millions), a size
 * ("999 MiB", "9.99 GiB"); with WITH_PERCENTAGE its share after it
 * ("99.9 MiB  < 0.01 %"). */
int   hl_tree_column_value_width (GtkWidget  *widget,
                                  HlCostKind  cost,
                                  gboolean    with_percentage,
                                  guint64     max_count);

/* A table's widths, measured once per font and largest count; zeroed,
 * it is ready (nothing measured). Clear it when its owner goes. */
typedef struct
{
  PangoFontDescription *font;         /* owned: the font measured in */
  guint64               max_count;    /* the largest count shown */
  int                   width[HL_N_COST_KINDS][2];   /* -1: not measured */
} HlTreeColumnWidths;

/* Forgets the widths measured (and frees the font). */
void  hl_tree_column_widths_clear         (HlTreeColumnWidths *widths);
/* The largest count a cell shows now (a new tree's total allocations). */
void  hl_tree_column_widths_set_max_count (HlTreeColumnWidths *widths,
                                           guint64             max_count);
/* hl_tree_column_value_width in TABLE's font, measured once. */
int   hl_tree_column_widths_get           (HlTreeColumnWidths *widths,
                                           GtkWidget          *table,
                                           HlCostKind          cost,
                                           gboolean            with_percentage);
/* Makes the cell LABEL of TABLE (a column view) ask for that width
 * (gtk_widget_set_size_request), so that its column fits every value. */
void  hl_tree_column_widths_size_label    (HlTreeColumnWidths *widths,
                                           GtkWidget          *table,
                                           GtkWidget          *label,
                                           HlCostKind          cost,
                                           gboolean            with_percentage);

G_END_DECLS
