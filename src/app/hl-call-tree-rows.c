/* hl-call-tree-rows.c — the call tree view's root row of an analysis:
 * the model's tree (hl_analysis_get_call_tree_async), then its rows. */
#include "hl-config.h"

#include "hl-adapter-call-tree.h"
#include "hl-call-tree-rows.h"

/* The model's tree is built (and cached in the analysis) on its worker;
 * the rows from it here: a root row whose children come on demand. */
static void
on_tree (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(HlCallTree) tree = NULL;
  GError *error = NULL;

  tree = hl_analysis_get_call_tree_finish (HL_ANALYSIS (source), result, &error);
  if (tree == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, hl_adapter_call_tree (tree), (GDestroyNotify) g_object_unref);
}

void
hl_call_tree_rows_async (HlAnalysis         *analysis,
                          HlCallTreeMode      mode,
                          GCancellable       *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));
  g_return_if_fail (mode != HL_CALL_TREE_MODE_CALLER_CALLEE);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_call_tree_rows_async);
  hl_analysis_get_call_tree_async (analysis,
                                   mode == HL_CALL_TREE_MODE_TOP_DOWN ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP,
                                   HL_COST_KIND_BYTES, cancellable, on_tree, g_object_ref (task));
}

gboolean
hl_call_tree_rows_finish (GAsyncResult *result,
                           HlTreeRow   **root,
                           GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  HlTreeRow *row;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  row = g_task_propagate_pointer (G_TASK (result), &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  *root = row;
  return TRUE;
}
