/* test-functions-view.c — Callers/Callees (issue 27.5), under Xvfb, on a
 * recording of the demo made here by `heaplens-cli record`: the flat
 * function list of the window's Call Tree page, sorted by bytes, its
 * self and total costs and each function's callers and callees checked
 * against the CLI on the same file (`report --function NAME --json` for
 * the totals and the edges, `flamegraph --cost C`'s collapsed stacks for
 * the self costs: the stacks that end in the function), sorting by other
 * columns, and the search. With HL_TEST_SCREENSHOT_DIR: the page light
 * and dark at 1400×900 and at 800×600. */
#include "hl-config.h"

#include <string.h>

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "hl-app-test.h"
#include "hl-call-tree-view.h"
#include "hl-functions-view.h"

static HlApplication *app;
static char *trace;       /* the demo's recording */

/* Self costs by the CLI: the collapsed stacks' lines whose innermost
 * (last) frame is a function, summed per function ("NAME [inline]" as
 * NAME). */
static GHashTable *
collapsed_self (const char *cost)
{
  g_autofree char *out = hl_app_test_run_cli ("flamegraph", trace, "--cost", cost, NULL);
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  GHashTable *self = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *space = strrchr (lines[i], ' ');
      const char *leaf;
      g_autofree char *name = NULL;
      guint64 *sum;

      if (space == NULL)
        continue;
      *space = '\0';
      leaf = strrchr (lines[i], ';');
      leaf = leaf != NULL ? leaf + 1 : lines[i];
      name = g_str_has_suffix (leaf, " [inline]") ? g_strndup (leaf, strlen (leaf) - strlen (" [inline]"))
                                                  : g_strdup (leaf);
      sum = g_hash_table_lookup (self, name);
      if (sum == NULL)
        {
          sum = g_new0 (guint64, 1);
          g_hash_table_insert (self, g_strdup (name), sum);
        }
      *sum += g_ascii_strtoull (space + 1, NULL, 10);
    }
  return self;
}

/* `report --function NAME --json`'s match for MODULE (a basename). */
static JsonObject *
report_function (JsonParser *parser,
                 const char *name,
                 const char *module)
{
  g_autofree char *out = hl_app_test_run_cli ("report", trace, "--function", name, "--json", NULL);
  g_autoptr(GError) error = NULL;
  JsonArray *matches;

  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  matches = json_object_get_array_member (json_object_get_object_member (
                                            json_node_get_object (json_parser_get_root (parser)), "function"),
                                          "matches");
  for (guint i = 0; i < json_array_get_length (matches); i++)
    {
      JsonObject *m = json_array_get_object_element (matches, i);
      const char *path = json_object_get_string_member (json_object_get_object_member (m, "frame"), "module");
      g_autofree char *base = g_path_get_basename (path);

      if (g_str_equal (base, module) || (module[0] == '\0' && path[0] == '\0'))
        return m;
    }
  g_assert_not_reached ();
  return NULL;
}

static guint64
member (JsonObject *costs,
        const char *name)
{
  return (guint64) json_object_get_int_member (costs, name);
}

static gboolean
has_rows (gpointer view)
{
  return g_list_model_get_n_items (hl_functions_view_get_rows (view)) > 0;
}

static gboolean
has_neighbours (gpointer view)
{
  return g_list_model_get_n_items (hl_functions_view_get_callers (view)) > 0
         || g_list_model_get_n_items (hl_functions_view_get_callees (view)) > 0;
}

/* Each caller or callee row in LIST is the JSON's EDGES entry of its name
 * and module, with the same calls and bytes; as many of both. */
static void
check_edges (GListModel *list,
             JsonArray  *edges)
{
  guint n = g_list_model_get_n_items (list);

  g_assert_cmpuint (n, ==, json_array_get_length (edges));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HlFunctionRow) row = g_list_model_get_item (list, i);
      const HlFrame *f = hl_function_row_get_frame (row);
      gboolean found = FALSE;

      /* sorted by bytes, the largest edge first */
      if (i > 0)
        {
          g_autoptr(HlFunctionRow) prev = g_list_model_get_item (list, i - 1);

          g_assert_cmpuint (hl_function_row_get_total (prev, HL_COST_KIND_BYTES), >=,
                            hl_function_row_get_total (row, HL_COST_KIND_BYTES));
        }

      for (guint k = 0; k < json_array_get_length (edges) && !found; k++)
        {
          JsonObject *e = json_array_get_object_element (edges, k);
          JsonObject *frame = json_object_get_object_member (e, "frame");
          JsonObject *costs = json_object_get_object_member (e, "costs");
          g_autofree char *base = g_path_get_basename (json_object_get_string_member (frame, "module"));

          if (!g_str_equal (json_object_get_string_member (frame, "function"), f->function)
              || !g_str_equal (base, f->module_name))
            continue;
          found = TRUE;
          g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_ALLOCATIONS), ==,
                            member (costs, "allocations"));
          g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_BYTES), ==, member (costs, "bytes"));
          g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_LEAKED), ==,
                            member (costs, "leaked_bytes"));
        }
      g_assert_true (found);
    }
}

/* The row at POSITION: its totals equal report --function's, its self
 * the collapsed stacks' sum, its callers and callees report's. */
static void
check_function (HlFunctionsView *view,
                guint            position,
                GHashTable      *self_bytes,
                GHashTable      *self_calls)
{
  GListModel *rows = hl_functions_view_get_rows (view);
  g_autoptr(HlFunctionRow) row = g_list_model_get_item (rows, position);
  const HlFrame *f = hl_function_row_get_frame (row);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *match = report_function (parser, f->function, f->module_name);
  JsonObject *costs = json_object_get_object_member (match, "costs");
  guint64 *bytes = g_hash_table_lookup (self_bytes, f->function);
  guint64 *calls = g_hash_table_lookup (self_calls, f->function);

  g_test_message ("%s (%s): total %" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT " B; self %" G_GUINT64_FORMAT
                  " calls, %" G_GUINT64_FORMAT " B", f->function, f->module_name,
                  hl_function_row_get_total (row, HL_COST_KIND_ALLOCATIONS),
                  hl_function_row_get_total (row, HL_COST_KIND_BYTES),
                  hl_function_row_get_self (row, HL_COST_KIND_ALLOCATIONS),
                  hl_function_row_get_self (row, HL_COST_KIND_BYTES));
  g_assert_true (hl_function_row_has_self (row));
  g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_ALLOCATIONS), ==, member (costs, "allocations"));
  g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_BYTES), ==, member (costs, "bytes"));
  g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_TEMPORARY), ==, member (costs, "temporary"));
  g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_PEAK), ==, member (costs, "peak_bytes"));
  g_assert_cmpuint (hl_function_row_get_total (row, HL_COST_KIND_LEAKED), ==, member (costs, "leaked_bytes"));
  g_assert_cmpuint (hl_function_row_get_self (row, HL_COST_KIND_BYTES), ==, bytes != NULL ? *bytes : 0);
  g_assert_cmpuint (hl_function_row_get_self (row, HL_COST_KIND_ALLOCATIONS), ==, calls != NULL ? *calls : 0);
  g_assert_cmpuint (hl_function_row_get_self (row, HL_COST_KIND_BYTES), <=,
                    hl_function_row_get_total (row, HL_COST_KIND_BYTES));

  /* chosen: its callers and callees come from the worker */
  gtk_single_selection_set_selected (GTK_SINGLE_SELECTION (rows), position);
  g_assert_true (hl_functions_view_get_selected (view) == row);
  if (json_array_get_length (json_object_get_array_member (match, "callers")) > 0
      || json_array_get_length (json_object_get_array_member (match, "callees")) > 0)
    hl_app_test_spin_until (has_neighbours, view);
  check_edges (hl_functions_view_get_callers (view), json_object_get_array_member (match, "callers"));
  check_edges (hl_functions_view_get_callees (view), json_object_get_array_member (match, "callees"));
}

static gboolean
search_done (gpointer view)
{
  GtkFilterListModel *filtered = GTK_FILTER_LIST_MODEL (gtk_single_selection_get_model (
                                   GTK_SINGLE_SELECTION (hl_functions_view_get_rows (view))));

  return gtk_filter_list_model_get_pending (filtered) == 0;
}

/* The search "DEMO_" matches NAME: "demo_" in it, in any case. */
static gboolean
contains_demo (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return strstr (lower, "demo_") != NULL;
}

static void
test_flat_list (void)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GHashTable) self_bytes = NULL;
  g_autoptr(GHashTable) self_calls = NULL;
  HlWindow *window;
  HlCallTreeView *tree;
  HlFunctionsView *view;
  AdwViewStack *stack;
  GListModel *rows;
  guint n, n_demo = 0, checked = 0;
  guint64 sum_self = 0;

  trace = hl_app_test_record_demo ();
  self_bytes = collapsed_self ("bytes");
  self_calls = collapsed_self ("allocations");
  file = g_file_new_for_path (trace);
  window = hl_app_test_new_window (app, 1400, 900);
  hl_application_open_file (app, file);
  hl_app_test_wait_for_page (window, "views");

  stack = ADW_VIEW_STACK (hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  adw_view_stack_set_visible_child_name (stack, "calltree");
  tree = HL_CALL_TREE_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_CALL_TREE_VIEW));
  view = hl_call_tree_view_get_functions_view (tree);
  hl_call_tree_view_set_mode (tree, HL_CALL_TREE_MODE_CALLER_CALLEE);
  hl_app_test_spin_until (has_rows, view);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (view)));
  rows = hl_functions_view_get_rows (view);
  n = g_list_model_get_n_items (rows);
  g_test_message ("%u functions", n);
  g_assert_cmpuint (n, >, 20);

  /* the heaviest first (bytes, total), chosen at once; the self costs
   * add up to the whole recording's (every stack ends in one function) */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HlFunctionRow) row = g_list_model_get_item (rows, i);

      if (i > 0)
        {
          g_autoptr(HlFunctionRow) prev = g_list_model_get_item (rows, i - 1);

          g_assert_cmpuint (hl_function_row_get_total (prev, HL_COST_KIND_BYTES), >=,
                            hl_function_row_get_total (row, HL_COST_KIND_BYTES));
        }
      sum_self += hl_function_row_get_self (row, HL_COST_KIND_BYTES);
      if (contains_demo (hl_function_row_get_name (row)))
        n_demo++;
    }
  {
    g_autofree char *out = hl_app_test_run_cli ("report", trace, "--json", NULL);
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *root, *summary;

    g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
    root = json_node_get_object (json_parser_get_root (parser));
    summary = json_object_get_object_member (root, "summary");
    g_test_message ("self bytes sum %" G_GUINT64_FORMAT, sum_self);
    g_assert_cmpuint (sum_self, ==, member (summary, "bytes_allocated"));
  }
  hl_app_test_spin_until (has_neighbours, view);
  g_assert_true (hl_functions_view_get_selected (view) != NULL);
  /* the heaviest, clone3, is the outermost frame: its empty callers say so */
  if (g_list_model_get_n_items (hl_functions_view_get_callers (view)) == 0)
    {
      g_autofree char *none = g_strdup_printf ("No callers of %s: it is the outermost frame",
                                               hl_function_row_get_name (hl_functions_view_get_selected (view)));

      g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (view), none));
    }
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "functions-1400");

  /* the heaviest ten, and the demo's own functions */
  for (guint i = 0; i < n && checked < 10; i++, checked++)
    check_function (view, i, self_bytes, self_calls);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(HlFunctionRow) row = g_list_model_get_item (rows, i);

      if (g_str_has_prefix (hl_function_row_get_name (row), "demo_"))
        check_function (view, i, self_bytes, self_calls);
    }

  /* sorted by another column: leaked self, descending */
  hl_functions_view_sort_by (view, HL_COST_KIND_LEAKED, TRUE);
  for (guint i = 1; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(HlFunctionRow) a = g_list_model_get_item (rows, i - 1);
      g_autoptr(HlFunctionRow) b = g_list_model_get_item (rows, i);

      g_assert_cmpuint (hl_function_row_get_self (a, HL_COST_KIND_LEAKED), >=,
                        hl_function_row_get_self (b, HL_COST_KIND_LEAKED));
    }
  hl_functions_view_sort_by (view, HL_COST_KIND_BYTES, FALSE);

  /* the search: case-insensitive, the same functions as counted */
  gtk_editable_set_text (hl_call_tree_view_get_function_search (tree), "DEMO_");
  hl_app_test_spin_ms (400);   /* the search entry's delay */
  hl_app_test_spin_until (search_done, view);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n_demo);
  g_assert_cmpuint (n_demo, >, 0);
  {
    g_autofree char *count = g_strdup_printf ("%u of %u functions", n_demo, n);

    g_assert_cmpstr (hl_functions_view_get_count_text (view), ==, count);
  }
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(HlFunctionRow) row = g_list_model_get_item (rows, i);

      g_assert_true (contains_demo (hl_function_row_get_name (row)));
    }
  /* a caller chosen from outside the search clears it */
  {
    g_autoptr(HlFunctionRow) first = g_list_model_get_item (rows, 0);
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *match = report_function (parser, hl_function_row_get_name (first),
                                         hl_function_row_get_frame (first)->module_name);
    JsonArray *callers = json_object_get_array_member (match, "callers");

    for (guint k = 0; k < json_array_get_length (callers); k++)
      {
        JsonObject *frame = json_object_get_object_member (json_array_get_object_element (callers, k), "frame");
        HlFrame caller = { .function = json_object_get_string_member (frame, "function") };
        g_autofree char *base = g_path_get_basename (json_object_get_string_member (frame, "module"));

        caller.module_name = base;
        if (contains_demo (caller.function))
          continue;
        g_assert_true (hl_functions_view_select_frame (view, &caller));
        g_assert_cmpstr (gtk_editable_get_text (hl_call_tree_view_get_function_search (tree)), ==, "");
        g_assert_null (hl_functions_view_get_search (view));
        g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n);
        g_assert_cmpstr (hl_function_row_get_name (hl_functions_view_get_selected (view)), ==, caller.function);
        break;
      }
  }

  /* narrow */
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  hl_app_test_spin_ms (300);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "functions-800");
  gtk_window_destroy (GTK_WINDOW (window));
  hl_app_test_spin_a_little ();
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  app = hl_app_test_init (&argc, &argv, "/functions-view");
  if (app == NULL)
    return g_test_run ();
  g_test_add_func ("/functions-view/flat-list", test_flat_list);
  ret = g_test_run ();
  hl_app_test_remove_demo (trace);
  g_free (trace);
  g_object_unref (app);
  return ret;
}
