/* hl-adapter-flame.h — the flame graph's data from the model's flame
 * layout. */
#pragma once

#include "hl-model.h"
#include "hl-flame-data.h"

G_BEGIN_DECLS

/* Flame data from a layout; each node's user_data is its HlCallNode + 1. */
HlFlameData    *hl_adapter_flame_data     (HlFlameLayout *layout);

/* DATA's frames not symbolized are found in RECORDING's flame data by
 * their addresses (hl_flame_data_find_node_of): DATA is RECORDING's, of
 * a top-down tree or an INVERTED one. */
void            hl_adapter_flame_set_recording (HlFlameData *data,
                                                HlRecording *recording,
                                                gboolean     inverted);

/* The call node of a flame data node (HL_CALL_NODE_NONE for the root). */
HlCallNode      hl_adapter_flame_node_call_node (const HlFlameData *data,
                                                 guint              node);

G_END_DECLS
