/* hl-timeline-axis.c — the timeline's value axis: round ticks in one unit. */
#include "hl-config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "hl-timeline-axis.h"

/* Translators: units of a chart's axis of sizes (IEC binary prefixes) */
static const char *const byte_units[] = { N_("B"), N_("KiB"), N_("MiB"), N_("GiB"), N_("TiB") };
/* Translators: units of a chart's axis of counts: thousands, millions, billions */
static const char *const count_units[] = { "", N_("k"), N_("M"), N_("G") };

guint
hl_timeline_axis_max_intervals (double height_px,
                                double label_height_px)
{
  /* a label's height and most of another between two labels */
  double spacing = MAX (label_height_px, 1.0) * 1.8;
  double n = floor (height_px / spacing);

  return (guint) CLAMP (n, 1.0, 5.0);
}

void
hl_timeline_axis_init (HlTimelineAxis     *axis,
                       HlTimelineAxisKind  kind,
                       guint64             max_value,
                       guint               max_intervals)
{
  double base = kind == HL_TIMELINE_AXIS_BYTES ? 1024.0 : 1000.0;
  guint n_units = kind == HL_TIMELINE_AXIS_BYTES ? G_N_ELEMENTS (byte_units) : G_N_ELEMENTS (count_units);
  double value = (double) MAX (max_value, 1);
  double magnitude, step = 1.0;

  max_intervals = CLAMP (max_intervals, 1, 10);
  axis->kind = kind;
  axis->unit = 1.0;
  axis->unit_index = 0;
  /* sizes in the unit of the largest (as the tooltip says it), counts in
   * whole items first: their unit follows from the step, below */
  while (kind == HL_TIMELINE_AXIS_BYTES && axis->unit_index + 1 < n_units && value >= axis->unit * base)
    {
      axis->unit *= base;
      axis->unit_index++;
    }
  value /= axis->unit;

  /* the smallest of 1, 2, 5 × 10^k giving at most MAX_INTERVALS steps;
   * fractions of a unit above bytes and plain counts only */
  magnitude = pow (10.0, floor (log10 (value / max_intervals)));
  for (guint k = 0; k < 12; k++)
    {
      static const double mantissas[] = { 1.0, 2.0, 5.0 };
      double candidate = magnitude * pow (10.0, k / 3) * mantissas[k % 3];

      step = candidate;
      if (axis->unit_index == 0 && step < 1.0)
        continue;
      /* a little slack: 4.0000001 MiB is 4 MiB */
      if (ceil (value / step - 1e-9) <= max_intervals)
        break;
    }
  axis->n_intervals = (guint) MAX (ceil (value / step - 1e-9), 1.0);
  /* counts: the largest unit the step fills, so that ticks stay whole
   * numbers: 200 … 1000, or 5 k … 15 k */
  while (kind == HL_TIMELINE_AXIS_COUNT && axis->unit_index + 1 < n_units && step >= axis->unit * base - 0.5)
    {
      axis->unit *= base;
      axis->unit_index++;
    }
  step /= kind == HL_TIMELINE_AXIS_COUNT ? axis->unit : 1.0;
  axis->step = step;
  axis->decimals = step >= 1.0 ? 0 : (guint) ceil (-log10 (step) - 1e-9);
  axis->top = axis->n_intervals * step * axis->unit;
}

double
hl_timeline_axis_tick_value (const HlTimelineAxis *axis,
                             guint                 i)
{
  return i * axis->step * axis->unit;
}

char *
hl_timeline_axis_tick_label (const HlTimelineAxis *axis,
                             guint                 i)
{
  double value = i * axis->step;
  const char *unit;

  if (i == 0)
    return g_strdup ("0");
  unit = axis->kind == HL_TIMELINE_AXIS_BYTES ? _(byte_units[axis->unit_index])
                                              : axis->unit_index > 0 ? _(count_units[axis->unit_index]) : "";
  if (*unit == '\0')
    return g_strdup_printf ("%.*f", (int) axis->decimals, value);
  /* Translators: a tick of a chart's axis: a value and its unit, "50 MiB", "200 k" */
  return g_strdup_printf (_("%.*f %s"), (int) axis->decimals, value, unit);
}

char *
hl_timeline_axis_format_rate (double per_second)
{
  guint u = 0;
  g_autofree char *number = NULL;

  per_second = MAX (per_second, 0.0);
  while (u + 1 < G_N_ELEMENTS (count_units) && per_second >= 999.5)
    {
      per_second /= 1000.0;
      u++;
    }
  number = g_strdup_printf ("%.*f", per_second < 9.95 && u > 0 ? 1 : 0, per_second);
  if (u == 0)
    /* Translators: allocations per second on the timeline's rate strip, "850/s" */
    return g_strdup_printf (_("%s/s"), number);
  /* Translators: allocations per second on the timeline's rate strip, "12 k/s" */
  return g_strdup_printf (_("%s %s/s"), number, _(count_units[u]));
}
