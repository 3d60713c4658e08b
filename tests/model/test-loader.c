/* test-loader.c — trace files written with the format's writer, loaded
 * through hl_recording_load(_async): counts, truncation, errors,
 * cancellation, progress, the pipelined and parallel loads against the
 * serial one, `report --json`. Damaged traces: test-loader-damage.c;
 * saved costs: test-loader-costs.c. */
#include "hl-model.h"

#include "loader-traces.h"
#include "hl-trace-index.h"
#include "hl-trace-writer.h"

#include <glib/gstdio.h>
#include <string.h>

static void
check_scenario (HlRecording *rec)
{
  HlSummary s;
  guint n;
  const HlMetaInterval *iv;

  hl_recording_get_summary (rec, &s);
  g_assert_cmpuint (s.n_allocations, ==, 6);
  g_assert_cmpuint (s.n_frees, ==, 3);
  g_assert_cmpuint (s.bytes_allocated, ==, 1365);
  g_assert_cmpuint (s.temporary, ==, 2);
  g_assert_cmpuint (s.peak_heap_bytes, ==, 1060);
  g_assert_cmpuint (s.leaked_bytes, ==, 65);
  g_assert_true (s.has_exit_status);
  g_assert_cmpint (s.exit_status, ==, 0);
  g_assert_cmpstr (hl_recording_get_info (rec, "exe"), ==, "/usr/bin/demo");
  iv = hl_recording_get_metadata_intervals (rec, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (iv[1].value, ==, "2");
}

static void
test_load_sync (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autoptr (GFile) file = write_temp (trace->data, trace->len);
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  check_scenario (rec);
  g_assert_false (hl_recording_is_truncated (rec));
  g_assert_null (hl_recording_get_warnings (rec)[0]);
  g_file_delete (file, NULL, NULL);
}

typedef struct
{
  GMainLoop   *loop;
  HlRecording *rec;
  GError      *error;
  guint        n_progress;
  guint64      last_events;
} AsyncState;

static void
on_progress (guint64  done,
             guint64  total,
             guint64  events,
             gpointer user_data)
{
  AsyncState *st = user_data;

  g_assert_cmpuint (done, <=, total);
  st->n_progress++;
  st->last_events = events;
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  AsyncState *st = user_data;

  st->rec = hl_recording_load_finish (result, &st->error);
  g_main_loop_quit (st->loop);
}

static void
test_load_async (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autoptr (GFile) file = write_temp (trace->data, trace->len);
  AsyncState st = { 0 };

  st.loop = g_main_loop_new (NULL, FALSE);
  hl_recording_load_async (file, HL_LOAD_FLAGS_NONE, NULL, on_progress, &st, NULL, on_loaded, &st);
  g_main_loop_run (st.loop);
  g_assert_no_error (st.error);
  check_scenario (st.rec);
  /* Wait for the last progress report, queued before the result. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (st.n_progress, >=, 1);
  g_assert_cmpuint (st.last_events, >, 10);
  g_object_unref (st.rec);
  g_main_loop_unref (st.loop);
  g_file_delete (file, NULL, NULL);
}

static void
test_load_cancelled (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autoptr (GFile) file = write_temp (trace->data, trace->len);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  AsyncState st = { 0 };

  g_cancellable_cancel (cancellable);
  st.loop = g_main_loop_new (NULL, FALSE);
  hl_recording_load_async (file, HL_LOAD_FLAGS_NONE, cancellable, NULL, NULL, NULL, on_loaded, &st);
  g_main_loop_run (st.loop);
  g_assert_null (st.rec);
  g_assert_error (st.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_error_free (st.error);
  g_main_loop_unref (st.loop);
  g_file_delete (file, NULL, NULL);
}

static void
test_load_truncated (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autoptr (GFile) file = write_temp (trace->data, trace->len - 3);
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  HlSummary s;

  g_assert_no_error (error);
  g_assert_true (hl_recording_is_truncated (rec));
  g_assert_nonnull (hl_recording_get_warnings (rec)[0]);
  g_assert_nonnull (strstr (hl_recording_get_warnings (rec)[0], "truncated"));
  /* The last packet (free #3, alloc #5) is lost. */
  hl_recording_get_summary (rec, &s);
  g_assert_cmpuint (s.n_allocations, ==, 5);
  g_assert_cmpuint (s.leaked_bytes, ==, 1060);
  g_file_delete (file, NULL, NULL);
}

static void
test_load_errors (void)
{
  static const char text[] = "this is not a trace, just text that is long enough to have a header\n";
  g_autoptr (GFile) junk = write_temp ((const guint8 *) text, sizeof text - 1);
  g_autoptr (GFile) missing = g_file_new_for_path ("/nonexistent/x.hltrace");
  g_autoptr (GError) error = NULL;
  HlRecording *rec;

  rec = hl_recording_load (junk, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  g_assert_null (rec);
  g_assert_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_NOT_A_TRACE);
  g_clear_error (&error);
  rec = hl_recording_load (missing, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  g_assert_null (rec);
  g_assert_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_IO);
  g_file_delete (junk, NULL, NULL);
}

static void
test_load_golden (void)
{
  const char *root = g_getenv ("HL_SOURCE_ROOT");
  g_autofree char *path = g_build_filename (root != NULL ? root : ".", "tests", "format", "data", "basic.hltrace", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  HlSummary s;

  g_assert_no_error (error);
  hl_recording_get_summary (rec, &s);
  g_assert_cmpuint (s.n_allocations, >, 0);
  g_assert_cmpuint (s.n_frees, <=, s.n_allocations);
}

/* 100,000 allocations in 100 packets of two threads. */

/* Loads FILE the default way (pipelined, or parallel over the index) and
 * serially without the prefault: summary, heap series, warnings and every allocation's cost in
 * the top-down tree are equal. Returns the number of allocations. */
static guint64
assert_loads_equal (GFile *file)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) a = NULL;
  g_autoptr (HlRecording) b = NULL;
  g_autoptr (GArray) sa = NULL;
  g_autoptr (GArray) sb = NULL;
  const char * const *wa, * const *wb;
  HlSummary x, y;

  a = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  /* and without faulting the tables in ahead (hl-prefault.h) */
  g_setenv ("HEAPLENS_NO_PREFAULT", "1", TRUE);
  b = hl_recording_load (file, HL_LOAD_FLAGS_SERIAL, NULL, NULL, NULL, &error);
  g_unsetenv ("HEAPLENS_NO_PREFAULT");
  g_assert_no_error (error);
  hl_recording_get_summary (a, &x);
  hl_recording_get_summary (b, &y);
  g_assert_cmpmem (&x, sizeof x, &y, sizeof y);
  sa = hl_recording_get_series (a, 0, HL_TIME_END, 50);
  sb = hl_recording_get_series (b, 0, HL_TIME_END, 50);
  g_assert_cmpmem (sa->data, sa->len * sizeof (HlSeriesBucket), sb->data, sb->len * sizeof (HlSeriesBucket));
  wa = hl_recording_get_warnings (a);
  wb = hl_recording_get_warnings (b);
  g_assert_cmpuint (g_strv_length ((char **) wa), ==, g_strv_length ((char **) wb));
  for (guint i = 0; wa[i] != NULL; i++)
    g_assert_cmpstr (wa[i], ==, wb[i]);
  return x.n_allocations;
}

/* The pipelined load and the serial one give the same recording; with a
 * trailing index the parallel load too, also when a packet in the middle
 * is damaged (the walk takes over there) and when the index is built by a
 * header walk over a file without one. */
static void
test_load_pipelined_equals_serial (void)
{
  g_autoptr (GByteArray) bytes = build_big_trace ();
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *indexed = NULL;
  gsize len;
  HlFormatError ferr;

  /* No trailing index: the index comes from a header walk. */
  g_assert_cmpuint (assert_loads_equal (file), ==, 100000);

  g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
  g_assert_true (g_file_get_contents (path, &indexed, &len, NULL));
  g_assert_cmpuint (len, >, bytes->len);
  g_assert_cmpuint (assert_loads_equal (file), ==, 100000);

  /* A flipped byte in the 50th packet's content: bad crc, skipped. */
  {
    gsize off = sizeof (HlTraceFileHeader);
    for (guint p = 0; p < 50; p++)
      {
        HlPacketHeader h;
        memcpy (&h, bytes->data + off, sizeof h);
        off += HL_PACKET_HEADER_SIZE + h.content_size;
      }
    indexed[off + HL_PACKET_HEADER_SIZE + 100] ^= 0x5a;
    g_file_set_contents (path, indexed, len, NULL);
    g_assert_cmpuint (assert_loads_equal (file), <, 100000);
  }
  /* Cut before the index tail and inside the last packets. */
  g_file_set_contents (path, indexed, bytes->len - 1000, NULL);
  g_assert_cmpuint (assert_loads_equal (file), <, 100000);
  g_file_delete (file, NULL, NULL);
}

static char *
run_cli (const char * const *args,
         int                *status)
{
  const char *build = g_getenv ("HL_BUILD_ROOT");
  g_autofree char *cli = g_build_filename (build != NULL ? build : ".", "src", "cli", "heaplens-cli", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  char *out = NULL;

  g_ptr_array_add (argv, cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                &out, NULL, status, &error);
  g_assert_no_error (error);
  return out;
}

/* `heaplens-cli report --json` on the hand-built trace: the numbers of the
 * table in build_trace(), under the keys docs/cli.md promises. */
static void
test_report_json (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autoptr (GFile) file = write_temp (trace->data, trace->len);
  g_autofree char *path = g_file_get_path (file);
  const char *args[] = { "report", "--json", "--top", "1", path, NULL };
  const char *filtered[] = { "report", "--json", "--cost", "leaked", "--thread", "200", path, NULL };
  const char *bad[] = { "report", "--cost", "nonsense", path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *out3 = NULL;
  int status = -1;

  out = run_cli (args, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "\"program\": \"/usr/bin/demo\""));
  g_assert_nonnull (strstr (out, "\"summary\": {\"duration_ns\": 95, \"allocations\": 6, \"frees\": 3, "
                                 "\"bytes_allocated\": 1365, \"temporary\": 2, \"peak_heap_bytes\": 1060, "
                                 "\"peak_time_ns\": 70, \"peak_rss_bytes\": 0, \"leaked_bytes\": 65, "
                                 "\"leaked_blocks\": 3, \"dropped_events\": 0, \"frees_unknown\": 0, "
                                 "\"threads\": 2, \"exit_status\": 0}"));
  /* Top leaked call site: stack 3 (55 B in 2 blocks), frames innermost first. */
  g_assert_nonnull (strstr (out, "\"leaked\": [\n      {\"costs\": {\"allocations\": 2, \"bytes\": 55, "
                                 "\"temporary\": 0, \"peak_bytes\": 50, \"leaked_bytes\": 55, "
                                 "\"leaked_blocks\": 2, \"live_bytes\": 55, \"long_lived_bytes\": 55, "
                                 "\"mmap_bytes\": 0}, \"stack\": [{\"function\": \"0x1200\""));
  g_assert_nonnull (strstr (out, "\"warnings\": []"));

  out2 = run_cli (filtered, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out2, "\"selection\": {\"allocations\": 2, \"bytes\": 1005, \"temporary\": 1, "
                                  "\"peak_bytes\": 1000, \"leaked_bytes\": 5, \"leaked_blocks\": 1"));

  out3 = run_cli (bad, &status);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_file_delete (file, NULL, NULL);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/sync", test_load_sync);
  g_test_add_func ("/loader/async", test_load_async);
  g_test_add_func ("/loader/cancelled", test_load_cancelled);
  g_test_add_func ("/loader/truncated", test_load_truncated);
  g_test_add_func ("/loader/errors", test_load_errors);
  g_test_add_func ("/loader/golden", test_load_golden);
  g_test_add_func ("/loader/report-json", test_report_json);
  g_test_add_func ("/loader/pipelined-equals-serial", test_load_pipelined_equals_serial);
  return g_test_run ();
}
