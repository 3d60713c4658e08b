/* hl-adapter-call-tree.h — the call tree view's rows from the model's call
 * trees. */
#pragma once

#include "hl-model.h"
#include "hl-tree-row.h"

G_BEGIN_DECLS

/* Root row of a call tree (its children are made on demand). */
HlTreeRow      *hl_adapter_call_tree      (HlCallTree    *tree);

/* The functions RECORDING's stacks give return address ADDRESS (inline
 * frames too), in a tree's order: outermost first, innermost first
 * BOTTOM_UP; NULL when no stack holds it. A row of a frame not
 * symbolized is found by them in that recording's tree. */
GStrv           hl_adapter_call_tree_resolve (HlRecording *recording,
                                              guint64      address,
                                              gboolean     bottom_up);

G_END_DECLS
