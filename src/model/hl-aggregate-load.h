/* hl-aggregate-load.h — the parallel decode of a costs-only load
 * (HL_LOAD_FLAGS_AGGREGATE); see hl-aggregate-load.c. */
#pragma once

#include "hl-trace-load-private.h"

G_BEGIN_DECLS

/* hl_trace_load_parallel() (hl-trace-load-private.h), same arguments and
 * result, with smaller runs and recycled batches. */
guint64 hl_aggregate_load_parallel (HlTraceReader      *reader,
                                    const HlTraceIndex *index,
                                    HlRecording        *rec,
                                    guint               n_threads,
                                    GCancellable       *cancellable,
                                    HlLoadReportFunc    report,
                                    gpointer            report_data,
                                    guint64            *events,
                                    guint64            *corrupt_packets,
                                    guint64            *packets);

G_END_DECLS
