/* test-loader.c — trace files written with the format's writer, loaded
 * through hl_recording_load(_async): counts, truncation, errors,
 * cancellation, progress. */
#include "hl-model.h"

#include "hl-trace-writer.h"
#include "hl-trace-index.h"
#include "hl-trace-codec.h"
#include "hl-trace-compress.h"
#include "hl-trace-zstd.h"
#include "hl-recording-costs-packet.h"
#include "hl-recording-costs-stream.h"
#include "hl-trace-compress-stream.h"

#include <glib/gstdio.h>
#include <string.h>

typedef struct
{
  GByteArray    *bytes;
  HlPacketWriter w;
  guint8         buf[HL_PACKET_MAX_SIZE];
} TraceBuilder;

static void
tb_begin (TraceBuilder *tb,
          guint32       tid,
          guint64       time_ns)
{
  hl_packet_writer_init (&tb->w, tb->buf, sizeof tb->buf, 4242, tid);
  hl_packet_writer_begin (&tb->w, time_ns);
}

static void
tb_end (TraceBuilder *tb)
{
  size_t n = hl_packet_writer_finish (&tb->w);
  g_assert_cmpuint (n, >, 0);
  g_byte_array_append (tb->bytes, tb->buf, n);
}

/* The stream of test-costs.c, in three threads' packets. */
static GByteArray *
build_trace (void)
{
  TraceBuilder *tb = g_new0 (TraceBuilder, 1);
  HlTraceFileHeader hdr;
  const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };
  const guint64 s2[] = { 0x1100, 0x2000, 0x3000 };
  const guint64 s3[] = { 0x1200, 0x3000 };
  const char *keys[] = { "exe" }, *values[] = { "/usr/bin/demo" };
  GByteArray *out;

  tb->bytes = g_byte_array_new ();
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_byte_array_append (tb->bytes, (const guint8 *) &hdr, sizeof hdr);

  hl_packet_writer_init (&tb->w, tb->buf, sizeof tb->buf, 4242, 100);
  g_byte_array_append (tb->bytes, tb->buf, hl_packet_writer_info (&tb->w, 0, keys, values, 1));

  tb_begin (tb, 100, 0);
  g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, 1, 0, s1, 3), ==, HL_WRITE_OK);
  g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, 2, 0, s2, 3), ==, HL_WRITE_OK);
  g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, 3, 0, s3, 2), ==, HL_WRITE_OK);
  hl_packet_writer_meta_string (&tb->w, 0, "phase", "load");
  hl_packet_writer_alloc (&tb->w, 10, 0, 100, 0, 1, 0xa0);
  hl_packet_writer_free (&tb->w, 20, 0);
  hl_packet_writer_alloc (&tb->w, 30, 1, 200, 0, 2, 0xa1);
  hl_packet_writer_alloc (&tb->w, 40, 2, 50, 0, 3, 0xa2);
  hl_packet_writer_free (&tb->w, 50, 1);
  hl_packet_writer_meta_int (&tb->w, 55, "phase", 2);
  tb_end (tb);

  tb_begin (tb, 200, 60);
  hl_packet_writer_thread (&tb->w, 60, 200, HL_THREAD_FLAG_START | HL_THREAD_FLAG_NAME, "worker");
  hl_packet_writer_alloc (&tb->w, 60, 3, 1000, 0, 1, 0xa3);
  tb_end (tb);

  tb_begin (tb, 100, 70);
  hl_packet_writer_alloc (&tb->w, 70, 4, 10, 0, 2, 0xa4);
  tb_end (tb);

  tb_begin (tb, 200, 80);
  hl_packet_writer_free (&tb->w, 80, 3);
  hl_packet_writer_alloc (&tb->w, 90, 5, 5, 0, 3, 0xa5);
  hl_packet_writer_end (&tb->w, 95, 0);
  tb_end (tb);

  out = tb->bytes;
  g_free (tb);
  return out;
}

static GFile *
write_temp (const guint8 *data,
            gsize         len)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("hl-test-XXXXXX.hltrace", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, (const char *) data, len, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

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
static GByteArray *
build_big_trace (void)
{
  TraceBuilder *tb = g_new0 (TraceBuilder, 1);
  HlTraceFileHeader hdr;
  const guint64 s1[] = { 0x1000, 0x2000 }, s2[] = { 0x1100, 0x2000 };
  GByteArray *out;
  guint64 id = 0;

  tb->bytes = g_byte_array_new ();
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_byte_array_append (tb->bytes, (const guint8 *) &hdr, sizeof hdr);
  for (guint p = 0; p < 100; p++)
    {
      guint32 tid = 100 + p % 2;
      guint64 t = p * 10000;
      tb_begin (tb, tid, t);
      if (p < 2)
        hl_packet_writer_stack (&tb->w, t, tid == 100 ? 1 : 2, 0, tid == 100 ? s1 : s2, 2);
      for (guint i = 0; i < 1000; i++, id++)
        {
          g_assert_cmpint (hl_packet_writer_alloc (&tb->w, t + i * 5, id, 8 + (id % 100), 0,
                                                   tid == 100 ? 1 : 2, 0x100000 + id * 16), ==, HL_WRITE_OK);
          if (i % 3 != 0)
            g_assert_cmpint (hl_packet_writer_free (&tb->w, t + i * 5 + 2, id), ==, HL_WRITE_OK);
        }
      tb_end (tb);
    }
  out = tb->bytes;
  g_free (tb);
  return out;
}

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

/* Every byte of the hand-built trace damaged in turn, every length cut:
 * the model loads a recording or gives an error, never crashes. */
static void
test_load_damaged (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autofree guint8 *copy = g_memdup2 (trace->data, trace->len);
  guint loaded = 0, refused = 0;

  for (guint i = 0; i < trace->len * 2; i++)
    {
      guint off = i % trace->len;
      gsize len = i < trace->len ? trace->len : off;
      g_autoptr (GFile) file = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (HlRecording) rec = NULL;

      memcpy (copy, trace->data, trace->len);
      if (i < trace->len)
        copy[off] ^= 0xa5;
      file = write_temp (copy, len);
      rec = hl_recording_load (file, (i & 1) ? HL_LOAD_FLAGS_SERIAL : HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
      if (rec != NULL)
        {
          g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
          g_autoptr (HlCallTree) t = hl_analysis_get_call_tree (a, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_LEAKED);
          g_autoptr (GArray) series = hl_recording_get_series (rec, 0, HL_TIME_END, 16);
          HlSummary s;

          hl_recording_get_summary (rec, &s);
          g_assert_cmpuint (s.n_frees, <=, s.n_allocations);
          g_assert_cmpuint (hl_call_tree_get_costs (t, 0)->allocations, ==, s.n_allocations);
          loaded++;
        }
      else
        {
          g_assert_true (error->domain == HL_MODEL_ERROR);
          refused++;
        }
      g_file_delete (file, NULL, NULL);
    }
  g_assert_cmpuint (loaded, >, 0);
  g_assert_cmpuint (refused, >, 0);
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
                                 "\"leaked_blocks\": 2, \"live_bytes\": 55}, \"stack\": [{\"function\": \"0x1200\""));
  g_assert_nonnull (strstr (out, "\"warnings\": []"));

  out2 = run_cli (filtered, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out2, "\"selection\": {\"allocations\": 2, \"bytes\": 1005, \"temporary\": 1, "
                                  "\"peak_bytes\": 1000, \"leaked_bytes\": 5, \"leaked_blocks\": 1"));

  out3 = run_cli (bad, &status);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_file_delete (file, NULL, NULL);
}

/* The hand-built trace with a trailing index, every byte damaged in turn
 * (the index too, so it lies): the parallel load and the serial one agree
 * on success, summary and warnings. */
static void
test_load_damaged_index_equals_serial (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autoptr (GFile) file = write_temp (trace->data, trace->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *indexed = NULL;
  gsize len;
  HlFormatError ferr;

  g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
  g_assert_true (g_file_get_contents (path, &indexed, &len, NULL));
  g_assert_cmpuint (len, >, trace->len);
  for (gsize off = 0; off < len; off++)
    {
      g_autoptr (HlRecording) a = NULL;
      g_autoptr (HlRecording) b = NULL;
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;

      indexed[off] ^= 0x21;
      g_assert_true (g_file_set_contents_full (path, indexed, len, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
      indexed[off] ^= 0x21;
      a = hl_recording_load (file, HL_LOAD_FLAGS_NO_SYMBOLS, NULL, NULL, NULL, &ea);
      b = hl_recording_load (file, HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_SERIAL, NULL, NULL, NULL, &eb);
      g_assert_true ((a == NULL) == (b == NULL));
      if (a != NULL)
        {
          const char * const *wa = hl_recording_get_warnings (a), * const *wb = hl_recording_get_warnings (b);
          HlSummary x, y;
          hl_recording_get_summary (a, &x);
          hl_recording_get_summary (b, &y);
          g_assert_cmpmem (&x, sizeof x, &y, sizeof y);
          g_assert_cmpuint (g_strv_length ((char **) wa), ==, g_strv_length ((char **) wb));
          for (guint i = 0; wa[i] != NULL; i++)
            g_assert_cmpstr (wa[i], ==, wb[i]);
        }
    }
  g_file_delete (file, NULL, NULL);
}

static gint
compare_u64_pairs (gconstpointer a,
                   gconstpointer b)
{
  const guint64 *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* ---- Costs-only loads ----------------------------------------------------- */

typedef struct
{
  guint64 time_ns;
  guint8  kind;      /* 0 alloc, 1 free by id, 2 free by address, 3 realloc */
  guint64 id, old_id, size, address;
  guint32 stack;
} SimEvent;

/* A random run of four threads: allocations, frees of any thread's blocks
 * by id or by address, reallocs, double frees and equal times; each
 * thread's events cut into packets of 1-40 events, written in the order
 * their last event happened (as threads flush), so frees often come
 * before their allocation in the file. */
static GByteArray *
build_random_trace (guint32 seed,
                    guint   n_steps)
{
  TraceBuilder *tb = g_new0 (TraceBuilder, 1);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  HlTraceFileHeader hdr;
  GArray *events[4];
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint64[2]));
  g_autoptr (GArray) freed = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) packets = g_array_new (FALSE, FALSE, sizeof (guint64[4]));
  guint64 t = 1, next_id = 0;
  GByteArray *out;

  tb->bytes = g_byte_array_new ();
  hl_trace_file_header_init (&hdr, 4242, 1, 1, 0);
  g_byte_array_append (tb->bytes, (const guint8 *) &hdr, sizeof hdr);
  tb_begin (tb, 100, 0);
  for (guint32 s = 1; s <= 20; s++)
    {
      const guint64 frames[] = { 0x1000 + s * 16, 0x2000 + (s % 3) * 16, 0x3000 };
      g_assert_cmpint (hl_packet_writer_stack (&tb->w, 0, s, 0, frames, 3), ==, HL_WRITE_OK);
    }
  tb_end (tb);

  for (guint k = 0; k < 4; k++)
    events[k] = g_array_new (FALSE, TRUE, sizeof (SimEvent));
  for (guint step = 0; step < n_steps; step++)
    {
      guint k = g_rand_int_range (rand, 0, 4);
      guint r = g_rand_int_range (rand, 0, 100);
      SimEvent ev = { .time_ns = t };

      t += g_rand_int_range (rand, 0, 3);
      if (live->len == 0 || r < 45)
        {
          ev.kind = 0;
          ev.id = next_id++;
          ev.size = g_rand_int_range (rand, 0, 5000);
          ev.stack = g_rand_int_range (rand, 1, 21);
          ev.address = 0x100000 + ev.id * 16;
          g_array_append_vals (live, (guint64[2]) { ev.id, ev.address }, 1);
        }
      else if (r < 97)
        {
          guint i = g_rand_int_range (rand, 0, live->len);
          guint64 *victim = &g_array_index (live, guint64, 2 * i);

          ev.kind = r < 80 ? 1 : r < 88 ? 2 : 3;
          ev.old_id = victim[0];
          ev.address = victim[1];
          g_array_append_val (freed, victim[0]);
          g_array_remove_index_fast (live, i);
          if (ev.kind == 3)
            {
              ev.id = next_id++;
              ev.size = g_rand_int_range (rand, 1, 300);
              ev.stack = g_rand_int_range (rand, 1, 21);
              ev.address = 0x100000 + ev.id * 16;
              g_array_append_vals (live, (guint64[2]) { ev.id, ev.address }, 1);
            }
        }
      else if (freed->len > 0)
        {
          ev.kind = 1; /* a second free */
          ev.old_id = g_array_index (freed, guint64, g_rand_int_range (rand, 0, freed->len));
        }
      else
        continue;
      g_array_append_val (events[k], ev);
    }

  /* Packets: (last time, thread, first event, end event), by last time. */
  for (guint k = 0; k < 4; k++)
    for (guint i = 0; i < events[k]->len;)
      {
        guint want = (guint) g_rand_int_range (rand, 1, 41);
        guint n = MIN (want, events[k]->len - i);
        guint64 p[4] = { g_array_index (events[k], SimEvent, i + n - 1).time_ns, k, i, i + n };
        g_array_append_val (packets, p);
        i += n;
      }
  g_array_sort (packets, (GCompareFunc) compare_u64_pairs);
  for (guint p = 0; p < packets->len; p++)
    {
      const guint64 *pk = &g_array_index (packets, guint64, 4 * p);
      GArray *list = events[pk[1]];
      guint32 tid = 100 + (guint32) pk[1];

      tb_begin (tb, tid, g_array_index (list, SimEvent, pk[2]).time_ns);
      for (guint64 i = pk[2]; i < pk[3]; i++)
        {
          const SimEvent *e = &g_array_index (list, SimEvent, i);
          HlWriteStatus st = HL_WRITE_OK;

          switch (e->kind)
            {
            case 0: st = hl_packet_writer_alloc (&tb->w, e->time_ns, e->id, e->size, 0, e->stack, e->address); break;
            case 1: st = hl_packet_writer_free (&tb->w, e->time_ns, e->old_id); break;
            case 2: st = hl_packet_writer_free_addr (&tb->w, e->time_ns, e->address); break;
            default: st = hl_packet_writer_realloc (&tb->w, e->time_ns, e->old_id, e->id, e->size, e->stack, e->address); break;
            }
          g_assert_cmpint (st, ==, HL_WRITE_OK);
        }
      tb_end (tb);
    }
  for (guint k = 0; k < 4; k++)
    g_array_unref (events[k]);
  out = tb->bytes;
  g_free (tb);
  return out;
}

/* FILE loaded in full and costs-only (FLAGS added): summary, totals,
 * every stack's and thread's costs and the size histogram are equal. */
static void
assert_aggregate_equals_full (GFile      *file,
                              HlLoadFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) full = hl_recording_load (file, flags, NULL, NULL, NULL, &error);
  g_autoptr (HlRecording) agg = NULL;
  g_autoptr (HlAnalysis) af = NULL;
  g_autoptr (HlAnalysis) aa = NULL;
  g_autoptr (GArray) tf = NULL;
  g_autoptr (GArray) ta = NULL;
  HlSummary x, y;
  HlCosts cx, cy;
  HlSizeHistogram hx, hy;

  g_assert_no_error (error);
  agg = hl_recording_load (file, flags | HL_LOAD_FLAGS_AGGREGATE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  hl_recording_get_summary (full, &x);
  hl_recording_get_summary (agg, &y);
  g_assert_cmpuint (y.n_allocations, ==, x.n_allocations);
  g_assert_cmpuint (y.n_frees, ==, x.n_frees);
  g_assert_cmpuint (y.frees_unknown, ==, x.frees_unknown);
  g_assert_cmpuint (y.temporary, ==, x.temporary);
  g_assert_cmpuint (y.peak_heap_bytes, ==, x.peak_heap_bytes);
  g_assert_cmpuint (y.peak_time_ns, ==, x.peak_time_ns);
  g_assert_cmpuint (y.leaked_bytes, ==, x.leaked_bytes);
  g_assert_cmpmem (&x, sizeof x, &y, sizeof y);

  af = hl_analysis_new (full, NULL);
  aa = hl_analysis_new (agg, NULL);
  hl_analysis_get_totals (af, &cx);
  hl_analysis_get_totals (aa, &cy);
  g_assert_cmpmem (&cx, sizeof cx, &cy, sizeof cy);
  g_assert_cmpuint (hl_analysis_get_peak_time_ns (af), ==, hl_analysis_get_peak_time_ns (aa));
  for (guint s = 0; s <= hl_recording_get_n_stacks (full); s++)
    {
      hl_analysis_get_stack_costs (af, s, &cx);
      hl_analysis_get_stack_costs (aa, s, &cy);
      g_assert_cmpmem (&cx, sizeof cx, &cy, sizeof cy);
    }
  tf = hl_analysis_get_thread_costs (af);
  ta = hl_analysis_get_thread_costs (aa);
  g_assert_cmpuint (tf->len, ==, ta->len);
  for (guint i = 0; i < tf->len; i++)
    {
      const HlThreadCosts *a = &g_array_index (tf, HlThreadCosts, i), *b = &g_array_index (ta, HlThreadCosts, i);
      g_assert_cmpuint (a->tid, ==, b->tid);
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpmem (&a->costs, sizeof a->costs, &b->costs, sizeof b->costs);
    }
  hl_analysis_get_size_histogram (af, &hx);
  hl_analysis_get_size_histogram (aa, &hy);
  g_assert_cmpmem (&hx, sizeof hx, &hy, sizeof hy);
  /* Filters by thread and by stack: every stack's and thread's costs. */
  for (guint k = 0; k <= tf->len + 1; k++)
    {
      g_autoptr (HlFilter) none = hl_filter_new ();
      g_autoptr (HlFilter) f = NULL;
      g_autoptr (HlAnalysis) ff = NULL;
      g_autoptr (HlAnalysis) fa = NULL;
      g_autoptr (GArray) tff = NULL;
      g_autoptr (GArray) tfa = NULL;

      if (k < tf->len)
        f = hl_filter_with_thread (none, g_array_index (tf, HlThreadCosts, k).tid);
      else if (k == tf->len && tf->len >= 2)
        {
          g_autoptr (HlFilter) one = hl_filter_with_thread (none, g_array_index (tf, HlThreadCosts, 0).tid);
          f = hl_filter_with_thread (one, g_array_index (tf, HlThreadCosts, tf->len - 1).tid);
        }
      else
        {
          /* a module every stack may or may not have a frame in */
          guint n_modules;
          const HlModuleInfo *m = hl_recording_get_modules (full, &n_modules);
          if (n_modules == 0)
            continue;
          f = hl_filter_with_module (none, m[n_modules - 1].name);
        }
      if (f == NULL)
        continue;
      ff = hl_analysis_new (full, f);
      fa = hl_analysis_new (agg, f);
      hl_analysis_get_totals (ff, &cx);
      hl_analysis_get_totals (fa, &cy);
      g_assert_cmpmem (&cx, sizeof cx, &cy, sizeof cy);
      for (guint s = 0; s <= hl_recording_get_n_stacks (full); s++)
        {
          hl_analysis_get_stack_costs (ff, s, &cx);
          hl_analysis_get_stack_costs (fa, s, &cy);
          g_assert_cmpmem (&cx, sizeof cx, &cy, sizeof cy);
        }
      tff = hl_analysis_get_thread_costs (ff);
      tfa = hl_analysis_get_thread_costs (fa);
      g_assert_cmpuint (tff->len, ==, tfa->len);
      for (guint i = 0; i < tff->len; i++)
        {
          const HlThreadCosts *a = &g_array_index (tff, HlThreadCosts, i), *b = &g_array_index (tfa, HlThreadCosts, i);
          g_assert_cmpuint (a->tid, ==, b->tid);
          g_assert_cmpmem (&a->costs, sizeof a->costs, &b->costs, sizeof b->costs);
        }
    }
  /* Nothing per allocation is kept. */
  {
    g_autoptr (GArray) largest = hl_analysis_get_largest (aa, 10);
    g_assert_cmpuint (largest->len, ==, 0);
  }
}

/* A costs-only load gives the full model's numbers on the hand-built
 * trace, the big one and random multi-threaded runs, with and without a
 * trailing index (the header walk builds one), pipelined, parallel and
 * serial. */
static void
test_load_aggregate_equals_full (void)
{
  for (guint seed = 1; seed <= 12; seed++)
    {
      g_autoptr (GByteArray) bytes = seed == 1 ? build_trace () : seed == 2 ? build_big_trace ()
                                     : build_random_trace (seed, seed < 6 ? 300 : 20000);
      g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
      g_autofree char *path = g_file_get_path (file);
      HlFormatError ferr;

      assert_aggregate_equals_full (file, HL_LOAD_FLAGS_NONE);
      assert_aggregate_equals_full (file, HL_LOAD_FLAGS_SERIAL);
      g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
      assert_aggregate_equals_full (file, HL_LOAD_FLAGS_NONE);
      assert_aggregate_equals_full (file, HL_LOAD_FLAGS_SERIAL);
      g_file_delete (file, NULL, NULL);
    }
}

/* A costs-only load's parallel decode (hl-recording-load-parallel.c with small runs,
 * recycled batches) against its serial walk on a random four-thread trace
 * of several runs with a trailing index, bytes damaged in turn (about 40
 * spread over the file, and every 23rd of its last 600: the index, so it
 * lies): both refuse, or both give the same summary, totals and warnings. */
static void
test_load_aggregate_damaged_equals_serial (void)
{
  g_autoptr (GByteArray) trace = build_random_trace (7, 25000);
  g_autoptr (GFile) file = write_temp (trace->data, trace->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *indexed = NULL;
  gsize len;
  HlFormatError ferr;
  guint loaded = 0;

  g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
  g_assert_true (g_file_get_contents (path, &indexed, &len, NULL));
  for (gsize off = 0; off < len; off += off + 600 < len ? len / 40 : 23)
    {
      const HlLoadFlags flags = HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_AGGREGATE;
      g_autoptr (HlRecording) a = NULL;
      g_autoptr (HlRecording) b = NULL;
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;

      indexed[off] ^= 0x5a;
      g_assert_true (g_file_set_contents_full (path, indexed, len, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
      indexed[off] ^= 0x5a;
      a = hl_recording_load (file, flags, NULL, NULL, NULL, &ea);
      b = hl_recording_load (file, flags | HL_LOAD_FLAGS_SERIAL, NULL, NULL, NULL, &eb);
      g_assert_true ((a == NULL) == (b == NULL));
      if (a != NULL)
        {
          const char * const *wa = hl_recording_get_warnings (a), * const *wb = hl_recording_get_warnings (b);
          g_autoptr (HlAnalysis) xa = hl_analysis_new (a, NULL);
          g_autoptr (HlAnalysis) xb = hl_analysis_new (b, NULL);
          HlSummary x, y;
          HlCosts cx, cy;

          hl_recording_get_summary (a, &x);
          hl_recording_get_summary (b, &y);
          g_assert_cmpmem (&x, sizeof x, &y, sizeof y);
          hl_analysis_get_totals (xa, &cx);
          hl_analysis_get_totals (xb, &cy);
          g_assert_cmpmem (&cx, sizeof cx, &cy, sizeof cy);
          g_assert_cmpuint (g_strv_length ((char **) wa), ==, g_strv_length ((char **) wb));
          for (guint i = 0; wa[i] != NULL; i++)
            g_assert_cmpstr (wa[i], ==, wb[i]);
          loaded++;
        }
      else
        g_assert_true (g_error_matches (ea, eb->domain, eb->code));
    }
  g_assert_cmpuint (loaded, >, 0);
  g_file_delete (file, NULL, NULL);
}


/* PATH replaced by DATA (no fsync: g_file_set_contents syncs, slowly). */
static void
overwrite (const char *path,
           const void *data,
           gsize       len)
{
  FILE *f = fopen (path, "wb");

  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (data, 1, len, f), ==, len);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* The report's text (JSON, every stack) of FILE loaded costs-only with FLAGS. */
static char *
report_of (GFile      *file,
           HlLoadFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_recording_load (file, flags | HL_LOAD_FLAGS_AGGREGATE, NULL, NULL, NULL, &error);
  g_autoptr (HlAnalysis) a = NULL;
  g_autoptr (GArray) threads = NULL;
  HlSizeHistogram h;
  GString *out;
  char *json;

  g_assert_no_error (error);
  a = hl_analysis_new (rec, NULL);
  json = hl_report_to_json ("trace", a, NULL, 0, 100000);
  out = g_string_new (json);
  g_free (json);
  /* What the JSON does not show: threads, histogram, info, modules. */
  threads = hl_analysis_get_thread_costs (a);
  for (guint i = 0; i < threads->len; i++)
    {
      const HlThreadCosts *t = &g_array_index (threads, HlThreadCosts, i);
      g_string_append_printf (out, "thread %u %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                              " %" G_GUINT64_FORMAT "\n", t->tid, t->name, t->costs.allocations, t->costs.bytes,
                              t->costs.peak_bytes, t->costs.leaked_bytes);
    }
  hl_analysis_get_size_histogram (a, &h);
  for (guint i = 0; i < HL_SIZE_HISTOGRAM_BUCKETS; i++)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ", h.count[i], h.bytes[i]);
  for (const char * const *k = hl_recording_get_info_keys (rec); *k != NULL; k++)
    g_string_append_printf (out, "\ninfo %s=%s", *k, hl_recording_get_info (rec, *k));
  {
    guint n;
    const HlModuleInfo *m = hl_recording_get_modules (rec, &n);
    for (guint i = 0; i < n; i++)
      g_string_append_printf (out, "\nmodule %s %s %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d %d", m[i].path,
                              m[i].name, m[i].build_id, m[i].start, m[i].size, m[i].has_symbols, m[i].has_debug_info);
  }
  g_string_append_printf (out, "\nstacks %u truncated %d", hl_recording_get_n_stacks (rec),
                          hl_recording_is_truncated (rec));
  return g_string_free (out, FALSE);
}

/* A compressed trace with its costs saved (hl-recording-costs-packet.h):
 * a costs-only load reads them and reports exactly what decoding the
 * events reports; a changed, cut or extended file, or a damaged packet,
 * is not read from the packet. */
static void
test_load_costs_packet_equals_decode (void)
{
  for (guint seed = 1; seed <= 8; seed++)
    {
      g_autoptr (GByteArray) bytes = seed == 1 ? build_trace () : seed == 2 ? build_big_trace ()
                                     : build_random_trace (seed, seed < 5 ? 300 : 20000);
      g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
      g_autofree char *path = g_file_get_path (file);
      g_autofree char *with = NULL, *without = NULL, *contents = NULL;
      g_autoptr (GError) error = NULL;
      HlFormatError ferr;
      gsize len;

      g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
      /* A plain trace ends with its index: no costs there. */
      g_assert_false (hl_costs_packet_append (path, &error));
      g_assert_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED);
      g_clear_error (&error);
      g_assert_cmpint (hl_trace_compress_file (path, path, hl_trace_codec_zstd (3), 0, &ferr), ==, 0);
      g_assert_null (hl_costs_packet_load (path));
      without = report_of (file, HL_LOAD_FLAGS_NONE);
      g_assert_true (hl_costs_packet_append (path, &error));
      g_assert_no_error (error);
      /* Appending again leaves the file as it is. */
      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      g_assert_true (hl_costs_packet_append (path, &error));
      {
        g_autofree char *again = NULL;
        gsize len2;
        g_assert_true (g_file_get_contents (path, &again, &len2, NULL));
        g_assert_cmpmem (again, len2, contents, len);
      }
      {
        g_autoptr (HlRecording) saved = hl_costs_packet_load (path);
        g_assert_nonnull (saved);
      }
      with = report_of (file, HL_LOAD_FLAGS_NONE);
      g_assert_cmpstr (with, ==, without);
      g_free (without);
      without = report_of (file, HL_LOAD_FLAGS_NO_COSTS_PACKET);
      g_assert_cmpstr (with, ==, without);
      g_free (without);
      without = report_of (file, HL_LOAD_FLAGS_NO_COSTS_PACKET | HL_LOAD_FLAGS_SERIAL);
      g_assert_cmpstr (with, ==, without);

      /* Not read from the packet: a byte changed before it, in its
       * header, payload or footer; the file cut or extended. */
      for (gsize k = 0; k < 7; k++)
        {
          gsize at = k == 0 ? 20 : k == 1 ? len / 2 : k == 2 ? len - 200 : k == 3 ? len - 60 : len - 3;
          g_autofree char *copy = g_memdup2 (contents, len);
          gsize n = len;

          if (k < 5)
            copy[at] ^= 0x21;
          else
            n = k == 5 ? len - 1 : len;
          if (k == 6)
            {
              copy = g_realloc (copy, len + 1);
              copy[len] = 0;
              n = len + 1;
            }
          overwrite (path, copy, n);
          g_assert_null (hl_costs_packet_load (path));
        }
      g_file_delete (file, NULL, NULL);
    }
}


/* A COSTS packet with a valid crc and a hostile payload (random bytes,
 * a real payload, stacks inline or by reference, cut or with a byte
 * changed, counts made huge): loading
 * it gives a recording or NULL, never a crash (ASan) nor a huge
 * allocation; NULL means the events are decoded. */
static void
test_load_costs_packet_hostile (void)
{
  g_autoptr (GByteArray) bytes = build_random_trace (5, 3000);
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *compressed = NULL;
  g_autoptr (GBytes) payload = NULL;
  g_autoptr (GBytes) by_reference = NULL;
  g_autoptr (HlRecording) costs = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (99);
  g_autoptr (GError) error = NULL;
  HlFormatError ferr;
  const guint8 *real, *bases[2];
  gsize real_len, len, base_lens[2];
  guint loaded = 0, refused = 0;

  g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
  g_assert_cmpint (hl_trace_compress_file (path, path, hl_trace_codec_zstd (3), 0, &ferr), ==, 0);
  payload = hl_costs_packet_prepare (path, &error);
  g_assert_no_error (error);
  /* the same, its stacks by reference to the trace's (the reader fills
   * them from the trace's STACK events) */
  {
    g_autoptr (GFile) f = g_file_new_for_path (path);
    costs = hl_recording_load (f, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_NO_COSTS_PACKET,
                               NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    by_reference = hl_costs_packet_payload (costs, HL_COSTS_STACKS_BY_REFERENCE, &error);
    g_assert_no_error (error);
  }
  bases[0] = g_bytes_get_data (payload, &base_lens[0]);
  bases[1] = g_bytes_get_data (by_reference, &base_lens[1]);
  g_assert_true (g_file_get_contents (path, &compressed, &len, NULL));
  for (guint k = 0; k < 600; k++)
    {
      g_autofree guint8 *p = NULL;
      gsize n;
      g_autoptr (GBytes) hostile = NULL;
      g_autoptr (HlRecording) rec = NULL;

      real = bases[k % 2];
      real_len = base_lens[k % 2];
      p = g_memdup2 (real, real_len);
      n = real_len;

      if (k < 100)
        {
          /* random bytes of random length */
          n = g_rand_int_range (rand, 0, 400);
          for (gsize i = 0; i < n; i++)
            p[i] = (guint8) g_rand_int (rand);
        }
      else if (k < 300)
        n = real_len * (k - 100) / 200; /* cut */
      else if (k < 500)
        p[g_rand_int_range (rand, 0, (gint32) real_len)] ^= (guint8) (1 + g_rand_int_range (rand, 0, 255));
      else
        {
          /* a varint made huge (10 bytes of 0xff, 0x01) somewhere */
          gsize at = g_rand_int_range (rand, 0, (gint32) real_len);
          p = g_realloc (p, real_len + 10);
          memmove (p + at + 10, p + at, real_len - at);
          memset (p + at, 0xff, 9);
          p[at + 9] = 0x01;
          n = real_len + 10;
        }
      hostile = g_bytes_new (p, n);
      overwrite (path, compressed, len);
      g_assert_true (hl_costs_packet_write (hostile, path, &error));
      g_assert_no_error (error);
      rec = hl_costs_packet_load (path);
      if (rec != NULL)
        {
          g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
          g_autofree char *json = hl_report_to_json ("x", a, NULL, 0, 10);
          g_assert_nonnull (json);
          loaded++;
        }
      else
        refused++;
    }
  /* Many more in memory (HL_HOSTILE_ROUNDS, default 20,000). */
  {
    const char *env = g_getenv ("HL_HOSTILE_ROUNDS");
    guint rounds = env != NULL ? (guint) g_ascii_strtoull (env, NULL, 10) : 20000;

    real = bases[0];
    real_len = base_lens[0];
    for (guint k = 0; k < rounds; k++)
      {
        g_autofree guint8 *p = g_memdup2 (real, real_len);
        g_autoptr (HlRecording) rec = NULL;
        guint flips = 1 + g_rand_int_range (rand, 0, 4);
        gsize n = k % 3 == 0 ? (gsize) g_rand_int_range (rand, 0, (gint32) real_len + 1) : real_len;

        for (guint f = 0; f < flips; f++)
          p[g_rand_int_range (rand, 0, (gint32) real_len)] ^= (guint8) (1 << g_rand_int_range (rand, 0, 8));
        rec = hl_costs_packet_parse (p, n);
        if (rec != NULL)
          {
            g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
            HlCosts t;
            hl_analysis_get_totals (a, &t);
            loaded++;
          }
        else
          refused++;
      }
  }
  g_test_message ("%u hostile payloads loaded, %u refused", loaded, refused);
  g_assert_cmpuint (refused, >, 0);
  g_file_delete (file, NULL, NULL);
}


static gsize
file_size_of (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (gsize) st.st_size;
}

/* Appends BYTES[from, to) to PATH. */
static void
append_range (const char   *path,
              const guint8 *bytes,
              gsize         from,
              gsize         to)
{
  FILE *f = fopen (path, "ab");

  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (bytes + from, 1, to - from, f), ==, to - from);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* The plain trace BYTES written to PATH in pieces (cut anywhere, even
 * inside a packet, as a poll may see it) while a compress stream to
 * OUT polls it with a costs stream told of its packets (KEEP points may
 * wait): the stream's recording, or NULL when it could not follow. */
static HlRecording *
follow_costs_hurried (const GByteArray *bytes,
                      const char       *path,
                      const char       *out,
                      GRand            *rand,
                      guint             n_polls,
                      HlCostsStream    *costs,
                      guint             hurry_at)
{
  HlTraceCompressStream *stream = hl_trace_compress_stream_new (path, out, hl_trace_codec_zstd (3), 0);
  g_autoptr (GError) error = NULL;
  HlFormatError ferr;
  gsize at = HL_TRACE_FILE_HEADER_SIZE;
  HlRecording *payload;

  g_assert_nonnull (stream);
  hl_trace_compress_stream_set_packet_func (stream, hl_costs_stream_take, costs);
  g_assert_true (g_file_set_contents (path, (const char *) bytes->data, at, NULL));
  for (guint i = 0; i < n_polls && at < bytes->len; i++)
    {
      gsize step = (gsize) g_rand_int_range (rand, 1, (gint32) (bytes->len / n_polls * 2 + 2));
      gsize next = i + 1 == n_polls ? bytes->len : MIN (bytes->len, at + step);

      append_range (path, bytes->data, at, next);
      at = next;
      g_assert_cmpint (hl_trace_compress_stream_poll (stream, &ferr), ==, 0);
      if (i == hurry_at)
        hl_costs_stream_hurry (costs);
    }
  append_range (path, bytes->data, at, bytes->len);
  g_assert_cmpint (hl_trace_compress_stream_finish (stream, &ferr), ==, 0);
  hl_trace_compress_stream_free (stream);
  payload = hl_costs_stream_finish (costs, &error);
  g_assert_true ((payload == NULL) == (error != NULL));
  if (payload == NULL)
    g_test_message ("not followed: %s", error->message);
  return payload;
}

static HlRecording *
follow_costs_with (const GByteArray *bytes,
                   const char       *path,
                   const char       *out,
                   GRand            *rand,
                   guint             n_polls,
                   HlCostsStream    *costs)
{
  return follow_costs_hurried (bytes, path, out, rand, n_polls, costs, G_MAXUINT);
}

static HlRecording *
follow_costs (const GByteArray *bytes,
              const char       *path,
              const char       *out,
              GRand            *rand,
              guint             n_polls,
              guint64           keep)
{
  HlCostsStream *costs = hl_costs_stream_new ();
  HlRecording *payload;

  hl_costs_stream_set_keep (costs, keep);
  payload = follow_costs_with (bytes, path, out, rand, n_polls, costs);
  hl_costs_stream_free (costs);
  return payload;
}

/* Costs followed while a trace is written (hl-recording-costs-stream.h)
 * are, byte for byte, the payload a costs-only load of the finished
 * file makes, whatever the polls saw: one poll, a few, hundreds cutting
 * packets; and a report from them equals the events'. Where a thread's
 * packet comes later than the watermark allowed (random multi-threaded
 * runs; a tiny KEEP forcing early releases) the stream gives no payload
 * rather than a wrong one. A damaged packet or a trailing index: no
 * payload. */
static void
test_load_costs_stream_equals_prepare (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  guint followed = 0, refused = 0, early_refused = 0, hurried = 0;

  for (guint seed = 1; seed <= 10; seed++)
    {
      g_autoptr (GByteArray) bytes = seed == 1 ? build_trace () : seed == 2 ? build_big_trace ()
                                     : build_random_trace (seed, seed < 6 ? 300 : 20000);
      g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
      g_autofree char *path = g_file_get_path (file);
      g_autofree char *out = g_strconcat (path, ".z", NULL);
      g_autoptr (GFile) out_file = g_file_new_for_path (out);
      g_autoptr (GBytes) expected = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *decoded = NULL;

      for (guint schedule = 0; schedule < 4; schedule++)
        {
          guint n_polls = schedule == 0 ? 1 : schedule == 1 ? 3 : schedule == 2 ? 40 : 300;
          g_autoptr (HlRecording) rec = follow_costs (bytes, path, out, rand, n_polls, HL_COSTS_STREAM_KEEP);
          g_autoptr (GBytes) payload = NULL;
          g_autofree char *compressed = NULL;
          gsize compressed_len;

          if (expected == NULL)
            {
              expected = hl_costs_packet_prepare (out, &error);
              g_assert_no_error (error);
              decoded = report_of (out_file, HL_LOAD_FLAGS_NO_COSTS_PACKET);
            }
          /* one poll at the end sees every packet: always followed */
          if (schedule == 0 || seed <= 2)
            g_assert_nonnull (rec);
          if (rec == NULL)
            {
              refused++;
              continue;
            }
          followed++;
          payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
          g_assert_no_error (error);
          g_assert_true (g_bytes_equal (payload, expected));
          /* saved with its stacks inline, then by reference: read back,
           * the report is the events' */
          g_assert_true (g_file_get_contents (out, &compressed, &compressed_len, NULL));
          for (guint form = 0; form < 2; form++)
            {
              g_autoptr (GBytes) p = hl_costs_packet_payload (rec, form, &error);
              g_autofree char *with = NULL;

              g_assert_no_error (error);
              overwrite (out, compressed, compressed_len);
              g_assert_true (hl_costs_packet_write (p, out, &error));
              g_assert_no_error (error);
              g_assert_cmpuint (hl_costs_packet_size (p), ==, file_size_of (out) - compressed_len);
              /* built once, measured, then written: the same bytes */
              {
                g_autoptr (HlCostsPacket) built = hl_costs_packet_build (p);
                g_autofree char *once = NULL, *twice = NULL;
                gsize once_len, twice_len;

                g_assert_true (g_file_get_contents (out, &once, &once_len, NULL));
                overwrite (out, compressed, compressed_len);
                g_assert_cmpuint (hl_costs_packet_built_size (built), ==, once_len - compressed_len);
                g_assert_true (hl_costs_packet_write_built (built, out, &error));
                g_assert_no_error (error);
                g_assert_true (g_file_get_contents (out, &twice, &twice_len, NULL));
                g_assert_cmpmem (once, once_len, twice, twice_len);
              }
              g_assert_nonnull (hl_costs_packet_load (out));
              with = report_of (out_file, HL_LOAD_FLAGS_NONE);
              g_assert_cmpstr (with, ==, decoded);
              /* by reference, the frames are the trace's: a parse alone cannot */
              if (form == HL_COSTS_STACKS_BY_REFERENCE)
                g_assert_null (hl_costs_packet_parse (g_bytes_get_data (p, NULL), g_bytes_get_size (p)));
            }
        }
      /* The program's exit (hl_costs_stream_hurry()) at any poll, the
       * first thread at a low priority: a second one takes over where it
       * stopped, and the payload is the same. Twice at the first poll:
       * the second call does nothing. */
      for (guint hurry_at = 0; hurry_at <= 40; hurry_at += seed <= 2 ? 4 : 20)
        {
          HlCostsStream *costs = hl_costs_stream_new ();
          g_autoptr (HlRecording) rec = NULL;

          hl_costs_stream_set_nice (costs, 10);
          if (hurry_at == 0)
            hl_costs_stream_hurry (costs);
          rec = follow_costs_hurried (bytes, path, out, rand, 40, costs, hurry_at);
          hl_costs_stream_free (costs);
          if (seed <= 2)
            g_assert_nonnull (rec);
          if (rec != NULL)
            {
              g_autoptr (GBytes) payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
              g_assert_no_error (error);
              g_assert_true (g_bytes_equal (payload, expected));
              hurried++;
            }
        }
      /* Every event through hl_recording_load_apply_event(), as a load applies
       * them (no short path for allocations and frees): the same payload. */
      {
        HlCostsStream *costs = hl_costs_stream_new ();
        g_autoptr (HlRecording) rec = NULL;

        hl_costs_stream_set_short_path (costs, FALSE);
        rec = follow_costs_with (bytes, path, out, rand, 1, costs);
        hl_costs_stream_free (costs);
        g_assert_nonnull (rec);
        {
          g_autoptr (GBytes) payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
          g_assert_no_error (error);
          g_assert_true (g_bytes_equal (payload, expected));
        }
      }
      /* Points released early (2 may wait): caught, or still right. */
      {
        g_autoptr (HlRecording) rec = follow_costs (bytes, path, out, rand, 40, 2);
        g_autoptr (GBytes) payload = rec != NULL ? hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, NULL) : NULL;
        if (rec == NULL)
          early_refused++;
        else
          g_assert_true (g_bytes_equal (payload, expected));
      }
      /* A damaged packet (a byte of the last packet's content changed), a
       * trailing index: not followed. */
      {
        g_autoptr (GByteArray) damaged = g_byte_array_new ();
        g_autoptr (HlRecording) payload = NULL;
        HlFormatError ferr;

        g_byte_array_append (damaged, bytes->data, bytes->len);
        damaged->data[damaged->len - 3] ^= 0x40;
        payload = follow_costs (damaged, path, out, rand, 3, HL_COSTS_STREAM_KEEP);
        g_assert_null (payload);
        g_assert_true (g_file_set_contents (path, (const char *) bytes->data, bytes->len, NULL));
        g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
        {
          g_autofree char *indexed = NULL;
          gsize len;
          g_autoptr (GByteArray) with_index = g_byte_array_new ();
          g_assert_true (g_file_get_contents (path, &indexed, &len, NULL));
          g_byte_array_append (with_index, (const guint8 *) indexed, len);
          g_clear_object (&payload);
          payload = follow_costs (with_index, path, out, rand, 3, HL_COSTS_STREAM_KEEP);
          g_assert_null (payload);
        }
      }
      g_file_delete (file, NULL, NULL);
      g_file_delete (out_file, NULL, NULL);
    }
  g_test_message ("%u schedules followed, %u refused; with early releases %u refused; %u hurried", followed,
                  refused, early_refused, hurried);
  g_assert_cmpuint (followed, >, 20);
  g_assert_cmpuint (early_refused, >, 0);
  g_assert_cmpuint (hurried, >, 30);
}

/* The lag give-up (hl_costs_stream_set_max_lag): a stream whose thread
 * would need longer than allowed for what is queued gives up, says so
 * (lagged, a reason naming the lag), and gives no payload; the trace is
 * compressed all the same and a report decodes its events to the same
 * numbers a followed one gives. The same trace with no limit, or with a
 * pace that keeps within the limit, is followed. */
static void
test_load_costs_stream_lag (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autoptr (GByteArray) bytes = build_big_trace ();
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *out = g_strconcat (path, ".z", NULL);
  g_autoptr (GFile) out_file = g_file_new_for_path (out);
  g_autofree char *followed_report = NULL, *lagged_report = NULL, *decoded = NULL;

  for (guint mode = 0; mode < 4; mode++)
    {
      HlCostsStream *costs = hl_costs_stream_new ();
      g_autoptr (HlRecording) rec = NULL;
      /* 0: no limit; 1: a slow pace (1 ms a KiB) against a 1 ms limit
       * while running; 2: the same pace, no limit while running, none at
       * the end either; 3: a fast pace (1 ns a KiB) within 1 s */
      guint64 pace = mode == 3 ? 1 : 1000000;

      hl_costs_stream_set_pace (costs, pace);
      if (mode == 0 || mode == 2)
        hl_costs_stream_set_max_lag (costs, G_MAXUINT64, G_MAXUINT64);
      else
        hl_costs_stream_set_max_lag (costs, mode == 1 ? 1000000 : 1000000000, 1000000000);
      rec = follow_costs_with (bytes, path, out, rand, 20, costs);
      if (mode == 1)
        {
          const char *why = hl_costs_stream_lag_reason (costs);
          g_assert_null (rec);
          g_assert_true (hl_costs_stream_lagged (costs));
          g_assert_true (hl_costs_stream_failed (costs));
          g_assert_nonnull (why);
          g_assert_nonnull (strstr (why, "behind"));
          g_assert_cmpuint (hl_costs_stream_worst_lag (costs), >, 1000000);
          /* the trace is whole and compressed: a report decodes its events */
          lagged_report = report_of (out_file, HL_LOAD_FLAGS_NONE);
          decoded = report_of (out_file, HL_LOAD_FLAGS_NO_COSTS_PACKET);
          g_assert_cmpstr (lagged_report, ==, decoded);
        }
      else
        {
          g_autoptr (GBytes) payload = NULL;
          g_autoptr (GError) error = NULL;

          g_assert_nonnull (rec);
          g_assert_false (hl_costs_stream_lagged (costs));
          g_assert_null (hl_costs_stream_lag_reason (costs));
          payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
          g_assert_no_error (error);
          g_assert_true (hl_costs_packet_write (payload, out, &error));
          g_assert_no_error (error);
          g_clear_pointer (&followed_report, g_free);
          followed_report = report_of (out_file, HL_LOAD_FLAGS_NONE);
        }
      hl_costs_stream_free (costs);
    }
  /* followed or given up, the report says the same */
  g_assert_cmpstr (followed_report, ==, lagged_report);
  g_file_delete (file, NULL, NULL);
  g_file_delete (out_file, NULL, NULL);
}

/* The program's exit, then the stream freed unfinished at once (`record`
 * frees the stream of a trace it did not finish, e.g. one whose session
 * it could not read at the end, right after hurry()): the first thread,
 * at a low priority, waits for a chunk when hurry() queues the hand-over;
 * free() must not take that chunk from it, else the first thread takes
 * the stop meant for the one taking over, which then waits for a chunk
 * forever and free() joins it forever. The same with finish() after a
 * lag give-up. Racy by nature: many rounds (before the fix, the first
 * hung). */
static void
test_load_costs_stream_hurry_free (void)
{
  g_autoptr (GByteArray) bytes = build_trace ();
  g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *out = g_strconcat (path, ".z", NULL);
  guint rounds = g_test_slow () ? 2000 : 300;

  for (guint i = 0; i < rounds; i++)
    {
      HlCostsStream *costs = hl_costs_stream_new ();
      HlTraceCompressStream *stream = hl_trace_compress_stream_new (path, out, hl_trace_codec_zstd (3), 0);
      HlFormatError ferr;

      g_assert_nonnull (stream);
      hl_costs_stream_set_nice (costs, 19);
      /* every other round: given up for its lag at the first poll, then
       * finished (stop_thread() frees what is queued there too) */
      if (i % 2 == 1)
        {
          hl_costs_stream_set_pace (costs, 1000000);
          hl_costs_stream_set_max_lag (costs, 1, 1);
        }
      hl_trace_compress_stream_set_packet_func (stream, hl_costs_stream_take, costs);
      /* one poll: the first thread starts, applies it, waits for more */
      g_assert_cmpint (hl_trace_compress_stream_poll (stream, &ferr), ==, 0);
      while (hl_costs_stream_queued (costs) > 0)
        g_usleep (100);
      g_usleep (200);
      hl_costs_stream_hurry (costs);
      if (i % 2 == 1)
        {
          g_autoptr (GError) error = NULL;
          g_assert_null (hl_costs_stream_finish (costs, &error));
          g_assert_nonnull (error);
          g_assert_true (hl_costs_stream_lagged (costs));
        }
      hl_costs_stream_free (costs);
      hl_trace_compress_stream_free (stream);
    }
  g_file_delete (file, NULL, NULL);
  g_unlink (out);
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
  g_test_add_func ("/loader/damaged-index-equals-serial", test_load_damaged_index_equals_serial);
  g_test_add_func ("/loader/damaged", test_load_damaged);
  g_test_add_func ("/loader/aggregate-equals-full", test_load_aggregate_equals_full);
  g_test_add_func ("/loader/aggregate-damaged-equals-serial", test_load_aggregate_damaged_equals_serial);
  g_test_add_func ("/loader/costs-packet-equals-decode", test_load_costs_packet_equals_decode);
  g_test_add_func ("/loader/costs-packet-hostile", test_load_costs_packet_hostile);
  g_test_add_func ("/loader/costs-stream-equals-prepare", test_load_costs_stream_equals_prepare);
  g_test_add_func ("/loader/costs-stream-lag", test_load_costs_stream_lag);
  g_test_add_func ("/loader/costs-stream-hurry-free", test_load_costs_stream_hurry_free);
  return g_test_run ();
}
