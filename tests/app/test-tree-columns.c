/* test-tree-columns.c — the call trees' column chooser (issue 27 point 6):
 * on a recording of the demo, the default columns fit a 1400 px window
 * with the stack beside them, where every column does not; the chooser
 * (Columns, its "columns.ID" actions) shows and hides a column in both
 * trees and in Callers and Callees, and keeps the choice in the
 * tree-columns setting, which a new window shows. Under Xvfb. */
#include "hl-config.h"

#include <adwaita.h>
#include <string.h>

#include "hl-app-test.h"
#include "hl-application.h"
#include "hl-call-tree-view.h"
#include "hl-tree-columns.h"
#include "hl-window.h"

static HlApplication *app;

/* ---- Helpers ------------------------------------------------------------- */

/* The ids of VIEW's visible columns, "function,location,bytes,…": the
 * tables' columns are in hl_tree_columns_all ()'s order (Callers and
 * Callees without mmap's). */
static char *
visible_ids (GtkColumnView *view)
{
  GListModel *columns = gtk_column_view_get_columns (view);
  const char * const *all = hl_tree_columns_all ();
  GString *ids = g_string_new (NULL);

  g_assert_cmpuint (g_list_model_get_n_items (columns), <=, g_strv_length ((char **) all));
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (gtk_column_view_column_get_visible (column))
        g_string_append_printf (ids, "%s%s", ids->len ? "," : "", all[i]);
    }
  return g_string_free (ids, FALSE);
}

/* The ids COLUMNS chooses, with Function (and mmap's only WITH_MMAP), as
 * visible_ids gives them. */
static char *
expected_ids (const char * const *columns,
              gboolean            with_mmap)
{
  const char * const *all = hl_tree_columns_all ();
  GString *ids = g_string_new (NULL);

  for (guint i = 0; all[i] != NULL; i++)
    if (hl_tree_columns_shows (columns, all[i]) && (with_mmap || !g_str_has_prefix (all[i], "mmap")))
      g_string_append_printf (ids, "%s%s", ids->len ? "," : "", all[i]);
  return g_string_free (ids, FALSE);
}

static void
assert_shows (GtkColumnView *view,
              const char    *expected)
{
  g_autofree char *shown = visible_ids (view);

  g_assert_cmpstr (shown, ==, expected);
}

static gboolean
has_id (GtkColumnView *view,
        const char    *id)
{
  g_autofree char *shown = visible_ids (view);
  g_auto(GStrv) ids = g_strsplit (shown, ",", -1);

  return g_strv_contains ((const char * const *) ids, id);
}

/* No header and no number of WIDGET (a column view) is cut: every label
 * of the header row and every numeric cell shown is whole. */
static void
assert_labels_whole (GtkWidget *widget,
                     gboolean   in_header)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      gboolean header = in_header || g_str_equal (gtk_widget_get_css_name (child), "header");

      if (!gtk_widget_get_mapped (child))
        continue;
      if (GTK_IS_LABEL (child) && (header || gtk_widget_has_css_class (child, "numeric")))
        {
          int natural = 0;

          gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
          if (natural > gtk_widget_get_width (child)
              || pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (child))))
            g_error ("'%s' is cut: %d px of %d", gtk_label_get_text (GTK_LABEL (child)),
                     gtk_widget_get_width (child), natural);
        }
      assert_labels_whole (child, header);
    }
}

/* The header of the tree's column ID. */
static const char *
column_title (HlCallTreeView *view,
              const char     *id)
{
  GListModel *columns = gtk_column_view_get_columns (hl_call_tree_view_get_column_view (view));
  const char * const *all = hl_tree_columns_all ();

  for (guint i = 0; all[i] != NULL; i++)
    if (g_str_equal (all[i], id))
      {
        g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

        return gtk_column_view_column_get_title (column);   /* the view holds it */
      }
  g_assert_not_reached ();
}

/* Whether the tree's columns need horizontal scrolling at the window's
 * size: wider than its scrolled window beside the stack. */
static gboolean
tree_scrolls (HlCallTreeView *view,
              const char     *what)
{
  GtkWidget *column_view = GTK_WIDGET (hl_call_tree_view_get_column_view (view));
  GtkWidget *scrolled = gtk_widget_get_ancestor (column_view, GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scrolled));
  int min = 0;

  gtk_widget_measure (column_view, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  g_test_message ("%s: the tree %d px (at least %d) in %d px, scroll %.0f of %.0f", what,
                  gtk_widget_get_width (column_view), min, gtk_widget_get_width (scrolled),
                  gtk_adjustment_get_page_size (h), gtk_adjustment_get_upper (h));
  return min > gtk_widget_get_width (scrolled) || gtk_adjustment_get_upper (h) > gtk_adjustment_get_page_size (h) + 0.5;
}

/* The tree at the window's size fits beside the stack (at least its
 * 220 px): no horizontal scrolling, no header or number cut. */
static void
assert_tree_fits (HlCallTreeView *view,
                  const char     *what)
{
  GtkWidget *column_view = GTK_WIDGET (hl_call_tree_view_get_column_view (view));
  GtkWidget *paned = gtk_widget_get_ancestor (column_view, GTK_TYPE_PANED);
  GtkWidget *stack = gtk_paned_get_end_child (GTK_PANED (paned));

  g_assert_true (gtk_widget_get_mapped (stack));
  g_assert_cmpint (gtk_widget_get_width (stack), >=, 220);
  g_assert_false (tree_scrolls (view, what));
  assert_labels_whole (column_view, FALSE);
}

typedef struct
{
  HlCallTreeView *view;
  HlCallTreeMode  mode;
} WaitRows;

static gboolean
tree_has_rows (gpointer user_data)
{
  WaitRows *w = user_data;
  GListModel *rows = hl_call_tree_view_get_rows (w->view);

  return hl_call_tree_view_get_mode (w->view) == w->mode && rows != NULL && g_list_model_get_n_items (rows) > 0;
}

static void
show_mode (HlCallTreeView *view,
           HlCallTreeMode  mode)
{
  WaitRows wait = { view, mode };

  hl_call_tree_view_set_mode (view, mode);
  if (mode != HL_CALL_TREE_MODE_CALLER_CALLEE)
    hl_app_test_spin_until (tree_has_rows, &wait);
  hl_app_test_spin_ms (300);
}

static HlCallTreeView *
call_tree_of (HlWindow *window)
{
  GtkWidget *view = hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_CALL_TREE_VIEW);

  g_assert_nonnull (view);
  return HL_CALL_TREE_VIEW (view);
}

/* The chooser's item for ID in the open popover menu of VIEW's Columns
 * button (a GtkModelButton named as hl_tree_columns_label names it). */
static GtkWidget *
find_item (GtkWidget  *widget,
           const char *label)
{
  static GType model_button;

  if (model_button == 0)
    model_button = g_type_from_name ("GtkModelButton");
  g_assert_true (model_button != 0);
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, model_button))
    {
      g_autofree char *text = NULL;

      g_object_get (widget, "text", &text, NULL);
      if (g_strcmp0 (text, label) == 0)
        return widget;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_item (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkMenuButton *
columns_button (HlCallTreeView *view)
{
  GtkWidget *button = hl_app_test_find_widget (GTK_WIDGET (view), GTK_TYPE_MENU_BUTTON);

  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "Columns");
  return GTK_MENU_BUTTON (button);
}

/* Opens the Columns menu and gives its item for ID: a check item,
 * sensitive unless it is Function's. */
static GtkWidget *
open_item (HlCallTreeView *view,
           const char     *id)
{
  GtkMenuButton *button = columns_button (view);
  g_autofree char *label = hl_tree_columns_label (id);
  GtkWidget *item;
  GtkPopover *popover;

  gtk_menu_button_popup (button);
  hl_app_test_spin_a_little ();
  popover = gtk_menu_button_get_popover (button);
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (popover)));
  item = find_item (GTK_WIDGET (popover), label);
  g_assert_nonnull (item);
  g_assert_cmpint (gtk_widget_get_sensitive (item), ==, !g_str_equal (id, HL_TREE_COLUMN_FUNCTION));
  return item;
}

/* Whether the Columns menu checks ID's item. */
static gboolean
is_checked (HlCallTreeView *view,
            const char     *id)
{
  GtkWidget *item = open_item (view, id);
  gboolean active = FALSE;

  g_object_get (item, "active", &active, NULL);
  gtk_menu_button_popdown (columns_button (view));
  hl_app_test_spin_a_little ();
  return active;
}

/* Clicks ID's item in the Columns menu, as a person does. */
static void
click_item (HlCallTreeView *view,
            const char     *id)
{
  GtkWidget *item = open_item (view, id);

  g_signal_emit_by_name (item, "clicked");
  gtk_menu_button_popdown (columns_button (view));
  hl_app_test_spin_a_little ();
}

/* Activates the chooser's action for ID (what its item does). */
static void
toggle (HlCallTreeView *view,
        const char     *id)
{
  g_autofree char *action = g_strconcat ("columns.", id, NULL);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), action, NULL));
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              guint      *count)
{
  (*count)++;
}

/* ---- Tests ----------------------------------------------------------------- */

/* The chooser lists every column by its header name, in the tables'
 * order, each a check item of "columns.ID"; the schema's default is the
 * views'. */
static void
test_chooser_menu (void)
{
  HlWindow *window = hl_app_test_new_window (app, 1400, 900);
  HlCallTreeView *view = call_tree_of (window);
  GMenuModel *menu = gtk_menu_button_get_menu_model (columns_button (view));
  const char * const *all = hl_tree_columns_all ();
  GSettings *settings = hl_application_get_settings (app);
  g_autoptr(GVariant) schema_default = NULL;
  guint n = 0;

  g_assert_nonnull (menu);
  for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, s, G_MENU_LINK_SECTION);

      g_assert_nonnull (section);
      for (int i = 0; i < g_menu_model_get_n_items (section); i++, n++)
        {
          g_autofree char *label = NULL, *action = NULL, *want_label = NULL, *want_action = NULL;

          g_assert_nonnull (all[n]);
          g_assert_true (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_LABEL, "s", &label));
          g_assert_true (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action));
          want_label = hl_tree_columns_label (all[n]);
          want_action = g_strconcat ("columns.", all[n], NULL);
          g_assert_cmpstr (label, ==, want_label);
          g_assert_cmpstr (action, ==, want_action);
          g_assert_cmpint (is_checked (view, all[n]), ==, hl_tree_columns_shows (hl_tree_columns_default (), all[n]));
        }
    }
  g_assert_null (all[n]);
  {
    g_autofree char *label = hl_tree_columns_label ("leaked-self");

    g_assert_cmpstr (label, ==, "Leaked Self");
  }
  /* Function cannot be hidden: its action is disabled */
  gtk_widget_activate_action (GTK_WIDGET (view), "columns.function", NULL);
  g_assert_true (is_checked (view, HL_TREE_COLUMN_FUNCTION));
  g_assert_true (g_strv_equal (hl_call_tree_view_get_columns (view), hl_tree_columns_default ()));

  /* "columns" notifies once per change, in the tables' order, unknown
   * ids left out */
  {
    const char * const unordered[] = { "leaked", "no-such-column", "location", "leaked", NULL };
    guint notified = 0;
    g_auto(GStrv) got = NULL;
    g_autofree char *joined = NULL;

    g_signal_connect (view, "notify::columns", G_CALLBACK (count_notify), &notified);
    hl_call_tree_view_set_columns (view, NULL);
    g_assert_cmpuint (notified, ==, 0);
    g_object_set (view, "columns", unordered, NULL);
    g_assert_cmpuint (notified, ==, 1);
    g_object_get (view, "columns", &got, NULL);
    joined = g_strjoinv (",", got);
    g_assert_cmpstr (joined, ==, "location,leaked");
    hl_call_tree_view_set_columns (view, (const char * const *) got);
    g_assert_cmpuint (notified, ==, 1);
    g_assert_false (is_checked (view, "bytes"));
    g_assert_true (is_checked (view, "leaked"));
    hl_call_tree_view_set_columns (view, NULL);
    g_assert_cmpuint (notified, ==, 2);
    g_signal_handlers_disconnect_by_data (view, &notified);
  }

  g_assert_nonnull (settings);
  schema_default = g_settings_get_default_value (settings, "tree-columns");
  {
    g_autofree const char **strv = g_variant_get_strv (schema_default, NULL);

    g_assert_true (g_strv_equal (strv, hl_tree_columns_default ()));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The demo's call tree at 1400 px: the default columns fit, every column
 * would not; hiding and showing columns from the chooser in the trees
 * and Callers and Callees, kept in the setting and shown by a new
 * window; at 800 px no number is cut (the table scrolls). */
static void
test_fit_and_choose (void)
{
  g_autofree char *trace = hl_app_test_record_demo ();
  g_autoptr(GFile) file = g_file_new_for_path (trace);
  GSettings *settings = hl_application_get_settings (app);
  HlWindow *window = hl_app_test_new_window (app, 1400, 900), *other;
  HlCallTreeView *view = call_tree_of (window);
  GtkColumnView *tree = hl_call_tree_view_get_column_view (view);
  GtkColumnView *functions = hl_functions_view_get_list (hl_call_tree_view_get_functions_view (view));
  WaitRows wait = { view, HL_CALL_TREE_MODE_TOP_DOWN };
  gboolean with_mmap;
  g_autofree char *defaults = NULL, *every = NULL, *every_function = NULL;

  g_settings_reset (settings, "tree-columns");
  hl_window_open (window, file);
  hl_app_test_wait_for_page (window, "views");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "calltree"));
  hl_app_test_spin_until (tree_has_rows, &wait);
  hl_app_test_spin_ms (300);
  {
    g_autoptr(GtkTreeListRow) first = g_list_model_get_item (hl_call_tree_view_get_rows (view), 0);
    g_autoptr(HlTreeRow) row = gtk_tree_list_row_get_item (first);

    g_assert_cmpuint (gtk_tree_list_row_get_depth (first), ==, 0);
    with_mmap = hl_tree_row_get_total (hl_tree_row_get_parent (row), HL_COST_KIND_MMAP) > 0;
  }
  defaults = expected_ids (hl_tree_columns_default (), with_mmap);
  every = expected_ids (hl_tree_columns_all (), with_mmap);
  every_function = expected_ids (hl_tree_columns_all (), FALSE);
  g_test_message ("default columns: %s (mmap: %s)", defaults, with_mmap ? "yes" : "no");

  /* the defaults fit in 1400 px (in less, on a screen narrower than that) */
  g_test_message ("the window: %d px", gtk_widget_get_width (GTK_WIDGET (window)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 1400);
  assert_shows (tree, defaults);
  g_assert_true (g_str_has_prefix (defaults, "function,location,allocations,bytes,bytes-self,peak,leaked"));
  assert_tree_fits (view, "1400x900, the defaults");
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "tree-columns-1400");

  /* Peak hidden from the chooser: gone from the tree, the setting,
   * Callers and Callees, the other tree and a new window */
  g_assert_true (is_checked (view, "peak"));
  click_item (view, "peak");
  g_assert_false (is_checked (view, "peak"));
  g_assert_false (has_id (tree, "peak"));
  g_assert_true (has_id (tree, "leaked"));
  {
    g_auto(GStrv) kept = g_settings_get_strv (settings, "tree-columns");

    g_assert_false (g_strv_contains ((const char * const *) kept, "peak"));
    g_assert_true (g_strv_contains ((const char * const *) kept, "bytes-self"));
  }
  g_assert_false (has_id (functions, "peak"));
  show_mode (view, HL_CALL_TREE_MODE_BOTTOM_UP);
  g_assert_false (has_id (tree, "peak"));
  other = hl_app_test_new_window (app, 800, 600);
  g_assert_false (hl_tree_columns_shows (hl_call_tree_view_get_columns (call_tree_of (other)), "peak"));
  gtk_window_destroy (GTK_WINDOW (other));
  /* … and shown again */
  toggle (view, "peak");
  assert_shows (tree, defaults);
  g_assert_true (has_id (functions, "peak"));

  /* Temporary shown, its Self not */
  toggle (view, "temporary");
  g_assert_true (has_id (tree, "temporary"));
  g_assert_false (has_id (tree, "temporary-self"));
  g_assert_true (has_id (functions, "temporary"));
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "tree-columns-temporary-1400");
  toggle (view, "temporary");
  assert_shows (tree, defaults);

  /* the setting changed elsewhere (another window, dconf): the view follows */
  {
    const char * const few[] = { "bytes", "leaked-self", NULL };

    g_settings_set_strv (settings, "tree-columns", few);
    assert_shows (tree, "function,bytes,leaked-self");
    assert_shows (functions, "function,bytes,leaked-self");
    /* a Self column without its total is named in full */
    g_assert_cmpstr (column_title (view, "leaked-self"), ==, "Leaked Self");
    toggle (view, "leaked");
    g_assert_cmpstr (column_title (view, "leaked-self"), ==, "Self");
    g_settings_reset (settings, "tree-columns");
    assert_shows (tree, defaults);
  }

  /* every column: the table no longer fits 1400 px (what the defaults
   * are for), but cuts no number */
  show_mode (view, HL_CALL_TREE_MODE_TOP_DOWN);
  for (const char * const *id = hl_tree_columns_all (); *id != NULL; id++)
    if (!hl_tree_columns_shows (hl_call_tree_view_get_columns (view), *id))
      toggle (view, *id);
  assert_shows (tree, every);
  assert_shows (functions, every_function);
  hl_app_test_spin_ms (300);
  g_assert_true (tree_scrolls (view, "1400x900, every column"));
  assert_labels_whole (GTK_WIDGET (tree), FALSE);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "tree-columns-all-1400");

  /* the defaults at 800 px: the table scrolls, nothing is cut */
  hl_call_tree_view_set_columns (view, NULL);
  assert_shows (tree, defaults);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  hl_app_test_spin_ms (500);
  tree_scrolls (view, "800x600, the defaults");
  assert_labels_whole (GTK_WIDGET (tree), FALSE);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "tree-columns-800");
  show_mode (view, HL_CALL_TREE_MODE_CALLER_CALLEE);
  hl_app_test_spin_ms (500);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "tree-columns-functions-800");
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  hl_app_test_spin_ms (500);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "tree-columns-functions-1400");

  g_settings_reset (settings, "tree-columns");
  gtk_window_destroy (GTK_WINDOW (window));
  hl_app_test_remove_demo (trace);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = g_dir_make_tmp ("hl-test-tree-columns-XXXXXX", NULL);
  int ret;

  g_setenv ("XDG_DATA_HOME", home, TRUE);
  app = hl_app_test_init (&argc, &argv, "/tree-columns");
  if (app == NULL)
    return g_test_run ();
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/tree-columns/chooser-menu", test_chooser_menu);
  g_test_add_func ("/tree-columns/fit-and-choose", test_fit_and_choose);
  ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  return ret;
}
