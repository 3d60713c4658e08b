/* hl-cost.c — how the application names and shows the model's costs. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-cost.h"
#include "hl-units.h"

static const char *labels[HL_N_COST_KINDS] = {
  [HL_COST_KIND_ALLOCATIONS] = N_("Allocations"),
  [HL_COST_KIND_BYTES] = N_("Bytes Allocated"),
  [HL_COST_KIND_TEMPORARY] = N_("Temporary Allocations"),
  [HL_COST_KIND_PEAK] = N_("Peak Heap"),
  [HL_COST_KIND_LEAKED] = N_("Leaked"),
  [HL_COST_KIND_LIVE] = N_("Live at Cursor"),
  [HL_COST_KIND_LONG_LIVED] = N_("Long-Lived Blocks"),
  [HL_COST_KIND_MMAP] = N_("Still Mapped (mmap)"),
};

/* A call tree's column headings: short, six of them fit at 1400 px with
 * their Self columns (the drop-downs and tooltips keep the long names). */
static const char *column_labels[HL_N_COST_KINDS] = {
  [HL_COST_KIND_ALLOCATIONS] = N_("Allocations"),
  [HL_COST_KIND_BYTES] = NC_("column", "Allocated"),
  [HL_COST_KIND_TEMPORARY] = NC_("column", "Temporary"),
  [HL_COST_KIND_PEAK] = NC_("column", "Peak"),
  [HL_COST_KIND_LEAKED] = N_("Leaked"),
  [HL_COST_KIND_LIVE] = N_("Live at Cursor"),
  [HL_COST_KIND_LONG_LIVED] = NC_("column", "Long-Lived"),
  [HL_COST_KIND_MMAP] = NC_("column", "mmap"),
};

static const char *top_titles[HL_N_COST_KINDS] = {
  [HL_COST_KIND_ALLOCATIONS] = N_("Most Allocations"),
  [HL_COST_KIND_BYTES] = N_("Most Bytes Allocated"),
  [HL_COST_KIND_TEMPORARY] = N_("Most Temporary Allocations"),
  [HL_COST_KIND_PEAK] = N_("Largest at the Peak"),
  [HL_COST_KIND_LEAKED] = N_("Most Leaked"),
  [HL_COST_KIND_LIVE] = N_("Most Live at Cursor"),
  [HL_COST_KIND_LONG_LIVED] = N_("Most Bytes in Long-Lived Blocks"),
  [HL_COST_KIND_MMAP] = N_("Most Still Mapped (mmap)"),
};

const char *
hl_cost_get_label (HlCostKind cost)
{
  g_return_val_if_fail (cost < HL_N_COST_KINDS, "");
  return _(labels[cost]);
}

const char *
hl_cost_get_column_label (HlCostKind cost)
{
  g_return_val_if_fail (cost < HL_N_COST_KINDS, "");
  if (cost == HL_COST_KIND_BYTES || cost == HL_COST_KIND_TEMPORARY || cost == HL_COST_KIND_PEAK
      || cost == HL_COST_KIND_LONG_LIVED || cost == HL_COST_KIND_MMAP)
    return g_dpgettext2 (NULL, "column", column_labels[cost]);
  return _(column_labels[cost]);
}

const char *
hl_cost_get_top_title (HlCostKind cost)
{
  g_return_val_if_fail (cost < HL_N_COST_KINDS, "");
  return _(top_titles[cost]);
}

gboolean
hl_cost_is_bytes (HlCostKind cost)
{
  /* The same split as the model's hl_cost_kind_is_bytes(), kept here so
   * that widgets do not need the model at link time. */
  return cost != HL_COST_KIND_ALLOCATIONS && cost != HL_COST_KIND_TEMPORARY;
}

char *
hl_cost_format (HlCostKind cost,
                guint64    value)
{
  return hl_cost_is_bytes (cost) ? hl_format_size (value) : hl_format_count (value);
}

const char * const *
hl_cost_get_labels (void)
{
  static const char *translated[HL_N_COST_KINDS + 1];

  if (translated[0] == NULL)
    for (guint i = 0; i < HL_N_COST_KINDS; i++)
      translated[i] = _(labels[i]);
  return translated;
}
