/* live-bench — issue 8's live targets, measured on a running target:
 *   live-bench PRELOAD LIVE_MANY [N_ALLOCS] [N_STACKS]
 * starts LIVE_MANY under the preload (no trace file), waits until it holds
 * N_ALLOCS live allocations over N_STACKS stacks, watches it with an
 * HlLiveSession as the application does, then times
 *  - the snapshot of the live allocations (the live table copied by the
 *    worker and diffed into the recording; first: all new; then: steady),
 *  - hl_live_session_snapshot (the frozen copy of series, call sites,
 *    metadata),
 *  - the live flame graph refresh (analysis, call tree, layout, drawing
 *    nodes: what the window builds on its workers),
 * each as wall time and this process's CPU time. Targets: snapshot
 * ≤ 50 ms at 1 M, flame graph refresh ≤ 100 ms at 100,000 stacks. */
#include "hl-config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench-cpu.h"
#include "hl-flame-data.h"
#include "hl-live-session.h"
#include "hl-model-adapter.h"
#include "hl-model.h"
#include "hl-shm-reader.h"

static void
count_slot (void                *user_data,
            const HlShmLiveSlot *slot)
{
  (*(guint64 *) user_data)++;
}

static double
wall_ms (void)
{
  return (double) g_get_monotonic_time () / 1e3;
}

static void
wait_idle (HlLiveSession *s)
{
  while (hl_live_session_is_busy (s))
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* One poll and the scan it starts, to the end. */
static void
timed_poll (HlLiveSession *s,
            double        *wall,
            double        *cpu)
{
  wait_idle (s);
  double w0 = wall_ms (), c0 = bench_cpu_ms ();
  hl_live_session_poll (s);
  while (hl_live_session_is_busy (s))
    g_main_context_iteration (NULL, TRUE);
  *wall = wall_ms () - w0;
  *cpu = bench_cpu_ms () - c0;
}

/* live-bench --watch PID: what the application's live view reads, at
 * 10 Hz, until the process is gone (the observer of bench/live.sh). */
static int
watch (guint32 pid)
{
  g_autoptr(GError) error = NULL;
  HlLiveSession *s = NULL;
  for (int i = 0; i < 500 && s == NULL; i++)
    {
      g_clear_error (&error);
      s = hl_live_session_open_pid (pid, &error);
      if (s == NULL)
        g_usleep (2000);
    }
  if (s == NULL)
    {
      g_printerr ("live-bench: %s\n", error->message);
      return 1;
    }
  hl_live_session_start (s, 100);
  while (hl_live_session_get_state (s) == HL_LIVE_STATE_RUNNING
         || hl_live_session_get_state (s) == HL_LIVE_STATE_STARTING)
    g_main_context_iteration (NULL, TRUE);
  wait_idle (s);
  printf ("watched: %u polls\n", hl_live_session_get_n_polls (s));
  g_object_unref (s);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 3 && strcmp (argv[1], "--watch") == 0)
    return watch ((guint32) g_ascii_strtoull (argv[2], NULL, 10));
  if (argc < 3)
    {
      g_printerr ("usage: live-bench PRELOAD LIVE_MANY [N_ALLOCS] [N_STACKS]\n");
      return 2;
    }
  const char *n_allocs = argc > 3 ? argv[3] : "1000000";
  const char *n_stacks = argc > 4 ? argv[4] : "100000";
  char **env = g_get_environ ();
  env = g_environ_setenv (env, "LD_PRELOAD", argv[1], TRUE);
  env = g_environ_setenv (env, "HEAPLENS_OUTPUT", "none", TRUE);
  char *child_argv[] = { argv[2], (char *) n_allocs, (char *) n_stacks, NULL };
  GPid pid;
  int in_fd, out_fd;
  g_autoptr(GError) error = NULL;
  if (!g_spawn_async_with_pipes (NULL, child_argv, env, G_SPAWN_DEFAULT, NULL, NULL, &pid, &in_fd, &out_fd, NULL,
                                 &error))
    {
      g_printerr ("live-bench: %s\n", error->message);
      return 1;
    }
  g_strfreev (env);
  char line[128] = "";
  FILE *out = fdopen (out_fd, "r");
  double t0 = wall_ms ();
  if (fgets (line, sizeof line, out) == NULL)
    {
      g_printerr ("live-bench: the target did not start\n");
      return 1;
    }
  printf ("target: %s live allocations over %s stacks (%s, made in %.1f s)\n", n_allocs, n_stacks,
          g_strchomp (line), (wall_ms () - t0) / 1e3);

  HlLiveSession *s = hl_live_session_open_pid ((guint32) pid, &error);
  if (s == NULL)
    {
      g_printerr ("live-bench: %s\n", error->message);
      return 1;
    }
  double w, c;
  /* first poll: every stack and all the live table are new */
  timed_poll (s, &w, &c);
  printf ("first poll + snapshot of the live table (all new): %.1f ms wall, %.1f ms CPU\n", w, c);
  /* symbols for the stacks (once; the series keeps feeding meanwhile) */
  double ws = wall_ms ();
  for (int i = 0; i < 100; i++)
    {
      timed_poll (s, &w, &c);
      HlRecording *rec = hl_live_session_get_recording (s);
      guint n = hl_recording_get_n_stacks (rec);
      guint nf;
      if (n > 0 && hl_recording_get_stack_frames (rec, n - 1, &nf) != NULL && nf > 0
          && !g_str_has_prefix (hl_recording_get_stack_frames (rec, n - 1, &nf)[0]->function, "live-many+"))
        break;
    }
  printf ("symbolization of the stacks: %.1f s (on a worker)\n", (wall_ms () - ws) / 1e3);
  HlSummary sum;
  hl_recording_get_summary (hl_live_session_get_recording (s), &sum);
  printf ("recording: %" G_GUINT64_FORMAT " allocations seen live, %u stacks\n", sum.n_allocations,
          hl_recording_get_n_stacks (hl_live_session_get_recording (s)));

  double best_w = G_MAXDOUBLE, best_c = G_MAXDOUBLE;
  for (int i = 0; i < 5; i++)
    {
      timed_poll (s, &w, &c);
      best_w = MIN (best_w, w);
      best_c = MIN (best_c, c);
    }
  printf ("snapshot of the live table (1 poll, steady, best of 5): %.1f ms wall, %.1f ms CPU  [target ≤ 50 ms]\n",
          best_w, best_c);

  /* the raw read of the live table, for comparison */
  {
    HlShmReader *r;
    HlFormatError ferr;
    if (hl_shm_reader_open (hl_live_session_get_name (s), &r, &ferr) == 0)
      {
        double bw = G_MAXDOUBLE, bc = G_MAXDOUBLE;
        guint64 n = 0;
        for (int i = 0; i < 5; i++)
          {
            n = 0;
            double w0 = wall_ms (), c0 = bench_thread_cpu_ms ();
            hl_shm_reader_live (r, count_slot, &n, &ferr);
            bw = MIN (bw, wall_ms () - w0);
            bc = MIN (bc, bench_thread_cpu_ms () - c0);
          }
        printf ("  of which reading the live table (%" G_GUINT64_FORMAT " slots in use): %.1f ms wall, %.1f ms CPU\n",
                n, bw, bc);
        hl_shm_reader_free (r);
      }
  }

  best_w = best_c = G_MAXDOUBLE;
  for (int i = 0; i < 5; i++)
    {
      double w0 = wall_ms (), c0 = bench_cpu_ms ();
      HlLiveSnapshot *snap = hl_live_session_snapshot (s);
      best_w = MIN (best_w, wall_ms () - w0);
      best_c = MIN (best_c, bench_cpu_ms () - c0);
      hl_live_snapshot_free (snap);
    }
  printf ("hl_live_session_snapshot (series, call sites, metadata; best of 5): %.1f ms wall, %.1f ms CPU\n", best_w,
          best_c);

  /* the live flame graph, as the window builds it (bytes live now) */
  double stage[4] = { G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE };
  best_w = best_c = G_MAXDOUBLE;
  guint n_nodes = 0;
  /* LIVE_BENCH_FLAME_ROUNDS: more rounds, for a profiler */
  int flame_rounds = g_getenv ("LIVE_BENCH_FLAME_ROUNDS") ? atoi (g_getenv ("LIVE_BENCH_FLAME_ROUNDS")) : 5;
  for (int i = 0; i < flame_rounds; i++)
    {
      double w0 = wall_ms (), c0 = bench_cpu_ms ();
      double tc0 = bench_thread_cpu_ms ();
      HlAnalysis *analysis = hl_analysis_new (hl_live_session_get_recording (s), NULL);
      double w1 = bench_thread_cpu_ms ();
      HlCallTree *tree = hl_analysis_get_call_tree (analysis, HL_CALL_TREE_TOP_DOWN, HL_COST_KIND_LEAKED);
      double w2 = bench_thread_cpu_ms ();
      HlFlameLayout *layout = hl_flame_layout_new (tree, HL_COST_KIND_LEAKED, 0.0);
      double w3 = bench_thread_cpu_ms ();
      HlFlameData *data = hl_adapter_flame_data (layout);
      double w4 = bench_thread_cpu_ms ();
      w1 -= tc0 - w0; w2 -= tc0 - w0; w3 -= tc0 - w0; w4 -= tc0 - w0;
      n_nodes = hl_flame_data_get_n_nodes (data);
      stage[0] = MIN (stage[0], w1 - w0);
      stage[1] = MIN (stage[1], w2 - w1);
      stage[2] = MIN (stage[2], w3 - w2);
      stage[3] = MIN (stage[3], w4 - w3);
      best_w = MIN (best_w, wall_ms () - w0);
      best_c = MIN (best_c, bench_cpu_ms () - c0);
      hl_flame_data_unref (data);
      hl_flame_layout_unref (layout);
      hl_call_tree_unref (tree);
      g_object_unref (analysis);
    }
  printf ("live flame graph refresh (%u nodes, best of 5): %.1f ms wall, %.1f ms CPU  [target ≤ 100 ms]\n"
          "  CPU: analysis %.1f + call tree %.1f + layout %.1f + drawing nodes %.1f ms\n",
          n_nodes, best_w, best_c, stage[0], stage[1], stage[2], stage[3]);

  close (in_fd); /* the target exits */
  fclose (out);
  g_object_unref (s);
  int status;
  waitpid (pid, &status, 0);
  return 0;
}
