/* hl-analysis-async.c — an analysis' heavy answers on a worker thread:
 * its call trees, top call sites and largest allocations (see
 * hl-analysis.h). */
#include "hl-analysis-private.h"

typedef struct
{
  HlCallTreeKind kind;
  HlCostKind     cost;
  guint          n;
} Query;

/* A task of SELF's for QUERY, its worker FUNC. */
static void
run_query (HlAnalysis         *self,
           const Query        *query,
           gpointer            source_tag,
           GTaskThreadFunc     func,
           GCancellable       *cancellable,
           GAsyncReadyCallback callback,
           gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, g_memdup2 (query, sizeof *query), g_free);
  g_task_run_in_thread (task, func);
}

/* ---- Call trees -------------------------------------------------------- */

static void
call_tree_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  const Query *query = task_data;
  g_autoptr(HlCallTree) tree = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  /* built whole (tens of ms for 10⁵ stacks), and cached even when
   * cancelled meanwhile: the next ask has it */
  tree = hl_analysis_get_call_tree (source, query->kind, query->cost);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_steal_pointer (&tree), (GDestroyNotify) hl_call_tree_unref);
}

void
hl_analysis_get_call_tree_async (HlAnalysis         *self,
                                 HlCallTreeKind      kind,
                                 HlCostKind          sort_by,
                                 GCancellable       *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer            user_data)
{
  Query query = { .kind = kind, .cost = sort_by };

  g_return_if_fail (HL_IS_ANALYSIS (self));
  g_return_if_fail (sort_by < HL_N_COST_KINDS);
  run_query (self, &query, hl_analysis_get_call_tree_async, call_tree_thread,
             cancellable, callback, user_data);
}

HlCallTree *
hl_analysis_get_call_tree_finish (HlAnalysis   *self,
                                  GAsyncResult *result,
                                  GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_analysis_get_call_tree_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Top call sites ---------------------------------------------------- */

static void
top_stacks_thread (GTask        *task,
                   gpointer      source,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  const Query *query = task_data;
  g_autoptr(GArray) top = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  top = hl_analysis_get_top_stacks (source, query->cost, query->n);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_steal_pointer (&top), (GDestroyNotify) g_array_unref);
}

void
hl_analysis_get_top_stacks_async (HlAnalysis         *self,
                                  HlCostKind          kind,
                                  guint               n,
                                  GCancellable       *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer            user_data)
{
  Query query = { .cost = kind, .n = n };

  g_return_if_fail (HL_IS_ANALYSIS (self));
  g_return_if_fail (kind < HL_N_COST_KINDS);
  run_query (self, &query, hl_analysis_get_top_stacks_async, top_stacks_thread,
             cancellable, callback, user_data);
}

GArray *
hl_analysis_get_top_stacks_finish (HlAnalysis   *self,
                                   GAsyncResult *result,
                                   GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_analysis_get_top_stacks_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Largest allocations ----------------------------------------------- */

static void
largest_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  const Query *query = task_data;
  g_autoptr(GArray) largest = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  /* NULL when cancelled between blocks */
  largest = hl_analysis_find_largest (source, query->n, cancellable);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_assert (largest != NULL);
  g_task_return_pointer (task, g_steal_pointer (&largest), (GDestroyNotify) g_array_unref);
}

void
hl_analysis_get_largest_async (HlAnalysis         *self,
                               guint               n,
                               GCancellable       *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer            user_data)
{
  Query query = { .n = n };

  g_return_if_fail (HL_IS_ANALYSIS (self));
  run_query (self, &query, hl_analysis_get_largest_async, largest_thread,
             cancellable, callback, user_data);
}

GArray *
hl_analysis_get_largest_finish (HlAnalysis   *self,
                                GAsyncResult *result,
                                GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_analysis_get_largest_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
