/* test-diff.c — comparing two hand-built recordings (under Xvfb): the diff
 * view's flame graph and call tree show the known changes with the right
 * sign and colour; the inverted flame graph of a window puts the
 * allocating functions next to the root; the report exported as JSON
 * parses back with the recording's totals. */
#include "hl-config.h"
#include "hl-recording-builder.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "hl-app-test.h"
#include "hl-application.h"
#include "hl-diff-flame.h"
#include "hl-diff-row.h"
#include "hl-diff-view.h"
#include "hl-diff-window.h"
#include "hl-flame-view.h"
#include "hl-window.h"

static HlApplication *app;

/* Stacks (innermost first), unsymbolized so frames are named by address:
 * 1: 0x1000 ← 0x2000 ← 0x3000 (main), 2: 0x1100 ← 0x2000 ← 0x3000,
 * 3: 0x1200 ← 0x3000. Bytes per stack are the arguments. */
static HlRecording *
build_recording (guint64 s1_bytes,
                 guint64 s2_bytes,
                 guint64 s3_bytes)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };
  const guint64 s2[] = { 0x1100, 0x2000, 0x3000 };
  const guint64 s3[] = { 0x1200, 0x3000 };
  guint64 id = 0;

  hl_recording_append_stack (rec, 1, s1, 3);
  hl_recording_append_stack (rec, 2, s2, 3);
  hl_recording_append_stack (rec, 3, s3, 2);
  hl_recording_append_thread (rec, 0, 100, "main", FALSE);
  if (s1_bytes > 0)
    hl_recording_append_alloc (rec, id++, 10, 100, s1_bytes, 0xa0, 1);
  if (s2_bytes > 0)
    hl_recording_append_alloc (rec, id++, 20, 100, s2_bytes, 0xa1, 2);
  if (s3_bytes > 0)
    hl_recording_append_alloc (rec, id++, 30, 100, s3_bytes, 0xa2, 3);
  hl_recording_append_free (rec, 0, 0, 40, 100);
  hl_recording_append_end (rec, 100, 0);
  hl_recording_commit (rec);
  return rec;
}

static gint
find_flame_node (HlFlameData *data,
                 const char  *name)
{
  for (guint i = 0; i < hl_flame_data_get_n_nodes (data); i++)
    if (strcmp (hl_flame_data_get_node (data, i)->name, name) == 0)
      return (gint) i;
  return -1;
}

/* Red clearly above blue (growth) or blue above red (shrink). */
static void
assert_reddish (const double rgb[3])
{
  g_assert_cmpfloat (rgb[0], >, rgb[2] + 0.15);
}

static void
assert_bluish (const double rgb[3])
{
  g_assert_cmpfloat (rgb[2], >, rgb[0] + 0.15);
}

/* The pixel at the centre of NODE as drawn by the widget's own style. */
static void
pixel_of_node (HlFlameGraph *graph,
               guint         node,
               gboolean      dark,
               double        rgb[3])
{
  HlFlameData *data = hl_flame_graph_get_data (graph);
  HlFlameViewport vp = { .width = 600, .row_height = 20, .zoom = 0, .inverted = FALSE, .y_origin = 0 };
  HlFlameStyle style;
  double x, y, w, h;
  cairo_surface_t *surface;
  cairo_t *cr;
  const guint8 *px;
  int stride;

  hl_flame_graph_get_style (graph, &style);
  style.dark = dark;
  style.selected = -1;
  style.search = NULL;
  g_assert_true (hl_flame_graph_node_rect (data, &vp, node, &x, &y, &w, &h));
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 600, (int) hl_flame_graph_content_height (data, &vp));
  cr = cairo_create (surface);
  hl_flame_graph_draw (cr, data, &vp, &style, NULL);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  stride = cairo_image_surface_get_stride (surface);
  /* Near the left edge, below the label's text. */
  px = cairo_image_surface_get_data (surface) + (int) (y + h - 3) * stride + (int) (x + 2) * 4;
  rgb[0] = px[2] / 255.0;
  rgb[1] = px[1] / 255.0;
  rgb[2] = px[0] / 255.0;
  cairo_surface_destroy (surface);
}

static HlDiffRow *
row_at (GListModel *rows,
        guint       i)
{
  g_autoptr(GtkTreeListRow) tree_row = g_list_model_get_item (rows, i);

  g_assert_nonnull (tree_row);
  return HL_DIFF_ROW (gtk_tree_list_row_get_item (tree_row));
}

/* A: 0x1000 100 B, 0x1100 200 B, 0x1200 30 B.
 * B: 0x1000 400 B (+300), 0x1100 50 B (−150), 0x1200 30 B (=). */
static void
test_diff_view (void)
{
  g_autoptr(HlRecording) ra = build_recording (100, 200, 30);
  g_autoptr(HlRecording) rb = build_recording (400, 50, 30);
  g_autoptr(HlFilter) filter = hl_filter_new ();
  g_autoptr(HlAnalysis) aa = hl_analysis_new (ra, filter);
  g_autoptr(HlAnalysis) ab = hl_analysis_new (rb, filter);
  GtkWidget *window = gtk_window_new ();
  HlDiffView *view = HL_DIFF_VIEW (hl_diff_view_new ());
  HlFlameGraph *graph;
  HlFlameData *data;
  GListModel *rows;
  gint grew, shrank, same;
  double rgb[3];
  g_autofree char *tip_grew = NULL, *tip_shrank = NULL;
  g_autoptr(HlDiffRow) first = NULL;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  gtk_window_present (GTK_WINDOW (window));
  hl_diff_view_set_analyses (view, aa, ab);
  hl_app_test_spin_a_little ();

  g_assert_cmpint (hl_diff_view_get_cost (view), ==, HL_COST_KIND_BYTES);
  /* Totals 330 B → 480 B: +150 B, +45.5 %. */
  g_assert_cmpstr (hl_diff_view_get_summary (view), ==, "Bytes Allocated: 330 B → 480 B (+45.5 %)");

  /* Flame graph: widths are A + B, so the root is 810 B wide. */
  graph = hl_diff_view_get_graph (view);
  data = hl_flame_graph_get_data (graph);
  g_assert_nonnull (data);
  g_assert_cmpuint (hl_flame_data_get_total (data), ==, 810);
  grew = find_flame_node (data, "0x1000");
  shrank = find_flame_node (data, "0x1100");
  same = find_flame_node (data, "0x1200");
  g_assert_cmpint (grew, >, 0);
  g_assert_cmpint (shrank, >, 0);
  g_assert_cmpint (same, >, 0);
  g_assert_cmpuint (hl_flame_data_get_node (data, grew)->cost, ==, 500);
  g_assert_cmpint (hl_diff_tree_get_delta (hl_diff_view_get_tree (view),
                                           hl_diff_flame_diff_node (data, grew), HL_COST_KIND_BYTES), ==, 300);

  /* Tooltips: A, B and Δ with units and percentage. */
  tip_grew = hl_flame_graph_describe_node (graph, (guint) grew);
  g_test_message ("%s", tip_grew);
  g_assert_nonnull (strstr (tip_grew, "A: 100 B"));
  g_assert_nonnull (strstr (tip_grew, "B: 400 B"));
  g_assert_nonnull (strstr (tip_grew, "+300 B</b> (+300 %)"));
  tip_shrank = hl_flame_graph_describe_node (graph, (guint) shrank);
  g_assert_nonnull (strstr (tip_shrank, "\u2212150 B</b> (\u221275.0 %)"));

  /* Colours as drawn: growth red, shrink blue, unchanged grey; light and dark. */
  for (int dark = 0; dark <= 1; dark++)
    {
      pixel_of_node (graph, (guint) grew, dark, rgb);
      assert_reddish (rgb);
      pixel_of_node (graph, (guint) shrank, dark, rgb);
      assert_bluish (rgb);
      pixel_of_node (graph, (guint) same, dark, rgb);
      g_assert_cmpfloat (fabs (rgb[0] - rgb[2]), <, 0.02);
    }
  /* A bigger relative change is a stronger colour. */
  {
    double weak[3], strong[3];
    hl_diff_color (100, 102, FALSE, weak);
    hl_diff_color (100, 200, FALSE, strong);
    g_assert_cmpfloat (strong[0] - strong[2], >, weak[0] - weak[2]);
  }

  /* The call tree opens the path of the largest change: main, 0x2000
   * (|Δ| 150) and its children +300 before −150 (by |Δ|), then 0x1200 (0). */
  rows = hl_diff_view_get_rows (view);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 5);
  {
    const char *order[] = { "0x3000", "0x2000", "0x1000", "0x1100", "0x1200" };
    const gint64 deltas[] = { 150, 150, 300, -150, 0 };

    for (guint i = 0; i < G_N_ELEMENTS (order); i++)
      {
        g_autoptr(HlDiffRow) r = row_at (rows, i);
        g_assert_cmpstr (hl_diff_row_get_name (r), ==, order[i]);
        g_assert_cmpint (hl_diff_row_get_delta (r), ==, deltas[i]);
      }
    first = row_at (rows, 2);
    g_assert_cmpuint (hl_diff_row_get_a (first), ==, 100);
    g_assert_cmpuint (hl_diff_row_get_b (first), ==, 400);
  }
  /* Sorted by Δ ascending (|Δ|, smallest first) at every level: 0x1200 (0)
   * before 0x2000 (150), and under 0x2000 −150 before +300. */
  {
    GtkColumnView *cv = hl_diff_view_get_column_view (view);
    g_autoptr(GtkColumnViewColumn) delta_column = g_list_model_get_item (gtk_column_view_get_columns (cv), 3);
    const char *order[] = { "0x3000", "0x1200", "0x2000", "0x1100", "0x1000" };

    g_assert_cmpstr (gtk_column_view_column_get_title (delta_column), ==, "Δ");
    gtk_column_view_sort_by_column (cv, delta_column, GTK_SORT_ASCENDING);
    for (guint i = 0; i < G_N_ELEMENTS (order); i++)
      {
        g_autoptr(HlDiffRow) r = row_at (rows, i);
        g_assert_cmpstr (hl_diff_row_get_name (r), ==, order[i]);
      }
  }

  /* Choosing a row outlines its frame in the flame graph (row 4: 0x1000). */
  gtk_single_selection_set_selected (GTK_SINGLE_SELECTION (rows), 4);
  g_assert_cmpint (hl_flame_graph_get_selected (graph), ==, grew);

  /* Another cost: allocations, 3 → 3, and 0x1000 unchanged. */
  hl_diff_view_set_cost (view, HL_COST_KIND_ALLOCATIONS);
  g_assert_cmpstr (hl_diff_view_get_summary (view), ==, "Allocations: 3 → 3 (0 %)");

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
diff_window_done (gpointer window)
{
  return g_strcmp0 (hl_diff_window_get_page (window), "loading") != 0;
}

/* The window path: recordings given, analyses built asynchronously; a
 * missing file shows the error page. */
static void
test_diff_window (void)
{
  g_autoptr(HlRecording) ra = build_recording (100, 200, 30);
  g_autoptr(HlRecording) rb = build_recording (400, 50, 30);
  HlDiffWindow *window = hl_diff_window_new (GTK_APPLICATION (app));
  g_autoptr(GFile) missing = g_file_new_for_path ("/nonexistent/heaplens-test.hltrace");
  HlDiffTree *tree;

  gtk_window_present (GTK_WINDOW (window));
  hl_diff_window_compare (window, NULL, ra, NULL, rb);
  hl_app_test_spin_until (diff_window_done, window);
  g_assert_cmpstr (hl_diff_window_get_page (window), ==, "diff");
  tree = hl_diff_view_get_tree (hl_diff_window_get_view (window));
  g_assert_nonnull (tree);
  g_assert_cmpint (hl_diff_tree_get_delta (tree, 0, HL_COST_KIND_BYTES), ==, 150);

  hl_diff_window_compare (window, NULL, ra, missing, NULL);
  hl_app_test_spin_until (diff_window_done, window);
  g_assert_cmpstr (hl_diff_window_get_page (window), ==, "error");

  /* Compared again before the first answer: the late answer (an error)
   * of the first comparison is dropped. */
  hl_diff_window_compare (window, NULL, ra, missing, NULL);
  hl_diff_window_compare (window, NULL, rb, NULL, ra);
  hl_app_test_spin_until (diff_window_done, window);
  g_assert_cmpstr (hl_diff_window_get_page (window), ==, "diff");
  hl_app_test_spin_a_little ();
  g_assert_cmpstr (hl_diff_window_get_page (window), ==, "diff");
  g_assert_cmpint (hl_diff_tree_get_delta (hl_diff_view_get_tree (hl_diff_window_get_view (window)), 0,
                                           HL_COST_KIND_BYTES), ==, -150);

  hl_diff_window_compare (window, NULL, ra, missing, NULL);
  hl_app_test_spin_until (diff_window_done, window);
  g_assert_cmpstr (hl_diff_window_get_page (window), ==, "error");
  g_assert_nonnull (strstr (hl_diff_window_get_error (window), "heaplens-test.hltrace"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Names of the frames at depth 1 (next to the root), sorted, joined by ",". */
static char *
depth1_names (HlFlameData *data)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < hl_flame_data_get_n_nodes (data); i++)
    if (hl_flame_data_get_node (data, i)->depth == 1)
      g_ptr_array_add (names, (gpointer) hl_flame_data_get_node (data, i)->name);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (",", (char **) names->pdata);
}

static gboolean
graph_has_depth1 (gpointer user_data)
{
  gpointer *args = user_data;
  HlFlameData *data = hl_flame_graph_get_data (args[0]);
  g_autofree char *names = data != NULL ? depth1_names (data) : NULL;

  return g_strcmp0 (names, args[1]) == 0;
}

static void
test_inverted (void)
{
  g_autoptr(HlRecording) rec = build_recording (100, 200, 30);
  HlWindow *window = hl_window_new (app);
  HlFlameGraph *graph;
  HlFlameViewport vp;
  HlFlameData *data;
  gpointer args[2];
  double x, y, w, h, root_y;
  gint alloc;

  gtk_window_present (GTK_WINDOW (window));
  hl_window_set_recording (window, rec);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  graph = hl_flame_view_get_graph (HL_FLAME_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FLAME_VIEW)));

  /* Top-down: main is next to the root. */
  args[0] = graph;
  args[1] = (gpointer) "0x3000";
  hl_app_test_spin_until (graph_has_depth1, args);

  /* Inverted: the allocating functions are next to the root (the base of
   * the icicle, at the top), their callers above... below them. */
  hl_flame_graph_set_inverted (graph, TRUE);
  args[1] = (gpointer) "0x1000,0x1100,0x1200";
  hl_app_test_spin_until (graph_has_depth1, args);
  data = hl_flame_graph_get_data (graph);
  g_assert_cmpuint (hl_flame_data_get_total (data), ==, 330);
  alloc = find_flame_node (data, "0x1100");
  g_assert_cmpint (hl_flame_data_get_node (data, alloc)->depth, ==, 1);
  g_assert_cmpuint (hl_flame_data_get_node (data, alloc)->cost, ==, 200);
  /* Drawn in the row right after the root's. */
  hl_flame_graph_get_viewport (graph, &vp);
  vp.width = MAX (vp.width, 300);
  g_assert_true (hl_flame_graph_node_rect (data, &vp, 0, &x, &root_y, &w, &h));
  g_assert_true (hl_flame_graph_node_rect (data, &vp, (guint) alloc, &x, &y, &w, &h));
  g_assert_cmpfloat (y, ==, root_y + vp.row_height);

  /* And back. */
  hl_flame_graph_set_inverted (graph, FALSE);
  args[1] = (gpointer) "0x3000";
  hl_app_test_spin_until (graph_has_depth1, args);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_export_report (void)
{
  g_autoptr(HlRecording) rec = build_recording (100, 200, 30);
  HlWindow *window = hl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("hl-report-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "report.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;
  const char *argv[] = {
    "python3", "-c",
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "s = d['summary']\n"
    "print(s['allocations'], s['bytes_allocated'], s['leaked_bytes'], d['selection']['bytes'],"
    " sorted(d['top']), d['top']['allocations'][0]['stack'][0]['function'])\n",
    path, NULL
  };

  gtk_window_present (GTK_WINDOW (window));
  hl_window_set_recording (window, rec);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  g_assert_true (hl_window_export_report (window, file, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("%s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  /* 3 calls, 330 B, the first block (100 B) freed: 230 B leaked. Top call
   * sites per default cost; every stack has one call (first: 0x1000). */
  g_assert_cmpstr (out, ==, "3 330 230 330 ['allocations', 'leaked', 'peak', 'temporary'] 0x1000\n");
  g_unlink (path);
  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* `heaplens --diff A B` arrives as an open with the hint "diff": a diff
 * window loads both files (a checked-in trace against itself: no change). */
static void
test_open_hint (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HL_SOURCE_ROOT"), "tests", "format", "data",
                                            "basic.hltrace", NULL);
  GFile *files[2];
  HlDiffWindow *window = NULL;
  HlDiffTree *tree;

  files[0] = g_file_new_for_path (path);
  files[1] = g_file_new_for_path (path);
  g_application_open (G_APPLICATION (app), files, 2, "diff");
  g_object_unref (files[0]);
  g_object_unref (files[1]);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (HL_IS_DIFF_WINDOW (l->data))
      window = l->data;
  g_assert_nonnull (window);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "basic.hltrace → basic.hltrace");
  hl_app_test_spin_until (diff_window_done, window);
  g_assert_cmpstr (hl_diff_window_get_page (window), ==, "diff");
  tree = hl_diff_view_get_tree (hl_diff_window_get_view (window));
  g_assert_cmpuint (hl_diff_tree_get_n_nodes (tree), >, 1);
  g_assert_cmpint (hl_diff_tree_get_delta (tree, 0, HL_COST_KIND_BYTES), ==, 0);
  g_assert_cmpuint (hl_costs_get (hl_diff_tree_get_costs_a (tree, 0), HL_COST_KIND_BYTES), >, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Export Profile…: the same recording as a speedscope file (its totals
 * per cost) and a pprof profile (go tool pprof's total of alloc_space). */
static void
test_export_profile (void)
{
  g_autoptr(HlRecording) rec = build_recording (100, 200, 30);
  HlWindow *window = hl_window_new (app);
  g_autofree char *dir = g_dir_make_tmp ("hl-profile-XXXXXX", NULL);
  g_autofree char *json = g_build_filename (dir, "run.speedscope.json", NULL);
  g_autofree char *pprof = g_build_filename (dir, "run.pb.gz", NULL);
  g_autofree char *go = NULL;
  g_autoptr(GFile) json_file = g_file_new_for_path (json);
  g_autoptr(GFile) pprof_file = g_file_new_for_path (pprof);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;
  const char *check_json[] = {
    "python3", "-c",
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "w = {p['name']: sum(p['weights']) for p in d['profiles']}\n"
    "print(d['$schema'].endswith('file-format-schema.json'), sorted(w.items()))\n",
    json, NULL
  };
  const char *check_pprof[] = {
    "go", "tool", "pprof", "-symbolize=none", "-sample_index=alloc_space", "-unit=byte", "-top", pprof, NULL
  };

  gtk_window_present (GTK_WINDOW (window));
  hl_window_set_recording (window, rec);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  g_assert_true (hl_window_export_profile (window, json_file, &error));
  g_assert_no_error (error);
  g_assert_true (hl_window_export_profile (window, pprof_file, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_sync (NULL, (char **) check_json, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("%s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (out, ==, "True [('allocations', 3), ('bytes', 330), ('leaked', 230), ('live', 230), ('long-lived', 330), ('mmap', 0), ('peak', 330), ('temporary', 0)]\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  go = g_find_program_in_path ("go");
  if (go != NULL)
    {
      g_assert_true (g_spawn_sync (NULL, (char **) check_pprof, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                                   &out, &err, &status, &error));
      g_assert_no_error (error);
      g_test_message ("%s%s", out, err);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      /* "... of 330B total" */
      g_assert_nonnull (strstr (out, "of 330B total"));
    }
  g_unlink (json);
  g_unlink (pprof);
  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  app = hl_app_test_init (&argc, &argv, "/diff");
  if (app == NULL)
    return g_test_run ();
  g_test_add_func ("/diff/view", test_diff_view);
  g_test_add_func ("/diff/window", test_diff_window);
  g_test_add_func ("/diff/open-hint", test_open_hint);
  g_test_add_func ("/diff/inverted-bottom-up", test_inverted);
  g_test_add_func ("/diff/export-report-json", test_export_report);
  g_test_add_func ("/diff/export-profile", test_export_profile);
  ret = g_test_run ();
  g_object_unref (app);
  return ret;
}
