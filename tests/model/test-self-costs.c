/* test-self-costs.c — a function that allocates itself and through its
 * callees: every tree's node is its self cost plus its children's, and a
 * flame graph leaves the self cost as the gap beside the children. */
#include "hl-model-test-program.h"

static const HlCostKind kinds[] = {
  HL_COST_KIND_ALLOCATIONS, HL_COST_KIND_BYTES, HL_COST_KIND_TEMPORARY,
  HL_COST_KIND_PEAK, HL_COST_KIND_LEAKED, HL_COST_KIND_LIVE,
};

static HlCallNode
find_child (const HlCallTree *t,
            HlCallNode        node,
            const char       *function)
{
  for (guint i = 0; i < hl_call_tree_get_n_children (t, node); i++)
    {
      HlCallNode c = hl_call_tree_get_child (t, node, i);

      if (g_str_equal (hl_call_tree_get_frame (t, c)->function, function))
        return c;
    }
  return HL_CALL_NODE_NONE;
}

/* Total = self + the children's totals, for every node but the root
 * (whose peak is the recording's, not a sum) and every cost. */
static void
check_sums (const HlCallTree *t)
{
  for (HlCallNode n = 1; n < hl_call_tree_get_n_nodes (t); n++)
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      {
        guint64 sum = hl_costs_get (hl_call_tree_get_self_costs (t, n), kinds[k]);

        for (guint i = 0; i < hl_call_tree_get_n_children (t, n); i++)
          sum += hl_costs_get (hl_call_tree_get_costs (t, hl_call_tree_get_child (t, n, i)), kinds[k]);
        g_assert_cmpuint (sum, ==, hl_costs_get (hl_call_tree_get_costs (t, n), kinds[k]));
      }
}

static void
test_call_tree (void)
{
  g_autoptr (HlRecording) rec = hl_test_program_recording ("/opt/leaky", "b1");
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (HlCallTree) td = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
  g_autoptr (HlCallTree) bu = hl_analysis_get_call_tree (a, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_BYTES);
  HlCallNode main_node;

  check_sums (td);
  check_sums (bu);
  g_assert_cmpuint (hl_call_tree_get_n_children (td, 0), ==, 1);
  main_node = hl_call_tree_get_child (td, 0, 0);
  g_assert_cmpstr (hl_call_tree_get_frame (td, main_node)->function, ==, "main");
  g_assert_cmpuint (hl_call_tree_get_costs (td, main_node)->allocations, ==, 7);
  g_assert_cmpuint (hl_call_tree_get_self_costs (td, main_node)->allocations, ==, 3);
  g_assert_cmpuint (hl_call_tree_get_self_costs (td, main_node)->leaked_bytes, ==,
                    HL_TEST_PROGRAM_MAIN_SELF_BYTES);
  g_assert_cmpuint (hl_call_tree_get_n_children (td, main_node), ==, 3);
  g_assert_cmpuint (find_child (td, main_node, "helper"), !=, HL_CALL_NODE_NONE);
  g_assert_cmpuint (find_child (td, main_node, "strdup"), !=, HL_CALL_NODE_NONE);
  g_assert_cmpuint (find_child (td, main_node, "leaky+0x300"), !=, HL_CALL_NODE_NONE);
}

/* Every rect: children side by side from the parent's start, and the
 * parent's width minus theirs is the node's self cost. */
static void
check_layout (HlCallTree *tree,
              HlCostKind  kind)
{
  g_autoptr (HlFlameLayout) layout = hl_flame_layout_new (tree, kind, 0);
  guint n;
  const HlFlameRect *rects = hl_flame_layout_get_rects (layout, &n);

  for (guint i = 1; i < n; i++)
    {
      guint64 next = rects[i].offset, children = 0;

      for (guint j = i + 1; j < rects[i].end; j = rects[j].end)
        {
          g_assert_cmpuint (rects[j].parent, ==, i);
          g_assert_cmpuint (rects[j].offset, ==, next);
          next += rects[j].width;
          children += rects[j].width;
        }
      g_assert_cmpuint (children, <=, rects[i].width);
      g_assert_cmpuint (rects[i].width - children, ==,
                        hl_costs_get (hl_call_tree_get_self_costs (tree, rects[i].node), kind));
    }
}

static void
test_flame_layout (void)
{
  g_autoptr (HlRecording) rec = hl_test_program_recording ("/opt/leaky", "b1");
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr (HlCallTree) td = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, kinds[k]);
      g_autoptr (HlCallTree) bu = hl_analysis_get_call_tree (a, HL_CALL_TREE_BOTTOM_UP, kinds[k]);

      check_layout (td, kinds[k]);
      check_layout (bu, kinds[k]);
    }
}

/* Per side, a diff node's cost is its self cost plus its children's. */
static void
check_diff_sums (const HlDiffTree *d)
{
  for (guint n = 1; n < hl_diff_tree_get_n_nodes (d); n++)
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      {
        guint64 sum_a = hl_costs_get (hl_diff_tree_get_self_costs_a (d, n), kinds[k]);
        guint64 sum_b = hl_costs_get (hl_diff_tree_get_self_costs_b (d, n), kinds[k]);
        gint64 sum_delta = hl_diff_tree_get_self_delta (d, n, kinds[k]);

        for (guint i = 0; i < hl_diff_tree_get_n_children (d, n); i++)
          {
            guint c = hl_diff_tree_get_child (d, n, i);

            sum_a += hl_costs_get (hl_diff_tree_get_costs_a (d, c), kinds[k]);
            sum_b += hl_costs_get (hl_diff_tree_get_costs_b (d, c), kinds[k]);
            sum_delta += hl_diff_tree_get_delta (d, c, kinds[k]);
          }
        g_assert_cmpuint (sum_a, ==, hl_costs_get (hl_diff_tree_get_costs_a (d, n), kinds[k]));
        g_assert_cmpuint (sum_b, ==, hl_costs_get (hl_diff_tree_get_costs_b (d, n), kinds[k]));
        g_assert_cmpint (sum_delta, ==, hl_diff_tree_get_delta (d, n, kinds[k]));
      }
}

static void
test_diff_tree (void)
{
  g_autoptr (HlRecording) ra = hl_test_program_recording ("/opt/leaky", "b1");
  g_autoptr (HlRecording) rb = hl_test_program_recording ("/opt/leaky", "b2");
  g_autoptr (HlRecording) empty = hl_test_program_recording ("/opt/other", NULL);
  g_autoptr (HlAnalysis) a = hl_analysis_new (ra, NULL);
  g_autoptr (HlAnalysis) b = hl_analysis_new (rb, NULL);
  g_autoptr (HlFilter) f = hl_filter_new ();
  g_autoptr (HlFilter) none = hl_filter_with_time_range (f, 0, 1);
  g_autoptr (HlAnalysis) e = hl_analysis_new (empty, none);

  for (int kind = 0; kind < 2; kind++)
    {
      HlCallTreeKind tk = kind == 0 ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
      g_autoptr (HlDiffTree) d = hl_diff_tree_new (a, b, tk, HL_COST_KIND_BYTES);
      g_autoptr (HlDiffTree) grew = hl_diff_tree_new (e, b, tk, HL_COST_KIND_LEAKED);

      check_diff_sums (d);
      check_diff_sums (grew);
      if (tk == HL_CALL_TREE_TOP_DOWN)
        {
          guint main_node = hl_diff_tree_get_child (grew, 0, 0);

          /* what main leaks itself is its self delta */
          g_assert_cmpstr (hl_diff_tree_get_frame (grew, main_node)->function, ==, "main");
          g_assert_cmpint (hl_diff_tree_get_self_delta (grew, main_node, HL_COST_KIND_LEAKED), ==,
                           HL_TEST_PROGRAM_MAIN_SELF_BYTES);
          g_assert_cmpuint (hl_diff_tree_get_self_costs_b (grew, main_node)->allocations, ==, 3);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/self-costs/call-tree", test_call_tree);
  g_test_add_func ("/self-costs/flame-layout", test_flame_layout);
  g_test_add_func ("/self-costs/diff-tree", test_diff_tree);
  return g_test_run ();
}
