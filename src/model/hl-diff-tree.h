/* hl-diff-tree.h — the difference of two analyses, per call path.
 *
 * Paths are matched by function + module (hl_frame_same_function), never by
 * address, so recordings of two builds or two runs compare. Each node has
 * the inclusive costs of both sides; children are sorted by the absolute
 * delta of SORT_BY, largest first. Root is 0.
 */
#pragma once

#include <glib-object.h>

#include "hl-analysis.h"

G_BEGIN_DECLS

typedef struct _HlDiffTree HlDiffTree;

#define HL_TYPE_DIFF_TREE (hl_diff_tree_get_type ())
GType hl_diff_tree_get_type (void) G_GNUC_CONST;

HlDiffTree     *hl_diff_tree_new            (HlAnalysis     *a,
                                             HlAnalysis     *b,
                                             HlCallTreeKind  kind,
                                             HlCostKind      sort_by);
HlDiffTree     *hl_diff_tree_ref            (HlDiffTree *tree);
void            hl_diff_tree_unref          (HlDiffTree *tree);

guint           hl_diff_tree_get_n_nodes    (const HlDiffTree *tree);
/* A's frame when the path exists in A, else B's; NULL for the root. */
const HlFrame  *hl_diff_tree_get_frame      (const HlDiffTree *tree,
                                             guint             node);
guint           hl_diff_tree_get_parent     (const HlDiffTree *tree,
                                             guint             node);
guint           hl_diff_tree_get_n_children (const HlDiffTree *tree,
                                             guint             node);
guint           hl_diff_tree_get_child      (const HlDiffTree *tree,
                                             guint             node,
                                             guint             i);
const HlCosts  *hl_diff_tree_get_costs_a    (const HlDiffTree *tree,
                                             guint             node);
const HlCosts  *hl_diff_tree_get_costs_b    (const HlDiffTree *tree,
                                             guint             node);
/* B − A for KIND. */
gint64          hl_diff_tree_get_delta      (const HlDiffTree *tree,
                                             guint             node,
                                             HlCostKind        kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlDiffTree, hl_diff_tree_unref)

G_END_DECLS
