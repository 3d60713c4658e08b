/* test-diff-match.c — the diff matches frames of two builds of a program
 * whatever the executable is called: symbols by function, file and module
 * (the executable of A being the executable of B), frames without a
 * symbol only within one build. */
#include "hl-model-test-program.h"

static const HlCostKind kinds[] = {
  HL_COST_KIND_ALLOCATIONS, HL_COST_KIND_BYTES, HL_COST_KIND_TEMPORARY,
  HL_COST_KIND_PEAK, HL_COST_KIND_LEAKED, HL_COST_KIND_LIVE,
};

static HlDiffTree *
diff_of (const char     *exe_a,
         const char     *build_a,
         const char     *exe_b,
         const char     *build_b,
         HlCallTreeKind  kind)
{
  g_autoptr (HlRecording) ra = hl_test_program_recording (exe_a, build_a);
  g_autoptr (HlRecording) rb = hl_test_program_recording (exe_b, build_b);
  g_autoptr (HlAnalysis) a = hl_analysis_new (ra, NULL);
  g_autoptr (HlAnalysis) b = hl_analysis_new (rb, NULL);

  return hl_diff_tree_new (a, b, kind, HL_COST_KIND_BYTES);
}

static void
assert_all_zero (const HlDiffTree *d)
{
  for (guint n = 0; n < hl_diff_tree_get_n_nodes (d); n++)
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      {
        g_assert_cmpint (hl_diff_tree_get_delta (d, n, kinds[k]), ==, 0);
        g_assert_cmpint (hl_diff_tree_get_self_delta (d, n, kinds[k]), ==, 0);
      }
}

/* One binary copied under another name: everything matches. */
static void
test_renamed_executable (void)
{
  for (int k = 0; k < 2; k++)
    {
      HlCallTreeKind kind = k == 0 ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
      g_autoptr (HlDiffTree) d = diff_of ("/tmp/a/leaky", "cafe", "/home/u/leaky2", "cafe", kind);
      g_autoptr (HlDiffTree) same = diff_of ("/tmp/a/leaky", "cafe", "/tmp/a/leaky", "cafe", kind);
      guint ma, ta, mb, tb;

      assert_all_zero (d);
      g_assert_cmpuint (hl_diff_tree_get_n_nodes (d), ==, hl_diff_tree_get_n_nodes (same));
      hl_diff_tree_get_match_counts (d, &ma, &ta, &mb, &tb);
      g_assert_cmpuint (ta, >, 0);
      g_assert_cmpuint (ma, ==, ta);
      g_assert_cmpuint (mb, ==, tb);
      g_assert_cmpuint (ta, ==, tb);
      if (kind == HL_CALL_TREE_TOP_DOWN)
        g_assert_cmpuint (ta, ==, 4);  /* main, helper, strdup, leaky+0x300 */
    }
}

/* Two builds (other build-ids) under two names: the symbols match, the
 * frame without a symbol does not (its offset may be other code). */
static void
test_other_build (void)
{
  g_autoptr (HlDiffTree) d = diff_of ("/tmp/a/leaky", "cafe", "/tmp/b/leaky2", "beef", HL_CALL_TREE_TOP_DOWN);
  guint ma, ta, mb, tb, main_node;
  gboolean seen_a = FALSE, seen_b = FALSE;

  hl_diff_tree_get_match_counts (d, &ma, &ta, &mb, &tb);
  g_assert_cmpuint (ta, ==, 4);
  g_assert_cmpuint (tb, ==, 4);
  g_assert_cmpuint (ma, ==, 3);
  g_assert_cmpuint (mb, ==, 3);
  g_assert_cmpuint (hl_diff_tree_get_n_children (d, 0), ==, 1);
  main_node = hl_diff_tree_get_child (d, 0, 0);
  g_assert_cmpint (hl_diff_tree_get_delta (d, main_node, HL_COST_KIND_BYTES), ==, 0);
  g_assert_cmpuint (hl_diff_tree_get_n_children (d, main_node), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      guint c = hl_diff_tree_get_child (d, main_node, i);
      const char *name = hl_diff_tree_get_frame (d, c)->function;

      if (g_str_equal (name, "leaky+0x300"))
        {
          g_assert_cmpint (hl_diff_tree_get_delta (d, c, HL_COST_KIND_BYTES), ==, -7);
          seen_a = TRUE;
        }
      else if (g_str_equal (name, "leaky2+0x300"))
        {
          g_assert_cmpint (hl_diff_tree_get_delta (d, c, HL_COST_KIND_BYTES), ==, 7);
          seen_b = TRUE;
        }
      else
        g_assert_cmpint (hl_diff_tree_get_delta (d, c, HL_COST_KIND_BYTES), ==, 0);
    }
  g_assert_true (seen_a && seen_b);
}

/* B's executable is called libc.so.6, like B's libc: A's executable
 * still matches B's executable, and A's libc B's libc. */
static void
test_executable_only_matches_executable (void)
{
  g_autoptr (HlDiffTree) d = diff_of ("/tmp/a/leaky", "cafe", "/tmp/a/libc.so.6", "cafe", HL_CALL_TREE_BOTTOM_UP);
  guint ma, ta;

  hl_diff_tree_get_match_counts (d, &ma, &ta, NULL, NULL);
  g_assert_cmpuint (ma, ==, ta);
  assert_all_zero (d);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/diff-match/renamed-executable", test_renamed_executable);
  g_test_add_func ("/diff-match/other-build", test_other_build);
  g_test_add_func ("/diff-match/executable-only-matches-executable", test_executable_only_matches_executable);
  return g_test_run ();
}
