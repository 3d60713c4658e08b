/* hl-adapter-summary.h — the summary page's numbers, chart and top call
 * sites. */
#pragma once

#include "hl-model.h"
#include "hl-summary-view.h"

G_BEGIN_DECLS

/* What a live session counts exactly, for the summary. */
typedef struct
{
  HlLiveState    state;        /* running, or how it ended */
  HlLiveTotals   totals;       /* the preload's counters */
  guint64        time_ns;      /* when they were read (hl_live_session_get_totals_time_ns) */
  const HlCosts *stack_costs;  /* per HlStackId (hl_live_session_get_stack_costs), or NULL */
  guint          n_stacks;
  HlLiveLeakScan leak_scan;    /* the last scan on demand (n_scans 0: none) */
} HlAdapterLive;

/* Totals, chart and top call sites of the summary page. LIVE: a live
 * session's counters (NULL for a saved trace); without a filter they
 * replace the recording's sampled totals and give the top call sites by
 * bytes, calls and not freed yet. */
void            hl_adapter_fill_summary   (HlSummaryView       *view,
                                           HlRecording         *recording,
                                           HlAnalysis          *analysis,
                                           const HlAdapterLive *live);

G_END_DECLS
