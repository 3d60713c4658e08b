/* hl-cost.h — how the application names and shows the model's costs. */
#pragma once

#include <glib.h>

#include "hl-model.h"

G_BEGIN_DECLS

/* The costs a call tree shows as columns: every kind but LIVE (which needs
 * an instant: the flame graph offers it, following the timeline's cursor). */
#define HL_N_TREE_COSTS (HL_COST_KIND_LEAKED + 1)

const char *hl_cost_get_label    (HlCostKind  cost);  /* "Allocations", translated */
/* A call tree's column heading: "Allocated", "Temporary", "Peak". */
const char *hl_cost_get_column_label (HlCostKind cost);
/* Heading of a summary top list, e.g. "Most Bytes Allocated". */
const char *hl_cost_get_top_title (HlCostKind cost);
gboolean    hl_cost_is_bytes     (HlCostKind  cost);
/* Formats VALUE in the cost's unit. */
char       *hl_cost_format       (HlCostKind  cost,
                                  guint64     value);
/* NULL-terminated labels of every cost kind, for drop-downs (static). */
const char * const *hl_cost_get_labels (void);

G_END_DECLS
