/* hl-call-tree-rows.c — the call tree view's root row of an analysis:
 * the model's tree (hl_analysis_get_call_tree_async), then its rows. */
#include "hl-config.h"

#include "hl-adapter-call-tree.h"
#include "hl-call-tree-rows.h"

typedef struct
{
  HlAnalysis     *analysis;
  HlCallTreeMode  mode;
  char           *focus;
} Build;

static void
build_free (gpointer p)
{
  Build *build = p;

  g_free (build->focus);
  g_object_unref (build->analysis);
  g_free (build);
}

/* The root row for MODE from the analysis' cached tree. */
static HlTreeRow *
rows_new (HlAnalysis     *analysis,
          HlCallTreeMode  mode,
          const char     *focus)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), NULL);

  switch (mode)
    {
    case HL_CALL_TREE_MODE_TOP_DOWN:
    case HL_CALL_TREE_MODE_BOTTOM_UP:
      {
        HlCallTreeKind kind = mode == HL_CALL_TREE_MODE_TOP_DOWN ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
        g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (analysis, kind, HL_COST_KIND_BYTES);

        return hl_adapter_call_tree (tree);
      }
    case HL_CALL_TREE_MODE_CALLER_CALLEE:
      {
        const HlFrame *frame = focus != NULL ? hl_adapter_find_function (analysis, focus) : NULL;

        return frame != NULL ? hl_adapter_caller_callee (analysis, frame) : NULL;
      }
    default:
      g_assert_not_reached ();
    }
  return NULL;
}

/* The tree the rows of MODE are made from. */
static HlCallTreeKind
tree_kind (HlCallTreeMode mode)
{
  /* caller/callee: the function is looked up in the bottom-up tree */
  return mode == HL_CALL_TREE_MODE_TOP_DOWN ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
}

/* The model's tree is built (and cached in the analysis) on its worker;
 * the rows from it here: a root row whose children come on demand, or a
 * look-up of the focus in the tree. */
static void
on_tree (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Build *build = g_task_get_task_data (task);
  g_autoptr(HlCallTree) tree = NULL;
  GError *error = NULL;

  tree = hl_analysis_get_call_tree_finish (HL_ANALYSIS (source), result, &error);
  if (tree == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, rows_new (build->analysis, build->mode, build->focus),
                         (GDestroyNotify) g_object_unref);
}

void
hl_call_tree_rows_async (HlAnalysis         *analysis,
                          HlCallTreeMode      mode,
                          const char         *focus,
                          GCancellable       *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  Build *build;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));

  build = g_new0 (Build, 1);
  build->analysis = g_object_ref (analysis);
  build->mode = mode;
  build->focus = g_strdup (focus);
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_call_tree_rows_async);
  g_task_set_task_data (task, build, build_free);
  if (mode == HL_CALL_TREE_MODE_CALLER_CALLEE && focus == NULL)
    {
      g_task_return_pointer (task, NULL, NULL);   /* nothing to show */
      return;
    }
  hl_analysis_get_call_tree_async (analysis, tree_kind (mode), HL_COST_KIND_BYTES, cancellable,
                                   on_tree, g_object_ref (task));
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
