/* hl-flame-graph-draw.h — draws a flame graph with cairo, no widget needed.
 *
 * The widget, the SVG/PNG export and the tests all draw through
 * hl_flame_graph_draw(), and hit-test through hl_flame_graph_hit_test(), so
 * what is clicked is what was drawn. Frames narrower than a pixel are merged
 * into one sliver per row and their subtrees skipped, so the cost of a redraw
 * depends on the pixels, not on the number of nodes.
 */
#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hl-flame-data.h"

G_BEGIN_DECLS

typedef enum
{
  HL_FLAME_COLORS_BY_MODULE,
  HL_FLAME_COLORS_BY_NAME,
} HlFlameColors;

typedef struct
{
  double   width;       /* pixels */
  double   row_height;  /* pixels per depth level */
  guint    zoom;        /* node that fills the width (0 = root) */
  gboolean inverted;    /* icicle: root at the top */
  double   y_origin;    /* y of the top row (the widget bottom-aligns a flame graph) */
} HlFlameViewport;

/* Fill colour of NODE (0..1 RGB) when the caller decides (e.g. a diff
 * colours by growth); DARK as in HlFlameStyle. */
typedef void (*HlFlameColorFunc) (const HlFlameData *data,
                                  guint              node,
                                  gboolean           dark,
                                  double             rgb[3],
                                  gpointer           user_data);

typedef struct
{
  gboolean                    dark;        /* colours for a dark background */
  HlFlameColors               colors;
  const char                 *search;      /* highlight matches, dim the rest; NULL = none */
  gint                        selected;    /* outlined node, -1 = none */
  const PangoFontDescription *font;        /* NULL = "Sans 9" */
  HlFlameColorFunc            color_func;  /* NULL = by module or name (COLORS) */
  gpointer                    color_data;
} HlFlameStyle;

typedef struct
{
  guint n_rectangles;   /* frames drawn, merged slivers included */
  guint n_merged;       /* slivers that stand for several sub-pixel frames */
  guint n_labels;
} HlFlameDrawStats;

/* A colour from hue (degrees), saturation and lightness (0..1) to RGB (0..1). */
void     hl_hsl_to_rgb                 (double h,
                                        double s,
                                        double l,
                                        double rgb[3]);
/* Height in pixels of the whole graph. */
double   hl_flame_graph_content_height (const HlFlameData     *data,
                                        const HlFlameViewport *viewport);
/* Rectangle of NODE; FALSE when it is outside the zoomed range. */
gboolean hl_flame_graph_node_rect      (const HlFlameData     *data,
                                        const HlFlameViewport *viewport,
                                        guint                  node,
                                        double                *x,
                                        double                *y,
                                        double                *width,
                                        double                *height);
/* Draws into CR from (0, 0) to (width, content height). STATS may be NULL. */
void     hl_flame_graph_draw           (cairo_t               *cr,
                                        const HlFlameData     *data,
                                        const HlFlameViewport *viewport,
                                        const HlFlameStyle    *style,
                                        HlFlameDrawStats      *stats);
/* The node under (X, Y), or -1. */
gint     hl_flame_graph_hit_test       (const HlFlameData     *data,
                                        const HlFlameViewport *viewport,
                                        double                 x,
                                        double                 y);
/* Fill colour of NODE (0..1 RGB), stable for a name or module. */
void     hl_flame_graph_node_color     (const HlFlameData     *data,
                                        guint                  node,
                                        const HlFlameStyle    *style,
                                        double                 rgb[3]);

/* Colour of a label on a frame of colour FILL: near-black or near-white,
 * whichever contrasts more (0..1 RGB). */
void     hl_flame_graph_text_color     (const double           fill[3],
                                        double                 rgb[3]);

G_END_DECLS
