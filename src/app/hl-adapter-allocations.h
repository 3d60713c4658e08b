/* hl-adapter-allocations.h — the allocations view's lists (leaks, largest)
 * and its size histogram. */
#pragma once

#include <gio/gio.h>
#include "hl-model.h"
#include "hl-histogram.h"

G_BEGIN_DECLS

/* Leaks grouped by stack / the largest allocations grouped by stack and
 * size (their count the item's), as HlAllocItem lists, from the model's
 * answers (hl_analysis_get_top_stacks of LEAKED, HlStackCosts;
 * hl_analysis_get_largest, HlAllocationInfo). */
GListModel     *hl_adapter_leak_items     (HlRecording   *recording,
                                           GArray        *top);
GListModel     *hl_adapter_largest_items  (HlRecording   *recording,
                                           GArray        *largest);
/* The leaks split by the leak scan's kinds: BY_KIND[k] the
 * hl_analysis_get_top_leaks_of_kind() answer of kind k (NULL: none);
 * rows of the surest kind first, each item with its kind. */
GListModel     *hl_adapter_leak_items_by_kind (HlRecording *recording,
                                               GArray     **by_kind);
/* "Definitely lost" … "Still reachable" (an HlReachabilityKind). */
const char     *hl_adapter_reachability_kind_title (int kind);

/* Power-of-two buckets from the smallest to the largest non-empty one;
 * returns how many were written to OUT. */
guint           hl_adapter_histogram      (HlAnalysis        *analysis,
                                           HlHistogramBucket  out[HL_SIZE_HISTOGRAM_BUCKETS]);
/* The split by call site of the N buckets BUCKETS (hl_adapter_histogram's)
 * from SIZES (NULL: none): the largest sites' parts, then the others';
 * the parts' names (a new GStrv, the last "Other call sites"), or NULL
 * when there is nothing to split. */
GStrv           hl_adapter_histogram_parts (HlRecording         *recording,
                                            const HlSizesBySite *sizes,
                                            guint                n,
                                            HlHistogramBucket   *buckets);

G_END_DECLS
