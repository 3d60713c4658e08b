/* test-tree-self.c — a program whose main allocates itself and through
 * its callees (tests/model's hl-model-test-program.h), under Xvfb: every
 * view's numbers add up. The call tree's rows and the diff's rows are
 * their Self plus their children's Total; the diff flame graph leaves a
 * frame's self width as the gap beside its children; a diff of one
 * program under two executable names matches every frame and says so. */
#include "hl-config.h"

#include <string.h>

#include <adwaita.h>

#include "hl-adapter-call-tree.h"
#include "hl-adapter-flame.h"
#include "hl-app-test.h"
#include "hl-call-tree-view.h"
#include "hl-diff-flame.h"
#include "hl-diff-row.h"
#include "hl-diff-view.h"
#include "hl-model-test-program.h"
#include "hl-tree-columns.h"

/* Total = self + the children's totals, for ROW and everything below. */
static guint
check_tree_row (HlTreeRow *row)
{
  g_autoptr(GListModel) children = hl_tree_row_create_children (row);
  guint n = children != NULL ? g_list_model_get_n_items (children) : 0;
  guint checked = 1;

  g_assert_true (hl_tree_row_has_self (row));
  for (guint k = 0; k < HL_N_TREE_COSTS; k++)
    {
      guint64 sum = hl_tree_row_get_self_cost (row, k);

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(HlTreeRow) child = g_list_model_get_item (children, i);

          sum += hl_tree_row_get_cost (child, k);
        }
      g_assert_cmpuint (sum, ==, hl_tree_row_get_cost (row, k));
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HlTreeRow) child = g_list_model_get_item (children, i);

      checked += check_tree_row (child);
    }
  return checked;
}

/* The flame graph's nodes: children side by side from their parent's
 * start, the parent's width minus theirs the node's self cost. */
static void
check_flame (HlCallTree *tree,
             HlCostKind  kind)
{
  g_autoptr(HlFlameLayout) layout = hl_flame_layout_new (tree, kind, 0);
  g_autoptr(HlFlameData) data = hl_adapter_flame_data (layout);

  for (guint i = 1; i < hl_flame_data_get_n_nodes (data); i++)
    {
      const HlFlameNode *n = hl_flame_data_get_node (data, i);
      HlCallNode node = hl_adapter_flame_node_call_node (data, i);
      guint64 next = n->offset, children = 0;

      for (guint j = i + 1; j < n->end; j = hl_flame_data_get_node (data, j)->end)
        {
          const HlFlameNode *c = hl_flame_data_get_node (data, j);

          g_assert_cmpuint (c->offset, ==, next);
          next += c->cost;
          children += c->cost;
        }
      g_assert_cmpuint (children, <=, n->cost);
      g_assert_cmpuint (n->cost - children, ==, hl_costs_get (hl_call_tree_get_self_costs (tree, node), kind));
    }
}

static void
test_flame (void)
{
  g_autoptr(HlRecording) rec = hl_test_program_recording ("/opt/leaky", "b1");
  g_autoptr(HlAnalysis) analysis = hl_analysis_new (rec, NULL);

  for (guint k = 0; k < HL_N_COST_KINDS; k++)
    for (int inverted = 0; inverted < 2; inverted++)
      {
        g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (analysis, inverted ? HL_CALL_TREE_BOTTOM_UP
                                                                                   : HL_CALL_TREE_TOP_DOWN, k);

        check_flame (tree, k);
      }
}

static void
test_call_tree (void)
{
  g_autoptr(HlRecording) rec = hl_test_program_recording ("/opt/leaky", "b1");
  g_autoptr(HlAnalysis) analysis = hl_analysis_new (rec, NULL);
  g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (analysis, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
  g_autoptr(HlTreeRow) root = hl_adapter_call_tree (tree);
  g_autoptr(GListModel) top = hl_tree_row_create_children (root);
  g_autoptr(HlTreeRow) main_row = g_list_model_get_item (top, 0);
  GtkWidget *window = gtk_window_new ();
  HlCallTreeView *view = g_object_new (HL_TYPE_CALL_TREE_VIEW, NULL);
  GListModel *columns;
  const char *path[] = { "main" };
  g_autoptr(HlTreeRow) selected = NULL;
  g_autofree char *self_cell = NULL, *expected = NULL;

  /* main: 7 allocations, 3 of them its own, beside its 3 callees */
  g_assert_cmpuint (g_list_model_get_n_items (top), ==, 1);
  g_assert_cmpstr (hl_tree_row_get_name (main_row), ==, "main");
  g_assert_cmpuint (hl_tree_row_get_cost (main_row, HL_COST_KIND_ALLOCATIONS), ==, 7);
  g_assert_cmpuint (hl_tree_row_get_self_cost (main_row, HL_COST_KIND_ALLOCATIONS), ==, 3);
  g_assert_cmpuint (hl_tree_row_get_self_cost (main_row, HL_COST_KIND_LEAKED), ==,
                    HL_TEST_PROGRAM_MAIN_SELF_BYTES);
  g_assert_cmpuint (check_tree_row (main_row), ==, 4);

  /* The table, every column chosen (Call Tree → Columns): each cost's
   * column followed by its Self column. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 600);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  hl_call_tree_view_set_root (view, root);
  hl_call_tree_view_set_columns (view, hl_tree_columns_all ());
  gtk_window_present (GTK_WINDOW (window));
  hl_app_test_spin_a_little ();
  columns = gtk_column_view_get_columns (hl_call_tree_view_get_column_view (view));
  /* Function, Location (file:line · module, issue 27.4), then the costs */
  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, 2 + 2 * HL_N_TREE_COSTS + 2);
  /* last, the mappings' pair, hidden: this program maps nothing itself */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GtkColumnViewColumn) c = g_list_model_get_item (columns, 2 + 2 * HL_N_TREE_COSTS + i);

      g_assert_cmpstr (gtk_column_view_column_get_title (c), ==, i == 0 ? "mmap" : "Self");
      g_assert_false (gtk_column_view_column_get_visible (c));
    }
  {
    g_autoptr(GtkColumnViewColumn) location = g_list_model_get_item (columns, 1);

    g_assert_cmpstr (gtk_column_view_column_get_title (location), ==, "Location");
  }
  for (guint k = 0; k < HL_N_TREE_COSTS; k++)
    {
      g_autoptr(GtkColumnViewColumn) total = g_list_model_get_item (columns, 2 + 2 * k);
      g_autoptr(GtkColumnViewColumn) self_column = g_list_model_get_item (columns, 3 + 2 * k);

      g_assert_cmpstr (gtk_column_view_column_get_title (total), ==, hl_cost_get_column_label (k));
      g_assert_cmpstr (gtk_column_view_column_get_title (self_column), ==, "Self");
    }
  /* the default columns fit at 1400 px, the stack pane beside them: no
   * horizontal scrolling (issue 27's nit; tests/app/test-tree-columns.c
   * checks it on the demo's larger numbers) */
  hl_call_tree_view_set_columns (view, NULL);
  {
    GtkWidget *scrolled = gtk_widget_get_ancestor (GTK_WIDGET (hl_call_tree_view_get_column_view (view)),
                                                   GTK_TYPE_SCROLLED_WINDOW);
    GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scrolled));

    int columns_min, view_min, stack_min;

    hl_app_test_spin_a_little ();
    /* the columns' least width, and what the whole view needs beyond the
     * table (the stack pane): at most 1400 px together */
    gtk_widget_measure (GTK_WIDGET (hl_call_tree_view_get_column_view (view)), GTK_ORIENTATION_HORIZONTAL, -1,
                        &columns_min, NULL, NULL, NULL);
    gtk_widget_measure (GTK_WIDGET (view), GTK_ORIENTATION_HORIZONTAL, -1, &view_min, NULL, NULL, NULL);
    stack_min = gtk_widget_get_width (GTK_WIDGET (view)) - (int) gtk_adjustment_get_page_size (h);
    g_test_message ("call tree: %d px of columns, %.0f px shown of %.0f, %d px beside them (view %d px)",
                    columns_min, gtk_adjustment_get_page_size (h), gtk_adjustment_get_upper (h), stack_min,
                    gtk_widget_get_width (GTK_WIDGET (view)));
    g_assert_cmpint (stack_min, >, 0);
    g_assert_cmpint (columns_min + stack_min, <=, 1400);
  }
  /* Expand All (issue 27.5): every node of the tree a row, here main
   * and its three callees */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "tree.expand-all", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (hl_call_tree_view_get_rows (view)), ==, 4);
  g_assert_cmpuint (hl_call_tree_view_reveal_path (view, path, 1), ==, 1);
  selected = hl_call_tree_view_get_selected (view);
  self_cell = hl_call_tree_format_self_cell (selected, HL_COST_KIND_LEAKED);
  expected = hl_cost_format (HL_COST_KIND_LEAKED, HL_TEST_PROGRAM_MAIN_SELF_BYTES);
  g_assert_cmpstr (self_cell, ==, expected);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A = self A + the children's A, likewise B and Δ, for ROW and below. */
static void
check_diff_row (HlDiffRow *row)
{
  g_autoptr(GListModel) children = hl_diff_row_get_children (row);
  guint n = children != NULL ? g_list_model_get_n_items (children) : 0;
  guint64 a = hl_diff_row_get_self_a (row), b = hl_diff_row_get_self_b (row);
  gint64 delta = hl_diff_row_get_self_delta (row);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HlDiffRow) child = g_list_model_get_item (children, i);

      a += hl_diff_row_get_a (child);
      b += hl_diff_row_get_b (child);
      delta += hl_diff_row_get_delta (child);
      check_diff_row (child);
    }
  if (hl_diff_row_get_node (row) == 0)
    return;  /* the root: the analyses' totals */
  g_assert_cmpuint (a, ==, hl_diff_row_get_a (row));
  g_assert_cmpuint (b, ==, hl_diff_row_get_b (row));
  g_assert_cmpint (delta, ==, hl_diff_row_get_delta (row));
}

/* Children side by side inside their parent, the parent's width minus
 * theirs its self cost in A plus in B. */
static void
check_diff_flame (HlDiffTree *tree,
                  HlCostKind  kind)
{
  g_autoptr(HlFlameData) data = hl_diff_flame_data (tree, kind);

  for (guint i = 1; i < hl_flame_data_get_n_nodes (data); i++)
    {
      const HlFlameNode *n = hl_flame_data_get_node (data, i);
      guint d = hl_diff_flame_diff_node (data, i);
      guint64 next = n->offset, children = 0;

      for (guint j = i + 1; j < n->end; j = hl_flame_data_get_node (data, j)->end)
        {
          const HlFlameNode *c = hl_flame_data_get_node (data, j);

          g_assert_cmpint (c->parent, ==, (gint) i);
          g_assert_cmpuint (c->offset, ==, next);
          next += c->cost;
          children += c->cost;
        }
      g_assert_cmpuint (children, <=, n->cost);
      g_assert_cmpuint (n->cost - children, ==,
                        hl_costs_get (hl_diff_tree_get_self_costs_a (tree, d), kind)
                        + hl_costs_get (hl_diff_tree_get_self_costs_b (tree, d), kind));
    }
}

static void
test_diff (void)
{
  g_autoptr(HlRecording) ra = hl_test_program_recording ("/opt/leaky", "b1");
  g_autoptr(HlRecording) rb = hl_test_program_recording ("/opt/leaky", "b2");
  g_autoptr(HlRecording) empty = hl_test_program_recording ("/opt/leaky", "b0");
  g_autoptr(HlFilter) f = hl_filter_new ();
  g_autoptr(HlFilter) nothing = hl_filter_with_time_range (f, 0, 1);
  g_autoptr(HlAnalysis) a = hl_analysis_new (ra, NULL);
  g_autoptr(HlAnalysis) b = hl_analysis_new (rb, NULL);
  g_autoptr(HlAnalysis) e = hl_analysis_new (empty, nothing);

  for (guint k = 0; k < HL_N_TREE_COSTS; k++)
    {
      g_autoptr(HlDiffTree) d = hl_diff_tree_new (a, b, HL_CALL_TREE_TOP_DOWN, k);
      g_autoptr(HlDiffTree) grew = hl_diff_tree_new (e, b, HL_CALL_TREE_TOP_DOWN, k);
      g_autoptr(HlDiffTree) inverted = hl_diff_tree_new (e, b, HL_CALL_TREE_BOTTOM_UP, k);
      g_autoptr(HlDiffRow) root = hl_diff_row_new (d, 0, k);
      g_autoptr(HlDiffRow) grew_root = hl_diff_row_new (grew, 0, k);

      check_diff_row (root);
      check_diff_row (grew_root);
      check_diff_flame (d, k);
      check_diff_flame (grew, k);
      check_diff_flame (inverted, k);
    }

  /* main's own new leak is its self Δ in the table. */
  {
    g_autoptr(HlDiffTree) grew = hl_diff_tree_new (e, b, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_LEAKED);
    g_autoptr(HlDiffRow) root = hl_diff_row_new (grew, 0, HL_COST_KIND_LEAKED);
    g_autoptr(GListModel) top = hl_diff_row_get_children (root);
    g_autoptr(HlDiffRow) main_row = g_list_model_get_item (top, 0);

    g_assert_cmpstr (hl_diff_row_get_name (main_row), ==, "main");
    g_assert_cmpint (hl_diff_row_get_self_delta (main_row), ==, HL_TEST_PROGRAM_MAIN_SELF_BYTES);
  }
}

static gboolean
all_zero (HlDiffRow *row)
{
  g_autoptr(GListModel) children = hl_diff_row_get_children (row);

  if (hl_diff_row_get_delta (row) != 0 || hl_diff_row_get_self_delta (row) != 0)
    return FALSE;
  for (guint i = 0; children != NULL && i < g_list_model_get_n_items (children); i++)
    {
      g_autoptr(HlDiffRow) child = g_list_model_get_item (children, i);

      if (!all_zero (child))
        return FALSE;
    }
  return TRUE;
}

/* One binary under two names: every frame matches, the header says so. */
static void
test_renamed_executable (void)
{
  g_autoptr(HlRecording) ra = hl_test_program_recording ("/tmp/a/leaky", "cafe");
  g_autoptr(HlRecording) rb = hl_test_program_recording ("/tmp/b/leaky2", "cafe");
  g_autoptr(HlAnalysis) a = hl_analysis_new (ra, NULL);
  g_autoptr(HlAnalysis) b = hl_analysis_new (rb, NULL);
  GtkWidget *window = gtk_window_new ();
  HlDiffView *view = HL_DIFF_VIEW (hl_diff_view_new ());
  GListModel *columns;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  gtk_window_present (GTK_WINDOW (window));
  hl_diff_view_set_analyses (view, a, b);
  hl_app_test_spin_a_little ();

  g_assert_cmpstr (hl_diff_view_get_match_text (view), ==, "Frames matched: A 4 of 4 · B 4 of 4");
  for (guint k = 0; k < HL_N_TREE_COSTS; k++)
    {
      g_autoptr(HlDiffRow) root = NULL;

      hl_diff_view_set_cost (view, k);
      root = hl_diff_row_new (hl_diff_view_get_tree (view), 0, k);
      g_assert_true (all_zero (root));
    }
  columns = gtk_column_view_get_columns (hl_diff_view_get_column_view (view));
  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, 8);
  {
    g_autoptr(GtkColumnViewColumn) self_delta = g_list_model_get_item (columns, 7);

    g_assert_cmpstr (gtk_column_view_column_get_title (self_delta), ==, "Self Δ");
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  if (gtk_init_check ())
    {
      adw_init ();
      g_test_add_func ("/tree-self/call-tree", test_call_tree);
      g_test_add_func ("/tree-self/flame", test_flame);
      g_test_add_func ("/tree-self/diff", test_diff);
      g_test_add_func ("/tree-self/renamed-executable", test_renamed_executable);
    }
  else
    g_test_add_func ("/tree-self/no-display", (GTestFunc) g_test_fail);
  return g_test_run ();
}
