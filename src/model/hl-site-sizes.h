/* hl-site-sizes.h — the size histogram split by call site: for the
 * allocations an analysis selects (its filter, any time range), the TOP
 * call sites with the most of them (stacks with the same symbolized
 * frames, as hl_analysis_get_top_stacks groups them), each with its own
 * size histogram (the buckets of hl-size-histogram.h), and the rest
 * together. The parts add up to hl_analysis_get_size_histogram's. One
 * pass over the allocations (not for a costs-only recording). */
#pragma once

#include "hl-analysis.h"
#include "hl-size-histogram.h"

G_BEGIN_DECLS

typedef struct
{
  HlStackId       stack;      /* the call site's first stack */
  const HlFrame  *frame;      /* its first resolved frame, NULL without frames */
  guint64         n_blocks;   /* its selected allocations (weighed) */
  guint64         n_bytes;
  HlSizeHistogram histogram;
} HlSiteSizes;

typedef struct
{
  GArray          *sites;     /* HlSiteSizes, most allocations first */
  HlSizeHistogram  other;     /* the other call sites' */
} HlSizesBySite;

/* NULL when SELF's recording holds no allocation records (costs only), or
 * when CANCELLABLE was cancelled. */
HlSizesBySite *hl_analysis_get_sizes_by_site (HlAnalysis   *self,
                                              guint         top,
                                              GCancellable *cancellable);
void           hl_sizes_by_site_free         (HlSizesBySite *sizes);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlSizesBySite, hl_sizes_by_site_free)

/* The same on a worker thread; _finish: NULL with ERROR
 * (G_IO_ERROR_CANCELLED, or HL_MODEL_ERROR_UNSUPPORTED for a costs-only
 * recording). */
void           hl_analysis_get_sizes_by_site_async  (HlAnalysis         *self,
                                                     guint               top,
                                                     GCancellable       *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer            user_data);
HlSizesBySite *hl_analysis_get_sizes_by_site_finish (HlAnalysis         *self,
                                                     GAsyncResult       *result,
                                                     GError            **error);

G_END_DECLS
