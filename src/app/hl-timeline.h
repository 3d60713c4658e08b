/* hl-timeline.h — the timeline widget: zoom, pan, drag to select a range. */
#pragma once

#include <gtk/gtk.h>

#include "hl-timeline-data.h"
#include "hl-timeline-draw.h"

G_BEGIN_DECLS

#define HL_TYPE_TIMELINE (hl_timeline_get_type ())
G_DECLARE_FINAL_TYPE (HlTimeline, hl_timeline, HL, TIMELINE, GtkWidget)

GtkWidget      *hl_timeline_new            (void);
void            hl_timeline_set_data       (HlTimeline     *self,
                                            HlTimelineData *data);
HlTimelineData *hl_timeline_get_data       (HlTimeline     *self);
/* The selected range; emits "selection-changed" when it changes. */
void            hl_timeline_set_selection  (HlTimeline     *self,
                                            guint64         start_ns,
                                            guint64         end_ns);
void            hl_timeline_clear_selection(HlTimeline     *self);
gboolean        hl_timeline_get_selection  (HlTimeline     *self,
                                            guint64        *start_ns,
                                            guint64        *end_ns);
/* Visible range (zoom and pan). */
void            hl_timeline_set_visible_range (HlTimeline *self,
                                               guint64     start_ns,
                                               guint64     end_ns);
void            hl_timeline_get_visible_range (HlTimeline *self,
                                               guint64    *start_ns,
                                               guint64    *end_ns);
/* Zoom by FACTOR (> 1 zooms in) around the time at X; pan by DX pixels. */
void            hl_timeline_zoom           (HlTimeline     *self,
                                            double          factor,
                                            double          x);
void            hl_timeline_pan            (HlTimeline     *self,
                                            double          dx);
void            hl_timeline_reset_zoom     (HlTimeline     *self);
/* What a drag from X0 to X1 does (the gesture calls this; tests too). */
void            hl_timeline_drag           (HlTimeline     *self,
                                            double          x0,
                                            double          x1);
/* What a click at (X, Y) does (the gesture calls this; tests too): on a
 * metadata band, its interval becomes the selection; elsewhere, the
 * cursor (as a drag too short to select). */
void            hl_timeline_click          (HlTimeline     *self,
                                            double          x,
                                            double          y);
/* A mark the user set (live: the first of two, "Mark 1"), drawn dashed
 * with its label; HAS_MARK FALSE removes it. */
void            hl_timeline_set_user_mark  (HlTimeline     *self,
                                            gboolean        has_mark,
                                            guint64         time_ns);
/* By site: the heap's area split into its largest call sites (the
 * data's sites), each named in the tooltip with its bytes. */
void            hl_timeline_set_by_site    (HlTimeline     *self,
                                            gboolean        by_site);
gboolean        hl_timeline_get_by_site    (HlTimeline     *self);
/* The chart: Consumed (the heap and RSS), Allocations or Temporary (since
 * the start); by_site draws in Consumed only. */
void            hl_timeline_set_mode       (HlTimeline     *self,
                                            HlTimelineMode  mode);
HlTimelineMode  hl_timeline_get_mode       (HlTimeline     *self);
/* The tooltip at (X, Y), Pango markup: the time, the heap, RSS and the
 * allocations there (in Allocations and Temporary, their counts since the
 * start), with by_site each call site's bytes after a square of its
 * colour, and the metadata bands there. NULL without data. */
char           *hl_timeline_describe       (HlTimeline     *self,
                                            double          x,
                                            double          y);
void            hl_timeline_get_viewport   (HlTimeline         *self,
                                            HlTimelineViewport *viewport);

G_END_DECLS
