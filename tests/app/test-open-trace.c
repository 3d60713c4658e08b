/* test-open-trace.c — the application opens trace files as a person does
 * (the path of `heaplens FILE` and of Open): a checked-in trace shows the
 * model's numbers in the summary, a file that is not a trace shows the
 * reader's message; a trace with saved costs shows them while its events
 * load, with the flame graph the events give. Under Xvfb. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "hl-app-test.h"
#include "hl-alloc-item.h"
#include "hl-allocations-view.h"
#include "hl-application.h"
#include "hl-flame-view.h"
#include "hl-recording-costs-packet.h"
#include "hl-view-state.h"
#include "hl-summary-view.h"
#include "hl-timeline.h"
#include "hl-timeline-draw.h"
#include "hl-trace-codec.h"
#include "hl-trace-compress.h"
#include "hl-trace-index.h"
#include "hl-trace-zstd.h"
#include "hl-units.h"
#include "hl-window.h"

/* gtk_recent_manager_has_item is critical while no list exists yet */
static gboolean
hl_test_is_recent (const char *uri)
{
  GtkRecentInfo *info = gtk_recent_manager_lookup_item (gtk_recent_manager_get_default (), uri, NULL);
  if (info == NULL)
    return FALSE;
  gtk_recent_info_unref (info);
  return TRUE;
}

static HlApplication *app;

static HlWindow *
the_window (void)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (app));

  g_assert_nonnull (windows);
  return HL_WINDOW (windows->data);
}

static gboolean
threads_shown (gpointer summary)
{
  return hl_summary_view_get_threads (summary) != NULL;
}

static gboolean
threads_hidden (gpointer summary)
{
  return hl_summary_view_get_threads (summary) == NULL;
}

static void
test_open_fixture (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HL_SOURCE_ROOT"), "tests", "format", "data", "basic.hltrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HlRecording) expected = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  HlSummary s;
  HlWindow *window;
  HlSummaryView *summary;
  g_autofree char *calls = NULL, *leaked = NULL, *duration = NULL;

  g_assert_no_error (error);
  hl_recording_get_summary (expected, &s);
  g_assert_cmpuint (s.n_allocations, >, 0);

  hl_application_open_file (app, file);
  window = the_window ();
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "basic.hltrace");
  /* the header names where the trace is saved (issue 27, point 7) */
  {
    AdwViewSwitcherTitle *title
      = ADW_VIEW_SWITCHER_TITLE (hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_SWITCHER_TITLE));
    g_autofree char *folder = g_path_get_dirname (path);
    const char *home = g_get_home_dir ();
    if (!g_str_has_prefix (folder, home))
      g_assert_cmpstr (adw_view_switcher_title_get_subtitle (title), ==, folder);
    else
      g_assert_true (g_str_has_prefix (adw_view_switcher_title_get_subtitle (title), "~"));
  }
  hl_app_test_wait_for_page (window, "views");

  summary = HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW));
  calls = hl_format_count (s.n_allocations);
  leaked = hl_format_size (s.leaked_bytes);
  duration = hl_format_duration (s.duration_ns);
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "calls"), ==, calls);
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "leaked"), ==, leaked);
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "duration"), ==, duration);
  /* the summary says where too: the header's subtitle is hidden in a wide
   * window (issue 27, point 7) */
  {
    AdwViewSwitcherTitle *title
      = ADW_VIEW_SWITCHER_TITLE (hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_SWITCHER_TITLE));
    g_autofree char *saved_in = g_strdup_printf ("Saved in %s", adw_view_switcher_title_get_subtitle (title));
    g_assert_cmpstr (hl_summary_view_get_saved_in (summary), ==, saved_in);
  }
  /* The fixture dropped events: the summary says so. */
  {
    g_autofree char *dropped = hl_format_count (s.dropped_events);
    g_assert_cmpstr (hl_summary_view_get_stat (summary, "dropped"), ==, dropped);
  }

  /* The threads, by the bytes they allocated, as the analysis counts them
   * (issue 30 point 5); a row filters the window to its thread. */
  {
    g_autoptr(HlAnalysis) analysis = hl_analysis_new (expected, NULL);
    g_autoptr(GArray) threads = hl_analysis_get_thread_costs (analysis);
    HlViewState *state = hl_window_get_view_state (window);
    GtkWidget *table = hl_summary_view_get_threads (summary);
    const guint *filtered;
    guint n_filtered = 0;
    guint32 tid = 0;

    g_assert_cmpuint (threads->len, ==, 2);
    g_assert_nonnull (table);
    g_assert_cmpstr (hl_summary_threads_get_cell (table, -1, 0, NULL), ==, "Thread");
    g_assert_cmpstr (hl_summary_threads_get_cell (table, -1, 4, NULL), !=, "");
    for (guint i = 0; i < threads->len; i++)
      {
        const HlThreadCosts *tc = &g_array_index (threads, HlThreadCosts, i);
        g_autofree char *name = tc->name != NULL && tc->name[0] != '\0' ? g_strdup_printf ("%s (%u)", tc->name, tc->tid)
                                                                        : g_strdup_printf ("Thread %u", tc->tid);
        g_autofree char *n_calls = hl_format_count (tc->costs.allocations);
        g_autofree char *bytes = hl_format_size (tc->costs.bytes);
        g_autofree char *peak = hl_format_size (tc->costs.peak_bytes);
        g_autofree char *not_freed = hl_format_size (tc->costs.leaked_bytes);

        g_assert_cmpstr (hl_summary_threads_get_cell (table, (int) i, 0, &tid), ==, name);
        g_assert_cmpuint (tid, ==, tc->tid);
        g_assert_cmpstr (hl_summary_threads_get_cell (table, (int) i, 1, NULL), ==, n_calls);
        g_assert_cmpstr (hl_summary_threads_get_cell (table, (int) i, 2, NULL), ==, bytes);
        g_assert_cmpstr (hl_summary_threads_get_cell (table, (int) i, 3, NULL), ==, peak);
        g_assert_cmpstr (hl_summary_threads_get_cell (table, (int) i, 4, NULL), ==, not_freed);
      }
    g_assert_null (hl_summary_threads_get_cell (table, 2, 0, NULL));
    g_assert_null (hl_summary_threads_get_more (table));

    /* the second thread's row: only its allocations, so one thread and
     * no table; the filters cleared, the table again */
    g_signal_emit_by_name (table, "row-activated", gtk_list_box_get_row_at_index (GTK_LIST_BOX (table), 2));
    filtered = hl_view_state_get_threads (state, &n_filtered);
    g_assert_cmpuint (n_filtered, ==, 1);
    g_assert_cmpuint (filtered[0], ==, g_array_index (threads, HlThreadCosts, 1).tid);
    hl_app_test_spin_until (threads_hidden, summary);
    {
      g_autofree char *one = hl_format_count (g_array_index (threads, HlThreadCosts, 1).costs.allocations);
      g_assert_cmpstr (hl_summary_view_get_stat (summary, "calls"), ==, one);
    }
    hl_view_state_clear_filters (state);
    hl_app_test_spin_until (threads_shown, summary);
    g_assert_cmpstr (hl_summary_view_get_stat (summary, "calls"), ==, calls);
  }

  /* A file that opened is a recent trace. */
  {
    g_autofree char *uri = g_file_get_uri (file);
    g_assert_true (hl_test_is_recent (uri));
  }

  /* Opening another file opens a second window: this one is not empty. */
  g_assert_false (hl_window_is_empty (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_open_not_a_trace (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-open-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "notes.hltrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HlRecording) none = NULL;
  HlWindow *window;

  g_assert_true (g_file_set_contents (path, "these are not the bytes you are looking for\n", -1, NULL));
  none = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  /* listed from an earlier time it opened */
  hl_application_add_recent (app, file);

  hl_application_open_file (app, file);
  window = the_window ();
  hl_app_test_wait_for_page (window, "error");
  /* The reader's own message, word for word. */
  g_assert_cmpstr (hl_window_get_error (window), ==, error->message);
  /* A file that fails to open leaves the recent traces. */
  {
    g_autofree char *uri = g_file_get_uri (file);
    g_assert_false (hl_test_is_recent (uri));
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

/* A copy of the indexed fixture in DIR, compressed, with its costs saved
 * as `record` saves them. */
static char *
saved_costs_trace (const char *dir)
{
  g_autoptr(GFile) fixture = hl_app_test_fixture ("indexed.hltrace");
  g_autofree char *path = g_build_filename (dir, "saved.hltrace", NULL);
  g_autoptr(GFile) copy = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  HlFormatError ferr;

  g_assert_true (g_file_copy (fixture, copy, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error));
  g_assert_cmpint (hl_trace_compress_file (path, path, hl_trace_codec_zstd (3), 0, &ferr), ==, 0);
  g_assert_true (hl_costs_packet_append (path, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

typedef struct
{
  HlWindow *window;
  gboolean  saved;    /* hl_window_shows_saved_costs () wanted */
  guint64   total;    /* the flame graph's root cost wanted, or 0: any */
} WaitFlame;

static HlFlameGraph *
graph_of (HlWindow *window)
{
  return hl_flame_view_get_graph (HL_FLAME_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_FLAME_VIEW)));
}

static gboolean
flame_shown (gpointer user_data)
{
  WaitFlame *w = user_data;
  HlFlameData *data = hl_flame_graph_get_data (graph_of (w->window));

  return hl_app_test_shows_views (w->window) && hl_window_shows_saved_costs (w->window) == w->saved
         && data != NULL && (w->total == 0 || hl_flame_data_get_total (data) == w->total);
}

static gboolean
widget_mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

/* The costs saved in a trace are shown while its events load (held here
 * until the checks are done): the flame graph is the one the events give,
 * every view can be shown, a time range waits for the events and applies
 * then, and the zoom stays where it was. */
static void
test_open_saved_costs_first (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-open-XXXXXX", NULL);
  g_autofree char *path = saved_costs_trace (dir);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HlRecording) full = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  g_autoptr(HlRecording) saved = hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_SAVED_COSTS_ONLY,
                                                    NULL, NULL, NULL, &error);
  g_autoptr(HlAnalysis) all = NULL, ranged = NULL;
  g_autoptr(HlFilter) none = hl_filter_new ();
  g_autoptr(HlFilter) range = NULL;
  g_autofree char *collapsed_saved = NULL, *collapsed_events = NULL;
  g_auto(GStrv) zoom_path = NULL;
  static const char * const views[] = { "calltree", "allocations", "summary", "flamegraph" };
  HlSummary s;
  HlCosts whole, part;
  HlWindow *window;
  HlFlameGraph *graph;
  WaitFlame w = { 0 };
  guint zoom;

  g_assert_no_error (error);
  g_assert_nonnull (full);
  g_assert_nonnull (saved);
  hl_recording_get_summary (full, &s);
  all = hl_analysis_new (full, none);
  hl_analysis_get_totals (all, &whole);
  /* the first half of the recording: less than the whole */
  range = hl_filter_with_time_range (none, 0, s.duration_ns / 2);
  ranged = hl_analysis_new (full, range);
  hl_analysis_get_totals (ranged, &part);
  g_assert_cmpuint (part.bytes, >, 0);
  g_assert_cmpuint (part.bytes, <, whole.bytes);

  /* a small trace shows its saved costs first only when asked to */
  g_setenv ("HEAPLENS_SAVED_COSTS_FIRST", "0", TRUE);
  window = hl_app_test_new_window (app, 900, 700);
  hl_window_hold_events (window, TRUE);
  hl_window_open (window, file);
  w.window = window;
  w.saved = TRUE;
  w.total = whole.bytes;
  hl_app_test_spin_until (flame_shown, &w);
  graph = graph_of (window);
  collapsed_saved = hl_flame_data_to_collapsed (hl_flame_graph_get_data (graph));
  g_assert_cmpstr (collapsed_saved, !=, "");

  /* every view can be shown meanwhile */
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", views[i]));
      hl_app_test_spin_a_little ();
      g_assert_true (hl_window_shows_saved_costs (window));
    }
  /* zoom into the first child of the root */
  g_assert_cmpuint (hl_flame_data_get_n_nodes (hl_flame_graph_get_data (graph)), >, 1);
  hl_flame_graph_set_zoom (graph, 1);
  zoom_path = hl_flame_data_get_path (hl_flame_graph_get_data (graph), 1);
  /* a time range waits for the events: the flame graph stays whole */
  hl_view_state_set_range (hl_window_get_view_state (window), 0, s.duration_ns / 2);
  hl_app_test_spin_ms (200);
  g_assert_true (hl_window_shows_saved_costs (window));
  g_assert_cmpuint (hl_flame_data_get_total (hl_flame_graph_get_data (graph)), ==, whole.bytes);
  hl_view_state_clear_range (hl_window_get_view_state (window));
  hl_app_test_spin_ms (100);

  /* the events: the same flame graph, the zoom kept */
  hl_window_hold_events (window, FALSE);
  w.saved = FALSE;
  hl_app_test_spin_until (flame_shown, &w);
  hl_app_test_spin_ms (100);
  collapsed_events = hl_flame_data_to_collapsed (hl_flame_graph_get_data (graph));
  g_assert_cmpstr (collapsed_saved, ==, collapsed_events);
  zoom = hl_flame_graph_get_zoom (graph);
  g_assert_cmpuint (zoom, !=, 0);
  {
    g_auto(GStrv) now = hl_flame_data_get_path (hl_flame_graph_get_data (graph), zoom);
    g_assert_true (g_strv_equal ((const char * const *) now, (const char * const *) zoom_path));
  }

  /* a range set while the saved costs show applies once the events are in */
  hl_window_open (window, file);
  hl_window_hold_events (window, TRUE);
  w.saved = TRUE;
  w.total = whole.bytes;
  hl_app_test_spin_until (flame_shown, &w);
  hl_view_state_set_range (hl_window_get_view_state (window), 0, s.duration_ns / 2);
  hl_app_test_spin_ms (100);
  g_assert_cmpuint (hl_flame_data_get_total (hl_flame_graph_get_data (graph)), ==, whole.bytes);
  hl_window_hold_events (window, FALSE);
  w.saved = FALSE;
  w.total = part.bytes;
  hl_app_test_spin_until (flame_shown, &w);

  /* Cancel while the saved costs show: an empty window again */
  hl_view_state_clear_range (hl_window_get_view_state (window));
  hl_window_open (window, file);
  hl_window_hold_events (window, TRUE);
  w.saved = TRUE;
  w.total = whole.bytes;
  hl_app_test_spin_until (flame_shown, &w);
  {
    /* the strip over the views: what is shown, the progress, Cancel */
    GtkWidget *label = hl_app_test_find_text (GTK_WIDGET (window), "Saved costs shown while the events load");
    GtkWidget *cancel;

    g_assert_nonnull (label);
    hl_app_test_spin_until (widget_mapped, label);
    g_assert_true (GTK_IS_PROGRESS_BAR (gtk_widget_get_next_sibling (label)));
    cancel = gtk_widget_get_last_child (gtk_widget_get_parent (label));
    g_assert_true (GTK_IS_BUTTON (cancel));
    g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (cancel)), ==, "_Cancel");
    g_signal_emit_by_name (cancel, "clicked");
  }
  hl_window_hold_events (window, FALSE);
  hl_app_test_wait_for_page (window, "start");
  g_assert_false (hl_window_shows_saved_costs (window));

  g_unsetenv ("HEAPLENS_SAVED_COSTS_FIRST");
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

/* A sampled recording (record --sample-bytes): the banner says so before
 * anything else (missing debug information included), and the summary's
 * counts carry "≈" (issue 29, point 1). */
static void
test_open_sampled (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-test-sampled-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "sampled.hltrace", NULL);
  g_autofree char *cli = g_build_filename (g_getenv ("HL_BUILD_ROOT"), "src", "cli", "heaplens-cli", NULL);
  char *argv[] = { cli, (char *) "record", (char *) "--sample-bytes", (char *) "4096", (char *) "-o", path,
                   (char *) "--", (char *) "/bin/ls", (char *) "-l", (char *) "/", NULL };
  g_autoptr(GError) error = NULL;
  gint status = -1;
  g_auto(GStrv) env = g_environ_unsetenv (g_get_environ (), "LD_PRELOAD");
  g_assert_true (g_spawn_sync (NULL, argv, env, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  g_autoptr(GFile) file = g_file_new_for_path (path);
  hl_application_open_file (app, file);
  HlWindow *window = the_window ();
  hl_app_test_wait_for_page (window, "views");
  g_assert_cmpstr (hl_window_get_banner_text (window), ==,
                   "Sampled every 4096 bytes allocated on average: counts and sizes are estimates (≈)");
  HlSummaryView *summary = HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW));
  g_assert_true (g_str_has_prefix (hl_summary_view_get_stat (summary, "calls"), "≈ "));

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
leaks_listed (gpointer view)
{
  return g_list_model_get_n_items (hl_allocations_view_get_leaks (HL_ALLOCATIONS_VIEW (view))) > 0;
}

/* A trace with the preload's leak scan at exit (t-reach, tests/capture):
 * the Leaked card splits the leaks as the model's scan does. */
static void
test_open_leak_scan (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-test-reach-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "reach.hltrace", NULL);
  g_autofree char *cli = hl_app_test_build_path ("src/cli", "heaplens-cli");
  g_autofree char *prog = hl_app_test_build_path ("tests/capture", "t-reach");
  char *argv[] = { cli, (char *) "record", (char *) "-o", path, (char *) "--", prog, (char *) "print", NULL };
  g_autoptr(GError) error = NULL;
  gint status = -1;
  g_auto(GStrv) env = g_environ_unsetenv (g_get_environ (), "LD_PRELOAD");
  g_assert_true (g_spawn_sync (NULL, argv, env, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (WEXITSTATUS (status), ==, 3); /* t-reach's own */

  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(HlRecording) expected = hl_recording_load (file, HL_LOAD_FLAGS_NO_SYMBOLS, NULL, NULL, NULL, &error);
  HlReachability r;
  HlSummary s;
  g_assert_no_error (error);
  g_assert_true (hl_recording_get_reachability (expected, &r));
  hl_recording_get_summary (expected, &s);
  g_autofree char *blocks = hl_format_count (s.leaked_blocks);
  g_autofree char *lost = hl_format_size (r.bytes[HL_REACHABILITY_DEFINITELY_LOST]);
  g_autofree char *still = hl_format_size (r.bytes[HL_REACHABILITY_STILL_REACHABLE]);
  g_autofree char *want = g_strdup_printf ("in %s blocks: definitely lost %s · still reachable %s", blocks, lost,
                                          still);

  hl_application_open_file (app, file);
  HlWindow *window = the_window ();
  hl_app_test_wait_for_page (window, "views");
  HlSummaryView *summary = HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW));
  g_assert_cmpstr (hl_summary_view_get_stat_detail (summary, "leaked"), ==, want);
  g_assert_cmpuint (r.bytes[HL_REACHABILITY_DEFINITELY_LOST], ==, 104);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "leakscan-summary-1400");
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "leakscan-summary-800");

  /* the Leaks list: a row per call site and kind, surest first; each
   * kind's rows add up to the scan's figures (the lost ones Valgrind's,
   * tests/capture/test-leakscan.sh) */
  {
    AdwViewStack *views = ADW_VIEW_STACK (hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
    HlAllocationsView *allocations;
    GListModel *leaks;
    guint64 bytes[HL_REACHABILITY_KINDS] = { 0 }, kind_blocks[HL_REACHABILITY_KINDS] = { 0 };
    int last_kind = HL_REACHABILITY_KINDS;

    adw_view_stack_set_visible_child_name (views, "allocations");
    allocations = HL_ALLOCATIONS_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_ALLOCATIONS_VIEW));
    hl_app_test_spin_until (leaks_listed, allocations);
    leaks = hl_allocations_view_get_leaks (allocations);
    for (guint i = 0; i < g_list_model_get_n_items (leaks); i++)
      {
        g_autoptr(HlAllocItem) item = g_list_model_get_item (leaks, i);
        int kind = hl_alloc_item_get_kind (item);

        g_assert_cmpint (kind, >=, 0);
        g_assert_cmpint (kind, <, HL_REACHABILITY_KINDS);
        /* sorted by kind, the surest first */
        g_assert_cmpint (kind, <=, last_kind);
        last_kind = kind;
        bytes[kind] += hl_alloc_item_get_size_bytes (item);
        kind_blocks[kind] += hl_alloc_item_get_count (item);
      }
    for (guint k = 0; k < HL_REACHABILITY_KINDS; k++)
      {
        g_assert_cmpuint (bytes[k], ==, r.bytes[k]);
        g_assert_cmpuint (kind_blocks[k], ==, r.blocks[k]);
      }
    {
      g_autoptr(HlAllocItem) first = g_list_model_get_item (leaks, 0);
      g_assert_cmpint (hl_alloc_item_get_kind (first), ==, HL_REACHABILITY_DEFINITELY_LOST);
      g_assert_cmpstr (hl_alloc_item_get_kind_text (first), ==, "Definitely lost");
    }
    gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
    hl_app_test_save_window_pngs (GTK_WINDOW (window), "leakscan-leaks-1400");
    gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
    hl_app_test_save_window_pngs (GTK_WINDOW (window), "leakscan-leaks-800");
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

/* A recording of t-sysmem (tests/capture): the summary's sentence splits
 * the RSS, its mmap part the bytes /proc/self/smaps gave the program at
 * its end (issue 30 point 2). */
static void
test_open_memory (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-test-memory-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "sysmem.hltrace", NULL);
  g_autofree char *log = g_build_filename (dir, "sysmem.log", NULL);
  g_autofree char *cli = hl_app_test_build_path ("src/cli", "heaplens-cli");
  g_autofree char *target = hl_app_test_build_path ("tests/capture", "t-sysmem");
  char *argv[] = { cli, (char *) "record", (char *) "-o", path, (char *) "--", target, log, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gint status = -1;
  g_auto(GStrv) env = g_environ_unsetenv (g_get_environ (), "LD_PRELOAD");
  g_assert_true (g_spawn_sync (NULL, argv, env, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  const char *end = strstr (text, "smaps end ");
  g_assert_nonnull (end);
  g_autofree char *mapped = hl_format_size (g_ascii_strtoull (end + 10, NULL, 10));
  g_autofree char *want = g_strdup_printf (", mmap %s, other ", mapped);

  g_autoptr(GFile) file = g_file_new_for_path (path);
  hl_application_open_file (app, file);
  HlWindow *window = the_window ();
  hl_app_test_wait_for_page (window, "views");
  HlSummaryView *summary = HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW));
  const char *sentence = hl_summary_view_get_memory (summary);
  g_assert_nonnull (sentence);
  g_assert_true (g_str_has_prefix (sentence, "RSS "));
  g_assert_nonnull (strstr (sentence, "free inside malloc's arenas"));
  g_assert_nonnull (strstr (sentence, want));
  for (int i = 0; i < 40; i++)
    {
      g_usleep (20000); /* the loading overlay fades out */
      hl_app_test_spin_a_little ();
    }
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "memory-1400");
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "memory-800");

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_unlink (log);
  g_rmdir (dir);
}

/* WINDOW's timeline has data and WINDOW the height asked for (in
 * "hl-want-height"; without a window manager its client-side frame
 * takes a few pixels of it). */
static gboolean
timeline_at_height_now (gpointer user_data)
{
  HlWindow *window = user_data;
  HlTimeline *timeline = HL_TIMELINE (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_TIMELINE));
  int want = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (window), "hl-want-height"));
  return hl_timeline_get_data (timeline) != NULL && hl_timeline_data_get_n_rows (hl_timeline_get_data (timeline)) > 0
         && ABS (gtk_widget_get_height (GTK_WIDGET (window)) - want) <= 16 && gtk_widget_get_height (GTK_WIDGET (timeline)) > 0;
}

static void
timeline_at_height (gpointer user_data)
{
  HlWindow *window = user_data;
  HlTimeline *timeline = HL_TIMELINE (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_TIMELINE));
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!timeline_at_height_now (window) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_test_message ("window %d px high (want %d), timeline %d px, data %p",
                  gtk_widget_get_height (GTK_WIDGET (window)),
                  GPOINTER_TO_INT (g_object_get_data (G_OBJECT (window), "hl-want-height")),
                  gtk_widget_get_height (GTK_WIDGET (timeline)), (void *) hl_timeline_get_data (timeline));
  g_assert_true (timeline_at_height_now (window));
}

/* The demo (four rows of metadata bands) in a tall window and an
 * 800×600 one: tall, the timeline's bands are rows of text; short, the
 * window is 600 px high, the views below keep 270 px (a flame graph of
 * 7 rows, a tree of 5) and the timeline gives up the room: its bands
 * narrow (strips without labels), its axis and a chart of 3 rows stay
 * (issue 27, 800×600). */
/* The timeline's legend shows every key whole: the squeezer's shown label
 * (the keys and the hint, the keys, or their short names) is no wider
 * than the room it has, so nothing is cut to "All…". Returns the label. */
static GtkWidget *
find_legend_squeezer (GtkWidget *widget)
{
  if (ADW_IS_SQUEEZER (widget) && GTK_IS_LABEL (gtk_widget_get_first_child (widget)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_legend_squeezer (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char *
legend_shown_whole (HlWindow *window)
{
  /* the header's view switcher has a squeezer of its own: this is the
   * one of labels */
  GtkWidget *squeezer = find_legend_squeezer (GTK_WIDGET (window));
  GtkWidget *shown;
  int natural = 0;

  g_assert_nonnull (squeezer);
  shown = adw_squeezer_get_visible_child (ADW_SQUEEZER (squeezer));
  g_assert_true (GTK_IS_LABEL (shown));
  gtk_widget_measure (shown, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  g_test_message ("legend: %d px of %d: %s", natural, gtk_widget_get_width (squeezer),
                  gtk_label_get_text (GTK_LABEL (shown)));
  g_assert_cmpint (natural, <=, gtk_widget_get_width (squeezer));
  g_assert_cmpint (natural, >, 0);
  return gtk_label_get_text (GTK_LABEL (shown));
}

/* The summary's threads on the demo (four threads, each named), scrolled
 * into view: every number is shown whole, saved as PNG_PREFIX. */
static void
check_demo_threads (HlWindow   *window,
                    const char *png_prefix)
{
  HlSummaryView *summary = HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW));
  const char *named[] = { "loader (", "indexer (", "query (" };
  GtkWidget *table;
  GtkAdjustment *adj;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "summary"));
  hl_app_test_spin_until (threads_shown, summary);
  table = hl_summary_view_get_threads (summary);
  g_assert_null (hl_summary_threads_get_cell (table, 4, 0, NULL));
  for (guint n = 0; n < G_N_ELEMENTS (named); n++)
    {
      gboolean found = FALSE;
      for (int r = 0; r < 4; r++)
        found |= g_str_has_prefix (hl_summary_threads_get_cell (table, r, 0, NULL), named[n]);
      g_assert_true (found);
    }
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (table, GTK_TYPE_SCROLLED_WINDOW)));
  /* the page is laid out again as the views fill: scroll once it settled */
  for (int i = 0; i < 5; i++)
    {
      hl_app_test_spin_ms (100);
      gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj));
    }
  hl_app_test_spin_ms (100);
  {
    graphene_point_t top;
    g_assert_true (gtk_widget_compute_point (table, GTK_WIDGET (window), &GRAPHENE_POINT_INIT (0, 0), &top));
    g_assert_cmpfloat (top.y, <, gtk_widget_get_height (GTK_WIDGET (window)));
  }
  for (int r = 0; r <= 4; r++)
    {
      GtkWidget *row = GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (table), r));
      GtkWidget *cell = gtk_widget_get_first_child (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row)));

      /* the thread's name may be cut; the numbers and titles never */
      for (cell = gtk_widget_get_next_sibling (cell); cell != NULL; cell = gtk_widget_get_next_sibling (cell))
        {
          int nat = 0;
          gtk_widget_measure (cell, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &nat, NULL, NULL);
          g_assert_cmpint (gtk_widget_get_width (cell), >=, nat);
          g_assert_true (gtk_widget_get_mapped (cell));
        }
    }
  hl_app_test_save_window_pngs (GTK_WINDOW (window), png_prefix);
}

static void
test_short_window (void)
{
  g_autofree char *trace = hl_app_test_record_demo ();
  g_autoptr(GFile) file = g_file_new_for_path (trace);
  HlWindow *window = hl_app_test_new_window (app, 1400, 900);
  HlTimeline *timeline = HL_TIMELINE (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_TIMELINE));
  GtkWidget *stack = hl_app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  HlTimelineViewport vp;

  hl_window_open (window, file);
  hl_app_test_wait_for_page (window, "views");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "flamegraph"));
  g_object_set_data (G_OBJECT (window), "hl-want-height", GINT_TO_POINTER (900));
  timeline_at_height (window);
  hl_app_test_spin_ms (200);
  hl_timeline_get_viewport (timeline, &vp);
  g_assert_cmpuint (hl_timeline_data_get_n_rows (hl_timeline_get_data (timeline)), >=, 3);
  g_test_message ("1400x900: timeline %d px, views %d px, band rows %.0f px of %.0f", (int) vp.height,
                  gtk_widget_get_height (stack), hl_timeline_band_height (&vp), vp.row_height);
  /* tall: rows of text, the chart above its minimum */
  g_assert_cmpfloat (hl_timeline_band_height (&vp), ==, vp.row_height);
  g_assert_cmpfloat (vp.height, >=, vp.row_height * (hl_timeline_data_get_n_rows (hl_timeline_get_data (timeline)) + 4));
  /* wide: the keys with their long names and the hint */
  g_assert_nonnull (strstr (legend_shown_whole (window), "Allocation rate"));
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "short-window-1400");
  check_demo_threads (window, "summary-threads-1400");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "flamegraph"));

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  g_object_set_data (G_OBJECT (window), "hl-want-height", GINT_TO_POINTER (600));
  timeline_at_height (window);
  hl_app_test_spin_ms (200);
  hl_timeline_get_viewport (timeline, &vp);
  g_test_message ("800x600: timeline %d px, views %d px, band rows %.0f px of %.0f", (int) vp.height,
                  gtk_widget_get_height (stack), hl_timeline_band_height (&vp), vp.row_height);
  /* everything fits in 600 px: the window's minimum height */
  {
    int min_h = 0, nat_h = 0;
    gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_VERTICAL, 800, &min_h, &nat_h, NULL, NULL);
    g_test_message ("800x600: the window's minimum height %d px", min_h);
    g_assert_cmpint (min_h, <=, 600);
  }
  g_assert_cmpint (gtk_widget_get_height (stack), >=, 270);
  /* the bands narrow only when full rows would squeeze the axis and the
   * chart's three rows (how many bands there are depends on the run:
   * threads and metadata keys, a debug-info banner above) */
  if (vp.height < vp.row_height * (hl_timeline_data_get_n_rows (hl_timeline_get_data (timeline)) + 4))
    g_assert_cmpfloat (hl_timeline_band_height (&vp), <, vp.row_height);
  else
    g_assert_cmpfloat (hl_timeline_band_height (&vp), ==, vp.row_height);
  g_assert_cmpfloat (hl_timeline_band_height (&vp), >=, HL_TIMELINE_MIN_BAND_PX);
  /* the axis and a chart of three rows */
  g_assert_cmpfloat (vp.height - hl_timeline_data_get_n_rows (hl_timeline_get_data (timeline)) * hl_timeline_band_height (&vp),
                     >=, vp.row_height * 4 - 1);
  /* narrow: every key still whole (short names if need be) */
  g_assert_nonnull (strstr (legend_shown_whole (window), "RSS"));
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "short-window-800");
  check_demo_threads (window, "summary-threads-800");
  gtk_window_destroy (GTK_WINDOW (window));
  hl_app_test_remove_demo (trace);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = g_dir_make_tmp ("hl-test-open-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  app = hl_app_test_init (&argc, &argv, "/open-trace");
  if (app == NULL)
    return g_test_run ();
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/open-trace/fixture", test_open_fixture);
  g_test_add_func ("/open-trace/not-a-trace", test_open_not_a_trace);
  g_test_add_func ("/open-trace/sampled", test_open_sampled);
  g_test_add_func ("/open-trace/leak-scan", test_open_leak_scan);
  g_test_add_func ("/open-trace/memory", test_open_memory);
  g_test_add_func ("/open-trace/saved-costs-first", test_open_saved_costs_first);
  g_test_add_func ("/open-trace/short-window", test_short_window);
  ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  return ret;
}
