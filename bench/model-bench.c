/* model-bench — times the model on a synthetic recording fed through the
 * event sink: N allocations over 2,000 stacks of depth 12 in 4 threads, 90 %
 * freed soon after. Prints the time of each step. Not a test.
 *
 *   model-bench [N_ALLOCATIONS [N_STACKS]]   (default 1000000 2000; with
 *   more than 5,000 stacks their outer frames vary over 50,021 addresses,
 *   so that the flat function list has tens of thousands of rows)
 */
#include "hl-model.h"
#include "hl-recording-builder.h"

#include <stdio.h>
#include <stdlib.h>

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

int
main (int    argc,
      char **argv)
{
  guint64 n = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 1000000;
  g_autoptr (HlRecording) rec = hl_recording_new ();
  GRand *rand = g_rand_new_with_seed (42);
  const guint n_stacks = argc > 2 ? (guint) g_ascii_strtoull (argv[2], NULL, 10) : 2000;
  const guint spread = n_stacks > 5000 ? 50021 : 977;
  double t, t_total;
  guint64 live_ids[64] = { 0 };
  HlSummary s;

  /* Stacks: a shared outer part, varied inner part. */
  for (guint st = 1; st <= n_stacks; st++)
    {
      guint64 frames[12];
      for (guint i = 0; i < 12; i++)
        frames[i] = 0x400000 + (i < 6 ? (st * 7 + i * 131) % spread : (i * 4099) % 503) * 16;
      hl_recording_append_stack (rec, st, frames, 12);
    }

  t = t_total = now_ms ();
  for (guint64 id = 0; id < n; id++)
    {
      guint32 tid = 100 + (guint32) (id % 4);
      guint64 time_ns = id * 100;
      guint slot = (guint) (id % 64);

      hl_recording_append_alloc (rec, id, time_ns, tid, 16 + g_rand_int_range (rand, 0, 4096),
                                 0x10000000 + id * 64, 1 + g_rand_int_range (rand, 0, n_stacks));
      if (id >= 64 && g_rand_int_range (rand, 0, 10) != 0)
        hl_recording_append_free (rec, live_ids[slot], 0, time_ns + 50, tid);
      live_ids[slot] = id;
    }
  printf ("append %" G_GUINT64_FORMAT " allocations: %.1f ms\n", n, now_ms () - t);
  t = now_ms ();
  hl_recording_commit (rec);
  printf ("commit (sort, peak, temporary): %.1f ms\n", now_ms () - t);
  hl_recording_get_summary (rec, &s);

  t = now_ms ();
  {
    g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
    printf ("analysis (first, builds the tries): %.1f ms\n", now_ms () - t);
    t = now_ms ();
    g_autoptr (HlCallTree) tree = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
    printf ("top-down tree: %.1f ms (%u nodes)\n", now_ms () - t, hl_call_tree_get_n_nodes (tree));
    t = now_ms ();
    g_autoptr (HlFlameLayout) fl = hl_flame_layout_new (tree, HL_COST_KIND_BYTES, 0);
    printf ("flame layout: %.1f ms (%u rects)\n", now_ms () - t, hl_flame_layout_get_n_rects (fl));
    t = now_ms ();
    g_autoptr (GArray) functions = hl_analysis_get_functions (a, HL_COST_KIND_BYTES);
    printf ("flat function list (Callers/Callees): %.1f ms (%u functions)\n", now_ms () - t, functions->len);
    if (functions->len > 0)
      {
        const HlFrame *heaviest = g_array_index (functions, HlFunctionCosts, 0).frame;

        t = now_ms ();
        g_autoptr (GArray) callers = hl_analysis_get_callers (a, heaviest, HL_COST_KIND_BYTES);
        g_autoptr (GArray) callees = hl_analysis_get_callees (a, heaviest, HL_COST_KIND_BYTES);
        printf ("its heaviest's callers and callees: %.1f ms (%u, %u)\n", now_ms () - t, callers->len, callees->len);
      }
  }

  for (int i = 0; i < 3; i++)
    {
      g_autoptr (HlFilter) f = hl_filter_new ();
      g_autoptr (HlFilter) r = hl_filter_with_time_range (f, s.duration_ns / 4 + i * 1000, s.duration_ns / 2);
      t = now_ms ();
      g_autoptr (HlAnalysis) a = hl_analysis_new (rec, r);
      g_autoptr (HlCallTree) tree = hl_analysis_get_call_tree (a, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_BYTES);
      printf ("time-range change → analysis + tree: %.1f ms\n", now_ms () - t);
    }
  t = now_ms ();
  {
    g_autoptr (GArray) series = hl_recording_get_series (rec, 0, HL_TIME_END, 1000);
    printf ("series, 1000 buckets: %.1f ms\n", now_ms () - t);
  }
  printf ("total: %.1f ms\n", now_ms () - t_total);
  g_rand_free (rand);
  return 0;
}
