/* hl-analysis-private.h — what the analysis' own files share
 * (hl-analysis.c, hl-analysis-async.c, hl-analysis-functions.c,
 * hl-lifetimes.c, hl-analysis-threads.c, hl-analysis-sites.c,
 * hl-site-sizes.c). */
#pragma once

#include "hl-analysis.h"

/* hl_analysis_get_largest (), which gives up between blocks of
 * allocations once CANCELLABLE is cancelled: then NULL. */
GArray *hl_analysis_find_largest (HlAnalysis   *self,
                                  guint         n,
                                  GCancellable *cancellable);

/* Threads' costs by start time, then tid (g_array_sort's order). */
int     hl_thread_costs_compare_starts (gconstpointer a,
                                        gconstpointer b);

#include "hl-recording-tables.h"

/* Whether the filter of SELF selects allocation A (its time, thread,
 * stack, metadata and size conditions; UNIT_SIZE is hl_alloc_unit_size's
 * of A); for the per-allocation answers of the model's other files
 * (hl-lifetimes.c). */
gboolean hl_analysis_selects      (HlAnalysis       *self,
                                   const HlAllocRec *a,
                                   guint64           unit_size);
/* The call sites (hl-call-site.h) of the stacks SELF's selection
 * allocated from: SITE_OF (one per stack of the recording, zeroed) gets
 * each such stack's site index + 1; returns each site's first stack
 * (HlStackId), in stack order. Stack 0 is a site of its own. */
GArray  *hl_analysis_group_call_sites (HlAnalysis       *self,
                                       guint32          *site_of);
/* The selected time range [*T0, *T1] (T1 HL_TIME_NONE: to the end). */
void     hl_analysis_get_range    (HlAnalysis       *self,
                                   guint64          *t0,
                                   guint64          *t1);
