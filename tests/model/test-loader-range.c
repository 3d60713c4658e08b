/* test-loader-range.c — hl_recording_load_range(): the analysis of a time
 * range from the packets the trailing index says can matter equals the
 * analysis of a full load, on random four-thread traces whose packets
 * come in flush order (frees often before their allocation, in another
 * thread's packet), for ranges anywhere; without an index the range load
 * refuses (HL_MODEL_ERROR_UNSUPPORTED). */
#include "hl-model.h"

#include "loader-traces.h"
#include "hl-trace-index.h"

#include <glib/gstdio.h>
#include <string.h>

/* Everything an analysis of REC with [T0, T1] answers, as text: the JSON
 * report (every stack, the whole run's parts from WHOLE), the threads'
 * costs, the size histogram. */
static char *
range_text (HlRecording *rec,
            HlRecording *whole,
            guint64      t0,
            guint64      t1)
{
  g_autoptr (HlFilter) none = hl_filter_new ();
  g_autoptr (HlFilter) f = hl_filter_with_time_range (none, t0, t1);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, f);
  g_autoptr (GArray) threads = hl_analysis_get_thread_costs_for (a, whole);
  HlReportOptions options = { .whole = whole };
  HlSizeHistogram h;
  g_autofree char *json = hl_report_to_json_with ("trace", a, NULL, 0, 100000, &options);
  GString *out = g_string_new (json);

  for (guint i = 0; i < threads->len; i++)
    {
      const HlThreadCosts *t = &g_array_index (threads, HlThreadCosts, i);
      g_string_append_printf (out, "thread %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                              " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", t->tid, t->costs.allocations,
                              t->costs.bytes, t->costs.temporary, t->costs.peak_bytes, t->costs.leaked_bytes);
    }
  hl_analysis_get_size_histogram (a, &h);
  for (guint i = 0; i < HL_SIZE_HISTOGRAM_BUCKETS; i++)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ", h.count[i], h.bytes[i]);
  g_string_append_printf (out, "\npeak at %" G_GUINT64_FORMAT, hl_analysis_get_peak_time_ns (a));
  return g_string_free (out, FALSE);
}

static void
test_range_equals_full (void)
{
  guint compared = 0, with_temporary = 0;

  for (guint seed = 1; seed <= 6; seed++)
    {
      g_autoptr (GByteArray) bytes = build_random_trace (seed, seed < 4 ? 400 : 6000);
      g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
      g_autofree char *path = g_file_get_path (file);
      g_autoptr (GError) error = NULL;
      HlFormatError ferr;
      HlSummary s;

      g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
      g_autoptr (HlRecording) full = hl_recording_load (file, HL_LOAD_FLAGS_NO_SYMBOLS, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      hl_recording_get_summary (full, &s);
      g_assert_cmpuint (s.duration_ns, >, 0);
      for (guint k = 0; k < 12; k++)
        {
          /* ranges at the start, narrow and wide, up to the end */
          guint64 t0 = k == 0 ? 0 : s.duration_ns * (k - 1) / 11;
          guint64 t1 = k == 11 ? G_MAXUINT64 : t0 + s.duration_ns / (k % 3 == 0 ? 50 : 7);
          g_autoptr (HlRecording) range = hl_recording_load_range (file, t0, t1, HL_LOAD_FLAGS_NO_SYMBOLS, NULL,
                                                                   &error);
          g_assert_no_error (error);
          g_autofree char *want = range_text (full, full, t0, t1);
          g_autofree char *got = range_text (range, full, t0, t1);
          if (g_strcmp0 (want, got) != 0)
            g_test_message ("seed %u range %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ":\nwant %s\ngot  %s", seed, t0,
                            t1, want, got);
          g_assert_cmpstr (got, ==, want);
          with_temporary += strstr (want, "\"selection\": {") != NULL
                            && strstr (strstr (want, "\"selection\": {"), "\"temporary\": 0,") == NULL;
          compared++;
        }
      g_unlink (path);
    }
  g_test_message ("%u ranges compared, %u with temporary allocations", compared, with_temporary);
  g_assert_cmpuint (with_temporary, >, 0);
}

static void
test_range_needs_index (void)
{
  g_autoptr (GByteArray) bytes = build_random_trace (3, 400);
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_recording_load_range (file, 0, 1000000, HL_LOAD_FLAGS_NO_SYMBOLS, NULL, &error);

  g_assert_null (rec);
  g_assert_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "no trailing index"));
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/range-equals-full", test_range_equals_full);
  g_test_add_func ("/loader/range-needs-index", test_range_needs_index);
  return g_test_run ();
}
