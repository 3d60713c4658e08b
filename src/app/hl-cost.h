/* hl-cost.h — the costs the application shows, their names and units. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  HL_COST_ALLOCATIONS,  /* number of allocations */
  HL_COST_BYTES,        /* bytes allocated */
  HL_COST_TEMPORARY,    /* allocations freed before the thread's next one */
  HL_COST_PEAK,         /* bytes live at the moment of the global heap peak */
  HL_COST_LEAKED,       /* bytes never freed */
  HL_N_COSTS
} HlCost;

const char *hl_cost_get_label    (HlCost  cost);  /* "Allocations", translated */
gboolean    hl_cost_is_bytes     (HlCost  cost);
/* Formats VALUE in the cost's unit. */
char       *hl_cost_format       (HlCost  cost,
                                  guint64 value);
/* NULL-terminated labels of every cost, for drop-downs (static). */
const char * const *hl_cost_get_labels (void);

G_END_DECLS
