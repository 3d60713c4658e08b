/* hl-allocations-view.h — leaks grouped by stack, the largest allocations
 * (with their lifetimes), the lifetimes per call site and a size histogram. */
#pragma once

#include <gtk/gtk.h>

#include "hl-alloc-item.h"
#include "hl-histogram.h"

G_BEGIN_DECLS

#define HL_TYPE_ALLOCATIONS_VIEW (hl_allocations_view_get_type ())
G_DECLARE_FINAL_TYPE (HlAllocationsView, hl_allocations_view, HL, ALLOCATIONS_VIEW, GtkWidget)

/* LEAKS and LARGEST are lists of HlAllocItem (taken by reference). LEAKS
 * NULL: not built yet (the tab shows a spinner, never "No Leaks"). */
void        hl_allocations_view_set_leaks     (HlAllocationsView       *self,
                                               GListModel              *leaks);
/* The Leaks tab's title, its size column's and its empty page's (see
 * hl-adapter-not-freed.h: "Not Freed by 4.6 s" for a range that ends early). */
void        hl_allocations_view_set_leak_titles (HlAllocationsView     *self,
                                                 const char            *tab,
                                                 const char            *column,
                                                 const char            *none);
const char *hl_allocations_view_get_leaks_title (HlAllocationsView     *self);
void        hl_allocations_view_set_largest   (HlAllocationsView       *self,
                                               GListModel              *largest);
void        hl_allocations_view_set_histogram (HlAllocationsView       *self,
                                               guint                    n_buckets,
                                               const HlHistogramBucket *buckets);
/* The names of the buckets' parts by call site (NULL: none), which the
 * histogram draws while By Call Site is on. */
void        hl_allocations_view_set_histogram_parts (HlAllocationsView  *self,
                                                     const char * const *labels);
/* The Sizes page's histogram (log scale by default; a click on a bar
 * emits "size-range-chosen" (guint64 min, guint64 max, both included)). */
HlHistogram *hl_allocations_view_get_histogram (HlAllocationsView      *self);
/* The Lifetimes page: SITES (HlAllocItem rows of call sites, taken by
 * reference; NULL: none) and the histogram of the selection's lifetimes
 * (N_BUCKETS 0: the page says lifetimes are not known). */
void        hl_allocations_view_set_lifetimes (HlAllocationsView       *self,
                                               GListModel              *sites,
                                               guint                    n_buckets,
                                               const HlHistogramBucket *buckets);
GListModel *hl_allocations_view_get_lifetimes (HlAllocationsView       *self);
GListModel *hl_allocations_view_get_leaks     (HlAllocationsView       *self);
/* Select row I of the leaks list; returns the stack text shown. */
const char *hl_allocations_view_select_leak   (HlAllocationsView       *self,
                                               guint                    i);

G_END_DECLS
