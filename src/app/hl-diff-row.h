/* hl-diff-row.h — one call path of a diff, as an item of the diff call tree
 * (a GtkTreeListModel makes its children on demand). */
#pragma once

#include <gio/gio.h>

#include "hl-model.h"

G_BEGIN_DECLS

#define HL_TYPE_DIFF_ROW (hl_diff_row_get_type ())
G_DECLARE_FINAL_TYPE (HlDiffRow, hl_diff_row, HL, DIFF_ROW, GObject)

HlDiffRow  *hl_diff_row_new          (HlDiffTree *tree,
                                      guint       node,
                                      HlCostKind  kind);
guint       hl_diff_row_get_node     (HlDiffRow  *self);
const char *hl_diff_row_get_name     (HlDiffRow  *self);
guint64     hl_diff_row_get_a        (HlDiffRow  *self);
guint64     hl_diff_row_get_b        (HlDiffRow  *self);
gint64      hl_diff_row_get_delta    (HlDiffRow  *self);
/* The path's own costs (stacks ending at it), without its children's:
 * A = self A + the children's A, likewise B and Δ. */
guint64     hl_diff_row_get_self_a     (HlDiffRow  *self);
guint64     hl_diff_row_get_self_b     (HlDiffRow  *self);
gint64      hl_diff_row_get_self_delta (HlDiffRow  *self);
/* Δ relative to A (A = 0 and Δ > 0: +infinity). */
double      hl_diff_row_get_change   (HlDiffRow  *self);
/* Children with a cost of the row's kind on either side, in the diff
 * tree's order (largest |Δ| first); NULL without any. */
GListModel *hl_diff_row_get_children (HlDiffRow  *self);

G_END_DECLS
