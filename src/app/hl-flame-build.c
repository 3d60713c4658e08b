/* hl-flame-build.c — the flame graph's data of an analysis, on a worker. */
#include "hl-config.h"

#include "hl-adapter-flame.h"
#include "hl-flame-build.h"

/* The analysis is finished, so safe to read from any thread. */
typedef struct
{
  HlAnalysis    *analysis;
  HlLiveSession *held;
  HlCostKind     kind;
  gboolean       inverted;
  HlAnalysis    *shown_analysis;
  HlCallTree    *shown_tree;
  HlFlameData   *shown_data;
  HlCallTree    *tree;      /* results */
  HlFlameData   *data;
  gboolean       unchanged;
} Build;

static void
build_free (gpointer p)
{
  Build *build = p;

  if (build->held != NULL)
    {
      hl_live_session_release (build->held);
      g_object_unref (build->held);
    }
  g_clear_pointer (&build->tree, hl_call_tree_unref);
  g_clear_pointer (&build->data, hl_flame_data_unref);
  g_clear_object (&build->shown_analysis);
  g_clear_pointer (&build->shown_tree, hl_call_tree_unref);
  g_clear_pointer (&build->shown_data, hl_flame_data_unref);
  g_object_unref (build->analysis);
  g_free (build);
}

static void
build_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Build *build = task_data;
  g_autoptr(HlFlameLayout) layout = NULL;

  if (build->shown_tree != NULL
      && (build->tree = hl_analysis_reuse_call_tree (build->analysis, build->shown_analysis,
                                                     build->shown_tree)) != NULL)
    {
      build->data = hl_flame_data_ref (build->shown_data);
      build->unchanged = TRUE;
      g_task_return_boolean (task, TRUE);
      return;
    }
  build->tree = hl_analysis_get_call_tree (build->analysis,
                                           build->inverted ? HL_CALL_TREE_BOTTOM_UP : HL_CALL_TREE_TOP_DOWN,
                                           build->kind);
  /* Every node is kept: the drawing merges what is narrower than a pixel. */
  layout = hl_flame_layout_new (build->tree, build->kind, 0.0);
  build->data = hl_adapter_flame_data (layout);
  g_task_return_boolean (task, TRUE);
}

void
hl_flame_build_async (HlAnalysis         *analysis,
                      HlCostKind          kind,
                      gboolean            inverted,
                      HlAnalysis         *shown_analysis,
                      HlCallTree         *shown_tree,
                      HlFlameData        *shown_data,
                      HlLiveSession      *held,
                      GCancellable       *cancellable,
                      GAsyncReadyCallback callback,
                      gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  Build *build;

  g_return_if_fail (HL_IS_ANALYSIS (analysis));

  build = g_new0 (Build, 1);
  build->analysis = g_object_ref (analysis);
  build->held = held != NULL ? g_object_ref (held) : NULL;
  build->kind = kind;
  build->inverted = inverted;
  if (shown_analysis != NULL && shown_tree != NULL && shown_data != NULL)
    {
      build->shown_analysis = g_object_ref (shown_analysis);
      build->shown_tree = hl_call_tree_ref (shown_tree);
      build->shown_data = hl_flame_data_ref (shown_data);
    }
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_flame_build_async);
  g_task_set_task_data (task, build, build_free);
  g_task_run_in_thread (task, build_thread);
}

HlFlameData *
hl_flame_build_finish (GAsyncResult *result,
                       HlCallTree  **tree,
                       gboolean     *unchanged,
                       GError      **error)
{
  Build *build;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  build = g_task_get_task_data (G_TASK (result));
  if (tree != NULL)
    *tree = g_steal_pointer (&build->tree);
  if (unchanged != NULL)
    *unchanged = build->unchanged;
  return g_steal_pointer (&build->data);
}
