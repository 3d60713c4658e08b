/* hl-allocations-build.c — the allocations view's data of an analysis:
 * the model's leaks and largest allocations, then their rows. */
#include "hl-config.h"

#include "hl-adapter-allocations.h"
#include "hl-adapter-lifetimes.h"
#include "hl-allocations-build.h"

#define MAX_LEAK_ROWS     2000
#define MAX_LARGEST_ROWS  500
#define MAX_LIFETIME_ROWS 2000

struct _HlAllocationsData
{
  GListModel        *leaks;
  GListModel        *largest;
  HlHistogramBucket  buckets[HL_SIZE_HISTOGRAM_BUCKETS];
  guint              n_buckets;
  GStrv              part_labels;   /* the buckets' split by call site, or NULL */
  GListModel        *lifetime_sites;
  HlHistogramBucket  lifetime_buckets[HL_LIFETIME_N_BUCKETS];
  guint              n_lifetime_buckets;
};

void
hl_allocations_data_free (HlAllocationsData *data)
{
  if (data == NULL)
    return;
  g_clear_object (&data->leaks);
  g_clear_object (&data->largest);
  g_clear_object (&data->lifetime_sites);
  g_strfreev (data->part_labels);
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
  hl_allocations_view_set_histogram_parts (view, (const char * const *) data->part_labels);
  hl_allocations_view_set_lifetimes (view, data->lifetime_sites, data->n_lifetime_buckets, data->lifetime_buckets);
}

/* The model's four answers (hl_analysis_get_top_stacks_async of LEAKED,
 * hl_analysis_get_largest_async, hl_analysis_get_lifetimes_async,
 * hl_analysis_get_sizes_by_site_async), asked
 * at once, then their rows. */
typedef struct
{
  HlAnalysis *analysis;
  GArray     *leaks;       /* HlStackCosts */
  GArray     *largest;     /* HlAllocationInfo */
  HlLifetimes *lifetimes;  /* NULL for a costs-only recording */
  HlSizesBySite *sizes;    /* the same */
  guint       pending;     /* answers still to come */
  GError     *error;       /* the first one's */
} Build;

static void
build_free (gpointer p)
{
  Build *build = p;

  g_clear_pointer (&build->leaks, g_array_unref);
  g_clear_pointer (&build->largest, g_array_unref);
  g_clear_pointer (&build->lifetimes, hl_lifetimes_free);
  g_clear_pointer (&build->sizes, hl_sizes_by_site_free);
  g_clear_error (&build->error);
  g_object_unref (build->analysis);
  g_free (build);
}

/* The rows and histograms of the answers (a few thousand items, each with
 * its stack's lines), on a worker. */
static void
rows_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Build *build = task_data;
  HlRecording *recording = hl_analysis_get_recording (build->analysis);
  HlAllocationsData *data;

  if (g_task_return_error_if_cancelled (task))
    return;
  data = g_new0 (HlAllocationsData, 1);
  /* the whole run's leaks split by the leak scan's kinds, when it ran */
  {
    GArray *by_kind[HL_REACHABILITY_KINDS] = { NULL };
    gboolean split = TRUE;

    for (guint k = 0; k < HL_REACHABILITY_KINDS && split; k++)
      split = (by_kind[k] = hl_analysis_get_top_leaks_of_kind (build->analysis, k, MAX_LEAK_ROWS)) != NULL;
    if (split)
      data->leaks = hl_adapter_leak_items_by_kind (recording, by_kind);
    else
      data->leaks = hl_adapter_leak_items (recording, build->leaks);
    for (guint k = 0; k < HL_REACHABILITY_KINDS; k++)
      g_clear_pointer (&by_kind[k], g_array_unref);
  }
  data->largest = hl_adapter_largest_items (recording, build->largest);
  data->n_buckets = hl_adapter_histogram (build->analysis, data->buckets);
  data->part_labels = hl_adapter_histogram_parts (recording, build->sizes, data->n_buckets, data->buckets);
  data->lifetime_sites = hl_adapter_lifetime_items (recording, build->lifetimes, MAX_LIFETIME_ROWS);
  data->n_lifetime_buckets = hl_adapter_lifetime_histogram (build->lifetimes, data->lifetime_buckets);
  g_task_return_pointer (task, data, (GDestroyNotify) hl_allocations_data_free);
}

/* One answer in; the rows once all are. */
static void
answer_in (GTask    *task,
           gpointer  answer,
           gpointer *slot,
           GError   *error)
{
  Build *build = g_task_get_task_data (task);

  *slot = answer;
  if (error != NULL && build->error == NULL)
    build->error = error;
  else if (error != NULL)
    g_error_free (error);
  if (--build->pending > 0)
    return;
  if (build->error != NULL)
    g_task_return_error (task, g_steal_pointer (&build->error));
  else
    g_task_run_in_thread (task, rows_thread);
}

static void
on_leaks (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Build *build = g_task_get_task_data (task);
  GError *error = NULL;
  GArray *leaks = hl_analysis_get_top_stacks_finish (HL_ANALYSIS (source), result, &error);

  answer_in (task, leaks, (gpointer *) &build->leaks, error);
}

static void
on_largest (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Build *build = g_task_get_task_data (task);
  GError *error = NULL;
  GArray *largest = hl_analysis_get_largest_finish (HL_ANALYSIS (source), result, &error);

  answer_in (task, largest, (gpointer *) &build->largest, error);
}

static void
on_lifetimes (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Build *build = g_task_get_task_data (task);
  GError *error = NULL;
  HlLifetimes *lifetimes = hl_analysis_get_lifetimes_finish (HL_ANALYSIS (source), result, &error);

  /* a costs-only recording has none (yet), a live session's none: the
   * page says so */
  if (g_error_matches (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
    g_clear_error (&error);
  answer_in (task, lifetimes, (gpointer *) &build->lifetimes, error);
}

static void
on_sizes (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Build *build = g_task_get_task_data (task);
  GError *error = NULL;
  HlSizesBySite *sizes = hl_analysis_get_sizes_by_site_finish (HL_ANALYSIS (source), result, &error);

  /* a costs-only recording has none: whole bars */
  if (g_error_matches (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
    g_clear_error (&error);
  answer_in (task, sizes, (gpointer *) &build->sizes, error);
}

void
hl_allocations_build_async (HlAnalysis         *analysis,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  Build *build;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));

  build = g_new0 (Build, 1);
  build->analysis = g_object_ref (analysis);
  build->pending = 4;
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_allocations_build_async);
  g_task_set_task_data (task, build, build_free);
  hl_analysis_get_top_stacks_async (analysis, HL_COST_KIND_LEAKED, MAX_LEAK_ROWS, cancellable,
                                    on_leaks, g_object_ref (task));
  hl_analysis_get_largest_async (analysis, MAX_LARGEST_ROWS, cancellable, on_largest, g_object_ref (task));
  hl_analysis_get_lifetimes_async (analysis, cancellable, on_lifetimes, g_object_ref (task));
  hl_analysis_get_sizes_by_site_async (analysis, HL_HISTOGRAM_MAX_PARTS - 1, cancellable, on_sizes,
                                       g_object_ref (task));
}

HlAllocationsData *
hl_allocations_build_finish (GAsyncResult *result,
                             GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
