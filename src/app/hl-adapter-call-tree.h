/* hl-adapter-call-tree.h — the call tree view's rows from the model's call
 * trees. */
#pragma once

#include "hl-model.h"
#include "hl-tree-row.h"

G_BEGIN_DECLS

/* Root row of a call tree (its children are made on demand). */
HlTreeRow      *hl_adapter_call_tree      (HlCallTree    *tree);

G_END_DECLS
