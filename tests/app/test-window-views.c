/* test-window-views.c — a window showing a hand-built recording (through
 * the model's event sink) under Xvfb: the summary's numbers, every view,
 * a time range that refilters the flame graph, export parsed back, show in
 * call tree. */
#include "hl-config.h"
#include "hl-recording-builder.h"
#include "hl-recording-sysmem.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "hl-app-test.h"
#include "hl-allocations-view.h"
#include "hl-application.h"
#include "hl-call-tree-view.h"
#include "hl-filter-bar.h"
#include "hl-flame-view.h"
#include "hl-view-state.h"
#include "hl-summary-view.h"
#include "hl-timeline.h"
#include "hl-timeline-draw.h"
#include "hl-window.h"

static HlApplication *app;

/* Stacks (innermost first) 1: a←b←main, 2: c←b←main, 3: d←main.
 * Allocations: t=10 100 B (s1, freed t=20), t=30 200 B (s2, freed 50),
 * t=40 50 B (s3), t=60 1000 B (s1, freed 80), t=70 10 B (s2), t=90 5 B (s3). */
/* The same with times in UNITs of ns (1: ns; 1000000: ms). */
static HlRecording *
build_recording_at (guint64 u)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };
  const guint64 s2[] = { 0x1100, 0x2000, 0x3000 };
  const guint64 s3[] = { 0x1200, 0x3000 };

  hl_recording_append_stack (rec, 1, s1, 3);
  hl_recording_append_stack (rec, 2, s2, 3);
  hl_recording_append_stack (rec, 3, s3, 2);
  hl_recording_append_thread (rec, 0, 100, "main", FALSE);
  hl_recording_append_metadata (rec, 0 * u, 100, "phase", "load");
  hl_recording_append_alloc (rec, 0, 10 * u, 100, 100, 0xa0, 1);
  hl_recording_append_free (rec, 0, 0, 20 * u, 100);
  hl_recording_append_alloc (rec, 1, 30 * u, 100, 200, 0xa1, 2);
  hl_recording_append_alloc (rec, 2, 40 * u, 100, 50, 0xa2, 3);
  hl_recording_append_free (rec, 1, 0, 50 * u, 100);
  hl_recording_append_metadata (rec, 55 * u, 100, "phase", "query");
  hl_recording_append_alloc (rec, 3, 60 * u, 100, 1000, 0xa3, 1);
  hl_recording_append_alloc (rec, 4, 70 * u, 100, 10, 0xa4, 2);
  hl_recording_append_free (rec, 3, 0, 80 * u, 100);
  hl_recording_append_alloc (rec, 5, 90 * u, 100, 5, 0xa5, 3);
  hl_recording_append_end (rec, 100 * u, 0);
  hl_recording_commit (rec);
  return rec;
}

static HlRecording *
build_recording (void)
{
  return build_recording_at (1);
}

typedef struct
{
  HlFlameGraph      *graph;
  guint64            total;
  HlAllocationsView *allocations;
} WaitTotal;

static gboolean
flame_total_is (gpointer user_data)
{
  WaitTotal *w = user_data;
  HlFlameData *data = hl_flame_graph_get_data (w->graph);

  return data != NULL && hl_flame_data_get_total (data) == w->total;
}

/* The leaks the allocations view lists, in bytes. */
static gboolean
leaked_bytes_are (gpointer user_data)
{
  WaitTotal *w = user_data;  /* graph unused */
  GListModel *leaks = hl_allocations_view_get_leaks (w->allocations);
  guint64 sum = 0;

  for (guint i = 0; leaks != NULL && i < g_list_model_get_n_items (leaks); i++)
    {
      g_autoptr(HlAllocItem) item = g_list_model_get_item (leaks, i);
      sum += hl_alloc_item_get_size_bytes (item);
    }
  return leaks != NULL && sum == w->total;
}

/* The Lifetimes page lists W->total call sites. */
static gboolean
lifetime_sites_are (gpointer user_data)
{
  WaitTotal *w = user_data;
  GListModel *sites = hl_allocations_view_get_lifetimes (w->allocations);

  return sites != NULL && g_list_model_get_n_items (sites) == w->total;
}

/* The call tree's rows cost W->total bytes in all (top-down: the root's
 * children); it is built on a worker. */
typedef struct
{
  HlCallTreeView *view;
  guint64         total;
} WaitTree;

static gboolean
tree_total_is (gpointer user_data)
{
  WaitTree *w = user_data;
  GListModel *rows = hl_call_tree_view_get_rows (w->view);
  guint64 sum = 0;

  for (guint i = 0; rows != NULL && i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (rows, i);
      g_autoptr(HlTreeRow) item = gtk_tree_list_row_get_item (row);

      if (gtk_tree_list_row_get_depth (row) == 0)
        sum += hl_tree_row_get_cost (item, HL_COST_KIND_BYTES);
    }
  return rows != NULL && g_list_model_get_n_items (rows) > 0 && sum == w->total;
}

static gboolean
has_selected_row (gpointer tree_view)
{
  g_autoptr(HlTreeRow) row = hl_call_tree_view_get_selected (tree_view);

  return row != NULL;
}

static void
test_views (void)
{
  g_autoptr(HlRecording) rec = build_recording ();
  HlWindow *window = hl_window_new (app);
  HlSummaryView *summary;
  HlFlameView *flame_view;
  HlFlameGraph *graph;
  HlCallTreeView *tree_view;
  AdwViewStack *stack;
  WaitTotal wait;
  g_autofree char *dir = g_dir_make_tmp ("hl-views-XXXXXX", NULL);
  g_autofree char *svg_path = g_build_filename (dir, "flame.svg", NULL);
  g_autoptr(GFile) svg = g_file_new_for_path (svg_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  const char *views[] = { "summary", "flamegraph", "calltree", "allocations" };

  gtk_window_present (GTK_WINDOW (window));
  hl_window_set_recording (window, rec);
  g_assert_false (hl_window_is_empty (window));
  hl_app_test_spin_until (hl_app_test_shows_views, window);

  /* The summary shows the model's numbers. */
  summary = HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW));
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "calls"), ==, "6");
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "leaked"), ==, "65 B");
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "peak"), ==, "1.04 KiB");

  /* Every view can be shown through the window action (Ctrl+1…4). */
  stack = ADW_VIEW_STACK (hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", views[i]));
      g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, views[i]);
    }

  /* The flame graph shows bytes allocated: 1365 in all. */
  flame_view = HL_FLAME_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FLAME_VIEW));
  graph = hl_flame_view_get_graph (flame_view);
  wait = (WaitTotal) { graph, 1365,
                       HL_ALLOCATIONS_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_ALLOCATIONS_VIEW)) };
  hl_app_test_spin_until (flame_total_is, &wait);
  /* The allocations view (shown last) lists the leaks: 65 B. */
  wait.total = 65;
  hl_app_test_spin_until (leaked_bytes_are, &wait);
  /* Each leak row names its function's caller, the second frame of its stack
   * (s3 is d←main, s2 c←b←main): rows of one function reached from two
   * places can be told apart. Frames without source: the caller is part
   * of the row's name (issue 27.4), here without symbols "0x1200 ← 0x3000". */
  {
    GListModel *leaks = hl_allocations_view_get_leaks (wait.allocations);

    g_assert_cmpuint (g_list_model_get_n_items (leaks), ==, 2);
    for (guint i = 0; i < g_list_model_get_n_items (leaks); i++)
      {
        g_autoptr(HlAllocItem) item = g_list_model_get_item (leaks, i);
        const char * const *lines = hl_alloc_item_get_stack (item);

        const char *name = hl_alloc_item_get_function (item);
        g_autofree char *caller = NULL, *function = NULL;

        g_assert_nonnull (lines[0]);
        g_assert_nonnull (lines[1]);
        caller = g_strndup (lines[1], strcspn (lines[1], " "));
        function = g_strndup (lines[0], strcspn (lines[0], " "));
        g_assert_true (g_str_has_prefix (name, function));
        g_assert_true (g_str_has_suffix (name, caller));
        g_assert_nonnull (strstr (name, " ← "));
      }
  }
  /* The Lifetimes page: a row per call site. s1 (#0, #3) and s2 (#1, #4)
   * had half their blocks or more freed within 10-20 ns: short-lived, a
   * median under 1 µs; s3 (#2 50 B, #5 5 B) never freed anything, and did
   * not grow every quarter (0, 50, 50, 55 B). */
  wait.total = 3;
  hl_app_test_spin_until (lifetime_sites_are, &wait);
  {
    GListModel *sites = hl_allocations_view_get_lifetimes (wait.allocations);
    guint64 blocks = 0;

    for (guint i = 0; i < g_list_model_get_n_items (sites); i++)
      {
        g_autoptr(HlAllocItem) item = g_list_model_get_item (sites, i);

        blocks += hl_alloc_item_get_count (item);
        g_assert_cmpuint (hl_alloc_item_get_count (item), ==, 2);
        if (hl_alloc_item_get_size_bytes (item) == 55)
          {
            g_assert_cmpstr (hl_alloc_item_get_lifetime_text (item), ==, "alive at exit");
            g_assert_null (hl_alloc_item_get_verdict (item));
          }
        else
          {
            g_assert_cmpstr (hl_alloc_item_get_lifetime_text (item), ==, "<1 µs");
            g_assert_cmpstr (hl_alloc_item_get_verdict (item), ==, "Short-lived");
          }
      }
    g_assert_cmpuint (blocks, ==, 6);
  }
  wait.total = 1365;

  /* A time range [0, 45] ns keeps the first three allocations: 350 B. */
  hl_view_state_set_range (hl_window_get_view_state (window), 0, 45);
  wait.total = 350;
  hl_app_test_spin_until (flame_total_is, &wait);
  /* The allocations view, shown, follows: #1 and #2 were not freed by 45 ns. */
  wait.total = 250;
  hl_app_test_spin_until (leaked_bytes_are, &wait);
  wait.total = 350;
  /* The summary is not shown: it catches up when it is. */
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "calls"), ==, "6");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "summary"));
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "calls"), ==, "3");
  /* Another range relabels the same chip in place; other chips stay. */
  {
    HlFilterBar *bar = HL_FILTER_BAR (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FILTER_BAR));
    GtkWidget *remove = hl_filter_bar_get_remove_button (bar, "range");

    g_assert_nonnull (remove);
    g_assert_cmpuint (hl_filter_bar_get_n_chips (bar), ==, 1);
    hl_view_state_add_module (hl_window_get_view_state (window), "nowhere");
    hl_view_state_set_range (hl_window_get_view_state (window), 0, 46);
    g_assert_cmpuint (hl_filter_bar_get_n_chips (bar), ==, 2);
    g_assert_true (hl_filter_bar_get_remove_button (bar, "range") == remove);
    hl_view_state_remove_filter (hl_window_get_view_state (window), "module:nowhere");
    g_assert_cmpuint (hl_filter_bar_get_n_chips (bar), ==, 1);
    g_assert_true (hl_filter_bar_get_remove_button (bar, "range") == remove);
    hl_view_state_set_range (hl_window_get_view_state (window), 0, 45);
    wait.total = 350;
    hl_app_test_spin_until (flame_total_is, &wait);
  }
  /* The call tree, shown, catches up on its worker: 350 B top-down. */
  {
    WaitTree wait_tree = { HL_CALL_TREE_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_CALL_TREE_VIEW)),
                           350 };

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "calltree"));
    hl_app_test_spin_until (tree_total_is, &wait_tree);
    /* A newer filter while it is shown replaces the tree. */
    hl_view_state_set_range (hl_window_get_view_state (window), 0, 35);
    wait_tree.total = 300;
    hl_app_test_spin_until (tree_total_is, &wait_tree);
    hl_view_state_set_range (hl_window_get_view_state (window), 0, 45);
    wait_tree.total = 350;
    hl_app_test_spin_until (tree_total_is, &wait_tree);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "summary"));
  }

  /* Cleared: everything again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.clear-range", NULL));
  wait.total = 1365;
  hl_app_test_spin_until (flame_total_is, &wait);

  /* The same through the timeline, as a drag would: the chip appears. */
  {
    HlTimeline *timeline = HL_TIMELINE (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_TIMELINE));
    guint64 t0, t1;

    hl_timeline_set_selection (timeline, 0, 45);
    g_assert_true (hl_view_state_get_range (hl_window_get_view_state (window), &t0, &t1));
    g_assert_cmpuint (t1, ==, 45);
    wait.total = 350;
    hl_app_test_spin_until (flame_total_is, &wait);
    hl_timeline_clear_selection (timeline);
    g_assert_false (hl_view_state_get_range (hl_window_get_view_state (window), NULL, NULL));
    wait.total = 1365;
    hl_app_test_spin_until (flame_total_is, &wait);

    /* Live at the cursor: at t=45 the 200 B and 50 B blocks are live. */
    hl_flame_view_set_cost (flame_view, HL_COST_KIND_LIVE);
    g_signal_emit_by_name (timeline, "cursor-changed", (guint64) 45);
    wait.total = 250;
    hl_app_test_spin_until (flame_total_is, &wait);
    hl_flame_view_set_cost (flame_view, HL_COST_KIND_BYTES);
    wait.total = 1365;
    hl_app_test_spin_until (flame_total_is, &wait);
  }

  /* A metadata filter: phase=query has the last three (1015 B). */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.filter-metadata", "s", "phase=query"));
  wait.total = 1015;
  hl_app_test_spin_until (flame_total_is, &wait);
  hl_view_state_clear_filters (hl_window_get_view_state (window));
  wait.total = 1365;
  hl_app_test_spin_until (flame_total_is, &wait);

  /* Export SVG and parse it back. */
  g_assert_true (hl_window_export_flame_graph (window, svg, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg_path, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "<?xml"));
  g_assert_nonnull (strstr (contents, "<svg"));
  g_unlink (svg_path);
  g_rmdir (dir);

  /* Show in call tree: the flame frame 0x3000 (main) is revealed top-down. */
  g_signal_emit_by_name (graph, "show-in-call-tree", 1u);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "calltree");
  tree_view = HL_CALL_TREE_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_CALL_TREE_VIEW));
  /* once the tree (built on a worker) lands */
  hl_app_test_spin_until (has_selected_row, tree_view);
  {
    g_autoptr(HlTreeRow) row = hl_call_tree_view_get_selected (tree_view);
    g_assert_nonnull (row);
    g_assert_cmpstr (hl_tree_row_get_name (row), ==, hl_flame_data_get_node (hl_flame_graph_get_data (graph), 1)->name);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static HlTimeline *zoomed;

static gboolean
timeline_data_changed (gpointer old)
{
  return hl_timeline_get_data (zoomed) != old;
}

static gboolean
timeline_has_width (gpointer unused)
{
  return gtk_widget_get_width (GTK_WIDGET (zoomed)) > 100;
}

static gboolean
timeline_has_sites (gpointer unused)
{
  return hl_timeline_data_get_n_sites (hl_timeline_get_data (zoomed)) > 0;
}

/* The first HlTimeline under WIDGET showing the heap by call site, or NULL. */
static HlTimeline *
find_by_site_timeline (GtkWidget *widget)
{
  if (HL_IS_TIMELINE (widget) && hl_timeline_get_by_site (HL_TIMELINE (widget)))
    return HL_TIMELINE (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      HlTimeline *found = find_by_site_timeline (c);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first label under WIDGET whose text contains PART, or NULL. */
static GtkLabel *
find_label_containing (GtkWidget  *widget,
                       const char *part)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), part) != NULL)
    return GTK_LABEL (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkLabel *found = find_label_containing (c, part);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* "By Call Site": the timeline's heap split into its largest call sites
 * (the model's site series: s1 held 1000 B at once, s2 200 B, s3 55 B),
 * named in the legend; off again, the plain legend. */
static void
test_by_site (void)
{
  /* in ms, so that the timeline can zoom (its shortest span is 1 µs) */
  g_autoptr(HlRecording) rec = build_recording_at (1000000);
  HlWindow *window = hl_window_new (app);
  GtkToggleButton *button;
  HlTimeline *timeline;
  HlTimelineData *data;
  const guint64 *row;

  gtk_window_present (GTK_WINDOW (window));
  hl_window_set_recording (window, rec);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  button = GTK_TOGGLE_BUTTON (hl_app_test_find_text (GTK_WIDGET (window), "By Call _Site"));
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (button)));
  g_assert_null (find_by_site_timeline (GTK_WIDGET (window)));
  g_assert_null (find_label_containing (GTK_WIDGET (window), "Other call sites"));

  gtk_toggle_button_set_active (button, TRUE);
  timeline = find_by_site_timeline (GTK_WIDGET (window));
  g_assert_nonnull (timeline);
  /* computed on a worker, then given to the timeline */
  zoomed = timeline;
  hl_app_test_spin_until (timeline_has_sites, NULL);
  data = hl_timeline_get_data (timeline);
  g_assert_cmpuint (hl_timeline_data_get_n_sites (data), ==, 3);
  /* at 65 ms: s1's 1000 B, s2's 0, s3's 50 B, a heap of 1050 B */
  row = hl_timeline_data_get_sites_at (data, 65000000);
  g_assert_nonnull (row);
  g_assert_cmpuint (row[0], ==, 1000);
  g_assert_cmpuint (row[1], ==, 0);
  g_assert_cmpuint (row[2], ==, 50);
  g_assert_cmpuint (row[3], ==, 1050);
  /* the legend names the sites (their functions) and the rest */
  g_assert_nonnull (find_label_containing (GTK_WIDGET (window), "Other call sites"));
  g_assert_nonnull (find_label_containing (GTK_WIDGET (window), hl_timeline_data_get_site_label (data, 0)));

  /* the tooltip at 65 ms: each site's bytes after a square of its colour,
   * then the band there; valid markup */
  {
    HlTimelineViewport vp;
    g_autofree char *markup = NULL;
    g_autofree char *label = g_markup_escape_text (hl_timeline_data_get_site_label (data, 0), -1);
    g_autofree char *line = NULL;

    hl_app_test_spin_until (timeline_has_width, NULL);
    hl_timeline_get_viewport (timeline, &vp);
    markup = hl_timeline_describe (timeline, hl_timeline_x_for_time (&vp, 65000000), vp.height / 2);
    line = g_strdup_printf ("■</span> %s: 1000 B", label);
    if (strstr (markup, line) == NULL)
      g_error ("%s not in %s", line, markup);
    g_assert_nonnull (strstr (markup, "\nphase=query"));
    g_assert_true (pango_parse_markup (markup, -1, 0, NULL, NULL, NULL, NULL));
  }

  /* a zoomed timeline's new data keeps the sites */
  hl_timeline_set_visible_range (timeline, 20000000, 60000000);
  hl_app_test_spin_until (timeline_data_changed, (gpointer) data);
  g_assert_cmpuint (hl_timeline_data_get_n_sites (hl_timeline_get_data (timeline)), ==, 3);

  gtk_toggle_button_set_active (button, FALSE);
  g_assert_null (find_by_site_timeline (GTK_WIDGET (window)));
  g_assert_null (find_label_containing (GTK_WIDGET (window), "Other call sites"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The slider's position for T_NS: 1 µs … DURATION_NS on a log scale. */
static double
fraction_for (guint64 t_ns,
              guint64 duration_ns)
{
  return log ((double) t_ns / 1e3) / log ((double) duration_ns / 1e3);
}

/* The long-lived and mmap costs in the flame graph: the recording of
 * build_recording_at (1 ms), its end at 100 ms, so the blocks lived 10 ms
 * (#0 100 B), 20 ms (#1 200 B, #3 1000 B), and the never freed ones until
 * the end, 60 ms (#2 50 B), 30 ms (#4 10 B), 10 ms (#5 5 B); and two
 * mappings of its own, 16 KiB from stack 1 (its first 4 KiB unmapped) and
 * 8 KiB from stack 3, unmapped. */
static void
test_lifetime_and_mmap_costs (void)
{
  g_autoptr(HlRecording) rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };
  const guint64 s2[] = { 0x1100, 0x2000, 0x3000 };
  const guint64 s3[] = { 0x1200, 0x3000 };
  const guint64 ms = 1000000;
  HlWindow *window = hl_window_new (app);
  HlFlameView *flame_view;
  HlLifetimeSlider *slider;
  WaitTotal wait;

  hl_recording_append_stack (rec, 1, s1, 3);
  hl_recording_append_stack (rec, 2, s2, 3);
  hl_recording_append_stack (rec, 3, s3, 2);
  hl_recording_append_thread (rec, 0, 100, "main", FALSE);
  hl_recording_append_alloc (rec, 0, 10 * ms, 100, 100, 0xa0, 1);
  hl_recording_append_free (rec, 0, 0, 20 * ms, 100);
  hl_recording_append_alloc (rec, 1, 30 * ms, 100, 200, 0xa1, 2);
  hl_recording_append_alloc (rec, 2, 40 * ms, 100, 50, 0xa2, 3);
  hl_recording_append_free (rec, 1, 0, 50 * ms, 100);
  hl_recording_append_alloc (rec, 3, 60 * ms, 100, 1000, 0xa3, 1);
  hl_recording_append_alloc (rec, 4, 70 * ms, 100, 10, 0xa4, 2);
  hl_recording_append_free (rec, 3, 0, 80 * ms, 100);
  hl_recording_append_alloc (rec, 5, 90 * ms, 100, 5, 0xa5, 3);
  hl_recording_append_mmap (rec, 15 * ms, 100, 0x100000, 0x4000, 1);
  hl_recording_append_mmap (rec, 25 * ms, 100, 0x200000, 0x2000, 3);
  hl_recording_append_munmap (rec, 35 * ms, 0x100000, 0x1000);
  hl_recording_append_munmap (rec, 45 * ms, 0x200000, 0x2000);
  hl_recording_append_end (rec, 100 * ms, 0);
  hl_recording_commit (rec);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  hl_window_set_recording (window, rec);
  hl_app_test_spin_until (hl_app_test_shows_views, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "flamegraph"));
  flame_view = HL_FLAME_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FLAME_VIEW));
  slider = hl_flame_view_get_lifetime_slider (flame_view);
  wait = (WaitTotal) { hl_flame_view_get_graph (flame_view), 1365, NULL };
  hl_app_test_spin_until (flame_total_is, &wait);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (slider)));

  /* Long-lived: the slider shows, from 1 µs to the duration; at 1 ms (its
   * first value) every block lived longer */
  hl_flame_view_set_cost (flame_view, HL_COST_KIND_LONG_LIVED);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (slider)));
  g_assert_cmpuint (hl_lifetime_slider_get_max_ns (slider), ==, 100 * ms);
  hl_app_test_spin_until (flame_total_is, &wait);
  g_assert_cmpuint (hl_view_state_get_lived_at_least (hl_window_get_view_state (window)), ==, 1 * ms);
  /* moved to 25 ms: #2 (60 ms) and #4 (30 ms), refiltered once it rests */
  hl_lifetime_slider_set_fraction (slider, fraction_for (25 * ms, 100 * ms));
  g_assert_cmpuint (hl_lifetime_slider_get_value_ns (slider) / (ms / 10), ==, 250);
  g_assert_true (g_str_has_prefix (hl_lifetime_slider_get_text (slider), "≥ 25"));
  g_assert_true (g_str_has_suffix (hl_lifetime_slider_get_text (slider), " ms"));
  wait.total = 60;
  hl_app_test_spin_until (flame_total_is, &wait);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "flame-long-lived-1400");
  /* to 45 ms: #2 alone; a drag's steps in between start nothing */
  hl_lifetime_slider_set_fraction (slider, fraction_for (35 * ms, 100 * ms));
  hl_lifetime_slider_set_fraction (slider, fraction_for (45 * ms, 100 * ms));
  wait.total = 50;
  hl_app_test_spin_until (flame_total_is, &wait);
  g_assert_cmpuint (hl_view_state_get_lived_at_least (hl_window_get_view_state (window)) / ms, ==, 45);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  hl_app_test_spin_ms (300);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "flame-long-lived-800");

  /* mmap: stack 1's 12 KiB still mapped at the end (stack 3's unmapped);
   * the slider goes */
  hl_flame_view_set_cost (flame_view, HL_COST_KIND_MMAP);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (slider)));
  wait.total = 0x3000;
  hl_app_test_spin_until (flame_total_is, &wait);
  /* with a range to 30 ms, mapped at its end: both (16 + 8 KiB) */
  hl_view_state_set_range (hl_window_get_view_state (window), 0, 30 * ms);
  wait.total = 0x4000 + 0x2000;
  hl_app_test_spin_until (flame_total_is, &wait);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "flame-mmap-800");
  hl_view_state_clear_range (hl_window_get_view_state (window));
  /* the call tree: an mmap column while the selection maps something,
   * beside the heap's (the rows' 1365 bytes allocated) */
  {
    HlCallTreeView *tree_view;
    GListModel *columns;
    WaitTree wait_tree;
    gboolean shown = FALSE;

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "calltree"));
    tree_view = HL_CALL_TREE_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_CALL_TREE_VIEW));
    wait_tree = (WaitTree) { tree_view, 1365 };
    hl_app_test_spin_until (tree_total_is, &wait_tree);
    columns = gtk_column_view_get_columns (hl_call_tree_view_get_column_view (tree_view));
    for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
      {
        g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
        if (g_strcmp0 (gtk_column_view_column_get_title (column), "mmap") == 0)
          shown = gtk_column_view_column_get_visible (column);
      }
    g_assert_true (shown);
    hl_app_test_save_window_pngs (GTK_WINDOW (window), "calltree-mmap-800");
    gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
    hl_app_test_spin_ms (300);
    hl_app_test_save_window_pngs (GTK_WINDOW (window), "calltree-mmap-1400");
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "flamegraph"));
  }
  /* back to bytes: no T in the filter, every block */
  hl_flame_view_set_cost (flame_view, HL_COST_KIND_BYTES);
  wait.total = 1365;
  hl_app_test_spin_until (flame_total_is, &wait);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  app = hl_app_test_init (&argc, &argv, "/window-views");
  if (app == NULL)
    return g_test_run ();
  g_test_add_func ("/window-views/views", test_views);
  g_test_add_func ("/window-views/by-site", test_by_site);
  g_test_add_func ("/window-views/lifetime-and-mmap-costs", test_lifetime_and_mmap_costs);
  ret = g_test_run ();
  g_object_unref (app);
  return ret;
}
