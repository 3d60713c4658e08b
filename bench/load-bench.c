/* load-bench — times loading a trace to a ready model and time-range
 * filters on it (issue 6 targets: load ≤ 2 s for 20 M events, a range
 * filter ≤ 100 ms). Not a test.
 *
 *   load-bench FILE.hltrace [REPEATS]
 *
 * Prints the load (without symbols: the symbolizer has its own bench,
 * symbol-bench), the CPU time it took, then the analysis of the whole
 * recording and of ranges covering 10 %, 50 % and 90 % of it, each the
 * best of REPEATS (default 3) by wall time, with the CPU time of that run
 * (all threads: on a busy machine the wall time says little).
 */
#include "hl-model.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static double
cpu_ms (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
         ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

static double
time_range (HlRecording *rec,
            guint64      t0,
            guint64      t1,
            guint        repeats,
            guint64     *bytes,
            double      *best_cpu)
{
  double best = G_MAXDOUBLE;

  for (guint r = 0; r < repeats; r++)
    {
      g_autoptr (HlFilter) f0 = hl_filter_new ();
      g_autoptr (HlFilter) f = t0 == 0 && t1 == HL_TIME_NONE ? hl_filter_ref (f0)
                                                             : hl_filter_with_time_range (f0, t0, t1);
      double t = now_ms (), c0 = cpu_ms ();
      g_autoptr (HlAnalysis) a = hl_analysis_new (rec, f);
      HlCosts c;

      t = now_ms () - t;
      c0 = cpu_ms () - c0;
      if (t < best)
        *best_cpu = c0;
      best = MIN (best, t);
      hl_analysis_get_totals (a, &c);
      *bytes = c.bytes;
    }
  return best;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = NULL;
  guint repeats = argc > 2 ? (guint) atoi (argv[2]) : 3;
  double t, c;
  HlSummary s;
  struct rusage ru;
  static const double fractions[] = { 0.1, 0.5, 0.9 };

  if (argc < 2)
    {
      fprintf (stderr, "usage: load-bench FILE.hltrace [REPEATS]\n");
      return 2;
    }
  file = g_file_new_for_commandline_arg (argv[1]);
  t = now_ms ();
  c = cpu_ms ();
  rec = hl_recording_load (file, HL_LOAD_FLAGS_NO_SYMBOLS, NULL, NULL, NULL, &error);
  if (rec == NULL)
    {
      fprintf (stderr, "load-bench: %s\n", error->message);
      return 1;
    }
  t = now_ms () - t;
  c = cpu_ms () - c;
  hl_recording_get_summary (rec, &s);
  getrusage (RUSAGE_SELF, &ru);
  printf ("load (no symbols) %" G_GUINT64_FORMAT " calls: %.0f ms wall, %.0f ms CPU, max RSS %ld MiB\n",
          s.n_allocations + s.n_frees, t, c, ru.ru_maxrss / 1024);

  {
    guint64 bytes;
    double cpu = 0, ms = time_range (rec, 0, HL_TIME_NONE, repeats, &bytes, &cpu);
    printf ("analysis, no filter: %.1f ms wall, %.0f ms CPU (bytes %" G_GUINT64_FORMAT ")\n", ms, cpu, bytes);
  }
  for (guint i = 0; i < G_N_ELEMENTS (fractions); i++)
    {
      guint64 bytes;
      guint64 t0 = (guint64) (s.duration_ns * (0.5 - fractions[i] / 2));
      guint64 t1 = (guint64) (s.duration_ns * (0.5 + fractions[i] / 2));
      double cpu = 0, ms = time_range (rec, t0, t1, repeats, &bytes, &cpu);
      printf ("analysis, time range %2.0f %%: %.1f ms wall, %.0f ms CPU (bytes %" G_GUINT64_FORMAT ")\n",
              fractions[i] * 100, ms, cpu, bytes);
    }
  return 0;
}
