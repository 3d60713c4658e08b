/* hl-functions-build.c — the Callers/Callees lists built on a worker
 * thread (see hl-functions-build.h). The rows are made there too: a list
 * of 10⁵ functions costs no frame of the main thread but one splice. */
#include "hl-config.h"

#include "hl-functions-build.h"

typedef struct
{
  HlAnalysis    *analysis;
  HlCostKind     sort_by;
  const HlFrame *function;
  GListModel    *callers;   /* results of the neighbours */
  GListModel    *callees;
} Build;

static void
build_free (gpointer p)
{
  Build *build = p;

  g_clear_object (&build->callers);
  g_clear_object (&build->callees);
  g_object_unref (build->analysis);
  g_free (build);
}

static GTask *
build_task (HlAnalysis         *analysis,
            gpointer            source_tag,
            GCancellable       *cancellable,
            GAsyncReadyCallback callback,
            gpointer            user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Build *build = g_new0 (Build, 1);

  build->analysis = g_object_ref (analysis);
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, build, build_free);
  return task;
}

/* ---- The flat list ------------------------------------------------------ */

static void
functions_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  Build *build = task_data;
  g_autoptr(GArray) functions = NULL;
  g_autoptr(GListStore) store = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  functions = hl_analysis_get_functions (build->analysis, build->sort_by);
  if (g_task_return_error_if_cancelled (task))
    return;
  rows = g_ptr_array_new_full (functions->len, g_object_unref);
  for (guint i = 0; i < functions->len; i++)
    {
      const HlFunctionCosts *f = &g_array_index (functions, HlFunctionCosts, i);

      g_ptr_array_add (rows, hl_function_row_new (build->analysis, f->frame, &f->total, &f->self));
    }
  store = g_list_store_new (HL_TYPE_FUNCTION_ROW);
  g_list_store_splice (store, 0, 0, rows->pdata, rows->len);
  g_task_return_pointer (task, g_steal_pointer (&store), g_object_unref);
}

void
hl_functions_build_async (HlAnalysis         *analysis,
                          HlCostKind          sort_by,
                          GCancellable       *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));
  g_return_if_fail (sort_by < HL_N_COST_KINDS);

  task = build_task (analysis, hl_functions_build_async, cancellable, callback, user_data);
  ((Build *) g_task_get_task_data (task))->sort_by = sort_by;
  g_task_run_in_thread (task, functions_thread);
}

GListModel *
hl_functions_build_finish (GAsyncResult *result,
                           GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_functions_build_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Callers and callees ------------------------------------------------ */

static GListModel *
edge_rows (HlAnalysis *analysis,
           GArray     *edges)
{
  GListStore *store = g_list_store_new (HL_TYPE_FUNCTION_ROW);

  for (guint i = 0; i < edges->len; i++)
    {
      const HlStackCosts *e = &g_array_index (edges, HlStackCosts, i);
      g_autoptr(HlFunctionRow) row = hl_function_row_new (analysis, e->frame, &e->costs, NULL);

      g_list_store_append (store, row);
    }
  return G_LIST_MODEL (store);
}

static void
neighbours_thread (GTask        *task,
                   gpointer      source,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  Build *build = task_data;
  g_autoptr(GArray) callers = NULL;
  g_autoptr(GArray) callees = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  callers = hl_analysis_get_callers (build->analysis, build->function, HL_COST_KIND_BYTES);
  if (g_task_return_error_if_cancelled (task))
    return;
  callees = hl_analysis_get_callees (build->analysis, build->function, HL_COST_KIND_BYTES);
  build->callers = edge_rows (build->analysis, callers);
  build->callees = edge_rows (build->analysis, callees);
  g_task_return_boolean (task, TRUE);
}

void
hl_function_neighbours_async (HlAnalysis         *analysis,
                              const HlFrame      *function,
                              GCancellable       *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));
  g_return_if_fail (function != NULL);

  task = build_task (analysis, hl_function_neighbours_async, cancellable, callback, user_data);
  ((Build *) g_task_get_task_data (task))->function = function;
  g_task_run_in_thread (task, neighbours_thread);
}

gboolean
hl_function_neighbours_finish (GAsyncResult *result,
                               GListModel  **callers,
                               GListModel  **callees,
                               GError      **error)
{
  Build *build;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_function_neighbours_async, FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  build = g_task_get_task_data (G_TASK (result));
  *callers = g_steal_pointer (&build->callers);
  *callees = g_steal_pointer (&build->callees);
  return TRUE;
}
