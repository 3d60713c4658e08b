/* hl-timeline-draw.h — draws the timeline with cairo, no widget needed.
 *
 * From top to bottom: one row of labelled bands per metadata key, the chart
 * (its mode's: heap as an area and RSS as a line on one axis, with by_site
 * the heap's largest call sites stacked inside its area; or the
 * allocations or temporary allocations since the start) with its value
 * axis labelled at the right and marks as ticks, the allocation rate
 * strip with its largest rate, the time axis. The selected range is
 * shaded.
 */
#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "hl-timeline-axis.h"
#include "hl-timeline-data.h"

G_BEGIN_DECLS

typedef struct
{
  double   width;
  double   height;
  double   row_height;       /* of a line of text: the axis, a band row */
  double   band_height;      /* of a band row when the timeline is short
                              * (less than row_height; 0: row_height) */
  guint64  start_ns;         /* visible range */
  guint64  end_ns;
  gboolean has_selection;
  guint64  selection_start_ns;
  guint64  selection_end_ns;
  gboolean has_cursor;
  guint64  cursor_ns;
  gboolean has_user_mark;    /* live: the first of two marks, dashed */
  guint64  user_mark_ns;
  gboolean by_site;          /* the heap split into its largest call sites */
  HlTimelineMode mode;       /* the chart: consumed, allocations, temporary */
} HlTimelineViewport;

typedef struct
{
  gboolean                    dark;
  const PangoFontDescription *font;   /* NULL = "Sans 8" */
} HlTimelineStyle;

typedef struct
{
  double chart_y, chart_height;   /* heap and RSS, or the mode's count */
  double rate_y, rate_height;
  double axis_y;
  double bands_height;
  HlTimelineAxis axis;            /* the chart's values: 0 at its bottom, axis.top at chart_y */
} HlTimelineLayout;

/* The height of a band row (VIEWPORT's band_height, or its row_height);
 * HL_TIMELINE_MIN_BAND_PX at least. */
#define HL_TIMELINE_MIN_BAND_PX 6.0
double  hl_timeline_band_height (const HlTimelineViewport *viewport);
/* The band row height that leaves a timeline of HEIGHT with N_ROWS rows
 * its axis and a chart of MIN_CHART_ROWS rows: ROW_HEIGHT when there is
 * room, less down to HL_TIMELINE_MIN_BAND_PX (the timeline shrinks its
 * bands before the views below it lose room). */
double  hl_timeline_fit_band_height (double height,
                                     double row_height,
                                     guint  n_rows,
                                     guint  min_chart_rows);
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
/* The allocator's free space and the program's mappings, stacked on the heap */
void    hl_timeline_malloc_free_color (gboolean dark, double rgb[3]);
void    hl_timeline_mmap_color  (gboolean dark, double rgb[3]);
void    hl_timeline_rate_color  (gboolean dark, double rgb[3]);
/* The colour of call site SITE (0 the largest) when by_site. */
void    hl_timeline_site_color  (gboolean dark, guint site, double rgb[3]);

G_END_DECLS
