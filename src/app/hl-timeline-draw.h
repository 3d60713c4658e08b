/* hl-timeline-draw.h — draws the timeline with cairo, no widget needed.
 *
 * From top to bottom: one row of labelled bands per metadata key, the chart
 * (heap as a min/max area, RSS as a line, marks as ticks; with by_site the
 * heap's largest call sites stacked inside its area), the allocation
 * rate lane, the time axis. The selected range is shaded.
 */
#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hl-timeline-data.h"

G_BEGIN_DECLS

typedef struct
{
  double   width;
  double   height;
  double   row_height;       /* of a band row and of the axis */
  guint64  start_ns;         /* visible range */
  guint64  end_ns;
  gboolean has_selection;
  guint64  selection_start_ns;
  guint64  selection_end_ns;
  gboolean has_cursor;
  guint64  cursor_ns;
  gboolean hide_bands;       /* compact: the chart and the axis only */
  gboolean by_site;          /* the heap split into its largest call sites */
} HlTimelineViewport;

typedef struct
{
  gboolean                    dark;
  const PangoFontDescription *font;   /* NULL = "Sans 8" */
} HlTimelineStyle;

typedef struct
{
  double chart_y, chart_height;   /* heap and RSS */
  double rate_y, rate_height;
  double axis_y;
  double bands_height;
} HlTimelineLayout;

void    hl_timeline_layout      (const HlTimelineData     *data,
                                 const HlTimelineViewport *viewport,
                                 HlTimelineLayout         *layout);
double  hl_timeline_x_for_time  (const HlTimelineViewport *viewport,
                                 guint64                   time_ns);
guint64 hl_timeline_time_for_x  (const HlTimelineViewport *viewport,
                                 double                    x);
void    hl_timeline_draw        (cairo_t                  *cr,
                                 const HlTimelineData     *data,
                                 const HlTimelineViewport *viewport,
                                 const HlTimelineStyle    *style);

/* Colours of the series, for the legend (0..1 RGB). */
void    hl_timeline_heap_color  (gboolean dark, double rgb[3]);
void    hl_timeline_rss_color   (gboolean dark, double rgb[3]);
void    hl_timeline_rate_color  (gboolean dark, double rgb[3]);
/* The colour of call site SITE (0 the largest) when by_site. */
void    hl_timeline_site_color  (gboolean dark, guint site, double rgb[3]);

G_END_DECLS
