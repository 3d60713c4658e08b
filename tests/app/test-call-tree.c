/* test-call-tree.c — HlCallTreeView over hand-built rows (under Xvfb):
 * sorting, lazy children, revealing a path, the stack pane, cell text. */
#include "hl-config.h"

#include <adwaita.h>

#include "hl-call-tree-view.h"

/* A hand-built tree:   main ─┬─ parse (bytes 3 MiB) ── read_file (2 MiB)
 *                            └─ index (bytes 1 MiB)                        */
typedef struct
{
  const char *name;
  const char *parent;
  guint64     bytes;
  guint64     allocs;
} Node;

static const Node nodes[] = {
  { "main", NULL, 4 << 20, 40 },
  { "index", "main", 1 << 20, 30 },
  { "parse", "main", 3 << 20, 10 },
  { "read_file", "parse", 2 << 20, 5 },
};

static guint n_created;

static GListModel *
children (HlTreeRow *row,
          gpointer   user_data)
{
  GListStore *store = g_list_store_new (HL_TYPE_TREE_ROW);
  const char *name = hl_tree_row_get_parent (row) ? hl_tree_row_get_name (row) : NULL;

  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    if (g_strcmp0 (nodes[i].parent, name) == 0)
      {
        HlTreeRowInfo info = { .name = nodes[i].name, .module = "demo", .file = "demo.c", .line = 10 + i };
        g_autoptr(HlTreeRow) child = NULL;

        info.costs[HL_COST_KIND_BYTES] = nodes[i].bytes;
        info.costs[HL_COST_KIND_ALLOCATIONS] = nodes[i].allocs;
        for (guint k = 0; k < G_N_ELEMENTS (nodes); k++)
          info.has_children |= g_strcmp0 (nodes[k].parent, nodes[i].name) == 0;
        child = hl_tree_row_new_child (row, &info);
        g_list_store_append (store, child);
        n_created++;
      }
  return G_LIST_MODEL (store);
}

static const char *
name_at (GListModel *rows,
         guint       i)
{
  g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
  g_autoptr(HlTreeRow) item = gtk_tree_list_row_get_item (row);
  static char buf[64];

  g_strlcpy (buf, hl_tree_row_get_name (item), sizeof buf);
  return buf;
}

/* The test tree: all › main (4 MiB, 40 allocations) and what children ()
 * gives below it. */
static HlTreeRow *
new_test_root (void)
{
  HlTreeRowInfo root_info = { .name = "all", .has_children = TRUE };
  guint64 totals[HL_N_COST_KINDS] = { [HL_COST_KIND_BYTES] = 4 << 20, [HL_COST_KIND_ALLOCATIONS] = 40 };

  root_info.costs[HL_COST_KIND_BYTES] = 4 << 20;
  return hl_tree_row_new_root (&root_info, totals, children, NULL, NULL);
}

/* VIEW showing ROOT in a new window, mapped (returned). */
static GtkWidget *
present_view (HlCallTreeView *view,
              HlTreeRow      *root)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 500);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  hl_call_tree_view_set_root (view, root);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (GTK_WIDGET (view)))
    g_main_context_iteration (NULL, TRUE);
  return window;
}

static void
test_tree (void)
{
  g_autoptr(HlTreeRow) root = new_test_root ();
  HlCallTreeView *view = g_object_new (HL_TYPE_CALL_TREE_VIEW, NULL);
  GtkWidget *window = present_view (view, root);
  GListModel *rows;
  g_autoptr(HlTreeRow) selected = NULL;
  const char *path[] = { "main", "parse", "read_file" };
  g_autofree char *cell = NULL;


  /* Only the top level is shown; the rows one level below the visible ones
   * may exist (GtkTreeListModel asks whether a row is expandable), deeper
   * ones (read_file) do not. */
  rows = hl_call_tree_view_get_rows (view);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 1);
  g_assert_cmpuint (n_created, <=, 3);

  /* Reveal main › parse › read_file: expanded on the way, last one selected. */
  g_assert_cmpuint (hl_call_tree_view_reveal_path (view, path, 3), ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 4);
  /* Sorted by bytes, descending: parse (3 MiB) before index (1 MiB). */
  g_assert_cmpstr (name_at (rows, 0), ==, "main");
  g_assert_cmpstr (name_at (rows, 1), ==, "parse");
  g_assert_cmpstr (name_at (rows, 2), ==, "read_file");
  g_assert_cmpstr (name_at (rows, 3), ==, "index");
  selected = hl_call_tree_view_get_selected (view);
  g_assert_cmpstr (hl_tree_row_get_name (selected), ==, "read_file");
  g_assert_cmpstr (hl_call_tree_view_get_stack_text (view), ==,
                   "#0  read_file — demo.c:13 (demo)\n#1  parse — demo.c:12 (demo)\n#2  main — demo.c:10 (demo)");

  /* By allocations instead: index (30) before parse (10). */
  hl_call_tree_view_sort_by_cost (view, HL_COST_KIND_ALLOCATIONS);
  g_assert_cmpstr (name_at (rows, 1), ==, "index");
  g_assert_cmpstr (name_at (rows, 2), ==, "parse");

  cell = hl_call_tree_format_cell (selected, HL_COST_KIND_BYTES);
  g_assert_cmpstr (cell, ==, "2.00 MiB  50.0 %");
  g_clear_pointer (&cell, g_free);
  cell = hl_call_tree_format_cell (selected, HL_COST_KIND_ALLOCATIONS);
  g_assert_cmpstr (cell, ==, "5  12.5 %");

  /* A path that does not exist stops where it stops. */
  {
    const char *bad[] = { "main", "nothing" };
    g_assert_cmpuint (hl_call_tree_view_reveal_path (view, bad, 2), ==, 1);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A new tree opens on its heaviest path for the sorted cost (issue 27). */
static void
test_heaviest (void)
{
  g_autoptr(HlTreeRow) root = new_test_root ();
  HlCallTreeView *view = g_object_new (HL_TYPE_CALL_TREE_VIEW, NULL);
  GtkWidget *window = present_view (view, root);
  GListModel *rows;


  /* By bytes: main (4 MiB) › parse (3 MiB) › read_file (2 MiB, a leaf):
   * two rows opened, read_file shown, index (1 MiB) closed after it. */
  rows = hl_call_tree_view_get_rows (view);
  g_assert_cmpuint (hl_call_tree_view_expand_heaviest (view, HL_CALL_TREE_HEAVIEST_DEPTH), ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 4);
  g_assert_cmpstr (name_at (rows, 0), ==, "main");
  g_assert_cmpstr (name_at (rows, 1), ==, "parse");
  g_assert_cmpstr (name_at (rows, 2), ==, "read_file");
  g_assert_cmpstr (name_at (rows, 3), ==, "index");
  {
    g_autoptr(GtkTreeListRow) parse = g_list_model_get_item (rows, 1);
    g_assert_true (gtk_tree_list_row_get_expanded (parse));
  }

  /* By allocations, a fresh tree: main (40) › index (30, a leaf); parse
   * (10) stays closed. */
  hl_call_tree_view_sort_by_cost (view, HL_COST_KIND_ALLOCATIONS);
  hl_call_tree_view_set_root (view, root);
  rows = hl_call_tree_view_get_rows (view);
  g_assert_cmpuint (hl_call_tree_view_expand_heaviest (view, HL_CALL_TREE_HEAVIEST_DEPTH), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 3);
  g_assert_cmpstr (name_at (rows, 1), ==, "index");
  g_assert_cmpstr (name_at (rows, 2), ==, "parse");
  {
    g_autoptr(GtkTreeListRow) parse = g_list_model_get_item (rows, 2);
    g_assert_false (gtk_tree_list_row_get_expanded (parse));
  }

  /* A depth limit stops early; an empty tree opens nothing. */
  hl_call_tree_view_sort_by_cost (view, HL_COST_KIND_BYTES);
  hl_call_tree_view_set_root (view, root);
  g_assert_cmpuint (hl_call_tree_view_expand_heaviest (view, 1), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (hl_call_tree_view_get_rows (view)), ==, 3);
  hl_call_tree_view_set_root (view, NULL);
  g_assert_cmpuint (hl_call_tree_view_expand_heaviest (view, HL_CALL_TREE_HEAVIEST_DEPTH), ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A rebuilt tree opens what the reader had opened, and selects what was
 * selected, instead of the heaviest path (issue 27: a filter or a live
 * refresh no longer folds the reader's tree). */
static void
test_open_paths_kept (void)
{
  g_autoptr(HlTreeRow) root = new_test_root ();
  HlCallTreeView *view = g_object_new (HL_TYPE_CALL_TREE_VIEW, NULL);
  GtkWidget *window = present_view (view, root);
  GListModel *rows;
  g_auto(GStrv) selected = NULL;
  g_autoptr(GPtrArray) open = NULL;


  /* the reader opens main only and selects index (not the heaviest) */
  {
    const char *path[] = { "main", "index" };
    g_assert_cmpuint (hl_call_tree_view_reveal_path (view, path, 2), ==, 2);
  }
  open = hl_call_tree_view_get_open_paths (view, &selected);
  g_assert_cmpuint (open->len, ==, 1);
  g_assert_cmpstr (((char **) g_ptr_array_index (open, 0))[0], ==, "main");
  g_assert_nonnull (selected);
  g_assert_cmpstr (selected[1], ==, "index");

  /* rebuilt: the same rows open, index selected, parse closed */
  hl_call_tree_view_set_root (view, root);
  g_assert_cmpuint (hl_call_tree_view_open_paths (view, open, (const char * const *) selected), ==, 1);
  rows = hl_call_tree_view_get_rows (view);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 3);
  g_assert_cmpstr (name_at (rows, 1), ==, "parse");
  {
    g_autoptr(GtkTreeListRow) parse = g_list_model_get_item (rows, 1);
    g_assert_false (gtk_tree_list_row_get_expanded (parse));
  }
  {
    g_autoptr(HlTreeRow) sel = hl_call_tree_view_get_selected (view);
    g_assert_nonnull (sel);
    g_assert_cmpstr (hl_tree_row_get_name (sel), ==, "index");
  }

  /* a path the new tree does not have opens nothing (the window then
   * opens the heaviest path) */
  {
    g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
    const char *names[] = { "no_such_function", NULL };
    g_ptr_array_add (gone, g_strdupv ((char **) names));
    hl_call_tree_view_set_root (view, root);
    g_assert_cmpuint (hl_call_tree_view_open_paths (view, gone, NULL), ==, 0);
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
      g_test_add_func ("/call-tree/tree", test_tree);
      g_test_add_func ("/call-tree/heaviest", test_heaviest);
      g_test_add_func ("/call-tree/open-paths-kept", test_open_paths_kept);
    }
  else
    g_test_add_func ("/call-tree/no-display", (GTestFunc) g_test_fail);
  return g_test_run ();
}
