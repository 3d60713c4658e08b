/* hl-timeline-draw-private.h — what the timeline's two drawing files
 * share: hl-timeline-draw.c (layout, bands, time axis, marks, selection)
 * and hl-timeline-draw-series.c (the chart's value axis, series and rate
 * strip). */
#pragma once

#include "hl-timeline-draw.h"

G_BEGIN_DECLS

/* The foreground (black or white) at ALPHA. */
void   hl_timeline_set_fg            (cairo_t                  *cr,
                                      const HlTimelineStyle    *style,
                                      double                    alpha);
/* A plate of the background colour under a label, so that the curves
 * passing under it do not make it unreadable. */
void   hl_timeline_draw_plate        (cairo_t                  *cr,
                                      const HlTimelineStyle    *style,
                                      double                    x,
                                      double                    y,
                                      double                    width,
                                      double                    height);

/* hl-timeline-draw-series.c: the value axis' gridlines (under the
 * series), the series of Consumed and of the cumulative modes, the value
 * axis' labels (returning the left edge of the widest: the marks' labels
 * stop there) and the rate strip with its label. */
void   hl_timeline_draw_grid         (cairo_t                  *cr,
                                      const HlTimelineViewport *vp,
                                      const HlTimelineStyle    *style,
                                      const HlTimelineLayout   *lay);
void   hl_timeline_draw_consumed     (cairo_t                  *cr,
                                      const HlTimelineData     *data,
                                      const HlTimelineViewport *vp,
                                      const HlTimelineStyle    *style,
                                      const HlTimelineLayout   *lay);
void   hl_timeline_draw_cumulative   (cairo_t                  *cr,
                                      const HlTimelineData     *data,
                                      const HlTimelineViewport *vp,
                                      const HlTimelineStyle    *style,
                                      const HlTimelineLayout   *lay);
double hl_timeline_draw_value_labels (cairo_t                  *cr,
                                      PangoLayout              *layout,
                                      const HlTimelineViewport *vp,
                                      const HlTimelineStyle    *style,
                                      const HlTimelineLayout   *lay);
void   hl_timeline_draw_rate         (cairo_t                  *cr,
                                      PangoLayout              *layout,
                                      const HlTimelineData     *data,
                                      const HlTimelineViewport *vp,
                                      const HlTimelineStyle    *style,
                                      const HlTimelineLayout   *lay);

G_END_DECLS
