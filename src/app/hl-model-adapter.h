/* hl-model-adapter.h — the model's answers turned into what the widgets
 * draw: flame data, timeline data, tree rows, allocation items, histogram
 * buckets, summary numbers, and the session's filters as an HlFilter.
 * Conversions only: no state, no GTK windows. */
#pragma once

#include <gtk/gtk.h>

#include "hl-live-session.h"
#include "hl-model.h"

#include "hl-flame-data.h"
#include "hl-histogram.h"
#include "hl-session.h"
#include "hl-summary-view.h"
#include "hl-timeline-data.h"
#include "hl-tree-row.h"

G_BEGIN_DECLS

/* Copies the values of COSTS into OUT, indexed by HlCostKind. */
void            hl_adapter_costs_to_array (const HlCosts *costs,
                                           guint64        out[HL_N_COST_KINDS]);

/* Flame data from a layout; each node's user_data is its HlCallNode + 1. */
HlFlameData    *hl_adapter_flame_data     (HlFlameLayout *layout);
/* The call node of a flame data node (HL_CALL_NODE_NONE for the root). */
HlCallNode      hl_adapter_flame_node_call_node (const HlFlameData *data,
                                                 guint              node);

/* N_BUCKETS buckets over [T0, T1) plus the recording's bands and marks. */
HlTimelineData *hl_adapter_timeline_data  (HlRecording   *recording,
                                           guint64        t0_ns,
                                           guint64        t1_ns,
                                           guint          n_buckets);
/* Gives DATA the heap by call site of SITES, of RECORDING (NULL: none):
 * each named by its function, and its caller when two share one. */
void            hl_adapter_timeline_set_sites (HlTimelineData     *data,
                                               HlRecording        *recording,
                                               const HlSiteSeries *sites);

/* Root row of a call tree (its children are made on demand). */
HlTreeRow      *hl_adapter_call_tree      (HlCallTree    *tree);
/* Root row with two children, "Callers" and "Callees" of FUNCTION. */
HlTreeRow      *hl_adapter_caller_callee  (HlAnalysis    *analysis,
                                           const HlFrame *function);
/* Finds the frame of the function called NAME in the analysis' top-down
 * tree (the first met in display order), or NULL. */
const HlFrame  *hl_adapter_find_function  (HlAnalysis    *analysis,
                                           const char    *name);

/* "function — file:line (module)" lines of STACK, innermost first. */
GStrv           hl_adapter_stack_lines    (HlRecording   *recording,
                                           HlStackId      stack);
/* Leaks grouped by stack / the largest allocations, as HlAllocItem lists. */
GListModel     *hl_adapter_leaks          (HlAnalysis    *analysis,
                                           guint          max);
GListModel     *hl_adapter_largest        (HlAnalysis    *analysis,
                                           guint          max);
/* Power-of-two buckets from the smallest to the largest non-empty one;
 * returns how many were written to OUT. */
guint           hl_adapter_histogram      (HlAnalysis        *analysis,
                                           HlHistogramBucket  out[HL_SIZE_HISTOGRAM_BUCKETS]);

/* What a live session counts exactly, for the summary. */
typedef struct
{
  HlLiveState    state;        /* running, or how it ended */
  HlLiveTotals   totals;       /* the preload's counters */
  const HlCosts *stack_costs;  /* per HlStackId (hl_live_session_get_stack_costs), or NULL */
  guint          n_stacks;
} HlAdapterLive;

/* Totals, chart and top call sites of the summary page. LIVE: a live
 * session's counters (NULL for a saved trace); without a filter they
 * replace the recording's sampled totals and give the top call sites by
 * bytes, calls and not freed yet. */
void            hl_adapter_fill_summary   (HlSummaryView       *view,
                                           HlRecording         *recording,
                                           HlAnalysis          *analysis,
                                           const HlAdapterLive *live);

/* The session's range and filters; LIVE_AT_NS (or HL_TIME_NONE) is the
 * instant of the LIVE cost. */
HlFilter       *hl_adapter_filter         (HlSession     *session,
                                           guint64        live_at_ns);
/* BASE with SESSION's metadata and module filters (those that mean the
 * same in any recording, unlike thread ids); a new reference. */
HlFilter       *hl_adapter_filter_labels  (HlSession     *session,
                                           HlFilter      *base);

/* A menu of the filters the recording offers: threads, metadata values,
 * modules (actions win.filter-thread, win.filter-metadata, win.filter-module). */
GMenuModel     *hl_adapter_filter_menu    (HlRecording   *recording);

G_END_DECLS
