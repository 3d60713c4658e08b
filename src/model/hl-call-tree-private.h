/* hl-call-tree-private.h — building call trees (for HlAnalysis). */
#pragma once

#include "hl-call-tree.h"
#include "hl-recording-private.h"

/* STACK_COSTS: n_stacks entries. */
HlCallTree *hl_call_tree_build (const HlTrie   *trie,
                                HlCallTreeKind  kind,
                                HlCostKind      sort_by,
                                const HlCosts  *stack_costs,
                                guint           n_stacks,
                                const HlCosts  *totals);
