/* hl-cost-kind.c — names and arithmetic of costs. */
#include "hl-cost-kind.h"

#include <string.h>

static const char * const names[HL_N_COST_KINDS] = {
  "allocations", "bytes", "temporary", "peak", "leaked", "live", "long-lived", "mmap",
};

GType
hl_cost_kind_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    {
      static const GEnumValue values[] = {
        { HL_COST_KIND_ALLOCATIONS, "HL_COST_KIND_ALLOCATIONS", "allocations" },
        { HL_COST_KIND_BYTES, "HL_COST_KIND_BYTES", "bytes" },
        { HL_COST_KIND_TEMPORARY, "HL_COST_KIND_TEMPORARY", "temporary" },
        { HL_COST_KIND_PEAK, "HL_COST_KIND_PEAK", "peak" },
        { HL_COST_KIND_LEAKED, "HL_COST_KIND_LEAKED", "leaked" },
        { HL_COST_KIND_LIVE, "HL_COST_KIND_LIVE", "live" },
        { HL_COST_KIND_LONG_LIVED, "HL_COST_KIND_LONG_LIVED", "long-lived" },
        { HL_COST_KIND_MMAP, "HL_COST_KIND_MMAP", "mmap" },
        { 0, NULL, NULL },
      };
      g_once_init_leave (&type, g_enum_register_static ("HlCostKind", values));
    }
  return type;
}

guint64
hl_costs_get (const HlCosts *costs,
              HlCostKind     kind)
{
  g_return_val_if_fail (costs != NULL, 0);
  g_return_val_if_fail (kind < HL_N_COST_KINDS, 0);

  return hl_costs_value (costs, kind);
}

gboolean
hl_cost_kind_is_bytes (HlCostKind kind)
{
  return kind != HL_COST_KIND_ALLOCATIONS && kind != HL_COST_KIND_TEMPORARY;
}

const char *
hl_cost_kind_to_string (HlCostKind kind)
{
  g_return_val_if_fail (kind < HL_N_COST_KINDS, NULL);
  return names[kind];
}

gboolean
hl_cost_kind_from_string (const char *name,
                          HlCostKind *out)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < HL_N_COST_KINDS; i++)
    if (strcmp (name, names[i]) == 0 ||
        (i == HL_COST_KIND_ALLOCATIONS && strcmp (name, "allocs") == 0))
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}
