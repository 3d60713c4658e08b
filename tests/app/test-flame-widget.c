/* test-flame-widget.c — HlFlameView under Xvfb: click to zoom, breadcrumb,
 * keyboard, search share, data replaced under a zoom. */
#include "hl-config.h"

#include <adwaita.h>

#include "hl-flame-view.h"

static HlFlameData *
make_data (guint64 scale)
{
  HlFlameData *data = hl_flame_data_new ("all", TRUE);
  guint a = hl_flame_data_add (data, 0, "alpha", "libone.so", "a.c", 10, 50 * scale, FALSE, NULL);

  hl_flame_data_add (data, a, "alpha_inner", "libone.so", "a.c", 20, 25 * scale, FALSE, NULL);
  hl_flame_data_add (data, 0, "beta", "libtwo.so", "b.c", 30, 50 * scale, FALSE, NULL);
  hl_flame_data_finish (data);
  return data;
}

static void
center_of (HlFlameGraph *graph,
           guint         node,
           double       *x,
           double       *y)
{
  HlFlameViewport vp;
  double rx, ry, rw, rh;

  hl_flame_graph_get_viewport (graph, &vp);
  g_assert_true (hl_flame_graph_node_rect (hl_flame_graph_get_data (graph), &vp, node, &rx, &ry, &rw, &rh));
  *x = rx + rw / 2;
  *y = ry + rh / 2;
}

static void
assert_breadcrumb (HlFlameView *view,
                   const char  *expected)
{
  g_autofree char *text = hl_flame_view_get_breadcrumb (view);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_zoom_and_breadcrumb (void)
{
  g_autoptr(HlFlameData) data = make_data (1);
  g_autoptr(HlFlameData) bigger = make_data (3);
  GtkWidget *window = gtk_window_new ();
  HlFlameView *view = g_object_new (HL_TYPE_FLAME_VIEW, NULL);
  HlFlameGraph *graph = hl_flame_view_get_graph (view);
  double x, y;
  g_autofree char *tooltip = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), 600, 400);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  hl_flame_view_set_data (view, data);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (graph)) == 0)
    g_main_context_iteration (NULL, TRUE);

  assert_breadcrumb (view, "All");

  /* Click alpha (node 1): zoomed, the breadcrumb shows the path. */
  center_of (graph, 1, &x, &y);
  g_assert_cmpint (hl_flame_graph_click (graph, x, y), ==, 1);
  g_assert_cmpuint (hl_flame_graph_get_zoom (graph), ==, 1);
  assert_breadcrumb (view, "All › alpha");

  /* alpha_inner is now half the width. */
  {
    HlFlameViewport vp;
    double rx, ry, rw, rh;
    hl_flame_graph_get_viewport (graph, &vp);
    g_assert_true (hl_flame_graph_node_rect (data, &vp, 2, &rx, &ry, &rw, &rh));
    g_assert_cmpfloat_with_epsilon (rw, vp.width / 2, 0.01);
    g_assert_false (hl_flame_graph_node_rect (data, &vp, 3, &rx, &ry, &rw, &rh));
  }

  center_of (graph, 2, &x, &y);
  g_assert_cmpint (hl_flame_graph_click (graph, x, y), ==, 2);
  assert_breadcrumb (view, "All › alpha › alpha_inner");
  tooltip = hl_flame_graph_describe_node (graph, 2);
  g_assert_nonnull (strstr (tooltip, "<b>alpha_inner</b>"));
  g_assert_nonnull (strstr (tooltip, "a.c:20"));
  g_assert_nonnull (strstr (tooltip, "25 B — 25.0 %"));

  /* Escape zooms out one level. */
  g_assert_true (hl_flame_graph_zoom_out (graph));
  assert_breadcrumb (view, "All › alpha");

  /* New data for the same stacks (a filter changed): the zoom stays on alpha. */
  hl_flame_view_set_data (view, bigger);
  g_assert_cmpuint (hl_flame_graph_get_zoom (graph), ==, 1);
  assert_breadcrumb (view, "All › alpha");

  /* Keyboard: from alpha right to beta leaves the zoomed range: zoom out. */
  hl_flame_graph_set_selected (graph, 1);
  hl_flame_graph_move_selection (graph, 1, 0);
  g_assert_cmpint (hl_flame_graph_get_selected (graph), ==, 3);
  g_assert_cmpuint (hl_flame_graph_get_zoom (graph), ==, 0);
  assert_breadcrumb (view, "All");
  hl_flame_graph_move_selection (graph, -1, 0);
  g_assert_cmpint (hl_flame_graph_get_selected (graph), ==, 1);
  hl_flame_graph_move_selection (graph, 0, 1);
  g_assert_cmpint (hl_flame_graph_get_selected (graph), ==, 2);
  hl_flame_graph_move_selection (graph, 0, -1);
  g_assert_cmpint (hl_flame_graph_get_selected (graph), ==, 1);

  /* Search share. */
  hl_flame_view_set_search (view, "INNER");
  g_assert_cmpstr (hl_flame_view_get_search_summary (view), ==, "Matches: 25.0 % of the total");
  hl_flame_view_set_search (view, "");
  g_assert_cmpstr (hl_flame_view_get_search_summary (view), ==, "");

  /* Clicking empty space does nothing. */
  g_assert_cmpint (hl_flame_graph_click (graph, 5, 1), ==, -1);

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
      g_test_add_func ("/flame-widget/zoom-and-breadcrumb", test_zoom_and_breadcrumb);
    }
  else
    g_test_add_func ("/flame-widget/no-display", (GTestFunc) g_test_fail);
  return g_test_run ();
}
