/* hl-timeline-draw.c — draws the timeline with cairo, no widget needed. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <math.h>

#include <pango/pangocairo.h>

#include "hl-timeline-axis.h"
#include "hl-timeline-draw.h"
#include "hl-timeline-draw-private.h"
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
hl_timeline_malloc_free_color (gboolean dark,
                               double   rgb[3])
{
  /* Adwaita light 4 / dark 2: a grey, free space */
  rgb[0] = dark ? 0.60 : 0.60; rgb[1] = dark ? 0.60 : 0.59; rgb[2] = dark ? 0.58 : 0.56;
}

void
hl_timeline_mmap_color (gboolean dark,
                        double   rgb[3])
{
  /* Adwaita purple */
  rgb[0] = dark ? 0.86 : 0.57; rgb[1] = dark ? 0.54 : 0.25; rgb[2] = dark ? 0.87 : 0.67;
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

double
hl_timeline_band_height (const HlTimelineViewport *vp)
{
  double h = vp->band_height > 0 ? MIN (vp->band_height, vp->row_height) : vp->row_height;

  return MAX (h, MIN (HL_TIMELINE_MIN_BAND_PX, vp->row_height));
}

double
hl_timeline_fit_band_height (double height,
                             double row_height,
                             guint  n_rows,
                             guint  min_chart_rows)
{
  double room;

  if (n_rows == 0)
    return row_height;
  /* the axis, the chart, then the bands */
  room = floor ((height - row_height * (1 + min_chart_rows)) / n_rows);
  return CLAMP (room, MIN (HL_TIMELINE_MIN_BAND_PX, row_height), row_height);
}

void
hl_timeline_layout (const HlTimelineData     *data,
                    const HlTimelineViewport *vp,
                    HlTimelineLayout         *layout)
{
  double rest;

  layout->bands_height = hl_timeline_data_get_n_rows (data) * hl_timeline_band_height (vp);
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

void
hl_timeline_set_fg (cairo_t               *cr,
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

  hl_timeline_set_fg (cr, style, 0.15);
  cairo_rectangle (cr, 0, lay->axis_y, vp->width, 1);
  cairo_fill (cr);

  for (; t <= vp->end_ns; t += step)
    {
      double x = floor (hl_timeline_x_for_time (vp, t)) + 0.5;
      g_autofree char *text = NULL;

      if (x < 0)
        continue;
      hl_timeline_set_fg (cr, style, 0.08);
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
      hl_timeline_set_fg (cr, style, 0.65);
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
  double band_h = hl_timeline_band_height (vp);
  int line_h;
  gboolean labels;
  PangoFontDescription *font = NULL;

  /* rows lower than a line of text have smaller labels, strips lower
   * than a small one none (the tooltip names them) */
  pango_layout_set_text (layout, "Ag", -1);
  pango_layout_get_pixel_size (layout, NULL, &line_h);
  labels = band_h >= line_h;
  if (!labels && band_h >= 11)
    {
      PangoFontDescription *small = pango_font_description_copy (pango_layout_get_font_description (layout));

      font = pango_font_description_copy (pango_layout_get_font_description (layout));
      pango_font_description_set_absolute_size (small, (band_h - 4) * PANGO_SCALE);
      pango_layout_set_font_description (layout, small);
      pango_font_description_free (small);
      labels = TRUE;
    }

  for (guint i = 0; i < hl_timeline_data_get_n_bands (data); i++)
    {
      const HlTimelineBand *band = hl_timeline_data_get_band (data, i);
      double x0 = hl_timeline_x_for_time (vp, band->start_ns);
      double x1 = hl_timeline_x_for_time (vp, band->end_ns);
      double y = band->row * band_h;
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
      cairo_rectangle (cr, x0, y + 1, MAX (x1 - x0 - 1, 1), band_h - 2);
      cairo_fill (cr);

      if (labels && x1 - x0 > 16)
        {
          cairo_save (cr);
          cairo_rectangle (cr, x0, y, x1 - x0 - 1, band_h);
          cairo_clip (cr);
          pango_layout_set_text (layout, band->label, -1);
          pango_layout_set_width (layout, (int) ((x1 - x0 - 6) * PANGO_SCALE));
          pango_layout_get_pixel_size (layout, NULL, &text_h);
          hl_timeline_set_fg (cr, style, 0.85);
          cairo_move_to (cr, x0 + 3, y + (band_h - text_h) / 2);
          pango_cairo_show_layout (cr, layout);
          pango_layout_set_width (layout, -1);
          cairo_restore (cr);
          labelled[band->row] = TRUE;
        }
    }

  /* Rows of short intervals (request=1, request=2, …) have no room for
   * labels: name their key at the left edge. */
  for (guint r = 0; labels && r < n_rows; r++)
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
      cairo_rectangle (cr, 0, r * band_h + 1, tw + 8, band_h - 2);
      cairo_fill (cr);
      hl_timeline_set_fg (cr, style, 0.85);
      cairo_move_to (cr, 4, r * band_h + (band_h - th) / 2);
      pango_cairo_show_layout (cr, layout);
    }
  if (font != NULL)
    {
      pango_layout_set_font_description (layout, font);
      pango_font_description_free (font);
    }
}

/* A plate of the background colour under a label, so that the curves
 * passing under it do not make it unreadable. */
void
hl_timeline_draw_plate (cairo_t               *cr,
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
      hl_timeline_set_fg (cr, style, 0.7);
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
              hl_timeline_draw_plate (cr, style, left - 2, lay->chart_y + l * line_h, tw + 4, line_h);
              hl_timeline_set_fg (cr, style, 0.7);
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

  draw_bands (cr, layout, data, vp, style);
  draw_axis (cr, layout, vp, style, &lay);
  scale_left = vp->width;
  if (hl_timeline_data_get_n_buckets (data) > 0 && hl_timeline_data_get_max_value (data, vp->mode) > 0)
    {
      hl_timeline_draw_grid (cr, vp, style, &lay);
      if (vp->mode == HL_TIMELINE_MODE_CONSUMED)
        hl_timeline_draw_consumed (cr, data, vp, style, &lay);
      else
        hl_timeline_draw_cumulative (cr, data, vp, style, &lay);
      scale_left = hl_timeline_draw_value_labels (cr, layout, vp, style, &lay);
    }
  hl_timeline_draw_rate (cr, layout, data, vp, style, &lay);
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

  if (vp->has_user_mark && vp->user_mark_ns >= vp->start_ns && vp->user_mark_ns <= vp->end_ns)
    {
      static const double dash[] = { 4, 3 };
      double x = floor (hl_timeline_x_for_time (vp, vp->user_mark_ns)) + 0.5;
      int text_w;

      hl_timeline_set_fg (cr, style, 0.85);
      cairo_set_line_width (cr, 1);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, x, lay.chart_y);
      cairo_line_to (cr, x, lay.axis_y);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      /* its label inside the chart, on the side with room */
      pango_layout_set_width (layout, -1);
      pango_layout_set_text (layout, _("Mark 1"), -1);
      pango_layout_get_pixel_size (layout, &text_w, NULL);
      cairo_move_to (cr, x + 3 + text_w > vp->width ? x - 3 - text_w : x + 3, lay.chart_y + 1);
      pango_cairo_show_layout (cr, layout);
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
