/* hl-cost.c — the costs the application shows. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-cost.h"
#include "hl-units.h"

static const char *labels[HL_N_COSTS] = {
  N_("Allocations"),
  N_("Bytes Allocated"),
  N_("Temporary Allocations"),
  N_("Peak Heap"),
  N_("Leaked"),
};

const char *
hl_cost_get_label (HlCost cost)
{
  g_return_val_if_fail (cost < HL_N_COSTS, "");
  return _(labels[cost]);
}

gboolean
hl_cost_is_bytes (HlCost cost)
{
  return cost == HL_COST_BYTES || cost == HL_COST_PEAK || cost == HL_COST_LEAKED;
}

char *
hl_cost_format (HlCost  cost,
                guint64 value)
{
  return hl_cost_is_bytes (cost) ? hl_format_size (value) : hl_format_count (value);
}

const char * const *
hl_cost_get_labels (void)
{
  static const char *translated[HL_N_COSTS + 1];

  if (translated[0] == NULL)
    for (guint i = 0; i < HL_N_COSTS; i++)
      translated[i] = _(labels[i]);
  return translated;
}
