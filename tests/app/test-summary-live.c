/* test-summary-live.c — the summary of a live session: the totals and the
 * top call sites by bytes, calls and not freed yet come from the
 * call-site table's exact counters, not from the recording's sample, while
 * the program runs and after it vanished; the labels say which. Under
 * Xvfb (the summary view is a widget). */
#include "hl-config.h"
#include "hl-recording-builder.h"

#include <adwaita.h>

#include "hl-adapter-not-freed.h"
#include "hl-allocations-view.h"
#include "hl-cost.h"
#include "hl-model-adapter.h"
#include "hl-summary-view.h"
#include "hl-units.h"

/* A sample as a live session holds it: stack 1 looks the largest. With
 * EXITED, an exit at 30 ns ends it (a saved trace: what it did not free
 * leaked); without, no exit was recorded. */
static HlRecording *
recording_exited (gboolean exited)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 f1[] = { 0x1000 }, f2[] = { 0x2000 }, f3[] = { 0x3000 };

  hl_recording_append_stack (rec, 1, f1, 1);
  hl_recording_append_stack (rec, 2, f2, 1);
  hl_recording_append_stack (rec, 3, f3, 1);
  hl_recording_append_alloc (rec, 0, 10, 1, 9000, 0xa0, 1);
  hl_recording_append_alloc (rec, 1, 20, 1, 500, 0xb0, 2);
  hl_recording_append_alloc (rec, 2, 30, 1, 100, 0xc0, 3);
  if (exited)
    hl_recording_append_end (rec, 30, 0);
  hl_recording_commit (rec);
  return rec;
}

static HlRecording *
sampled_recording (void)
{
  return recording_exited (TRUE);
}

/* Row ROW of top list KIND: its function and value, copied (the rows
 * are updated in place). */
static char *
top_function (HlSummaryView *view,
              HlCostKind     kind,
              guint          row,
              char         **value)
{
  const char *v = NULL;
  const char *function = hl_summary_view_get_top_row (view, kind, row, &v);

  if (value != NULL)
    {
      g_free (*value);
      *value = g_strdup (v);
    }
  return g_strdup (function);
}

/* Running, every card is of the moment the counters were read (issue
 * 27.6): the Duration card says that moment, not the recording's last
 * event (30 ns here, the feed behind), and the peak's time is never after
 * the duration shown. */
static void
test_one_moment (void)
{
  g_autoptr(HlRecording) rec = sampled_recording ();
  g_autoptr(HlAnalysis) analysis = hl_analysis_new (rec, NULL);
  HlSummaryView *view = g_object_ref_sink (g_object_new (HL_TYPE_SUMMARY_VIEW, NULL));
  HlAdapterLive live = {
    .state = HL_LIVE_STATE_RUNNING,
    .totals = { .n_allocs = 3, .bytes_allocated = 9600, .heap_bytes = 9600, .peak_heap_bytes = 9600,
                .peak_heap_time_ns = 1500000000 },
    .time_ns = 2500000000,
  };
  g_autofree char *want = NULL, *at = NULL, *time = NULL;
  HlSummary s;

  hl_recording_get_summary (rec, &s);
  g_assert_cmpuint (s.duration_ns, <, 1000);
  hl_adapter_fill_summary (view, rec, analysis, &live);
  want = hl_format_duration (2500000000);
  at = g_strdup_printf ("at %s", time = hl_format_time (1500000000));
  g_assert_cmpstr (hl_summary_view_get_stat (view, "duration"), ==, want);
  g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "peak"), ==, at);
  /* a peak read after the moment (it cannot be: the session reads the
   * time after the counters) is shown at the moment, not after it */
  live.time_ns = 1000000000;
  hl_adapter_fill_summary (view, rec, analysis, &live);
  g_free (want);
  g_free (at);
  g_free (time);
  want = hl_format_duration (1000000000);
  at = g_strdup_printf ("at %s", time = hl_format_time (1000000000));
  g_assert_cmpstr (hl_summary_view_get_stat (view, "duration"), ==, want);
  g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "peak"), ==, at);
  g_object_unref (view);
}

static void
test_exact_top (void)
{
  g_autoptr(HlRecording) rec = sampled_recording ();
  g_autoptr(HlAnalysis) analysis = hl_analysis_new (rec, NULL);
  HlSummaryView *view = g_object_ref_sink (g_object_new (HL_TYPE_SUMMARY_VIEW, NULL));
  g_autofree char *sampled_first = NULL, *first = NULL, *second = NULL, *value = NULL;
  g_autofree char *want = NULL, *other = NULL;
  /* the counters: stack 3 made most calls and bytes, stack 2 holds the most */
  HlCosts exact[4] = { { 0 } };
  HlAdapterLive live = {
    .state = HL_LIVE_STATE_RUNNING,
    .totals = { .n_allocs = 1111, .n_frees = 1000, .bytes_allocated = 120000,
                .bytes_freed = 100000, .heap_bytes = 20000, .peak_heap_bytes = 30000 },
    .stack_costs = exact,
    .n_stacks = G_N_ELEMENTS (exact),
  };

  g_assert_cmpuint (hl_recording_get_n_stacks (rec), ==, 4);
  g_assert_cmpuint (hl_recording_lookup_stack (rec, 3), ==, 3);
  g_assert_cmpuint (hl_recording_lookup_stack (rec, 9), ==, 0);
  exact[1] = (HlCosts) { .allocations = 1, .bytes = 9000, .leaked_bytes = 0, .leaked_blocks = 0 };
  exact[2] = (HlCosts) { .allocations = 10, .bytes = 11000, .leaked_bytes = 20000, .leaked_blocks = 10 };
  exact[3] = (HlCosts) { .allocations = 1100, .bytes = 100000, .leaked_bytes = 0, .leaked_blocks = 0 };

  /* a saved trace: the recording's own costs */
  hl_adapter_fill_summary (view, rec, analysis, NULL);
  sampled_first = top_function (view, HL_COST_KIND_BYTES, 0, NULL);
  g_assert_nonnull (sampled_first);
  g_assert_cmpstr (hl_summary_view_get_top_title (view, HL_COST_KIND_LEAKED), ==, "Most Leaked");

  /* running: the exact counters, per stack and in total */
  hl_adapter_fill_summary (view, rec, analysis, &live);
  first = top_function (view, HL_COST_KIND_BYTES, 0, &value);
  g_assert_cmpstr (first, !=, sampled_first);
  want = hl_cost_format (HL_COST_KIND_BYTES, 100000);
  g_assert_cmpstr (value, ==, want);
  other = top_function (view, HL_COST_KIND_ALLOCATIONS, 0, NULL);
  g_assert_cmpstr (other, ==, first);
  g_free (other);
  other = top_function (view, HL_COST_KIND_BYTES, 2, NULL);
  g_assert_cmpstr (other, ==, sampled_first);
  g_free (other);
  second = top_function (view, HL_COST_KIND_LEAKED, 0, &value);
  g_assert_cmpstr (second, !=, first);
  g_assert_cmpstr (second, !=, sampled_first);
  g_clear_pointer (&want, g_free);
  want = hl_cost_format (HL_COST_KIND_LEAKED, 20000);
  g_assert_cmpstr (value, ==, want);
  /* only one stack holds memory now */
  other = top_function (view, HL_COST_KIND_LEAKED, 1, NULL);
  g_assert_null (other);
  g_assert_cmpstr (hl_summary_view_get_top_title (view, HL_COST_KIND_LEAKED), ==, "Most Not Freed Yet");
  g_assert_cmpstr (hl_summary_view_get_stat (view, "calls"), ==, "1,111");
  g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "duration"), ==, "still running");

  /* vanished (killed, no trace to open): the same numbers, said so */
  live.state = HL_LIVE_STATE_VANISHED;
  hl_adapter_fill_summary (view, rec, analysis, &live);
  other = top_function (view, HL_COST_KIND_BYTES, 0, NULL);
  g_assert_cmpstr (other, ==, first);
  g_free (other);
  g_assert_cmpstr (hl_summary_view_get_stat (view, "calls"), ==, "1,111");
  g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "duration"), ==, "the program vanished (killed?)");
  g_assert_cmpstr (hl_summary_view_get_top_title (view, HL_COST_KIND_LEAKED), ==, "Most Not Freed");

  /* a selection: the sample's shares again */
  {
    g_autoptr(HlFilter) f = hl_filter_new ();
    g_autoptr(HlFilter) range = hl_filter_with_time_range (f, 0, 25);
    g_autoptr(HlAnalysis) part = hl_analysis_new (rec, range);

    live.state = HL_LIVE_STATE_RUNNING;
    hl_adapter_fill_summary (view, rec, part, &live);
    other = top_function (view, HL_COST_KIND_BYTES, 0, NULL);
    g_assert_cmpstr (other, ==, sampled_first);
    g_free (other);
    other = NULL;
  }
  g_object_unref (view);
}

/* The Leaks tab says what it lists, in the summary's words. */
static void
test_leak_tab_titles (void)
{
  g_autoptr(HlRecording) rec = sampled_recording ();
  g_autoptr(HlRecording) no_exit = recording_exited (FALSE);
  g_autoptr(HlFilter) f = hl_filter_new ();
  g_autoptr(HlFilter) part = hl_filter_with_time_range (f, 0, 25);
  g_autoptr(HlAnalysis) a_all = hl_analysis_new (rec, NULL);
  g_autoptr(HlAnalysis) a_part = hl_analysis_new (rec, part);
  HlAllocationsView *view = g_object_ref_sink (g_object_new (HL_TYPE_ALLOCATIONS_VIEW, NULL));
  g_autofree char *end = hl_format_time (25);
  g_autofree char *by = g_strdup_printf ("Not Freed by %s", end);
  HlLiveState running = HL_LIVE_STATE_RUNNING;
  HlNotFreedTitles t;

  g_assert_cmpstr (hl_allocations_view_get_leaks_title (view), ==, "Leaks");
  hl_adapter_not_freed_titles (a_part, 30, NULL, &t);
  g_assert_cmpstr (t.card, ==, by);
  g_assert_cmpstr (t.tab, ==, by);
  hl_allocations_view_set_leak_titles (view, t.tab, t.column, t.none);
  g_assert_cmpstr (hl_allocations_view_get_leaks_title (view), ==, by);
  hl_not_freed_titles_clear (&t);
  hl_adapter_not_freed_titles (a_all, 30, &running, &t);
  g_assert_cmpstr (t.tab, ==, "Not Freed Yet");
  hl_not_freed_titles_clear (&t);
  hl_adapter_not_freed_titles (a_all, 30, NULL, &t);
  g_assert_cmpstr (t.card, ==, "Leaked");
  g_assert_cmpstr (t.tab, ==, "Leaks");
  g_assert_null (t.most);
  hl_not_freed_titles_clear (&t);
  /* a saved trace with no exit (killed, not salvaged): not called leaks */
  {
    g_autoptr(HlAnalysis) a_no_exit = hl_analysis_new (no_exit, NULL);
    hl_adapter_not_freed_titles (a_no_exit, 30, NULL, &t);
    g_assert_cmpstr (t.card, ==, "Not Freed at the End");
    g_assert_cmpstr (t.tab, ==, "Not Freed at the End");
    hl_not_freed_titles_clear (&t);
  }
  g_object_unref (view);
}

/* A saved trace with a time range that ends before the recording: the
 * allocations' "leaked" is what they had not freed by its end (the cards
 * say so), and the peak is theirs; a range to the end leaks. */
static void
test_range_titles (void)
{
  g_autoptr(HlRecording) rec = sampled_recording ();
  HlSummaryView *view = g_object_ref_sink (g_object_new (HL_TYPE_SUMMARY_VIEW, NULL));
  g_autoptr(HlFilter) f = hl_filter_new ();
  g_autoptr(HlFilter) part = hl_filter_with_time_range (f, 0, 25);
  g_autoptr(HlFilter) to_end = hl_filter_with_time_range (f, 0, 30);
  g_autoptr(HlAnalysis) a_part = hl_analysis_new (rec, part);
  g_autoptr(HlAnalysis) a_end = hl_analysis_new (rec, to_end);
  g_autofree char *end = hl_format_time (25);
  g_autofree char *want = g_strdup_printf ("Most Not Freed by %s", end);

  hl_adapter_fill_summary (view, rec, a_part, NULL);
  g_assert_cmpstr (hl_summary_view_get_top_title (view, HL_COST_KIND_LEAKED), ==, want);
  /* the Duration card gives the range's length, of the whole */
  {
    g_autofree char *range = hl_format_duration (25);
    g_autofree char *whole = hl_format_duration (30);
    g_autofree char *of = g_strdup_printf ("selected, of %s", whole);
    HlSummary s;

    hl_recording_get_summary (rec, &s);
    g_assert_cmpuint (s.duration_ns, ==, 30);
    g_assert_cmpstr (hl_summary_view_get_stat (view, "duration"), ==, range);
    g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "duration"), ==, of);
  }
  g_assert_true (g_str_has_suffix (hl_summary_view_get_stat_detail (view, "peak"), ", of the selected allocations"));
  hl_adapter_fill_summary (view, rec, a_end, NULL);
  g_assert_cmpstr (hl_summary_view_get_top_title (view, HL_COST_KIND_LEAKED), ==, "Most Leaked");
  g_object_unref (view);
}

/* Numbers that are bounds say so (issue 26 points 7 and 12): a trace cut
 * by a full disk at 20 ns is not called leaked (the cards, the list and
 * the Leaks tab: "Not Freed by" the cut), the Duration card says where
 * and why it was cut, as `report` does; a detach and an exec stop it
 * the same way; a salvage's lost events are at most so many (the JSON's
 * lost_events_at_most). */
static void
test_bounds (void)
{
  static const char *stops[][3] = {
    { "trace_cut_ns", "trace_cut_reason", "ENOSPC" },
    { "detached_ns", NULL, NULL },
    { "replaced_by_exec_ns", "replaced_by_exec", "/bin/true" },
  };
  g_autofree char *at = hl_format_time (20);
  g_autofree char *by = g_strdup_printf ("Not Freed by %s", at);
  g_autofree char *most = g_strdup_printf ("Most Not Freed by %s", at);
  g_autofree char *cut = g_strdup_printf ("trace cut at %s by a full disk: numbers up to %s", at, at);
  HlSummaryView *view = g_object_ref_sink (g_object_new (HL_TYPE_SUMMARY_VIEW, NULL));
  HlAllocationsView *allocations = g_object_ref_sink (g_object_new (HL_TYPE_ALLOCATIONS_VIEW, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (stops); i++)
    {
      g_autoptr(HlRecording) rec = recording_exited (FALSE);
      g_autoptr(HlAnalysis) all = NULL;
      HlNotFreedTitles t;
      HlSummary s;

      hl_recording_append_info (rec, stops[i][0], "20");
      if (stops[i][1] != NULL)
        hl_recording_append_info (rec, stops[i][1], stops[i][2]);
      hl_recording_commit (rec);
      all = hl_analysis_new (rec, NULL);
      hl_recording_get_summary (rec, &s);
      hl_adapter_not_freed_titles (all, s.duration_ns, NULL, &t);
      g_assert_cmpstr (t.card, ==, by);
      g_assert_cmpstr (t.tab, ==, by);
      hl_allocations_view_set_leak_titles (allocations, t.tab, t.column, t.none);
      g_assert_cmpstr (hl_allocations_view_get_leaks_title (allocations), ==, by);
      hl_not_freed_titles_clear (&t);
      hl_adapter_fill_summary (view, rec, all, NULL);
      g_assert_cmpstr (hl_summary_view_get_stat_caption (view, "leaked"), ==, by);
      g_assert_cmpstr (hl_summary_view_get_top_title (view, HL_COST_KIND_LEAKED), ==, most);
      if (i == 0)
        g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "duration"), ==, cut);
    }
  /* killed, salvaged: at most so many events lost */
  {
    g_autoptr(HlRecording) rec = recording_exited (FALSE);
    g_autoptr(HlAnalysis) all = NULL;

    hl_recording_append_info (rec, "ended_by_signal", "9");
    hl_recording_append_info (rec, "salvaged_events", "1200");
    hl_recording_append_info (rec, "lost_events", "3");
    hl_recording_commit (rec);
    all = hl_analysis_new (rec, NULL);
    hl_adapter_fill_summary (view, rec, all, NULL);
    g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "duration"), ==,
                     "ended by SIGKILL (signal 9); 1,200 events salvaged, at most 3 lost");
    g_assert_cmpstr (hl_summary_view_get_stat_caption (view, "leaked"), ==, "Not Freed When It Died");
  }
  g_object_unref (allocations);
  g_object_unref (view);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check ())
    {
      g_test_add_func ("/summary-live/no-display", (GTestFunc) g_test_fail);
      return g_test_run ();
    }
  adw_init ();
  g_test_add_func ("/summary-live/exact-top", test_exact_top);
  g_test_add_func ("/summary-live/one-moment", test_one_moment);
  g_test_add_func ("/summary-live/range-titles", test_range_titles);
  g_test_add_func ("/summary-live/leak-tab-titles", test_leak_tab_titles);
  g_test_add_func ("/summary-live/bounds", test_bounds);
  return g_test_run ();
}
