/* test-analysis-async.c — the model's _async/_finish calls (call tree,
 * flame layout, top call sites, largest allocations, site series): each
 * gives what its synchronous call gives, a cancelled call finishes with
 * G_IO_ERROR_CANCELLED, and the callback runs on the thread-default main
 * context of the caller (here one pushed for the test, not the global
 * default). */
#include "hl-model.h"
#include "hl-model-test-recording.h"

#include <string.h>

typedef struct
{
  GMainContext *context;   /* the caller's */
  GAsyncResult *result;
  GObject      *source;
} Wait;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  /* the caller's context, on the caller's thread */
  g_assert_true (g_main_context_get_thread_default () == wait->context);
  g_assert_true (g_main_context_is_owner (wait->context));
  g_assert_null (wait->result);
  wait->result = g_object_ref (result);
  wait->source = source;
}

static void
wait_init (Wait *wait)
{
  memset (wait, 0, sizeof *wait);
  wait->context = g_main_context_new ();
  g_main_context_push_thread_default (wait->context);
}

static GAsyncResult *
wait_run (Wait *wait)
{
  while (wait->result == NULL)
    g_main_context_iteration (wait->context, TRUE);
  return wait->result;
}

static void
wait_clear (Wait *wait)
{
  g_main_context_pop_thread_default (wait->context);
  /* nothing else is dispatched on it later */
  while (g_main_context_iteration (wait->context, FALSE))
    ;
  g_clear_object (&wait->result);
  g_main_context_unref (wait->context);
}

static GCancellable *
cancelled (void)
{
  GCancellable *c = g_cancellable_new ();

  g_cancellable_cancel (c);
  return c;
}

/* Two call trees equal node for node. */
static void
assert_same_tree (HlCallTree *a,
                  HlCallTree *b)
{
  guint n = hl_call_tree_get_n_nodes (a);

  g_assert_cmpuint (hl_call_tree_get_n_nodes (b), ==, n);
  g_assert_cmpint (hl_call_tree_get_kind (a), ==, hl_call_tree_get_kind (b));
  g_assert_cmpint (hl_call_tree_get_sort_kind (a), ==, hl_call_tree_get_sort_kind (b));
  for (HlCallNode i = 0; i < n; i++)
    {
      g_assert_true (hl_call_tree_get_frame (a, i) == hl_call_tree_get_frame (b, i));
      g_assert_cmpuint (hl_call_tree_get_parent (a, i), ==, hl_call_tree_get_parent (b, i));
      g_assert_cmpuint (hl_call_tree_get_n_children (a, i), ==, hl_call_tree_get_n_children (b, i));
      g_assert_cmpmem (hl_call_tree_get_costs (a, i), sizeof (HlCosts), hl_call_tree_get_costs (b, i), sizeof (HlCosts));
      g_assert_cmpmem (hl_call_tree_get_self_costs (a, i), sizeof (HlCosts),
                       hl_call_tree_get_self_costs (b, i), sizeof (HlCosts));
    }
}

static void
test_call_tree (void)
{
  g_autoptr(HlRecording) rec = hl_test_small_recording (5);
  /* two analyses: the async one's tree is its own, not the cached one */
  g_autoptr(HlAnalysis) sync = hl_analysis_new (rec, NULL);
  g_autoptr(HlAnalysis) async = hl_analysis_new (rec, NULL);
  g_autoptr(GError) error = NULL;
  Wait wait;

  for (guint k = 0; k < 2; k++)
    for (HlCostKind cost = 0; cost < HL_N_COST_KINDS; cost++)
      {
        HlCallTreeKind kind = k == 0 ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
        g_autoptr(HlCallTree) want = hl_analysis_get_call_tree (sync, kind, cost);
        g_autoptr(HlCallTree) got = NULL;
        g_autoptr(HlCallTree) cached = NULL;

        wait_init (&wait);
        hl_analysis_get_call_tree_async (async, kind, cost, NULL, on_done, &wait);
        got = hl_analysis_get_call_tree_finish (async, wait_run (&wait), &error);
        g_assert_no_error (error);
        g_assert_true (wait.source == G_OBJECT (async));
        assert_same_tree (want, got);
        /* cached in the analysis as the synchronous call's */
        cached = hl_analysis_get_call_tree (async, kind, cost);
        g_assert_true (cached == got);
        wait_clear (&wait);
      }
}

static void
test_flame_layout (void)
{
  g_autoptr(HlRecording) rec = hl_test_small_recording (5);
  g_autoptr(HlAnalysis) sync = hl_analysis_new (rec, NULL);
  g_autoptr(HlAnalysis) async = hl_analysis_new (rec, NULL);
  g_autoptr(GError) error = NULL;
  const double fractions[] = { 0.0, 0.1 };
  Wait wait;

  for (guint k = 0; k < 2; k++)
    for (HlCostKind cost = 0; cost < HL_N_COST_KINDS; cost++)
      for (guint f = 0; f < G_N_ELEMENTS (fractions); f++)
        {
          HlCallTreeKind kind = k == 0 ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
          g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (sync, kind, cost);
          g_autoptr(HlFlameLayout) want = hl_flame_layout_new (tree, cost, fractions[f]);
          g_autoptr(HlFlameLayout) got = NULL;
          const HlFlameRect *wr, *gr;
          guint wn, gn;

          wait_init (&wait);
          hl_flame_layout_new_async (async, kind, cost, fractions[f], NULL, on_done, &wait);
          got = hl_flame_layout_new_finish (wait_run (&wait), &error);
          g_assert_no_error (error);
          g_assert_true (wait.source == G_OBJECT (async));
          assert_same_tree (tree, hl_flame_layout_get_tree (got));
          g_assert_cmpint (hl_flame_layout_get_kind (got), ==, cost);
          g_assert_cmpuint (hl_flame_layout_get_total (got), ==, hl_flame_layout_get_total (want));
          g_assert_cmpuint (hl_flame_layout_get_max_depth (got), ==, hl_flame_layout_get_max_depth (want));
          wr = hl_flame_layout_get_rects (want, &wn);
          gr = hl_flame_layout_get_rects (got, &gn);
          g_assert_cmpuint (gn, ==, wn);
          for (guint i = 0; i < gn; i++)
            {
              /* the frames are the recording's: the same pointers */
              g_assert_true (gr[i].frame == wr[i].frame);
              g_assert_cmpuint (gr[i].node, ==, wr[i].node);
              g_assert_cmpuint (gr[i].offset, ==, wr[i].offset);
              g_assert_cmpuint (gr[i].width, ==, wr[i].width);
              g_assert_cmpuint (gr[i].hidden_cost, ==, wr[i].hidden_cost);
              g_assert_cmpuint (gr[i].depth, ==, wr[i].depth);
              g_assert_cmpuint (gr[i].parent, ==, wr[i].parent);
              g_assert_cmpuint (gr[i].end, ==, wr[i].end);
            }
          wait_clear (&wait);
        }
}

static void
assert_same_stacks (GArray *a,
                    GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const HlStackCosts *x = &g_array_index (a, HlStackCosts, i), *y = &g_array_index (b, HlStackCosts, i);

      g_assert_cmpuint (x->stack, ==, y->stack);
      g_assert_true (x->frame == y->frame);
      g_assert_cmpmem (&x->costs, sizeof x->costs, &y->costs, sizeof y->costs);
    }
}

static void
test_top_stacks (void)
{
  g_autoptr(HlRecording) rec = hl_test_small_recording (5);
  g_autoptr(HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr(GError) error = NULL;
  Wait wait;

  for (HlCostKind cost = 0; cost < HL_N_COST_KINDS; cost++)
    for (guint n = 0; n < 3; n++)
      {
        g_autoptr(GArray) want = hl_analysis_get_top_stacks (a, cost, n);
        g_autoptr(GArray) got = NULL;

        wait_init (&wait);
        hl_analysis_get_top_stacks_async (a, cost, n, NULL, on_done, &wait);
        got = hl_analysis_get_top_stacks_finish (a, wait_run (&wait), &error);
        g_assert_no_error (error);
        assert_same_stacks (want, got);
        wait_clear (&wait);
      }
}

static void
test_largest (void)
{
  g_autoptr(HlRecording) rec = hl_test_small_recording (5);
  g_autoptr(HlFilter) all = hl_filter_new ();
  g_autoptr(HlFilter) range = hl_filter_with_time_range (all, 25, 75);
  HlFilter *filters[] = { all, range };
  g_autoptr(GError) error = NULL;
  Wait wait;

  for (guint f = 0; f < G_N_ELEMENTS (filters); f++)
    for (guint n = 0; n < 8; n += 3)
      {
        g_autoptr(HlAnalysis) a = hl_analysis_new (rec, filters[f]);
        g_autoptr(GArray) want = hl_analysis_get_largest (a, n);
        g_autoptr(GArray) got = NULL;

        wait_init (&wait);
        hl_analysis_get_largest_async (a, n, NULL, on_done, &wait);
        got = hl_analysis_get_largest_finish (a, wait_run (&wait), &error);
        g_assert_no_error (error);
        g_assert_cmpuint (got->len, ==, want->len);
        g_assert_cmpmem (got->data, got->len * sizeof (HlAllocationInfo),
                         want->data, want->len * sizeof (HlAllocationInfo));
        wait_clear (&wait);
      }
}

static void
test_site_series (void)
{
  g_autoptr(HlRecording) rec = hl_test_small_recording (5);
  g_autoptr(HlSiteSeries) want = hl_recording_get_site_series (rec, 0, HL_TIME_END, 10, 2);
  g_autoptr(HlSiteSeries) got = NULL;
  g_autoptr(GError) error = NULL;
  Wait wait;

  wait_init (&wait);
  hl_recording_get_site_series_async (rec, 0, HL_TIME_END, 10, 2, NULL, on_done, &wait);
  got = hl_recording_get_site_series_finish (rec, wait_run (&wait), &error);
  g_assert_no_error (error);
  g_assert_true (wait.source == G_OBJECT (rec));
  g_assert_nonnull (want);
  g_assert_nonnull (got);
  g_assert_cmpuint (got->n_buckets, ==, want->n_buckets);
  g_assert_cmpuint (got->t0_ns, ==, want->t0_ns);
  g_assert_cmpuint (got->t1_ns, ==, want->t1_ns);
  g_assert_cmpuint (got->sites->len, ==, want->sites->len);
  for (guint i = 0; i < got->sites->len; i++)
    {
      const HlSiteInfo *x = &g_array_index (got->sites, HlSiteInfo, i);
      const HlSiteInfo *y = &g_array_index (want->sites, HlSiteInfo, i);

      g_assert_cmpuint (x->stack, ==, y->stack);
      g_assert_true (x->frame == y->frame);
      g_assert_cmpuint (x->peak_bytes, ==, y->peak_bytes);
    }
  g_assert_cmpmem (got->bytes->data, got->bytes->len * sizeof (guint64),
                   want->bytes->data, want->bytes->len * sizeof (guint64));
  wait_clear (&wait);

  /* nothing to show: NULL, and no error */
  wait_init (&wait);
  hl_recording_get_site_series_async (rec, 0, 100, 10, 0, NULL, on_done, &wait);
  g_assert_null (hl_recording_get_site_series_finish (rec, wait_run (&wait), &error));
  g_assert_no_error (error);
  wait_clear (&wait);
}

static void
assert_cancelled (GError **error)
{
  g_assert_error (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (error);
}

static void
test_cancelled (void)
{
  g_autoptr(HlRecording) rec = hl_test_small_recording (5);
  g_autoptr(HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr(GCancellable) c = cancelled ();
  g_autoptr(GError) error = NULL;
  Wait wait;

  wait_init (&wait);
  hl_analysis_get_call_tree_async (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES, c, on_done, &wait);
  g_assert_null (hl_analysis_get_call_tree_finish (a, wait_run (&wait), &error));
  assert_cancelled (&error);
  wait_clear (&wait);

  wait_init (&wait);
  hl_flame_layout_new_async (a, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_LEAKED, 0.0, c, on_done, &wait);
  g_assert_null (hl_flame_layout_new_finish (wait_run (&wait), &error));
  assert_cancelled (&error);
  wait_clear (&wait);

  wait_init (&wait);
  hl_analysis_get_top_stacks_async (a, HL_COST_KIND_LEAKED, 10, c, on_done, &wait);
  g_assert_null (hl_analysis_get_top_stacks_finish (a, wait_run (&wait), &error));
  assert_cancelled (&error);
  wait_clear (&wait);

  wait_init (&wait);
  hl_analysis_get_largest_async (a, 10, c, on_done, &wait);
  g_assert_null (hl_analysis_get_largest_finish (a, wait_run (&wait), &error));
  assert_cancelled (&error);
  wait_clear (&wait);

  wait_init (&wait);
  hl_recording_get_site_series_async (rec, 0, HL_TIME_END, 10, 2, c, on_done, &wait);
  g_assert_null (hl_recording_get_site_series_finish (rec, wait_run (&wait), &error));
  assert_cancelled (&error);
  wait_clear (&wait);
}

/* A thread of its own with its own main context: the callback comes
 * there, not to the main thread's. */
static gpointer
other_thread (gpointer data)
{
  HlAnalysis *a = data;
  g_autoptr(HlCallTree) tree = NULL;
  g_autoptr(GError) error = NULL;
  Wait wait;

  wait_init (&wait);
  hl_analysis_get_call_tree_async (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES, NULL, on_done, &wait);
  tree = hl_analysis_get_call_tree_finish (a, wait_run (&wait), &error);
  g_assert_no_error (error);
  g_assert_nonnull (tree);
  wait_clear (&wait);
  return NULL;
}

static void
test_other_thread (void)
{
  g_autoptr(HlRecording) rec = hl_test_small_recording (5);
  g_autoptr(HlAnalysis) a = hl_analysis_new (rec, NULL);
  GThread *thread = g_thread_new ("test-caller", other_thread, a);

  g_thread_join (thread);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis-async/call-tree", test_call_tree);
  g_test_add_func ("/analysis-async/flame-layout", test_flame_layout);
  g_test_add_func ("/analysis-async/top-stacks", test_top_stacks);
  g_test_add_func ("/analysis-async/largest", test_largest);
  g_test_add_func ("/analysis-async/site-series", test_site_series);
  g_test_add_func ("/analysis-async/cancelled", test_cancelled);
  g_test_add_func ("/analysis-async/other-thread", test_other_thread);
  return g_test_run ();
}
