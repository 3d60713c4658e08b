/* hl-timeline-draw.c — draws the timeline with cairo, no widget needed. */
#include "hl-config.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "hl-timeline-axis.h"
#include "hl-timeline-draw.h"
#include "hl-units.h"

#define RATE_FRACTION 0.18  /* of the space below the bands */

void
hl_timeline_heap_color (gboolean dark,
                        double   rgb[3])
{
  /* Adwaita blue 3 / blue 2 */
  rgb[0] = dark ? 0.38 : 0.21; rgb[1] = dark ? 0.63 : 0.52; rgb[2] = dark ? 0.92 : 0.89;
}

void
hl_timeline_rss_color (gboolean dark,
                       double   rgb[3])
{
  /* Adwaita orange */
  rgb[0] = dark ? 1.00 : 0.90; rgb[1] = dark ? 0.64 : 0.38; rgb[2] = dark ? 0.28 : 0.00;
}

void
hl_timeline_site_color (gboolean dark,
                        guint    site,
                        double   rgb[3])
{
  /* Adwaita purple, yellow, red, dark blue, brown, light purple, a cyan
   * and a grey: apart from the heap's blue, RSS's orange and the rate's
   * green */
  static const double palette[][3] = {
    { 0.57, 0.25, 0.67 }, { 0.90, 0.65, 0.04 }, { 0.93, 0.20, 0.23 }, { 0.10, 0.37, 0.71 },
    { 0.71, 0.51, 0.35 }, { 0.86, 0.54, 0.87 }, { 0.13, 0.56, 0.64 }, { 0.47, 0.46, 0.48 },
  };
  const double *c = palette[site % G_N_ELEMENTS (palette)];
  double lift = dark ? 0.12 : 0.0;

  for (guint i = 0; i < 3; i++)
    rgb[i] = MIN (c[i] + lift, 1.0);
}

void
hl_timeline_rate_color (gboolean dark,
                        double   rgb[3])
{
  /* Adwaita green */
  rgb[0] = dark ? 0.34 : 0.15; rgb[1] = dark ? 0.89 : 0.64; rgb[2] = dark ? 0.54 : 0.41;
}

void
hl_timeline_layout (const HlTimelineData     *data,
                    const HlTimelineViewport *vp,
                    HlTimelineLayout         *layout)
{
  double rest;

  layout->bands_height = vp->hide_bands ? 0 : hl_timeline_data_get_n_rows (data) * vp->row_height;
  layout->axis_y = MAX (vp->height - vp->row_height, layout->bands_height);
  rest = MAX (layout->axis_y - layout->bands_height, 0);
  layout->rate_height = floor (rest * RATE_FRACTION);
  layout->chart_y = layout->bands_height + 4.0;
  layout->chart_height = MAX (rest - layout->rate_height - 6.0, 0);
  layout->rate_y = layout->chart_y + layout->chart_height + 2.0;
  /* the value axis: as many round ticks as the chart's height has room
   * for, labels a row apart (a row is 1.5 lines of text) */
  hl_timeline_axis_init (&layout->axis,
                         vp->mode == HL_TIMELINE_MODE_CONSUMED ? HL_TIMELINE_AXIS_BYTES : HL_TIMELINE_AXIS_COUNT,
                         hl_timeline_data_get_max_value (data, vp->mode),
                         hl_timeline_axis_max_intervals (layout->chart_height, vp->row_height));
}

double
hl_timeline_x_for_time (const HlTimelineViewport *vp,
                        guint64                   time_ns)
{
  double span = (double) (vp->end_ns - vp->start_ns);

  if (span <= 0)
    return 0;
  return ((double) time_ns - (double) vp->start_ns) / span * vp->width;
}

guint64
hl_timeline_time_for_x (const HlTimelineViewport *vp,
                        double                    x)
{
  double span = (double) (vp->end_ns - vp->start_ns);
  double t;

  if (vp->width <= 0)
    return vp->start_ns;
  x = CLAMP (x, 0, vp->width);
  t = (double) vp->start_ns + x / vp->width * span;
  return (guint64) llround (t);
}

static void
set_fg (cairo_t               *cr,
        const HlTimelineStyle *style,
        double                 alpha)
{
  if (style->dark)
    cairo_set_source_rgba (cr, 1, 1, 1, alpha);
  else
    cairo_set_source_rgba (cr, 0, 0, 0, alpha);
}

/* A "nice" step (1, 2, 5 × 10^k ns) giving about one label per 90 px. */
static guint64
axis_step (const HlTimelineViewport *vp)
{
  double span = (double) (vp->end_ns - vp->start_ns);
  double want = span * 90.0 / MAX (vp->width, 1.0);
  double base = pow (10.0, floor (log10 (MAX (want, 1.0))));
  double step = base;

  if (want > step * 5)
    step = base * 10;
  else if (want > step * 2)
    step = base * 5;
  else if (want > step)
    step = base * 2;
  return (guint64) MAX (step, 1.0);
}

static void
draw_axis (cairo_t                  *cr,
           PangoLayout              *layout,
           const HlTimelineViewport *vp,
           const HlTimelineStyle    *style,
           const HlTimelineLayout   *lay)
{
  guint64 step = axis_step (vp);
  guint64 t = (vp->start_ns / step) * step;

  set_fg (cr, style, 0.15);
  cairo_rectangle (cr, 0, lay->axis_y, vp->width, 1);
  cairo_fill (cr);

  for (; t <= vp->end_ns; t += step)
    {
      double x = floor (hl_timeline_x_for_time (vp, t)) + 0.5;
      g_autofree char *text = NULL;

      if (x < 0)
        continue;
      set_fg (cr, style, 0.08);
      cairo_move_to (cr, x, lay->chart_y);
      cairo_line_to (cr, x, lay->axis_y + 4);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);

      text = hl_format_time_tick (t, step);
      pango_layout_set_text (layout, text, -1);
      int text_w;
      pango_layout_get_pixel_size (layout, &text_w, NULL);
      if (x + 3 + text_w > vp->width)
        continue; /* a label cut by the right edge reads as another time */
      set_fg (cr, style, 0.65);
      cairo_move_to (cr, x + 3, lay->axis_y + 2);
      pango_cairo_show_layout (cr, layout);
    }
}

static void
draw_bands (cairo_t                  *cr,
            PangoLayout              *layout,
            const HlTimelineData     *data,
            const HlTimelineViewport *vp,
            const HlTimelineStyle    *style)
{
  guint n_rows = hl_timeline_data_get_n_rows (data);
  g_autofree gboolean *labelled = g_new0 (gboolean, MAX (n_rows, 1));

  for (guint i = 0; i < hl_timeline_data_get_n_bands (data); i++)
    {
      const HlTimelineBand *band = hl_timeline_data_get_band (data, i);
      double x0 = hl_timeline_x_for_time (vp, band->start_ns);
      double x1 = hl_timeline_x_for_time (vp, band->end_ns);
      double y = band->row * vp->row_height;
      guint32 h = g_str_hash (band->label);
      int text_h;

      if (x1 < 0 || x0 > vp->width)
        continue;
      x0 = MAX (x0, 0);
      x1 = MIN (x1, vp->width);
      /* Alternate tints so that neighbouring intervals stay apart. */
      if (style->dark)
        cairo_set_source_rgb (cr, 0.22 + (h % 4) * 0.03, 0.25 + (h % 3) * 0.03, 0.33);
      else
        cairo_set_source_rgb (cr, 0.80 + (h % 4) * 0.03, 0.86 + (h % 3) * 0.02, 0.95);
      cairo_rectangle (cr, x0, y + 1, MAX (x1 - x0 - 1, 1), vp->row_height - 2);
      cairo_fill (cr);

      if (x1 - x0 > 16)
        {
          cairo_save (cr);
          cairo_rectangle (cr, x0, y, x1 - x0 - 1, vp->row_height);
          cairo_clip (cr);
          pango_layout_set_text (layout, band->label, -1);
          pango_layout_set_width (layout, (int) ((x1 - x0 - 6) * PANGO_SCALE));
          pango_layout_get_pixel_size (layout, NULL, &text_h);
          set_fg (cr, style, 0.85);
          cairo_move_to (cr, x0 + 3, y + (vp->row_height - text_h) / 2);
          pango_cairo_show_layout (cr, layout);
          pango_layout_set_width (layout, -1);
          cairo_restore (cr);
          labelled[band->row] = TRUE;
        }
    }

  /* Rows of short intervals (request=1, request=2, …) have no room for
   * labels: name their key at the left edge. */
  for (guint r = 0; r < n_rows; r++)
    {
      int tw, th;

      if (labelled[r])
        continue;
      pango_layout_set_text (layout, hl_timeline_data_get_row_key (data, r), -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      if (style->dark)
        cairo_set_source_rgba (cr, 0.14, 0.14, 0.14, 0.85);
      else
        cairo_set_source_rgba (cr, 0.98, 0.98, 0.98, 0.85);
      cairo_rectangle (cr, 0, r * vp->row_height + 1, tw + 8, vp->row_height - 2);
      cairo_fill (cr);
      set_fg (cr, style, 0.85);
      cairo_move_to (cr, 4, r * vp->row_height + (vp->row_height - th) / 2);
      pango_cairo_show_layout (cr, layout);
    }
}

/* A plate of the background colour under a label, so that the curves
 * passing under it do not make it unreadable. */
static void
draw_plate (cairo_t               *cr,
            const HlTimelineStyle *style,
            double                 x,
            double                 y,
            double                 width,
            double                 height)
{
  if (style->dark)
    cairo_set_source_rgba (cr, 0.14, 0.14, 0.14, 0.8);
  else
    cairo_set_source_rgba (cr, 0.98, 0.98, 0.98, 0.8);
  cairo_rectangle (cr, x, y, width, height);
  cairo_fill (cr);
}

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
static void
draw_grid (cairo_t                *cr,
           const HlTimelineViewport *vp,
           const HlTimelineStyle  *style,
           const HlTimelineLayout *lay)
{
  if (lay->chart_height < 2)
    return;
  for (guint i = 0; i <= lay->axis.n_intervals; i++)
    {
      double y = ceil (y_for_value (lay, hl_timeline_axis_tick_value (&lay->axis, i))) - 1;

      cairo_rectangle (cr, 0, y, vp->width, 1);
    }
  set_fg (cr, style, style->dark ? 0.14 : 0.09);
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

/* Consumed: the heap as an area (with by_site its call sites inside),
 * RSS as a line, both on the one axis: the heap below RSS. */
static void
draw_consumed (cairo_t                  *cr,
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
static void
draw_cumulative (cairo_t                  *cr,
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
  draw_plate (cr, style, x - 3, y, tw + 6, th);
  set_fg (cr, style, 0.75);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  return x - 3;
}

/* The value axis' labels at the right edge, each centred on its tick but
 * inside the chart, none over another; returns the left edge of the
 * widest (the marks' labels stop there). */
static double
draw_value_labels (cairo_t                  *cr,
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
static void
draw_rate (cairo_t                  *cr,
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
  set_fg (cr, style, style->dark ? 0.14 : 0.09);
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

static void
draw_marks (cairo_t                  *cr,
            PangoLayout              *layout,
            const HlTimelineData     *data,
            const HlTimelineViewport *vp,
            const HlTimelineStyle    *style,
            const HlTimelineLayout   *lay,
            double                    scale_left)
{
  /* Labels go on the first of three lines where they overlap neither the
   * previous label nor the value axis' labels at the right. A label that
   * would cross them ends at its mark instead. With no room they are left out (the tooltip has
   * them). */
  double line_end[3] = { -1e9, -1e9, -1e9 };
  int line_h = 0;

  pango_layout_set_text (layout, "Mg", -1);
  pango_layout_get_pixel_size (layout, NULL, &line_h);
  for (guint i = 0; i < hl_timeline_data_get_n_marks (data); i++)
    {
      const HlTimelineMark *mark = hl_timeline_data_get_mark (data, i);
      double x = floor (hl_timeline_x_for_time (vp, mark->time_ns)) + 0.5;
      int tw;

      if (x < 0 || x > vp->width)
        continue;
      set_fg (cr, style, 0.7);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, x, lay->chart_y);
      cairo_line_to (cr, x, lay->axis_y);
      cairo_stroke (cr);
      pango_layout_set_text (layout, mark->label, -1);
      pango_layout_get_pixel_size (layout, &tw, NULL);
      for (guint l = 0; l < G_N_ELEMENTS (line_end); l++)
        {
          double right = scale_left - 6;
          double left = x + 3 + tw <= right ? x + 3 : x - 3 - tw;

          if (left > line_end[l] + 6 && left >= 0 && left + tw <= right
              && lay->chart_y + (l + 1) * line_h <= lay->axis_y)
            {
              /* on a plate, as the scales: the curves cross the labels */
              draw_plate (cr, style, left - 2, lay->chart_y + l * line_h, tw + 4, line_h);
              set_fg (cr, style, 0.7);
              cairo_move_to (cr, left, lay->chart_y + l * line_h);
              pango_cairo_show_layout (cr, layout);
              line_end[l] = left + tw;
              break;
            }
        }
    }
}

void
hl_timeline_draw (cairo_t                  *cr,
                  const HlTimelineData     *data,
                  const HlTimelineViewport *vp,
                  const HlTimelineStyle    *style)
{
  g_autoptr(PangoLayout) layout = NULL;
  g_autoptr(PangoFontDescription) default_font = NULL;
  HlTimelineLayout lay;
  double scale_left;

  if (vp->width <= 0 || vp->height <= 0 || vp->end_ns <= vp->start_ns)
    return;

  hl_timeline_layout (data, vp, &lay);
  layout = pango_cairo_create_layout (cr);
  if (style->font == NULL)
    default_font = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (layout, style->font ? style->font : default_font);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, vp->width, vp->height);
  cairo_clip (cr);

  if (!vp->hide_bands)
    draw_bands (cr, layout, data, vp, style);
  draw_axis (cr, layout, vp, style, &lay);
  scale_left = vp->width;
  if (hl_timeline_data_get_n_buckets (data) > 0 && hl_timeline_data_get_max_value (data, vp->mode) > 0)
    {
      draw_grid (cr, vp, style, &lay);
      if (vp->mode == HL_TIMELINE_MODE_CONSUMED)
        draw_consumed (cr, data, vp, style, &lay);
      else
        draw_cumulative (cr, data, vp, style, &lay);
      scale_left = draw_value_labels (cr, layout, vp, style, &lay);
    }
  draw_rate (cr, layout, data, vp, style, &lay);
  draw_marks (cr, layout, data, vp, style, &lay, scale_left);

  if (vp->has_selection)
    {
      double x0 = hl_timeline_x_for_time (vp, MIN (vp->selection_start_ns, vp->selection_end_ns));
      double x1 = hl_timeline_x_for_time (vp, MAX (vp->selection_start_ns, vp->selection_end_ns));

      /* Shade what is outside the selection, outline its edges. */
      cairo_set_source_rgba (cr, 0, 0, 0, style->dark ? 0.45 : 0.18);
      cairo_rectangle (cr, 0, 0, MAX (x0, 0), vp->height);
      cairo_rectangle (cr, x1, 0, MAX (vp->width - x1, 0), vp->height);
      cairo_fill (cr);
      if (style->dark)
        cairo_set_source_rgb (cr, 0.47, 0.68, 0.93);
      else
        cairo_set_source_rgb (cr, 0.11, 0.44, 0.85);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, floor (x0) + 0.5, 0);
      cairo_line_to (cr, floor (x0) + 0.5, vp->height);
      cairo_move_to (cr, floor (x1) + 0.5, 0);
      cairo_line_to (cr, floor (x1) + 0.5, vp->height);
      cairo_stroke (cr);
    }

  if (vp->has_cursor)
    {
      double x = floor (hl_timeline_x_for_time (vp, vp->cursor_ns)) + 0.5;

      cairo_set_source_rgb (cr, 0.88, 0.11, 0.14);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, x, 0);
      cairo_line_to (cr, x, vp->height);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}
