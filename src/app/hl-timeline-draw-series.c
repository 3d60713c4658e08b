/* hl-timeline-draw-series.c — the timeline's chart: its value axis (grid
 * and labels), the mode's series and the allocation rate strip. */
#include "hl-config.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "hl-timeline-axis.h"
#include "hl-timeline-draw.h"
#include "hl-timeline-draw-private.h"

/* Where bucket I ends: the next one's start, the data's end for the last. */
static guint64
bucket_end (const HlTimelineData *data,
            guint                 i)
{
  guint n = hl_timeline_data_get_n_buckets (data);

  return i + 1 < n ? hl_timeline_data_get_bucket (data, i + 1)->time_ns
                   : hl_timeline_data_get_duration (data);
}

/* The y of VALUE on the chart's axis. */
static double
y_for_value (const HlTimelineLayout *lay,
             double                  value)
{
  return lay->chart_y + lay->chart_height - value / MAX (lay->axis.top, 1.0) * lay->chart_height;
}

/* The value axis' gridlines, under the series: one pixel row just above
 * each tick's height, so that the top one stays out of the chart. */
void
hl_timeline_draw_grid (cairo_t                  *cr,
                       const HlTimelineViewport *vp,
                       const HlTimelineStyle    *style,
                       const HlTimelineLayout   *lay)
{
  if (lay->chart_height < 2)
    return;
  for (guint i = 0; i <= lay->axis.n_intervals; i++)
    {
      double y = ceil (y_for_value (lay, hl_timeline_axis_tick_value (&lay->axis, i))) - 1;

      cairo_rectangle (cr, 0, y, vp->width, 1);
    }
  hl_timeline_set_fg (cr, style, style->dark ? 0.14 : 0.09);
  cairo_fill (cr);
}

/* The largest call sites stacked from the bottom of the heap's area, the
 * first (largest) lowest, each bucket showing their bytes at its end;
 * what is left up to the heap is the rest ("other"). */
static void
draw_sites (cairo_t                  *cr,
            const HlTimelineData     *data,
            const HlTimelineViewport *vp,
            const HlTimelineStyle    *style,
            const HlTimelineLayout   *lay)
{
  guint n = hl_timeline_data_get_n_buckets (data);
  guint n_sites = hl_timeline_data_get_n_sites (data);
  double rgb[3];

  for (guint k = 0; k < n_sites; k++)
    {
      for (guint i = 0; i < n; i++)
        {
          const HlTimelineBucket *b = hl_timeline_data_get_bucket (data, i);
          guint64 next = bucket_end (data, i);
          const guint64 *row = hl_timeline_data_get_sites_at (data, next > b->time_ns ? next - 1 : b->time_ns);
          guint64 below = 0, top;
          double x0, x1, y0, y1;

          if (row == NULL || row[k] == 0)
            continue;
          for (guint j = 0; j < k; j++)
            below += row[j];
          /* never above the bucket's heap (a site row may end later) */
          top = MIN (below + row[k], b->heap_max);
          below = MIN (below, b->heap_max);
          if (top <= below)
            continue;
          x0 = hl_timeline_x_for_time (vp, b->time_ns);
          x1 = hl_timeline_x_for_time (vp, next);
          y0 = y_for_value (lay, (double) below);
          y1 = y_for_value (lay, (double) top);
          cairo_rectangle (cr, x0, y1, MAX (x1 - x0, 0.5), y0 - y1);
        }
      hl_timeline_site_color (style->dark, k, rgb);
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.85);
      cairo_fill (cr);
    }
}

/* Free inside malloc's arenas, then the program's own mappings, stacked
 * on the heap under the RSS line: where the memory the system sees goes. */
static void
draw_memory (cairo_t                  *cr,
             const HlTimelineData     *data,
             const HlTimelineViewport *vp,
             const HlTimelineStyle    *style,
             const HlTimelineLayout   *lay)
{
  guint n = hl_timeline_data_get_n_buckets (data);
  double rgb[3];

  for (guint part = 0; part < 2; part++)
    {
      for (guint i = 0; i < n; i++)
        {
          const HlTimelineBucket *b = hl_timeline_data_get_bucket (data, i);
          guint64 below = b->heap_max + (part == 1 ? b->malloc_free : 0);
          guint64 top = below + (part == 0 ? b->malloc_free : b->mmap);
          double x0, x1, y0, y1;

          if (top <= below)
            continue;
          x0 = hl_timeline_x_for_time (vp, b->time_ns);
          x1 = hl_timeline_x_for_time (vp, bucket_end (data, i));
          y0 = y_for_value (lay, (double) below);
          y1 = y_for_value (lay, (double) top);
          cairo_rectangle (cr, x0, y1, MAX (x1 - x0, 0.5), y0 - y1);
        }
      if (part == 0)
        hl_timeline_malloc_free_color (style->dark, rgb);
      else
        hl_timeline_mmap_color (style->dark, rgb);
      cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.55);
      cairo_fill (cr);
    }
}

/* Consumed: the heap as an area (with by_site its call sites inside),
 * RSS as a line, both on the one axis: the heap below RSS. */
void
hl_timeline_draw_consumed (cairo_t                  *cr,
                           const HlTimelineData     *data,
                           const HlTimelineViewport *vp,
                           const HlTimelineStyle    *style,
                           const HlTimelineLayout   *lay)
{
  guint n = hl_timeline_data_get_n_buckets (data);
  double bottom = lay->chart_y + lay->chart_height;
  double rgb[3];
  gboolean have_rss = FALSE;
  guint last = n;

  /* Heap: the area under its max. */
  hl_timeline_heap_color (style->dark, rgb);
  cairo_move_to (cr, hl_timeline_x_for_time (vp, hl_timeline_data_get_bucket (data, 0)->time_ns), bottom);
  for (guint i = 0; i < n; i++)
    {
      const HlTimelineBucket *b = hl_timeline_data_get_bucket (data, i);
      double y = y_for_value (lay, (double) b->heap_max);

      cairo_line_to (cr, hl_timeline_x_for_time (vp, b->time_ns), y);
      cairo_line_to (cr, hl_timeline_x_for_time (vp, bucket_end (data, i)), y);
      have_rss |= b->rss > 0;
    }
  cairo_line_to (cr, hl_timeline_x_for_time (vp, hl_timeline_data_get_duration (data)), bottom);
  cairo_close_path (cr);
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.45);
  cairo_fill (cr);
  if (vp->by_site)
    draw_sites (cr, data, vp, style, lay);
  else if (hl_timeline_data_has_memory (data))
    draw_memory (cr, data, vp, style, lay);

  cairo_set_line_width (cr, 1.5);
  for (guint i = 0; i < n; i++)
    {
      const HlTimelineBucket *b = hl_timeline_data_get_bucket (data, i);
      double y = y_for_value (lay, (double) b->heap_max);

      if (i == 0)
        cairo_move_to (cr, hl_timeline_x_for_time (vp, b->time_ns), y);
      else
        cairo_line_to (cr, hl_timeline_x_for_time (vp, b->time_ns), y);
      cairo_line_to (cr, hl_timeline_x_for_time (vp, bucket_end (data, i)), y);
    }
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_stroke (cr);

  if (!have_rss)
    return;
  hl_timeline_rss_color (style->dark, rgb);
  for (guint i = 0; i < n; i++)
    {
      const HlTimelineBucket *b = hl_timeline_data_get_bucket (data, i);
      double x = hl_timeline_x_for_time (vp, b->time_ns);

      if (b->rss == 0)
        continue;
      if (last == n)
        cairo_move_to (cr, x, y_for_value (lay, (double) b->rss));
      else
        cairo_line_to (cr, x, y_for_value (lay, (double) b->rss));
      last = i;
    }
  /* the last sample holds to the end of its bucket, as the heap does
   * (a recording with one sample gets a line, not a lone point) */
  cairo_line_to (cr, hl_timeline_x_for_time (vp, bucket_end (data, last)),
                 y_for_value (lay, (double) hl_timeline_data_get_bucket (data, last)->rss));
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
}

/* Allocations or Temporary: the count since the start, rising through
 * each bucket from the previous bucket's total to its own. */
void
hl_timeline_draw_cumulative (cairo_t                  *cr,
                             const HlTimelineData     *data,
                             const HlTimelineViewport *vp,
                             const HlTimelineStyle    *style,
                             const HlTimelineLayout   *lay)
{
  guint n = hl_timeline_data_get_n_buckets (data);
  const HlTimelineBucket *first = hl_timeline_data_get_bucket (data, 0);
  double bottom = lay->chart_y + lay->chart_height;
  double before, rgb[3];

  /* before the first bucket: nothing at the start, else its own total
   * less what it made (exact for allocations; temporaries are few) */
  if (first->time_ns == 0)
    before = 0;
  else if (vp->mode == HL_TIMELINE_MODE_ALLOCATIONS)
    before = (double) (first->allocations_total - MIN (first->n_allocs, first->allocations_total));
  else
    before = (double) first->temporary_total;

  if (vp->mode == HL_TIMELINE_MODE_TEMPORARY)
    hl_timeline_site_color (style->dark, 0, rgb);
  else
    hl_timeline_heap_color (style->dark, rgb);
  cairo_move_to (cr, hl_timeline_x_for_time (vp, first->time_ns), y_for_value (lay, before));
  for (guint i = 0; i < n; i++)
    cairo_line_to (cr, hl_timeline_x_for_time (vp, bucket_end (data, i)),
                   y_for_value (lay, (double) hl_timeline_bucket_value (hl_timeline_data_get_bucket (data, i),
                                                                        vp->mode)));
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke_preserve (cr);
  cairo_line_to (cr, hl_timeline_x_for_time (vp, bucket_end (data, n - 1)), bottom);
  cairo_line_to (cr, hl_timeline_x_for_time (vp, first->time_ns), bottom);
  cairo_close_path (cr);
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.35);
  cairo_fill (cr);
}

/* A label at the right edge on a plate, its top at Y; returns its left
 * edge (the plate's), or the width when it has no room. */
static double
draw_right_label (cairo_t                  *cr,
                  PangoLayout              *layout,
                  const HlTimelineViewport *vp,
                  const HlTimelineStyle    *style,
                  const char               *text,
                  double                    y)
{
  int tw, th;
  double x;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  x = vp->width - 4 - tw;
  if (x < 3)
    return vp->width;
  hl_timeline_draw_plate (cr, style, x - 3, y, tw + 6, th);
  hl_timeline_set_fg (cr, style, 0.75);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  return x - 3;
}

/* The value axis' labels at the right edge, each centred on its tick but
 * inside the chart, none over another; returns the left edge of the
 * widest (the marks' labels stop there). */
double
hl_timeline_draw_value_labels (cairo_t                  *cr,
                               PangoLayout              *layout,
                               const HlTimelineViewport *vp,
                               const HlTimelineStyle    *style,
                               const HlTimelineLayout   *lay)
{
  double bottom = lay->chart_y + lay->chart_height;
  double left = vp->width, above = G_MAXDOUBLE;
  int th;

  pango_layout_set_text (layout, "0", -1);
  pango_layout_get_pixel_size (layout, NULL, &th);
  if (lay->chart_height < th)
    return left;
  /* from the top down, so that the top's label is never the one left out */
  for (guint i = lay->axis.n_intervals + 1; i-- > 0;)
    {
      g_autofree char *text = hl_timeline_axis_tick_label (&lay->axis, i);
      double y = y_for_value (lay, hl_timeline_axis_tick_value (&lay->axis, i)) - th / 2.0;

      y = floor (CLAMP (y, lay->chart_y, bottom - th));
      if (above != G_MAXDOUBLE && y < above + th + 1)
        continue;
      left = MIN (left, draw_right_label (cr, layout, vp, style, text, y));
      above = y;
    }
  return left;
}

/* The allocation rate: a bar per bucket below the chart, scaled to the
 * largest, which its small axis names at the right ("12 k/s"). */
void
hl_timeline_draw_rate (cairo_t                  *cr,
                       PangoLayout              *layout,
                       const HlTimelineData     *data,
                       const HlTimelineViewport *vp,
                       const HlTimelineStyle    *style,
                       const HlTimelineLayout   *lay)
{
  guint n = hl_timeline_data_get_n_buckets (data);
  guint64 max_rate = hl_timeline_data_get_max_rate (data);
  double rgb[3];
  double width_ns, max_per_s = 0;
  int th;

  if (n == 0 || max_rate == 0 || lay->rate_height <= 2)
    return;
  hl_timeline_rate_color (style->dark, rgb);
  cairo_set_source_rgba (cr, rgb[0], rgb[1], rgb[2], 0.8);
  for (guint i = 0; i < n; i++)
    {
      const HlTimelineBucket *b = hl_timeline_data_get_bucket (data, i);
      guint64 next = bucket_end (data, i);
      double x0 = hl_timeline_x_for_time (vp, b->time_ns);
      double x1 = hl_timeline_x_for_time (vp, next);
      double h = (double) b->n_allocs / (double) max_rate * lay->rate_height;

      /* the buckets are even but for the last, which the data's end may cut */
      width_ns = (double) (next > b->time_ns ? next - b->time_ns : 1);
      if (i + 1 == n && i > 0)
        width_ns = MAX (width_ns, (double) (b->time_ns - hl_timeline_data_get_bucket (data, i - 1)->time_ns));
      max_per_s = MAX (max_per_s, (double) b->n_allocs * 1e9 / width_ns);
      if (x1 < 0 || x0 > vp->width || b->n_allocs == 0)
        continue;
      cairo_rectangle (cr, x0, lay->rate_y + lay->rate_height - h, MAX (x1 - x0, 1.0), h);
    }
  cairo_fill (cr);

  /* its axis: a line at the top (the largest rate), named at the right
   * in a smaller font when the strip is shorter than a line of text */
  hl_timeline_set_fg (cr, style, style->dark ? 0.14 : 0.09);
  cairo_rectangle (cr, 0, lay->rate_y - 1, vp->width, 1);
  cairo_fill (cr);
  pango_layout_set_text (layout, "0", -1);
  pango_layout_get_pixel_size (layout, NULL, &th);
  {
    g_autofree char *text = hl_timeline_axis_format_rate (max_per_s);
    g_autoptr(PangoFontDescription) small = pango_font_description_copy (pango_layout_get_font_description (layout));
    const PangoFontDescription *saved = pango_layout_get_font_description (layout);
    g_autoptr(PangoFontDescription) restore = pango_font_description_copy (saved);
    double size = pango_font_description_get_size (small);

    if (th > lay->rate_height + 2)
      {
        if (pango_font_description_get_size_is_absolute (small))
          pango_font_description_set_absolute_size (small, size * 0.85);
        else
          pango_font_description_set_size (small, (int) (size * 0.85));
        pango_layout_set_font_description (layout, small);
        pango_layout_get_pixel_size (layout, NULL, &th);
      }
    if (th <= lay->rate_height + 2)
      draw_right_label (cr, layout, vp, style, text, floor (lay->rate_y + (lay->rate_height - th) / 2.0));
    pango_layout_set_font_description (layout, restore);
  }
}
