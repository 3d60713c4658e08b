/* hl-flame-graph-draw.c — draws a flame graph with cairo, no widget needed. */
#include "hl-config.h"

#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "hl-flame-graph-draw.h"

#define LABEL_MIN_WIDTH 28.0  /* pixels: narrower frames get no text */
#define TEXT_PADDING     4.0

/* ---- Geometry --------------------------------------------------------- */

typedef struct
{
  double  scale;    /* pixels per cost unit */
  guint64 start;    /* cost offset at x = 0 */
  guint64 end;
} Mapping;

static void
mapping_init (Mapping               *m,
              const HlFlameData     *data,
              const HlFlameViewport *vp)
{
  const HlFlameNode *z = hl_flame_data_get_node (data, vp->zoom < hl_flame_data_get_n_nodes (data) ? vp->zoom : 0);

  m->start = z->offset;
  m->end = z->offset + z->cost;
  m->scale = z->cost > 0 ? vp->width / (double) z->cost : 0.0;
}

static double
row_y (const HlFlameData     *data,
       const HlFlameViewport *vp,
       guint                  depth)
{
  if (vp->inverted)
    return vp->y_origin + depth * vp->row_height;
  return vp->y_origin + (hl_flame_data_get_max_depth (data) - depth) * vp->row_height;
}

/* Clamped horizontal extent of a node; FALSE if nothing of it is visible. */
static inline gboolean
node_x (const Mapping     *m,
        const HlFlameNode *n,
        double            *x0,
        double            *x1)
{
  guint64 a = n->offset, b = n->offset + n->cost;

  if (b <= m->start || a >= m->end || n->cost == 0)
    return FALSE;
  a = MAX (a, m->start);
  b = MIN (b, m->end);
  *x0 = (double) (a - m->start) * m->scale;
  *x1 = (double) (b - m->start) * m->scale;
  return TRUE;
}

double
hl_flame_graph_content_height (const HlFlameData     *data,
                               const HlFlameViewport *viewport)
{
  return (hl_flame_data_get_max_depth (data) + 1) * viewport->row_height;
}

gboolean
hl_flame_graph_node_rect (const HlFlameData     *data,
                          const HlFlameViewport *viewport,
                          guint                  node,
                          double                *x,
                          double                *y,
                          double                *width,
                          double                *height)
{
  Mapping m;
  double x0, x1;
  const HlFlameNode *n = hl_flame_data_get_node (data, node);

  mapping_init (&m, data, viewport);
  if (n == NULL || !node_x (&m, n, &x0, &x1))
    return FALSE;
  *x = x0;
  *width = x1 - x0;
  *y = row_y (data, viewport, n->depth);
  *height = viewport->row_height;
  return TRUE;
}

gint
hl_flame_graph_hit_test (const HlFlameData     *data,
                         const HlFlameViewport *viewport,
                         double                 x,
                         double                 y)
{
  Mapping m;
  double row;
  guint depth, max_depth = hl_flame_data_get_max_depth (data);
  guint64 offset;
  guint node = 0;

  y -= viewport->y_origin;
  if (x < 0 || x >= viewport->width || y < 0 || viewport->row_height <= 0)
    return -1;
  mapping_init (&m, data, viewport);
  if (m.scale <= 0)
    return -1;

  row = floor (y / viewport->row_height);
  if (row > max_depth)
    return -1;
  depth = viewport->inverted ? (guint) row : max_depth - (guint) row;

  offset = m.start + (guint64) (x / m.scale);
  if (offset >= m.end)
    offset = m.end - 1;

  /* Walk down from the root through the child that contains the offset. */
  for (guint d = 0; d < depth; d++)
    {
      gint child = hl_flame_data_child_at (data, node, offset);

      if (child < 0)
        return -1;
      node = (guint) child;
    }
  return (gint) node;
}

/* ---- Colours ---------------------------------------------------------- */

void
hl_hsl_to_rgb (double h,
               double s,
               double l,
               double rgb[3])
{
  double c = (1.0 - fabs (2.0 * l - 1.0)) * s;
  double hp = fmod (h, 360.0) / 60.0;
  double x = c * (1.0 - fabs (fmod (hp, 2.0) - 1.0));
  double r = 0, g = 0, b = 0, mm;

  if (hp < 1)      { r = c; g = x; }
  else if (hp < 2) { r = x; g = c; }
  else if (hp < 3) { g = c; b = x; }
  else if (hp < 4) { g = x; b = c; }
  else if (hp < 5) { r = x; b = c; }
  else             { r = c; b = x; }
  mm = l - c / 2.0;
  rgb[0] = r + mm;
  rgb[1] = g + mm;
  rgb[2] = b + mm;
}

/* FNV-1a: stable across runs and platforms (g_str_hash is too, but is not
 * documented to stay so). */
static guint32
stable_hash (const char *s)
{
  guint32 h = 2166136261u;

  for (; *s; s++)
    h = (h ^ (guint8) *s) * 16777619u;
  return h;
}

void
hl_flame_graph_node_color (const HlFlameData  *data,
                           guint               node,
                           const HlFlameStyle *style,
                           double              rgb[3])
{
  const HlFlameNode *n = hl_flame_data_get_node (data, node);
  double l = style->dark ? 0.36 : 0.72;
  guint32 h;

  if (style->color_func != NULL)
    {
      style->color_func (data, node, style->dark, rgb, style->color_data);
      return;
    }
  if (node == 0)
    {
      double grey = style->dark ? 0.30 : 0.80;
      rgb[0] = rgb[1] = rgb[2] = grey;
      return;
    }

  if (style->colors == HL_FLAME_COLORS_BY_MODULE && n->module[0] != '\0')
    {
      /* Modules get hues from the whole circle, muted so text stays readable. */
      h = stable_hash (n->module);
      hl_hsl_to_rgb ((h % 360u), 0.45, l + (double) ((h >> 9) % 8u) * 0.01, rgb);
    }
  else
    {
      /* Classic flame palette: red to yellow by a hash of the name. */
      h = stable_hash (n->name);
      hl_hsl_to_rgb ((double) (h % 50u), 0.75, l - 0.04 + (double) ((h >> 8) % 8u) * 0.01, rgb);
    }
}

static double
channel_linear (double c)
{
  return c <= 0.03928 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

void
hl_flame_graph_text_color (const double fill[3],
                           double       rgb[3])
{
  /* Relative luminance (WCAG): black or white text, whichever contrasts
   * more, is at least 4.58:1 on any fill. */
  double l = 0.2126 * channel_linear (fill[0]) + 0.7152 * channel_linear (fill[1])
             + 0.0722 * channel_linear (fill[2]);
  double with_black = (l + 0.05) / 0.05;
  double with_white = 1.05 / (l + 0.05);
  double v = with_black >= with_white ? 0.0 : 1.0;

  rgb[0] = rgb[1] = rgb[2] = v;
}

static void
search_color (const HlFlameStyle *style,
              gboolean            matches,
              double              rgb[3])
{
  if (matches)
    hl_hsl_to_rgb (295.0, 0.55, style->dark ? 0.42 : 0.70, rgb);
  else
    rgb[0] = rgb[1] = rgb[2] = style->dark ? 0.22 : 0.88;
}

/* ---- Drawing ---------------------------------------------------------- */

typedef struct
{
  double x0, x1;
  guint  first;   /* a node of the run, for its colour */
  guint  count;
  gboolean active;
} Run;

static void
draw_rect (cairo_t      *cr,
           double        x0,
           double        x1,
           double        y,
           double        h,
           const double  rgb[3])
{
  /* A one-pixel gap between frames when they are wide enough for it. */
  double w = x1 - x0;

  if (w >= 3.0)
    w -= 1.0;
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_rectangle (cr, x0, y, w, h - 1.0);
  cairo_fill (cr);
}

static void
flush_run (cairo_t               *cr,
           const HlFlameData     *data,
           const HlFlameViewport *vp,
           const HlFlameStyle    *style,
           Run                   *run,
           guint                  depth,
           HlFlameDrawStats      *stats)
{
  double rgb[3];

  if (!run->active)
    return;
  /* Merged slivers are drawn in the colour of their first frame, a little
   * lighter or darker so they read as "many small frames". */
  if (style->search != NULL && style->search[0] != '\0')
    search_color (style, FALSE, rgb);
  else
    {
      hl_flame_graph_node_color (data, run->first, style, rgb);
      for (int k = 0; k < 3; k++)
        rgb[k] = style->dark ? rgb[k] * 0.8 : rgb[k] + (1.0 - rgb[k]) * 0.3;
    }
  draw_rect (cr, run->x0, run->x1, row_y (data, vp, depth), vp->row_height, rgb);
  stats->n_rectangles++;
  if (run->count > 1)
    stats->n_merged++;
  run->active = FALSE;
}

static void
draw_label (cairo_t            *cr,
            PangoLayout        *layout,
            const HlFlameNode  *n,
            const double        fill[3],
            double              x0,
            double              x1,
            double              y,
            double              h)
{
  int text_h;

  pango_layout_set_text (layout, n->name, -1);
  pango_layout_set_width (layout, (int) ((x1 - x0 - 2 * TEXT_PADDING) * PANGO_SCALE));
  pango_layout_get_pixel_size (layout, NULL, &text_h);
  {
    double rgb[3];
    hl_flame_graph_text_color (fill, rgb);
    cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  }
  cairo_move_to (cr, x0 + TEXT_PADDING, y + (h - 1.0 - text_h) / 2.0);
  pango_cairo_show_layout (cr, layout);
}

void
hl_flame_graph_draw (cairo_t               *cr,
                     const HlFlameData     *data,
                     const HlFlameViewport *viewport,
                     const HlFlameStyle    *style,
                     HlFlameDrawStats      *stats)
{
  HlFlameDrawStats local = { 0 };
  guint n_nodes = hl_flame_data_get_n_nodes (data);
  guint max_depth = hl_flame_data_get_max_depth (data);
  g_autofree Run *runs = g_new0 (Run, max_depth + 1);
  g_autoptr(PangoLayout) layout = NULL;
  g_autoptr(PangoFontDescription) default_font = NULL;
  gboolean searching = style->search != NULL && style->search[0] != '\0';
  g_autofree char *needle = searching ? g_utf8_casefold (style->search, -1) : NULL;
  double clip_x0, clip_y0, clip_x1, clip_y1;
  Mapping m;
  guint i = 0;

  if (stats == NULL)
    stats = &local;
  memset (stats, 0, sizeof *stats);

  mapping_init (&m, data, viewport);
  if (m.scale <= 0 || viewport->row_height <= 0)
    return;

  cairo_clip_extents (cr, &clip_x0, &clip_y0, &clip_x1, &clip_y1);

  layout = pango_cairo_create_layout (cr);
  if (style->font == NULL)
    default_font = pango_font_description_from_string ("Sans 9");
  pango_layout_set_font_description (layout, style->font ? style->font : default_font);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (layout, TRUE);

  while (i < n_nodes)
    {
      const HlFlameNode *n = hl_flame_data_get_node (data, i);
      double x0, x1, y, rgb[3];
      Run *run = &runs[n->depth];
      gboolean is_ancestor = i < viewport->zoom && hl_flame_data_is_ancestor (data, i, viewport->zoom);

      if (!node_x (&m, n, &x0, &x1))
        {
          i = n->end;
          continue;
        }

      y = row_y (data, viewport, n->depth);
      /* Whole rows outside the clip: nothing of this subtree lies in the
       * rows below (inverted) or above it. */
      if (y >= clip_y1 && viewport->inverted)
        {
          i = n->end;
          continue;
        }

      if (x1 - x0 < 1.0)
        {
          /* Sub-pixel: extend this row's sliver, skip the subtree. */
          if (run->active && x0 - run->x1 < 0.5)
            {
              run->x1 = MAX (run->x1, x1);
              run->count++;
            }
          else
            {
              flush_run (cr, data, viewport, style, run, n->depth, stats);
              run->active = TRUE;
              run->x0 = x0;
              run->x1 = x1;
              run->first = i;
              run->count = 1;
            }
          i = n->end;
          continue;
        }

      flush_run (cr, data, viewport, style, run, n->depth, stats);

      if (y + viewport->row_height > clip_y0 && y < clip_y1 && x1 > clip_x0 && x0 < clip_x1)
        {
          if (searching)
            search_color (style,
                          i > 0 && strstr (hl_flame_data_get_folded_name (data, i), needle) != NULL,
                          rgb);
          else
            hl_flame_graph_node_color (data, i, style, rgb);
          if (is_ancestor && i != viewport->zoom)
            for (int k = 0; k < 3; k++)
              rgb[k] = rgb[k] * 0.55 + (style->dark ? 0.15 : 0.45) * 0.45;
          draw_rect (cr, x0, x1, y, viewport->row_height, rgb);
          stats->n_rectangles++;

          if (x1 - x0 >= LABEL_MIN_WIDTH)
            {
              draw_label (cr, layout, n, rgb, x0, x1, y, viewport->row_height);
              stats->n_labels++;
            }
        }
      i++;
    }

  for (guint d = 0; d <= max_depth; d++)
    flush_run (cr, data, viewport, style, &runs[d], d, stats);

  if (style->selected >= 0 && (guint) style->selected < n_nodes)
    {
      double x, y, w, h;

      if (hl_flame_graph_node_rect (data, viewport, (guint) style->selected, &x, &y, &w, &h))
        {
          if (style->dark)
            cairo_set_source_rgb (cr, 0.47, 0.68, 0.93);
          else
            cairo_set_source_rgb (cr, 0.11, 0.44, 0.85);
          cairo_set_line_width (cr, 2.0);
          cairo_rectangle (cr, x + 1.0, y + 1.0, MAX (w - 2.0, 1.0), h - 3.0);
          cairo_stroke (cr);
        }
    }
}
