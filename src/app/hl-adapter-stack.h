/* hl-adapter-stack.h — the stacks' lines, and an HlCosts as an
 * array by cost kind, for every view's adapter. */
#pragma once

#include "hl-model.h"

G_BEGIN_DECLS

/* Copies the values of COSTS into OUT, indexed by HlCostKind. */
void            hl_adapter_costs_to_array (const HlCosts *costs,
                                           guint64        out[HL_N_COST_KINDS]);

/* "function — file:line (module)" lines of STACK, innermost first. */
GStrv           hl_adapter_stack_lines    (HlRecording   *recording,
                                           HlStackId      stack);

/* The first frame of STACK with a symbol, else its first, or NULL. */
const HlFrame  *hl_adapter_first_resolved_frame (HlRecording *recording,
                                                 HlStackId    stack);

G_END_DECLS
