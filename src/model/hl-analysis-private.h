/* hl-analysis-private.h — what the analysis' own files share
 * (hl-analysis.c, hl-analysis-async.c, hl-analysis-functions.c,
 * hl-analysis-mmap.c,
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
/* The analysis' costs per internal stack, *N_STACKS of them (borrowed). */
const HlCosts *hl_analysis_peek_stack_costs (HlAnalysis *self,
                                             guint      *n_stacks);
/* g_array_sort_with_data's order of HlStackCosts: the most of the cost
 * GPOINTER_TO_UINT (USER_DATA) first, then by stack, then by function. */
int      hl_stack_costs_compare   (gconstpointer     a,
                                   gconstpointer     b,
                                   gpointer          user_data);
/* The selected time range [*T0, *T1] (T1 HL_TIME_NONE: to the end). */
void     hl_analysis_get_range    (HlAnalysis       *self,
                                   guint64          *t0,
                                   guint64          *t1);

/* What the MMAP cost (hl-cost-kind.h) of a selection takes in: the
 * mappings made in [T0, T1] still mapped at LIVE_AT (HL_TIME_NONE: at the
 * end), by the stacks STACK_OK keeps (NULL: all) and the filter's threads
 * and sizes, while the filter's metadata held (META_RANGES, per
 * condition a GArray of guint64 [start, end) pairs; NULL: none). */
typedef struct
{
  guint64       t0, t1, live_at;
  const guint8 *stack_ok;
  const GArray *meta_ranges;
} HlMmapSelection;

/* Adds the MMAP cost of the selection SEL of SELF's filter to the costs
 * per internal stack (N_STACKS) and per thread index (N_THREADS), from
 * the recording's mappings (hl-analysis-mmap.c). */
void     hl_analysis_add_mmap       (HlAnalysis            *self,
                                     const HlMmapSelection *sel,
                                     HlCosts               *stack_costs,
                                     guint                  n_stacks,
                                     HlCosts               *thread_costs,
                                     guint                  n_threads);
/* The same for a costs-only recording (AGG): from its mappings when it
 * was filled from the events, else from the saved costs' sites (what each
 * stack maps at the end), a stack's counted for its owner thread (the
 * saved costs keep no thread per mapping: hl_filter_needs_events()). */
void     hl_analysis_add_mmap_saved (HlAnalysis            *self,
                                     const HlAggregate     *agg,
                                     const guint8          *stack_ok,
                                     HlCosts               *stack_costs,
                                     guint                  n_stacks,
                                     HlCosts               *thread_costs,
                                     guint                  n_threads);
