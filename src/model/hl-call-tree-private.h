/* hl-call-tree-private.h — building call trees (for HlAnalysis), and their
 * arrays for the flame layout. */
#pragma once

#include "hl-call-tree.h"
#include "hl-stack-trie.h"

/* STACK_COSTS: n_stacks entries. */
HlCallTree *hl_call_tree_build (const HlTrie   *trie,
                                HlCallTreeKind  kind,
                                HlCostKind      sort_by,
                                const HlCosts  *stack_costs,
                                guint           n_stacks,
                                const HlCosts  *totals);

/* The nodes are numbered in display order: depth-first pre-order, each
 * node's children in sort order. Node i's subtree is [i, end); its
 * children are i + 1 (when i + 1 < end), then each one's end. */
typedef struct
{
  const HlFrame *frame;        /* NULL for the root */
  guint          parent;       /* HL_CALL_NODE_NONE for the root */
  guint          depth;        /* the root's is 0, a child's its parent's + 1 */
  guint          end;          /* one past the last node of the subtree */
  guint          first_child;  /* into the children list */
  guint          n_children;
} HlCallTreeNode;

/* hl_call_tree_get_n_nodes () entries each, indexed by HlCallNode. */
const HlCallTreeNode *hl_call_tree_get_nodes      (const HlCallTree *tree);
/* Inclusive costs. */
const HlCosts        *hl_call_tree_get_all_costs  (const HlCallTree *tree);
/* The inclusive cost of hl_call_tree_get_sort_kind (). */
const guint64        *hl_call_tree_get_sort_costs (const HlCallTree *tree);
guint                 hl_call_tree_get_max_depth  (const HlCallTree *tree);
/* HlTrie.serial of the trie the tree was built from. */
guint64               hl_call_tree_get_trie_serial (const HlCallTree *tree);
