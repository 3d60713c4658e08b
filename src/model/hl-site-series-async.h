/* hl-site-series-async.h — the heap by call site of a recording
 * (hl_recording_get_site_series, hl-recording.h) on a worker thread. */
#pragma once

#include <gio/gio.h>

#include "hl-recording.h"

G_BEGIN_DECLS

/* hl_recording_get_site_series () on a worker thread of GLib's pool (two
 * passes over the allocations and frees: 0.3 s for 10 M events).
 * CALLBACK runs on the thread-default main context of the caller, after
 * the worker is done with SELF; CANCELLABLE is looked at before and
 * after the passes. A growing recording is held still by the caller
 * until CALLBACK has run (as for hl_analysis_get_call_tree_async). */
void          hl_recording_get_site_series_async  (HlRecording        *self,
                                                   guint64             t0_ns,
                                                   guint64             t1_ns,
                                                   guint               n_buckets,
                                                   guint               max_sites,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
/* The series (hl_site_series_free); NULL without ERROR when there is
 * nothing to show (as the synchronous call), NULL with ERROR
 * (G_IO_ERROR_CANCELLED) when cancelled. */
HlSiteSeries *hl_recording_get_site_series_finish (HlRecording        *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);

G_END_DECLS
