/* hl-allocations-build.c — the allocations view's data of an analysis. */
#include "hl-config.h"

#include "hl-adapter-allocations.h"
#include "hl-allocations-build.h"

#define MAX_LEAK_ROWS    2000
#define MAX_LARGEST_ROWS 500

struct _HlAllocationsData
{
  GListModel        *leaks;
  GListModel        *largest;
  HlHistogramBucket  buckets[HL_SIZE_HISTOGRAM_BUCKETS];
  guint              n_buckets;
};

HlAllocationsData *
hl_allocations_data_new (HlAnalysis *analysis)
{
  HlAllocationsData *data;

  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), NULL);
  data = g_new0 (HlAllocationsData, 1);
  data->leaks = hl_adapter_leaks (analysis, MAX_LEAK_ROWS);
  data->largest = hl_adapter_largest (analysis, MAX_LARGEST_ROWS);
  data->n_buckets = hl_adapter_histogram (analysis, data->buckets);
  return data;
}

void
hl_allocations_data_free (HlAllocationsData *data)
{
  if (data == NULL)
    return;
  g_clear_object (&data->leaks);
  g_clear_object (&data->largest);
  g_free (data);
}

void
hl_allocations_data_show (HlAllocationsData *data,
                          HlAllocationsView *view)
{
  g_return_if_fail (data != NULL);
  g_return_if_fail (HL_IS_ALLOCATIONS_VIEW (view));
  hl_allocations_view_set_leaks (view, data->leaks);
  hl_allocations_view_set_largest (view, data->largest);
  hl_allocations_view_set_histogram (view, data->n_buckets, data->buckets);
}

static void
build_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  g_task_return_pointer (task, hl_allocations_data_new (task_data), (GDestroyNotify) hl_allocations_data_free);
}

void
hl_allocations_build_async (HlAnalysis         *analysis,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_allocations_build_async);
  g_task_set_task_data (task, g_object_ref (analysis), g_object_unref);
  g_task_run_in_thread (task, build_thread);
}

HlAllocationsData *
hl_allocations_build_finish (GAsyncResult *result,
                             GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
