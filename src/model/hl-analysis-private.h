/* hl-analysis-private.h — what the analysis' own files share
 * (hl-analysis.c, hl-analysis-async.c). */
#pragma once

#include "hl-analysis.h"

/* hl_analysis_get_largest (), which gives up between blocks of
 * allocations once CANCELLABLE is cancelled: then NULL. */
GArray *hl_analysis_find_largest (HlAnalysis   *self,
                                  guint         n,
                                  GCancellable *cancellable);
