/* hl-size-histogram.h — allocation sizes by power of two, of a whole
 * recording or a selection (hl_analysis_get_size_histogram). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bucket i holds sizes in [2^(i-1), 2^i) (bucket 0: size 0, bucket 1: 1). */
#define HL_SIZE_HISTOGRAM_BUCKETS 65
typedef struct
{
  guint64 count[HL_SIZE_HISTOGRAM_BUCKETS];
  guint64 bytes[HL_SIZE_HISTOGRAM_BUCKETS];
} HlSizeHistogram;

G_END_DECLS
