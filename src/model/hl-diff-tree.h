/* hl-diff-tree.h — the difference of two analyses, per call path.
 *
 * Paths are matched frame by frame, never by address, so recordings of two
 * builds or two runs compare: symbolized frames by function, source file
 * basename and module basename, where the executable of A matches the
 * executable of B whatever their names (the module of the trace's "exe");
 * frames without a symbol by module and offset, only when the two modules
 * are one build (equal build-ids; without build-ids, the same path).
 * Each node has the inclusive and the self costs of both sides, so that a
 * node's cost is its self cost plus its children's, per side (the root:
 * the analyses' totals); children are sorted by the absolute delta of
 * SORT_BY, largest first. Root is 0. The tree keeps both analyses (its
 * frames are their recordings').
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
/* Costs of the stacks that end at this node, per side. */
const HlCosts  *hl_diff_tree_get_self_costs_a (const HlDiffTree *tree,
                                               guint             node);
const HlCosts  *hl_diff_tree_get_self_costs_b (const HlDiffTree *tree,
                                               guint             node);
/* Self B − self A for KIND. */
gint64          hl_diff_tree_get_self_delta (const HlDiffTree *tree,
                                             guint             node,
                                             HlCostKind        kind);
/* How many nodes (frames on a call path, the root left out) of A's call
 * tree and of B's found a match on the other side, out of how many. Any
 * pointer may be NULL. */
void            hl_diff_tree_get_match_counts (const HlDiffTree *tree,
                                               guint            *matched_a,
                                               guint            *total_a,
                                               guint            *matched_b,
                                               guint            *total_b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlDiffTree, hl_diff_tree_unref)

G_END_DECLS
