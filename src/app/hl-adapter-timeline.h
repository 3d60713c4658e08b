/* hl-adapter-timeline.h — the timeline's data (heap, RSS, rate, bands,
 * marks, call sites) from a recording. */
#pragma once

#include "hl-model.h"
#include "hl-timeline-data.h"

G_BEGIN_DECLS

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

G_END_DECLS
