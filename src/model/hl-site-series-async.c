/* hl-site-series-async.c — the heap by call site on a worker thread. */
#include "hl-site-series-async.h"

typedef struct
{
  guint64 t0_ns;
  guint64 t1_ns;
  guint   n_buckets;
  guint   max_sites;
} SiteQuery;

static void
site_series_thread (GTask        *task,
                    gpointer      source,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  const SiteQuery *query = task_data;
  g_autoptr(HlSiteSeries) series = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  series = hl_recording_get_site_series (source, query->t0_ns, query->t1_ns, query->n_buckets, query->max_sites);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_steal_pointer (&series), (GDestroyNotify) hl_site_series_free);
}

void
hl_recording_get_site_series_async (HlRecording        *self,
                                    guint64             t0_ns,
                                    guint64             t1_ns,
                                    guint               n_buckets,
                                    guint               max_sites,
                                    GCancellable       *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  SiteQuery *query;

  g_return_if_fail (HL_IS_RECORDING (self));

  query = g_new0 (SiteQuery, 1);
  query->t0_ns = t0_ns;
  query->t1_ns = t1_ns;
  query->n_buckets = n_buckets;
  query->max_sites = max_sites;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_recording_get_site_series_async);
  g_task_set_task_data (task, query, g_free);
  g_task_run_in_thread (task, site_series_thread);
}

HlSiteSeries *
hl_recording_get_site_series_finish (HlRecording  *self,
                                     GAsyncResult *result,
                                     GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_recording_get_site_series_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
