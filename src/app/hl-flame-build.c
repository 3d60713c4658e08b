/* hl-flame-build.c — the flame graph's data of an analysis: the model's
 * flame layout (hl_flame_layout_new_async), then its drawing nodes on a
 * worker. */
#include "hl-config.h"

#include "hl-adapter-flame.h"
#include "hl-flame-build.h"

/* What the flame graph's build has beyond the model's calls. */
typedef struct
{
  HlLiveSession *held;
  HlRecording   *recording;
  gboolean       inverted;
  HlCallTree    *tree;      /* results */
  HlFlameData   *data;
  gboolean       unchanged;
} Build;

static void
release_hold (Build *build)
{
  if (build->held == NULL)
    return;
  hl_live_session_release (build->held);
  g_clear_object (&build->held);
}

static void
build_free (gpointer p)
{
  Build *build = p;

  /* released on the main thread when done (finish_build); here only
   * when the task was never run (g_return_if_fail) */
  release_hold (build);
  g_clear_object (&build->recording);
  g_clear_pointer (&build->tree, hl_call_tree_unref);
  g_clear_pointer (&build->data, hl_flame_data_unref);
  g_free (build);
}

/* On the main thread: the recording may grow again; TASK's result. */
static void
finish_build (GTask  *task,
              GError *error)
{
  Build *build = g_task_get_task_data (task);

  release_hold (build);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* The drawing nodes of a layout (5 × 10⁵ rects for 10⁵ stacks: tens of
 * ms), off the main thread. */
static void
adapt_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, hl_adapter_flame_data (task_data), (GDestroyNotify) hl_flame_data_unref);
}

static void
on_adapted (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Build *build = g_task_get_task_data (task);
  GError *error = NULL;

  build->data = g_task_propagate_pointer (G_TASK (result), &error);
  if (build->data != NULL)
    hl_adapter_flame_set_recording (build->data, build->recording, build->inverted);
  finish_build (task, error);
}

static void
on_layout (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Build *build = g_task_get_task_data (task);
  g_autoptr(HlFlameLayout) layout = NULL;
  g_autoptr(GTask) adapt = NULL;
  GError *error = NULL;

  layout = hl_flame_layout_new_finish (result, &error);
  if (layout == NULL)
    {
      finish_build (task, error);
      return;
    }
  build->tree = hl_call_tree_ref (hl_flame_layout_get_tree (layout));
  adapt = g_task_new (NULL, g_task_get_cancellable (task), on_adapted, g_object_ref (task));
  g_task_set_source_tag (adapt, adapt_thread);
  g_task_set_task_data (adapt, g_steal_pointer (&layout), (GDestroyNotify) hl_flame_layout_unref);
  g_task_run_in_thread (adapt, adapt_thread);
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
  build->held = held != NULL ? g_object_ref (held) : NULL;
  build->recording = g_object_ref (hl_analysis_get_recording (analysis));
  build->inverted = inverted;
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_flame_build_async);
  g_task_set_task_data (task, build, build_free);
  /* The tree shown, when this analysis gives the same one: a comparison
   * of the costs per stack, no build. */
  if (shown_analysis != NULL && shown_tree != NULL && shown_data != NULL
      && (build->tree = hl_analysis_reuse_call_tree (analysis, shown_analysis, shown_tree)) != NULL)
    {
      build->data = hl_flame_data_ref (shown_data);
      build->unchanged = TRUE;
      finish_build (task, NULL);
      return;
    }
  /* Every node is kept: the drawing merges what is narrower than a pixel. */
  hl_flame_layout_new_async (analysis, inverted ? HL_CALL_TREE_BOTTOM_UP : HL_CALL_TREE_TOP_DOWN, kind, 0.0,
                             cancellable, on_layout, g_object_ref (task));
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
