/* hl-timeline-axis.h — the timeline's value axis: "nice" round ticks
 * (0, 50 MiB, 100 MiB, …) for a series' largest value, as many as the
 * chart's height has room for, in one unit; and the allocation rate
 * strip's label. Pure arithmetic and strings, no drawing. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  HL_TIMELINE_AXIS_BYTES,    /* B, KiB, MiB, GiB, TiB (1024) */
  HL_TIMELINE_AXIS_COUNT,    /* 1, k, M, G (1000) */
} HlTimelineAxisKind;

typedef struct
{
  HlTimelineAxisKind kind;
  double             unit;         /* bytes or items of one unit: 1, 1024, 1000… */
  guint              unit_index;   /* 0 = B or plain counts */
  double             step;         /* between ticks, in units: 1, 2 or 5 × 10^k */
  guint              n_intervals;  /* ticks at 0, step, …, n_intervals × step */
  guint              decimals;     /* that the step needs (0.5 → 1) */
  double             top;          /* the last tick, in bytes or items: the chart's top */
} HlTimelineAxis;

/* The most intervals between ticks that a chart HEIGHT_PX tall has room
 * for, their labels LABEL_HEIGHT_PX tall and never touching: 1 to 5. */
guint   hl_timeline_axis_max_intervals (double              height_px,
                                        double              label_height_px);
/* The axis of a series whose largest value is MAX_VALUE (0 is taken as 1):
 * the smallest round step giving at most MAX_INTERVALS intervals up to a
 * top at or above MAX_VALUE, in the unit of MAX_VALUE. */
void    hl_timeline_axis_init          (HlTimelineAxis     *axis,
                                        HlTimelineAxisKind  kind,
                                        guint64             max_value,
                                        guint               max_intervals);
/* The value of tick I (0 ≤ I ≤ n_intervals), in bytes or items. */
double  hl_timeline_axis_tick_value    (const HlTimelineAxis *axis,
                                        guint                 i);
/* Its label: "0", "50 MiB", "1.5 MiB", "200 k", "40". */
char   *hl_timeline_axis_tick_label    (const HlTimelineAxis *axis,
                                        guint                 i);
/* A rate for the rate strip's label: "850/s", "12 k/s", "1.5 M/s". */
char   *hl_timeline_axis_format_rate   (double               per_second);

G_END_DECLS
