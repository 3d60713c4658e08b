/* test-trees.c — call trees, flame layouts, callers/callees and diffs on a
 * hand-built recording; invariants checked on every node. */
#include "hl-model-test-recording.h"
#include "hl-recording-builder.h"

#include <string.h>

static const char *
name_of (const HlCallTree *t,
         HlCallNode        n)
{
  return hl_call_tree_get_frame (t, n)->function;
}

static void
check_invariants (const HlCallTree *t)
{
  for (HlCallNode n = 0; n < hl_call_tree_get_n_nodes (t); n++)
    for (guint k = 0; k < HL_N_COST_KINDS; k++)
      {
        guint64 sum = 0, prev = G_MAXUINT64;
        for (guint i = 0; i < hl_call_tree_get_n_children (t, n); i++)
          {
            HlCallNode c = hl_call_tree_get_child (t, n, i);
            guint64 v = hl_costs_get (hl_call_tree_get_costs (t, c), k);
            sum += v;
            g_assert_cmpuint (hl_call_tree_get_parent (t, c), ==, n);
            g_assert_cmpuint (hl_call_tree_get_depth (t, c), ==, hl_call_tree_get_depth (t, n) + 1);
            if (k == hl_call_tree_get_sort_kind (t))
              {
                g_assert_cmpuint (v, <=, prev);
                prev = v;
              }
          }
        sum += hl_costs_get (hl_call_tree_get_self_costs (t, n), k);
        g_assert_cmpuint (sum, <=, hl_costs_get (hl_call_tree_get_costs (t, n), k));
      }
}

static void
test_top_down (void)
{
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (HlCallTree) t = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
  HlCallNode main_node, mid, leaf;
  g_autoptr (GPtrArray) path = NULL;

  check_invariants (t);
  g_assert_cmpuint (hl_call_tree_get_n_nodes (t), ==, 6);
  g_assert_null (hl_call_tree_get_frame (t, 0));
  g_assert_cmpuint (hl_call_tree_get_costs (t, 0)->bytes, ==, 1365);
  g_assert_cmpuint (hl_call_tree_get_n_children (t, 0), ==, 1);
  main_node = hl_call_tree_get_child (t, 0, 0);
  g_assert_cmpstr (name_of (t, main_node), ==, "0x3000");
  g_assert_cmpuint (hl_call_tree_get_costs (t, main_node)->allocations, ==, 6);
  g_assert_cmpuint (hl_call_tree_get_n_children (t, main_node), ==, 2);
  mid = hl_call_tree_get_child (t, main_node, 0);
  g_assert_cmpstr (name_of (t, mid), ==, "0x2000");
  g_assert_cmpuint (hl_call_tree_get_costs (t, mid)->bytes, ==, 1310);
  g_assert_cmpstr (name_of (t, hl_call_tree_get_child (t, main_node, 1)), ==, "0x1200");
  leaf = hl_call_tree_get_child (t, mid, 0);
  g_assert_cmpstr (name_of (t, leaf), ==, "0x1000");
  g_assert_cmpuint (hl_call_tree_get_self_costs (t, leaf)->bytes, ==, 1100);
  g_assert_cmpuint (hl_call_tree_get_self_costs (t, mid)->bytes, ==, 0);
  path = hl_call_tree_get_path (t, leaf);
  g_assert_cmpuint (path->len, ==, 3);
  g_assert_cmpstr (((HlFrame *) path->pdata[0])->function, ==, "0x3000");

  /* Sorted by leaked instead: 0x1200 (55) before 0x2000 (10). */
  {
    g_autoptr (HlCallTree) tl = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_LEAKED);
    HlCallNode m = hl_call_tree_get_child (tl, 0, 0);
    check_invariants (tl);
    g_assert_cmpstr (name_of (tl, hl_call_tree_get_child (tl, m, 0)), ==, "0x1200");
  }
}

static void
test_bottom_up (void)
{
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (HlCallTree) t = hl_analysis_get_call_tree (a, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_BYTES);
  HlCallNode first;

  check_invariants (t);
  g_assert_cmpuint (hl_call_tree_get_n_children (t, 0), ==, 3);
  first = hl_call_tree_get_child (t, 0, 0);
  g_assert_cmpstr (name_of (t, first), ==, "0x1000");
  g_assert_cmpuint (hl_call_tree_get_costs (t, first)->bytes, ==, 1100);
  g_assert_cmpstr (name_of (t, hl_call_tree_get_child (t, first, 0)), ==, "0x2000");
}

static void
test_filtered_tree (void)
{
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (HlFilter) f = hl_filter_new ();
  g_autoptr (HlFilter) r = hl_filter_with_time_range (f, 85, 100);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, r);
  g_autoptr (HlCallTree) t = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);

  /* Only #5 (stack 3): root → 0x3000 → 0x1200. */
  check_invariants (t);
  g_assert_cmpuint (hl_call_tree_get_n_nodes (t), ==, 3);
  g_assert_cmpuint (hl_call_tree_get_costs (t, 0)->bytes, ==, 5);
}

static void
test_flame_layout (void)
{
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (HlCallTree) t = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
  g_autoptr (HlFlameLayout) all = hl_flame_layout_new (t, HL_COST_KIND_BYTES, 0);
  g_autoptr (HlFlameLayout) cut = hl_flame_layout_new (t, HL_COST_KIND_BYTES, 0.1);
  g_autoptr (HlFlameLayout) allocs = hl_flame_layout_new (t, HL_COST_KIND_ALLOCATIONS, 0);
  g_autofree char *collapsed = NULL;
  const HlFlameRect *r;
  guint n;

  r = hl_flame_layout_get_rects (all, &n);
  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpuint (hl_flame_layout_get_total (all), ==, 1365);
  g_assert_cmpuint (hl_flame_layout_get_max_depth (all), ==, 3);
  /* Pre-order: root, 0x3000, 0x2000, 0x1000, 0x1100, 0x1200. */
  g_assert_cmpstr (r[2].frame->function, ==, "0x2000");
  g_assert_cmpuint (r[2].offset, ==, 0);
  g_assert_cmpuint (r[2].width, ==, 1310);
  g_assert_cmpuint (r[2].end, ==, 5);
  g_assert_cmpstr (r[4].frame->function, ==, "0x1100");
  g_assert_cmpuint (r[4].offset, ==, 1100);
  g_assert_cmpuint (r[4].width, ==, 210);
  g_assert_cmpstr (r[5].frame->function, ==, "0x1200");
  g_assert_cmpuint (r[5].offset, ==, 1310);
  g_assert_cmpuint (r[5].parent, ==, 1);
  for (guint i = 1; i < n; i++)
    {
      g_assert_cmpuint (r[i].offset, >=, r[r[i].parent].offset);
      g_assert_cmpuint (r[i].offset + r[i].width, <=, r[r[i].parent].offset + r[r[i].parent].width);
    }

  r = hl_flame_layout_get_rects (cut, &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpuint (r[1].hidden_cost, ==, 55);

  r = hl_flame_layout_get_rects (allocs, &n);
  g_assert_cmpuint (r[0].width, ==, 6);
  g_assert_cmpuint (r[2].width, ==, 4);

  collapsed = hl_flame_layout_to_collapsed (all);
  g_assert_cmpstr (collapsed, ==,
                   "0x3000;0x2000;0x1000 1100\n"
                   "0x3000;0x2000;0x1100 210\n"
                   "0x3000;0x1200 55\n");
}

static const HlFrame *
find_frame (HlRecording *rec,
            const char  *name)
{
  for (HlStackId s = 1; s < hl_recording_get_n_stacks (rec); s++)
    {
      guint n;
      const HlFrame * const *f = hl_recording_get_stack_frames (rec, s, &n);
      for (guint i = 0; i < n; i++)
        if (strcmp (f[i]->function, name) == 0)
          return f[i];
    }
  return NULL;
}

static void
test_callers_callees (void)
{
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  const HlFrame *mid = find_frame (rec, "0x2000");
  g_autoptr (GArray) callers = NULL;
  g_autoptr (GArray) callees = NULL;
  HlCosts c;

  g_assert_nonnull (mid);
  callers = hl_analysis_get_callers (a, mid, HL_COST_KIND_BYTES);
  callees = hl_analysis_get_callees (a, mid, HL_COST_KIND_BYTES);
  g_assert_cmpuint (callers->len, ==, 1);
  g_assert_cmpstr (g_array_index (callers, HlStackCosts, 0).frame->function, ==, "0x3000");
  g_assert_cmpuint (g_array_index (callers, HlStackCosts, 0).costs.allocations, ==, 4);
  g_assert_cmpuint (callees->len, ==, 2);
  g_assert_cmpstr (g_array_index (callees, HlStackCosts, 0).frame->function, ==, "0x1000");
  g_assert_cmpuint (g_array_index (callees, HlStackCosts, 1).costs.bytes, ==, 210);
  hl_analysis_get_function_costs (a, mid, &c);
  g_assert_cmpuint (c.bytes, ==, 1310);
}

static void
test_diff (void)
{
  g_autoptr (HlRecording) ra = hl_test_small_recording (5);
  g_autoptr (HlRecording) rb = hl_test_small_recording (500);
  g_autoptr (HlAnalysis) a = hl_analysis_new (ra, NULL);
  g_autoptr (HlAnalysis) b = hl_analysis_new (rb, NULL);
  g_autoptr (HlDiffTree) d = hl_diff_tree_new (a, b, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_LEAKED);
  guint top, first;

  g_assert_cmpint (hl_diff_tree_get_delta (d, 0, HL_COST_KIND_LEAKED), ==, 495);
  g_assert_cmpint (hl_diff_tree_get_delta (d, 0, HL_COST_KIND_ALLOCATIONS), ==, 0);
  g_assert_cmpuint (hl_diff_tree_get_n_nodes (d), ==, 6);
  top = hl_diff_tree_get_child (d, 0, 0);
  g_assert_cmpstr (hl_diff_tree_get_frame (d, top)->function, ==, "0x3000");
  first = hl_diff_tree_get_child (d, top, 0);
  g_assert_cmpstr (hl_diff_tree_get_frame (d, first)->function, ==, "0x1200");
  g_assert_cmpint (hl_diff_tree_get_delta (d, first, HL_COST_KIND_BYTES), ==, 495);
  g_assert_cmpuint (hl_diff_tree_get_costs_a (d, first)->bytes, ==, 55);
  g_assert_cmpuint (hl_diff_tree_get_costs_b (d, first)->bytes, ==, 550);
}

static void
test_diff_new_path (void)
{
  g_autoptr (HlRecording) ra = hl_test_small_recording (5);
  g_autoptr (HlRecording) rb = hl_test_small_recording (5);
  g_autoptr (HlAnalysis) a = NULL;
  g_autoptr (HlAnalysis) b = NULL;
  g_autoptr (HlDiffTree) d = NULL;
  const guint64 s4[] = { 0x1300, 0x3000 };
  guint top;

  hl_recording_append_stack (rb, 4, s4, 2);
  hl_recording_append_alloc (rb, 6, 99, 100, 7, 0xb0, 4);
  hl_recording_commit (rb);
  a = hl_analysis_new (ra, NULL);
  b = hl_analysis_new (rb, NULL);
  d = hl_diff_tree_new (a, b, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
  top = hl_diff_tree_get_child (d, 0, 0);
  g_assert_cmpuint (hl_diff_tree_get_n_children (d, top), ==, 3);
  {
    guint n = hl_diff_tree_get_child (d, top, 0);
    g_assert_cmpstr (hl_diff_tree_get_frame (d, n)->function, ==, "0x1300");
    g_assert_cmpuint (hl_diff_tree_get_costs_a (d, n)->bytes, ==, 0);
    g_assert_cmpint (hl_diff_tree_get_delta (d, n, HL_COST_KIND_BYTES), ==, 7);
  }
}

typedef struct
{
  GMainLoop *loop;
  guint      pending;
  guint64    bytes[2];
} AsyncAnalyses;

static void
on_analysis (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  AsyncAnalyses *st = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (HlAnalysis) a = hl_analysis_new_finish (result, &error);
  HlCosts c;
  guint64 t0;

  g_assert_no_error (error);
  hl_analysis_get_totals (a, &c);
  hl_filter_get_time_range (hl_analysis_get_filter (a), &t0, NULL);
  st->bytes[t0 == 0 ? 0 : 1] = c.bytes;
  if (--st->pending == 0)
    g_main_loop_quit (st->loop);
}

/* Two analyses on worker threads at once share the recording's tries. */
static void
test_async_analyses (void)
{
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (HlFilter) f = hl_filter_new ();
  g_autoptr (HlFilter) r = hl_filter_with_time_range (f, 85, 100);
  AsyncAnalyses st = { g_main_loop_new (NULL, FALSE), 2, { 0, 0 } };

  hl_analysis_new_async (rec, f, NULL, on_analysis, &st);
  hl_analysis_new_async (rec, r, NULL, on_analysis, &st);
  g_main_loop_run (st.loop);
  g_assert_cmpuint (st.bytes[0], ==, 1365);
  g_assert_cmpuint (st.bytes[1], ==, 5);
  g_main_loop_unref (st.loop);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trees/top-down", test_top_down);
  g_test_add_func ("/trees/bottom-up", test_bottom_up);
  g_test_add_func ("/trees/filtered", test_filtered_tree);
  g_test_add_func ("/trees/flame-layout", test_flame_layout);
  g_test_add_func ("/trees/callers-callees", test_callers_callees);
  g_test_add_func ("/trees/diff", test_diff);
  g_test_add_func ("/trees/diff-new-path", test_diff_new_path);
  g_test_add_func ("/trees/async-analyses", test_async_analyses);
  return g_test_run ();
}
