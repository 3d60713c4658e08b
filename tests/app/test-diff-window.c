/* test-diff-window.c — the diff window has the flame graph page of a
 * recording window (under Xvfb): search with the share of A and B, click
 * to zoom with a breadcrumb, the cost chooser, inversion; swapping A and
 * B; export as SVG, PNG and two-column collapsed stacks; and the filters
 * of the window it was opened from, carried to both sides (threads by
 * name, the time range as offsets) and removable as chips. */
#include "hl-config.h"
#include "hl-recording-builder.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "hl-app-test.h"
#include "hl-application.h"
#include "hl-diff-flame.h"
#include "hl-diff-window.h"
#include "hl-flame-view.h"
#include "hl-window.h"

static HlApplication *app;

/* Stacks (innermost first), unsymbolized so frames are named by address:
 * 1: 0x1000 ← 0x2000 ← 0x3000, 2: 0x1100 ← 0x2000 ← 0x3000, 3: 0x1200 ← 0x3000.
 * Thread "main" (MAIN_TID) allocates S1 at 10 ns and S3 at 30 ns, thread
 * "worker" (MAIN_TID + 1) S2 at 20 ns; the first block is freed at 40 ns. */
static HlRecording *
build_recording (guint32 main_tid,
                 guint64 s1_bytes,
                 guint64 s2_bytes,
                 guint64 s3_bytes)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };
  const guint64 s2[] = { 0x1100, 0x2000, 0x3000 };
  const guint64 s3[] = { 0x1200, 0x3000 };

  hl_recording_append_stack (rec, 1, s1, 3);
  hl_recording_append_stack (rec, 2, s2, 3);
  hl_recording_append_stack (rec, 3, s3, 2);
  hl_recording_append_thread (rec, 0, main_tid, "main", FALSE);
  hl_recording_append_thread (rec, 0, main_tid + 1, "worker", FALSE);
  hl_recording_append_alloc (rec, 0, 10, main_tid, s1_bytes, 0xa0, 1);
  hl_recording_append_alloc (rec, 1, 20, main_tid + 1, s2_bytes, 0xa1, 2);
  hl_recording_append_alloc (rec, 2, 30, main_tid, s3_bytes, 0xa2, 3);
  hl_recording_append_free (rec, 0, 0, 40, main_tid);
  hl_recording_append_end (rec, 100, 0);
  hl_recording_commit (rec);
  return rec;
}

static gboolean
diff_shown (gpointer window)
{
  return g_strcmp0 (hl_diff_window_get_page (window), "diff") == 0;
}

static gint
find_node (HlFlameData *data,
           const char  *name)
{
  for (guint i = 0; i < hl_flame_data_get_n_nodes (data); i++)
    if (strcmp (hl_flame_data_get_node (data, i)->name, name) == 0)
      return (gint) i;
  return -1;
}

static char *
read_text (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static HlDiffWindow *
open_diff (HlRecording *a,
           HlRecording *b,
           HlViewState   *session)
{
  HlDiffWindow *window = hl_diff_window_new (GTK_APPLICATION (app));

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 760);
  gtk_window_present (GTK_WINDOW (window));
  if (session != NULL)
    hl_diff_window_set_filters (window, session, a);
  hl_diff_window_compare (window, NULL, a, NULL, b);
  hl_app_test_spin_until (diff_shown, window);
  hl_app_test_spin_a_little ();
  return window;
}

/* A: 0x1000 100 B, 0x1100 200 B, 0x1200 30 B; B: 400, 50, 30. */
static void
test_search_zoom_cost (void)
{
  g_autoptr(HlRecording) ra = build_recording (100, 100, 200, 30);
  g_autoptr(HlRecording) rb = build_recording (200, 400, 50, 30);
  HlDiffWindow *window = open_diff (ra, rb, NULL);
  HlDiffView *view = hl_diff_window_get_view (window);
  HlFlameView *fv = hl_diff_view_get_flame_view (view);
  HlFlameGraph *graph = hl_diff_view_get_graph (view);
  HlFlameData *data = hl_flame_graph_get_data (graph);
  g_autofree char *crumbs = NULL, *crumbs_root = NULL;
  gint mid;

  g_assert_nonnull (data);
  /* Search: 0x1000 is 100 of A's 330 B and 400 of B's 480 B. */
  hl_flame_view_set_search (fv, "0x1000");
  g_assert_cmpstr (hl_flame_view_get_search_summary (fv), ==, "Matches: 30.3 % → 83.3 % (Δ +300 B)");
  /* A match under a match counts once: 0x2000 holds 0x1000 and 0x1100. */
  hl_flame_view_set_search (fv, "0x");
  g_assert_cmpstr (hl_flame_view_get_search_summary (fv), ==, "Matches: 100 % → 100 % (Δ +150 B)");
  hl_flame_view_set_search (fv, NULL);

  /* Zoom into 0x2000: the breadcrumb shows the path, Escape's zoom-out
   * goes back. */
  mid = find_node (data, "0x2000");
  g_assert_cmpint (mid, >, 0);
  hl_flame_graph_set_zoom (graph, (guint) mid);
  crumbs = hl_flame_view_get_breadcrumb (fv);
  g_assert_cmpstr (crumbs, ==, "All › 0x3000 › 0x2000");
  g_assert_true (hl_flame_graph_zoom_out (graph));
  g_assert_true (hl_flame_graph_zoom_out (graph));
  crumbs_root = hl_flame_view_get_breadcrumb (fv);
  g_assert_cmpstr (crumbs_root, ==, "All");

  /* The cost chooser is the flame view's; allocations: 3 → 3. */
  hl_flame_view_set_cost (fv, HL_COST_KIND_ALLOCATIONS);
  g_assert_cmpint (hl_diff_view_get_cost (view), ==, HL_COST_KIND_ALLOCATIONS);
  g_assert_cmpstr (hl_diff_view_get_summary (view), ==, "Allocations: 3 → 3 (0 %)");
  hl_flame_view_set_cost (fv, HL_COST_KIND_BYTES);

  /* Inverted: the allocating functions next to the root, diff colours kept. */
  hl_flame_graph_set_inverted (graph, TRUE);
  data = hl_flame_graph_get_data (graph);
  g_assert_cmpuint (hl_flame_data_get_node (data, (guint) find_node (data, "0x1000"))->depth, ==, 1);
  g_assert_cmpuint (hl_flame_data_get_total (data), ==, 810);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_swap_and_export (void)
{
  g_autoptr(HlRecording) ra = build_recording (100, 100, 200, 30);
  g_autoptr(HlRecording) rb = build_recording (200, 400, 50, 30);
  HlDiffWindow *window = open_diff (ra, rb, NULL);
  HlDiffView *view = hl_diff_window_get_view (window);
  g_autofree char *dir = g_dir_make_tmp ("hl-diff-export-XXXXXX", NULL);
  g_autofree char *svg_path = g_build_filename (dir, "diff.svg", NULL);
  g_autofree char *png_path = g_build_filename (dir, "diff.png", NULL);
  g_autofree char *txt_path = g_build_filename (dir, "diff.txt", NULL);
  g_autoptr(GFile) svg = g_file_new_for_path (svg_path);
  g_autoptr(GFile) png = g_file_new_for_path (png_path);
  g_autoptr(GFile) txt = g_file_new_for_path (txt_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *svg_text = NULL, *txt_text = NULL, *txt_swapped = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  g_assert_cmpstr (hl_diff_view_get_summary (view), ==, "Bytes Allocated: 330 B → 480 B (+45.5 %)");

  /* Export: collapsed stacks of A and B (self costs), SVG with the
   * frames' names, PNG as wide as the graph. */
  g_assert_true (hl_diff_window_export_flame_graph (window, txt, &error));
  g_assert_no_error (error);
  txt_text = read_text (txt_path);
  g_test_message ("%s", txt_text);
  g_assert_nonnull (strstr (txt_text, "0x3000;0x2000;0x1000 100 400\n"));
  g_assert_nonnull (strstr (txt_text, "0x3000;0x2000;0x1100 200 50\n"));
  g_assert_nonnull (strstr (txt_text, "0x3000;0x1200 30 30\n"));
  g_assert_true (hl_diff_window_export_flame_graph (window, svg, &error));
  g_assert_no_error (error);
  svg_text = read_text (svg_path);
  g_assert_true (g_str_has_prefix (svg_text, "<?xml"));
  g_assert_nonnull (strstr (svg_text, "</svg>"));
  g_assert_true (hl_diff_window_export_flame_graph (window, png, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_filename (png_path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), >=, 100);

  /* Swap: B is A now; Δ changes sign; the export follows. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.swap", NULL);
  g_assert_cmpstr (hl_diff_view_get_summary (view), ==, "Bytes Allocated: 480 B → 330 B (\u221231.2 %)");
  g_assert_cmpint (hl_diff_tree_get_delta (hl_diff_view_get_tree (view), 0, HL_COST_KIND_BYTES), ==, -150);
  g_assert_true (hl_diff_window_export_flame_graph (window, txt, &error));
  txt_swapped = read_text (txt_path);
  g_assert_nonnull (strstr (txt_swapped, "0x3000;0x2000;0x1000 400 100\n"));

  g_unlink (svg_path);
  g_unlink (png_path);
  g_unlink (txt_path);
  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
diff_bytes_is (gpointer user_data)
{
  gpointer *args = user_data;
  HlDiffView *view = hl_diff_window_get_view (args[0]);
  HlDiffTree *tree = hl_diff_view_get_tree (view);

  return diff_shown (args[0]) && tree != NULL
         && hl_costs_get (hl_diff_tree_get_costs_a (tree, 0), HL_COST_KIND_BYTES) == GPOINTER_TO_SIZE (args[1])
         && hl_costs_get (hl_diff_tree_get_costs_b (tree, 0), HL_COST_KIND_BYTES) == GPOINTER_TO_SIZE (args[2]);
}

/* Filters of the window, carried to both sides. */
static void
test_filters (void)
{
  g_autoptr(HlRecording) ra = build_recording (100, 100, 200, 30);
  g_autoptr(HlRecording) rb = build_recording (200, 400, 50, 30);
  g_autoptr(HlViewState) session = hl_view_state_new ();
  HlDiffWindow *window;
  gpointer args[3];

  /* Thread "worker" is 101 in A and 201 in B: matched by name, only
   * stack 2 is left (200 B → 50 B). */
  hl_view_state_add_thread (session, 101, "worker");
  window = open_diff (ra, rb, session);
  args[0] = window;
  args[1] = GSIZE_TO_POINTER (200);
  args[2] = GSIZE_TO_POINTER (50);
  hl_app_test_spin_until (diff_bytes_is, args);
  g_assert_cmpuint (hl_filter_bar_get_n_chips (hl_diff_window_get_filter_bar (window)), ==, 1);
  /* The window's own session is a copy. */
  g_assert_true (hl_diff_window_get_session (window) != session);

  /* Plus a time range [0, 25 ns] as offsets since each start: only the
   * worker's allocation at 20 ns. Then [25, 100 ns]: nothing of the worker. */
  hl_view_state_set_range (hl_diff_window_get_session (window), 0, 25);
  hl_app_test_spin_until (diff_bytes_is, args);
  hl_view_state_set_range (hl_diff_window_get_session (window), 25, 100);
  args[1] = args[2] = GSIZE_TO_POINTER (0);
  hl_app_test_spin_until (diff_bytes_is, args);

  /* Removing the chips (as the chip's button does) brings back all. */
  hl_view_state_remove_filter (hl_diff_window_get_session (window), "range");
  args[1] = GSIZE_TO_POINTER (200);
  args[2] = GSIZE_TO_POINTER (50);
  hl_app_test_spin_until (diff_bytes_is, args);
  gtk_widget_activate (hl_filter_bar_get_remove_button (hl_diff_window_get_filter_bar (window), "thread:101"));
  args[1] = GSIZE_TO_POINTER (330);
  args[2] = GSIZE_TO_POINTER (480);
  hl_app_test_spin_until (diff_bytes_is, args);
  g_assert_cmpuint (hl_filter_bar_get_n_chips (hl_diff_window_get_filter_bar (window)), ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));

  /* A thread with no counterpart in B selects nothing there. */
  {
    g_autoptr(HlViewState) s2 = hl_view_state_new ();
    g_autoptr(HlRecording) rc = hl_recording_new ();
    const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };

    hl_recording_append_stack (rc, 1, s1, 3);
    hl_recording_append_thread (rc, 0, 300, "other", FALSE);
    hl_recording_append_alloc (rc, 0, 10, 300, 64, 0xa0, 1);
    hl_recording_append_end (rc, 100, 0);
    hl_recording_commit (rc);
    hl_view_state_add_thread (s2, 101, "worker");
    window = open_diff (ra, rc, s2);
    args[0] = window;
    args[1] = GSIZE_TO_POINTER (200);
    args[2] = GSIZE_TO_POINTER (0);
    hl_app_test_spin_until (diff_bytes_is, args);
    gtk_window_destroy (GTK_WINDOW (window));
  }
}

/* Compare With… from a recording window: its filters and cost come along. */
static void
test_compare_with (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HL_SOURCE_ROOT"), "tests", "format", "data",
                                            "basic.hltrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(HlRecording) ra = build_recording (100, 100, 200, 30);
  HlWindow *window = hl_window_new (app);
  HlDiffWindow *diff;

  gtk_window_present (GTK_WINDOW (window));
  hl_window_set_recording (window, ra);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  hl_view_state_add_module (hl_window_get_view_state (window), "libc");
  hl_view_state_add_metadata (hl_window_get_view_state (window), "phase", "load");
  diff = hl_window_compare_with (window, file);
  g_assert_nonnull (diff);
  g_assert_cmpuint (hl_filter_bar_get_n_chips (hl_diff_window_get_filter_bar (diff)), ==, 2);
  hl_app_test_spin_until (diff_shown, diff);
  gtk_window_destroy (GTK_WINDOW (diff));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  app = hl_app_test_init (&argc, &argv, "/diff-window");
  if (app == NULL)
    return g_test_run ();
  g_test_add_func ("/diff-window/search-zoom-cost", test_search_zoom_cost);
  g_test_add_func ("/diff-window/swap-export", test_swap_and_export);
  g_test_add_func ("/diff-window/filters", test_filters);
  g_test_add_func ("/diff-window/compare-with", test_compare_with);
  ret = g_test_run ();
  g_object_unref (app);
  return ret;
}
