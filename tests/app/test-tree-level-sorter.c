/* test-tree-level-sorter.c — a GtkTreeListModel's rows sorted level by
 * level: siblings by the sorter (ties in the model's order), children
 * right after their parent, also when the sorter is inverted, and rows
 * 40 levels deep sorted and dropped without a leak (GTK 4.8's
 * GtkTreeListRowSorter loses (depth + 2) pointers for each row deeper
 * than 8 levels: LeakSanitizer fails this test with it); the sorter
 * finalizes with its model. */
#include "hl-config.h"

#include <stdlib.h>

#include <gtk/gtk.h>

#include "hl-tree-level-sorter.h"

/* name, value, parent ("" for the top level), in the model's order */
static const struct
{
  const char *name;
  int         value;
  const char *parent;
} nodes[] = {
  { "a", 3, "" },
  { "b", 7, "" },
  { "c", 5, "" },
  { "b1", 1, "b" },
  { "b2", 9, "b" },
  { "b21", 4, "b2" },
  { "b22", 4, "b2" },  /* a tie with b21: b21 first, as in the model */
  { "c1", 2, "c" },
};

static gboolean descending = TRUE;

static int
value_of (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    if (g_str_equal (nodes[i].name, name))
      return nodes[i].value;
  /* the deep chain: "d<level>", all equal */
  g_assert_true (name[0] == 'd');
  return 0;
}

static int
compare_values (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  int va = value_of (gtk_string_object_get_string ((GtkStringObject *) a));
  int vb = value_of (gtk_string_object_get_string ((GtkStringObject *) b));

  return descending ? (va < vb) - (va > vb) : (va > vb) - (va < vb);
}

static GListModel *
children_of (gpointer item,
             gpointer user_data)
{
  const char *parent = item ? gtk_string_object_get_string (item) : "";
  GtkStringList *list = gtk_string_list_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    if (g_str_equal (nodes[i].parent, parent))
      gtk_string_list_append (list, nodes[i].name);
  if (g_list_model_get_n_items (G_LIST_MODEL (list)) == 0)
    g_clear_object (&list);
  return G_LIST_MODEL (list);
}

/* the deep chain: d0 › d1 › … › d39 */
#define CHAIN_DEPTH 40

static GListModel *
chain_child (gpointer item,
             gpointer user_data)
{
  const char *name = gtk_string_object_get_string (item);
  guint level = (guint) atoi (name + 1);
  g_autofree char *child = NULL;
  GtkStringList *list;

  if (level + 1 >= CHAIN_DEPTH)
    return NULL;
  child = g_strdup_printf ("d%u", level + 1);
  list = gtk_string_list_new (NULL);
  gtk_string_list_append (list, child);
  return G_LIST_MODEL (list);
}

/* The names of MODEL's rows, joined by spaces. */
static char *
names_of (GListModel *model)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, i);
      g_autoptr(GtkStringObject) item = gtk_tree_list_row_get_item (row);

      g_string_append_printf (s, "%s%s", i ? " " : "", gtk_string_object_get_string (item));
    }
  return g_string_free (s, FALSE);
}

static void
test_order (void)
{
  GtkSorter *values = GTK_SORTER (gtk_custom_sorter_new (compare_values, NULL, NULL));
  g_autoptr(GtkTreeListModel) tree = gtk_tree_list_model_new (children_of (NULL, NULL), FALSE, TRUE,
                                                             children_of, NULL, NULL);
  g_autoptr(GtkSortListModel) sorted = NULL;
  g_autofree char *down = NULL, *up = NULL, *folded = NULL;

  descending = TRUE;
  sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (tree)),
                                    GTK_SORTER (hl_tree_level_sorter_new (g_object_ref (values))));
  down = names_of (G_LIST_MODEL (sorted));
  g_assert_cmpstr (down, ==, "b b2 b21 b22 b1 c c1 a");

  /* the values' order inverted: the tree stays a tree */
  descending = FALSE;
  gtk_sorter_changed (values, GTK_SORTER_CHANGE_INVERTED);
  up = names_of (G_LIST_MODEL (sorted));
  g_assert_cmpstr (up, ==, "a c c1 b b1 b2 b21 b22");

  /* a row folded: its subtree leaves, the rest keeps its order */
  {
    g_autoptr(GtkTreeListRow) b = gtk_tree_list_model_get_row (tree, 1);
    g_autoptr(GtkStringObject) item = gtk_tree_list_row_get_item (b);

    g_assert_cmpstr (gtk_string_object_get_string (item), ==, "b");
    gtk_tree_list_row_set_expanded (b, FALSE);
  }
  folded = names_of (G_LIST_MODEL (sorted));
  g_assert_cmpstr (folded, ==, "a c c1 b");
  g_object_unref (values);
}

static void
test_deep (void)
{
  g_autoptr(GtkStringList) top = gtk_string_list_new (NULL);
  g_autoptr(GtkTreeListModel) tree = NULL;
  g_autoptr(GtkSortListModel) sorted = NULL;
  GtkSorter *values = GTK_SORTER (gtk_custom_sorter_new (compare_values, NULL, NULL));

  gtk_string_list_append (top, "d0");
  tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (top)), FALSE, TRUE, chain_child, NULL, NULL);
  sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (tree)),
                                    GTK_SORTER (hl_tree_level_sorter_new (g_object_ref (values))));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (sorted)), ==, CHAIN_DEPTH);
  for (guint i = 0; i < CHAIN_DEPTH; i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (sorted), i);

      g_assert_cmpuint (gtk_tree_list_row_get_depth (row), ==, i);
    }
  /* sorted again, then folded: every row's key is cleared */
  gtk_sorter_changed (values, GTK_SORTER_CHANGE_DIFFERENT);
  {
    g_autoptr(GtkTreeListRow) root = gtk_tree_list_model_get_row (tree, 0);

    gtk_tree_list_row_set_expanded (root, FALSE);
  }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (sorted)), ==, 1);

  /* the sort model gone, the level sorter finalizes and no longer
   * listens to the values' sorter */
  {
    gpointer level = gtk_sort_list_model_get_sorter (sorted);

    g_assert_true (HL_IS_TREE_LEVEL_SORTER (level));
    g_object_add_weak_pointer (G_OBJECT (level), &level);
    g_clear_object (&sorted);
    g_assert_null (level);
    gtk_sorter_changed (values, GTK_SORTER_CHANGE_DIFFERENT);
  }
  g_object_unref (values);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tree-level-sorter/order", test_order);
  g_test_add_func ("/tree-level-sorter/deep", test_deep);
  return g_test_run ();
}
