/* hl-call-tree.h — a call tree with costs, built by an HlAnalysis.
 *
 * Immutable and reference counted; nodes are indices (HlCallNode), the root
 * is 0 and has no frame. Only nodes with a non-zero cost in the analysis
 * exist. Children are sorted by the tree's sort cost, largest first (ties by
 * function name), so a GtkTreeListModel or a flame graph walks them in
 * display order.
 *
 * TOP_DOWN: root → main → … → allocating function (inclusive costs).
 * BOTTOM_UP: root → allocating function → its callers.
 * Inline frames are nodes of their own (frame->is_inline). Nodes merge
 * frames of the same function + module (hl_frame_same_function) under the
 * same parent; a node's frame is the first one met.
 * Invariant: the sum of the children's costs ≤ the node's cost, per kind.
 */
#pragma once

#include <glib-object.h>

#include "hl-cost-kind.h"
#include "hl-frame.h"

G_BEGIN_DECLS

typedef enum
{
  HL_CALL_TREE_TOP_DOWN,
  HL_CALL_TREE_BOTTOM_UP,
} HlCallTreeKind;

typedef guint HlCallNode;
#define HL_CALL_NODE_NONE G_MAXUINT

typedef struct _HlCallTree HlCallTree;

#define HL_TYPE_CALL_TREE (hl_call_tree_get_type ())
GType hl_call_tree_get_type (void) G_GNUC_CONST;

HlCallTree     *hl_call_tree_ref            (HlCallTree *tree);
void            hl_call_tree_unref          (HlCallTree *tree);

HlCallTreeKind  hl_call_tree_get_kind       (const HlCallTree *tree);
HlCostKind      hl_call_tree_get_sort_kind  (const HlCallTree *tree);
guint           hl_call_tree_get_n_nodes    (const HlCallTree *tree);
HlCallNode      hl_call_tree_get_root       (const HlCallTree *tree);
/* NULL for the root. */
const HlFrame  *hl_call_tree_get_frame      (const HlCallTree *tree,
                                             HlCallNode        node);
HlCallNode      hl_call_tree_get_parent     (const HlCallTree *tree,
                                             HlCallNode        node);
guint           hl_call_tree_get_depth      (const HlCallTree *tree,
                                             HlCallNode        node);
guint           hl_call_tree_get_n_children (const HlCallTree *tree,
                                             HlCallNode        node);
/* The I-th child in sort order. */
HlCallNode      hl_call_tree_get_child      (const HlCallTree *tree,
                                             HlCallNode        node,
                                             guint             i);
/* Inclusive costs; the root's are the analysis totals. */
const HlCosts  *hl_call_tree_get_costs      (const HlCallTree *tree,
                                             HlCallNode        node);
/* Costs of stacks that end exactly at this node. */
const HlCosts  *hl_call_tree_get_self_costs (const HlCallTree *tree,
                                             HlCallNode        node);
/* Frames from the root's child down to NODE (outermost first), new array
 * of borrowed HlFrame pointers. */
GPtrArray      *hl_call_tree_get_path       (const HlCallTree *tree,
                                             HlCallNode        node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlCallTree, hl_call_tree_unref)

G_END_DECLS
