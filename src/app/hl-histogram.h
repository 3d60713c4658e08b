/* hl-histogram.h — a bar chart of allocation sizes (power-of-two buckets)
 * or of other buckets that carry their own labels (lifetimes),
 * drawn by a widget-free function, shown by a small widget. */
#pragma once

#include <cairo.h>
#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 min_size;  /* bytes, inclusive */
  guint64 count;     /* allocations */
  guint64 bytes;     /* their total size */
  const char *label; /* shown under the bar instead of min_size as a size
                      * (a lifetime bucket's "1–10 ms"); NULL: the size.
                      * Static or outliving the widget's buckets. */
} HlHistogramBucket;

typedef struct
{
  double   width, height;
  gboolean dark;
  gboolean by_bytes;   /* bar height = bytes instead of count */
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

G_END_DECLS
