/* hl-histogram.h — a bar chart of allocation sizes (power-of-two buckets)
 * or of other buckets that carry their own labels (lifetimes), drawn by
 * a widget-free function, shown by a small widget: a y-axis that names
 * what the bars count and its scale (linear or log), a tooltip per bar,
 * and a click on a size bar asks for that size range. */
#pragma once

#include <cairo.h>
#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A bar split into the parts of its call sites (the largest few, then
 * "Other call sites"): at most this many parts. */
#define HL_HISTOGRAM_MAX_PARTS 6

typedef struct
{
  guint64 min_size;  /* bytes, inclusive */
  guint64 count;     /* allocations */
  guint64 bytes;     /* their total size */
  const char *label; /* shown under the bar instead of min_size as a size
                      * (a lifetime bucket's "1–10 ms"); NULL: the size.
                      * Static or outliving the widget's buckets. */
  guint64 max_size;  /* bytes, inclusive (size buckets; 0 with min 0) */
  /* By call site: part k's share of count and bytes (drawn stacked, part
   * 0 at the bottom, in the timeline's site colours; the last part the
   * others'), when the style's n_parts > 0. */
  guint64 part_count[HL_HISTOGRAM_MAX_PARTS];
  guint64 part_bytes[HL_HISTOGRAM_MAX_PARTS];
} HlHistogramBucket;

typedef struct
{
  double   width, height;
  gboolean dark;
  gboolean by_bytes;   /* bar height = bytes instead of count */
  gboolean log_scale;  /* bar height ∝ log(1 + value) */
  gboolean axis;       /* a y-axis on the left, its caption on top */
  guint    n_parts;    /* > 0: each bar split into its parts (by call site) */
} HlHistogramStyle;

/* Bar I's rectangle (for hit-testing and tests). */
void hl_histogram_bar_rect (guint                    n_buckets,
                            const HlHistogramBucket *buckets,
                            const HlHistogramStyle  *style,
                            guint                    i,
                            double                  *x,
                            double                  *y,
                            double                  *w,
                            double                  *h);
/* The bucket whose column holds X, or -1. */
int  hl_histogram_bucket_at (guint                    n_buckets,
                             const HlHistogramStyle  *style,
                             double                   x);
/* The y-axis caption, e.g. "Allocations (log scale)". */
char *hl_histogram_caption (const HlHistogramStyle  *style);
void hl_histogram_draw     (cairo_t                 *cr,
                            guint                    n_buckets,
                            const HlHistogramBucket *buckets,
                            const HlHistogramStyle  *style);

#define HL_TYPE_HISTOGRAM (hl_histogram_get_type ())
G_DECLARE_FINAL_TYPE (HlHistogram, hl_histogram, HL, HISTOGRAM, GtkWidget)

GtkWidget *hl_histogram_new         (void);
void       hl_histogram_set_buckets (HlHistogram             *self,
                                     guint                    n_buckets,
                                     const HlHistogramBucket *buckets);
void       hl_histogram_set_by_bytes(HlHistogram             *self,
                                     gboolean                 by_bytes);
/* Splits every bar into N_PARTS parts (the buckets' part_count and
 * part_bytes) named LABELS (N_PARTS strings, copied; the last one is the
 * others'); 0 parts: whole bars. */
void       hl_histogram_set_parts    (HlHistogram             *self,
                                      guint                    n_parts,
                                      const char * const      *labels);
guint      hl_histogram_get_n_parts  (HlHistogram             *self);
/* The "log-scale" property (default FALSE). */
void       hl_histogram_set_log_scale (HlHistogram           *self,
                                       gboolean               log_scale);
gboolean   hl_histogram_get_log_scale (HlHistogram           *self);
guint      hl_histogram_get_n_buckets (HlHistogram           *self);
/* Bucket I as set (borrowed), or NULL. */
const HlHistogramBucket *hl_histogram_get_bucket (HlHistogram *self,
                                                  guint        i);
/* The tooltip of bar I: "64 B to 127 B: 1,024 allocations, 96.0 KiB". */
char      *hl_histogram_describe_bar (HlHistogram            *self,
                                      guint                   i);
/* As a click on size bar I does: emits "size-range-activated" (min and
 * max bytes, inclusive); FALSE for a bar without a size range. */
gboolean   hl_histogram_activate_bar (HlHistogram            *self,
                                      guint                   i);

G_END_DECLS
