/* hl-diff-view.h — what changed between two recordings: the totals, the
 * flame graph page of a recording's window (cost, inversion, search,
 * zoom breadcrumb) over the difference (hl-diff-flame.h) and a diff
 * call tree (function, A, B, Δ, Δ %, self A, self B, self Δ) sorted by
 * |Δ|, where each row's A is its self A plus its children's A. */
#pragma once

#include <gtk/gtk.h>

#include "hl-flame-graph.h"
#include "hl-flame-view.h"
#include "hl-model.h"

G_BEGIN_DECLS

#define HL_TYPE_DIFF_VIEW (hl_diff_view_get_type ())
G_DECLARE_FINAL_TYPE (HlDiffView, hl_diff_view, HL, DIFF_VIEW, GtkWidget)

GtkWidget     *hl_diff_view_new             (void);
/* Compares B against A (Δ = B − A), paths matched frame by frame
 * (hl-diff-tree.h). */
void           hl_diff_view_set_analyses    (HlDiffView *self,
                                             HlAnalysis *a,
                                             HlAnalysis *b);
void           hl_diff_view_set_cost        (HlDiffView *self,
                                             HlCostKind  kind);
HlCostKind     hl_diff_view_get_cost        (HlDiffView *self);
/* NULL before set_analyses(). */
HlDiffTree    *hl_diff_view_get_tree        (HlDiffView *self);
HlFlameGraph  *hl_diff_view_get_graph       (HlDiffView *self);
/* The flame graph page (cost, inversion, search, breadcrumb). */
HlFlameView   *hl_diff_view_get_flame_view  (HlDiffView *self);
/* The tree the flame graph shows: the table's, or the bottom-up diff when
 * the graph is inverted. NULL before set_analyses(). */
HlDiffTree    *hl_diff_view_get_graph_tree  (HlDiffView *self);
GtkColumnView *hl_diff_view_get_column_view (HlDiffView *self);
/* The rows as shown (GtkTreeListRow items, sorted). */
GListModel    *hl_diff_view_get_rows        (HlDiffView *self);
/* The totals line, e.g. "Bytes Allocated: 1.2 MiB → 1.5 MiB (+25.0 %)". */
const char    *hl_diff_view_get_summary     (HlDiffView *self);
/* How many frames matched, e.g. "Frames matched: A 40 of 42 · B 40 of 45"
 * ("" before set_analyses()). */
const char    *hl_diff_view_get_match_text  (HlDiffView *self);

G_END_DECLS
