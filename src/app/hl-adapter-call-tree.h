/* hl-adapter-call-tree.h — the call tree view's rows from the model's call
 * trees. */
#pragma once

#include "hl-model.h"
#include "hl-tree-row.h"

G_BEGIN_DECLS

/* Root row of a call tree (its children are made on demand). */
HlTreeRow      *hl_adapter_call_tree      (HlCallTree    *tree);

/* Root row with two children, "Callers" and "Callees" of FUNCTION. */
HlTreeRow      *hl_adapter_caller_callee  (HlAnalysis    *analysis,
                                           const HlFrame *function);

/* Finds the frame of the function called NAME in the analysis' top-down
 * tree (the first met in display order), or NULL. */
const HlFrame  *hl_adapter_find_function  (HlAnalysis    *analysis,
                                           const char    *name);

G_END_DECLS
