/* test-loader-damage.c — damaged traces (every byte in turn, a lying
 * index) load or give an error, the same with every load path; costs-only
 * loads give the full model's numbers, damaged or not. */
#include "hl-model.h"

#include "loader-traces.h"
#include "hl-trace-index.h"
#include "hl-trace-writer.h"

#include <glib/gstdio.h>
#include <string.h>

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

/* Loads PATH (serial and parallel alike) and says whether its warnings
 * name a damaged trailing index. */
static gboolean
warns_of_damaged_index (GFile      *file,
                        HlLoadFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_recording_load (file, flags | HL_LOAD_FLAGS_NO_SYMBOLS, NULL, NULL, NULL, &error);
  const char * const *w;

  g_assert_no_error (error);
  for (w = hl_recording_get_warnings (rec); *w != NULL; w++)
    if (strstr (*w, "trailing index is damaged") != NULL)
      return TRUE;
  return FALSE;
}

/* A trace without a trailing index (the bare preload's) loads without a
 * word about it; one whose index is read, too; one whose index is damaged
 * says so. */
static void
test_load_index_note (void)
{
  g_autoptr (GByteArray) trace = build_trace ();
  g_autoptr (GFile) file = write_temp (trace->data, trace->len);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *indexed = NULL;
  gsize len;
  HlFormatError ferr;

  g_assert_false (warns_of_damaged_index (file, HL_LOAD_FLAGS_NONE));
  g_assert_cmpint (hl_trace_index_append_file (path, &ferr), ==, 0);
  g_assert_false (warns_of_damaged_index (file, HL_LOAD_FLAGS_NONE));
  g_assert_true (g_file_get_contents (path, &indexed, &len, NULL));
  indexed[len - 4] ^= 0x40; /* in the tail's content: its crc fails */
  g_assert_true (g_file_set_contents_full (path, indexed, len, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
  g_assert_true (warns_of_damaged_index (file, HL_LOAD_FLAGS_NONE));
  g_assert_true (warns_of_damaged_index (file, HL_LOAD_FLAGS_SERIAL));
  g_file_delete (file, NULL, NULL);
  /* no index, but the last bytes look a little like a tail's header
   * (seed 10's random trace): nothing damaged to warn of */
  {
    g_autoptr (GByteArray) random = build_random_trace (10, 20000);
    g_autoptr (GFile) rfile = write_temp (random->data, random->len);

    g_assert_false (warns_of_damaged_index (rfile, HL_LOAD_FLAGS_NONE));
    g_assert_false (warns_of_damaged_index (rfile, HL_LOAD_FLAGS_AGGREGATE));
    g_file_delete (rfile, NULL, NULL);
  }
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

/* Blocks that outlive the costs-only load's ring of 2^16 ids go to its
 * log in id order (out of order, four threads' packets: its table), are
 * found there by rank, freed by id and by address (the walk that maps
 * addresses covers the log), and the log is compacted as half of it is
 * freed: the full model's numbers all the same, serial and parallel. */
static void
test_load_aggregate_long_lived_equals_full (void)
{
  for (guint seed = 1; seed <= 2; seed++)
    {
      g_autoptr (GByteArray) bytes = build_long_lived_trace (seed, 200000);
      g_autoptr (GFile) file = write_temp (bytes->data, bytes->len);

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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/index-note", test_load_index_note);
  g_test_add_func ("/loader/damaged-index-equals-serial", test_load_damaged_index_equals_serial);
  g_test_add_func ("/loader/damaged", test_load_damaged);
  g_test_add_func ("/loader/aggregate-equals-full", test_load_aggregate_equals_full);
  g_test_add_func ("/loader/aggregate-long-lived-equals-full", test_load_aggregate_long_lived_equals_full);
  g_test_add_func ("/loader/aggregate-damaged-equals-serial", test_load_aggregate_damaged_equals_serial);
  return g_test_run ();
}
