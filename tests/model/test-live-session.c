/* test-live-session.c — HlLiveSession against the demo program running
 * under the preload (state, series, metadata history, call sites, the fed
 * recording, snapshot, ended / killed / vanished targets) and against
 * hostile segments built in memory (hl-shm-test-writer.h) and damaged
 * while they are read. */
#define _GNU_SOURCE
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hl-live-session.h"
#include "hl-shm-guard.h"
#include <fcntl.h>
#include <sys/mman.h>
#include "hl-shm-test-writer.h"

/* ---- A demo run under the preload ----------------------------------------- */

typedef struct
{
  GPid     pid;
  gboolean exited;
  int      status;
  char    *dir;
  char    *trace;
} Target;

static void
child_exited (GPid     pid,
              gint     status,
              gpointer user_data)
{
  Target *t = user_data;
  t->exited = TRUE;
  t->status = status;
  g_spawn_close_pid (pid);
}

/* ARGV under the preload, its trace in a new directory. */
static void
target_start_argv (Target     *t,
                   char      **argv,
                   gboolean    keep)
{
  const char *build = g_getenv ("HL_BUILD_ROOT");
  g_assert_nonnull (build);
  char *preload = g_build_filename (build, "src", "capture", "libheaplens-preload.so", NULL);
  t->dir = g_dir_make_tmp ("hl-live-XXXXXX", NULL);
  t->trace = g_build_filename (t->dir, "demo.hltrace", NULL);
  char **env = g_get_environ ();
  env = g_environ_unsetenv (env, "MALLOC_CHECK_");
  env = g_environ_unsetenv (env, "G_DEBUG");
  env = g_environ_setenv (env, "LD_PRELOAD", preload, TRUE);
  env = g_environ_setenv (env, "HEAPLENS_OUTPUT", t->trace, TRUE);
  env = g_environ_setenv (env, "HEAPLENS_FOLLOW", "all", TRUE);
  if (keep)
    env = g_environ_setenv (env, "HEAPLENS_KEEP_SESSION", "1", TRUE);
  GError *error = NULL;
  gboolean ok = g_spawn_async (NULL, argv, env,
                               G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &t->pid, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_child_watch_add (t->pid, child_exited, t);
  g_strfreev (env);
  g_free (preload);
}

static void
target_start (Target     *t,
              const char *seconds,
              gboolean    keep)
{
  g_autofree char *demo = g_build_filename (g_getenv ("HL_BUILD_ROOT"), "examples", "heaplens-demo", NULL);
  char *argv[] = { demo, (char *) "--seconds", (char *) seconds, NULL };
  target_start_argv (t, argv, keep);
}

static void
target_cleanup (Target        *t,
                HlLiveSession *s)
{
  if (!t->exited)
    kill (t->pid, SIGKILL);
  while (!t->exited)
    g_main_context_iteration (NULL, TRUE);
  if (s != NULL && hl_live_session_get_name (s) != NULL)
    {
      char *path = g_strdup_printf ("/dev/shm/%s", hl_live_session_get_name (s));
      g_unlink (path);
      g_free (path);
    }
  g_unlink (t->trace);
  g_rmdir (t->dir);
  g_free (t->trace);
  g_free (t->dir);
}

static HlLiveSession *
open_when_ready (Target *t)
{
  GError *error = NULL;
  for (int i = 0; i < 200; i++)
    {
      g_clear_error (&error);
      HlLiveSession *s = hl_live_session_open_pid ((guint32) t->pid, &error);
      if (s != NULL)
        return s;
      g_assert_true (g_error_matches (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND));
      g_usleep (20000);
    }
  g_error ("no session for the demo: %s", error->message);
  return NULL;
}

typedef struct
{
  guint    updates;
  guint    state_changes;
  guint64  max_site_live;
  gboolean saw_running;
  HlLiveSnapshot *snap;
} Watch;

static void
on_updated (HlLiveSession *s,
            gpointer       user_data)
{
  Watch *w = user_data;
  guint n;
  const HlLiveCallsite *sites = hl_live_session_get_callsites (s, &n);
  w->updates++;
  if (n > 0 && sites[0].live_bytes > w->max_site_live)
    w->max_site_live = sites[0].live_bytes;
  if (hl_live_session_get_state (s) == HL_LIVE_STATE_RUNNING)
    w->saw_running = TRUE;
  /* a snapshot in the middle of the index phase */
  GPtrArray *meta = hl_live_session_get_metadata (s);
  for (guint i = 0; i < meta->len && w->snap == NULL; i++)
    {
      HlLiveMetaInterval *m = g_ptr_array_index (meta, i);
      if (strcmp (m->key, "phase") == 0 && strcmp (m->value, "index") == 0)
        w->snap = hl_live_session_snapshot (s);
    }
}

static void
on_state (GObject    *object,
          GParamSpec *pspec,
          gpointer    user_data)
{
  ((Watch *) user_data)->state_changes++;
}

static gboolean
is_final (HlLiveSession *s)
{
  HlLiveState st = hl_live_session_get_state (s);
  return st != HL_LIVE_STATE_RUNNING && st != HL_LIVE_STATE_STARTING;
}

static void
run_until_final (HlLiveSession *s,
                 guint          timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  while (!is_final (s) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
}

/* Returns with no worker in flight and nothing pending. Draining the
 * pending events can dispatch a poll that starts a new scan (and a scan
 * refuses a hold), so it waits and drains until both hold at once. */
static void
wait_idle (HlLiveSession *s)
{
  do
    {
      while (hl_live_session_is_busy (s))
        g_main_context_iteration (NULL, TRUE);
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
  while (hl_live_session_is_busy (s));
}

/* Runs the main loop for MS milliseconds (the session polls meanwhile). */
static void
run_for_ms (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;
  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
}

/* The demo target, its session opened and polled every 50 ms for at
 * least half a second and until it is seen running (a loaded machine can
 * take seconds to start an ASan target): a program running and seen
 * running. */
static HlLiveSession *
start_polled (Target *t)
{
  target_start (t, "30", FALSE);
  HlLiveSession *s = open_when_ready (t);
  hl_live_session_start (s, 50);
  run_for_ms (500);
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (hl_live_session_get_state (s) == HL_LIVE_STATE_STARTING
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (hl_live_session_get_state (s), ==, HL_LIVE_STATE_RUNNING);
  return s;
}

static gboolean
frame_named (HlRecording *rec,
             const char  *prefix)
{
  guint n_stacks = hl_recording_get_n_stacks (rec);
  for (guint s = 0; s < n_stacks; s++)
    {
      guint n;
      const HlFrame * const *frames = hl_recording_get_stack_frames (rec, s, &n);
      for (guint f = 0; f < n; f++)
        if (g_str_has_prefix (frames[f]->function, prefix))
          return TRUE;
    }
  return FALSE;
}

static void
test_demo (void)
{
  Target t = { 0 };
  Watch w = { 0 };
  target_start (&t, "3", TRUE);
  HlLiveSession *s = open_when_ready (&t);
  g_assert_cmpuint (hl_live_session_get_pid (s), ==, (guint32) t.pid);
  g_assert_true (g_str_has_suffix (hl_live_session_get_exe (s), "heaplens-demo"));
  g_assert_nonnull (strstr (hl_live_session_get_cmdline (s), "--seconds 3"));
  /* a session opened while STARTING learns its trace's path at a poll */
  for (int i = 0; i < 500 && hl_live_session_get_trace_path (s)[0] == '\0'; i++)
    {
      hl_live_session_poll (s);
      g_usleep (10000);
    }
  g_assert_cmpstr (hl_live_session_get_trace_path (s), ==, t.trace);
  g_signal_connect (s, "updated", G_CALLBACK (on_updated), &w);
  g_signal_connect (s, "notify::state", G_CALLBACK (on_state), &w);

  gint64 t0 = g_get_monotonic_time ();
  hl_live_session_start (s, 100);
  run_until_final (s, 60);
  double elapsed = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;

  g_assert_cmpstr (hl_live_state_to_string (hl_live_session_get_state (s)), ==, "ended");
  g_assert_cmpint (hl_live_session_get_exit_status (s), ==, 0);
  g_assert_true (w.saw_running);
  g_assert_cmpuint (w.state_changes, >=, 1);
  /* ≥ 5 polls per second (10 asked for; leave room for a loaded machine) */
  g_test_message ("%u polls, %u updates in %.2f s", hl_live_session_get_n_polls (s), w.updates, elapsed);
  g_assert_cmpfloat ((double) hl_live_session_get_n_polls (s), >=, 5.0 * elapsed);

  /* the counters as a growing series: times increase, the heap was nonzero */
  guint n;
  const HlLiveSample *samples = hl_live_session_get_samples (s, &n);
  g_assert_cmpuint (n, >=, 20);
  guint64 max_heap = 0;
  for (guint i = 1; i < n; i++)
    {
      g_assert_cmpuint (samples[i].time_ns, >, samples[i - 1].time_ns);
      max_heap = MAX (max_heap, samples[i].heap_bytes);
    }
  g_assert_cmpuint (max_heap, >, 1024 * 1024);
  HlLiveTotals tot;
  hl_live_session_get_totals (s, &tot);
  g_assert_cmpuint (tot.n_allocs, >, 1000);
  g_assert_cmpuint (tot.peak_heap_bytes, >=, max_heap);
  g_assert_cmpuint (w.max_site_live, >, 0);
  /* the moment the totals are of: after their peak and every sample read
   * with them (issue 27.6) */
  g_assert_cmpuint (hl_live_session_get_totals_time_ns (s), >=, tot.peak_heap_time_ns);
  g_assert_cmpuint (hl_live_session_get_totals_time_ns (s), >=, samples[n - 1].time_ns);

  /* the call-site table's exact counters per stack of the recording add
   * up to the totals (the recording itself holds a sample) */
  guint n_stacks = 0;
  g_autofree HlCosts *stack_costs = hl_live_session_get_stack_costs (s, &n_stacks);
  HlCosts all = { 0 };
  g_assert_cmpuint (n_stacks, ==, hl_recording_get_n_stacks (hl_live_session_get_recording (s)));
  for (guint i = 0; i < n_stacks; i++)
    hl_costs_add (&all, &stack_costs[i]);
  g_assert_cmpuint (all.allocations, ==, tot.n_allocs);
  g_assert_cmpuint (all.bytes, ==, tot.bytes_allocated);
  g_assert_cmpuint (all.leaked_bytes, ==, tot.bytes_allocated - tot.bytes_freed);
  g_assert_cmpuint (all.leaked_blocks, ==, tot.n_allocs - tot.n_frees);

  /* metadata history: phase load → index → query, each an interval */
  GPtrArray *h = hl_live_session_get_history (s);
  const char *want[] = { "load", "index", "query" };
  guint next = 0;
  for (guint i = 0; i < h->len; i++)
    {
      HlLiveMetaInterval *m = g_ptr_array_index (h, i);
      if (strcmp (m->key, "phase") == 0 && next < 3)
        {
          g_assert_cmpstr (m->value, ==, want[next]);
          if (next < 2)
            g_assert_cmpuint (m->end_ns, >, m->start_ns);
          next++;
        }
    }
  g_assert_cmpuint (next, ==, 3);

  /* the snapshot froze the index phase while the session went on */
  g_assert_nonnull (w.snap);
  g_assert_cmpint (w.snap->state, ==, HL_LIVE_STATE_RUNNING);
  g_assert_cmpuint (w.snap->samples->len, <, n);
  gboolean snap_index = FALSE;
  for (guint i = 0; i < w.snap->metadata->len; i++)
    {
      HlLiveMetaInterval *m = g_ptr_array_index (w.snap->metadata, i);
      if (strcmp (m->key, "phase") == 0)
        snap_index = strcmp (m->value, "index") == 0;
    }
  g_assert_true (snap_index);
  g_assert_cmpuint (w.snap->callsites->len, >, 0);
  hl_live_snapshot_free (w.snap);

  /* the recording fed through the model's sink: allocations, counters,
   * metadata intervals, the end, and symbols from /proc/PID/maps */
  wait_idle (s);
  HlRecording *rec = hl_live_session_get_recording (s);
  HlSummary sum;
  hl_recording_get_summary (rec, &sum);
  g_assert_cmpuint (sum.n_allocations, >, 0);
  g_test_message ("recording: %" G_GUINT64_FORMAT " allocations seen, %" G_GUINT64_FORMAT " bytes live at the end; "
                  "session: heap %" G_GUINT64_FORMAT, sum.n_allocations, sum.leaked_bytes, tot.heap_bytes);
  g_assert_true (sum.has_exit_status);
  g_assert_cmpint (sum.exit_status, ==, 0);
  guint n_iv;
  const HlMetaInterval *iv = hl_recording_get_metadata_intervals (rec, &n_iv);
  gboolean rec_query = FALSE;
  for (guint i = 0; i < n_iv; i++)
    rec_query |= strcmp (iv[i].key, "phase") == 0 && strcmp (iv[i].value, "query") == 0;
  g_assert_true (rec_query);
  hl_recording_symbolize (rec, NULL);
  g_assert_true (frame_named (rec, "demo_"));
  g_assert_null (hl_live_session_get_warnings (s)[0]);

  target_cleanup (&t, s);
  g_object_unref (s);
}


/* A sampled session (HEAPLENS_SAMPLE_BYTES): the preload's call-site
 * sums weigh each sampled block as the readers weigh it in the trace, so
 * the live numbers are the trace's estimates exactly, and the live
 * recording knows it is sampled. */
static void
test_sampled (void)
{
  Target t = { 0 };
  g_setenv ("HEAPLENS_SAMPLE_BYTES", "4096", TRUE);
  target_start (&t, "2", TRUE);
  g_unsetenv ("HEAPLENS_SAMPLE_BYTES");
  HlLiveSession *s = open_when_ready (&t);
  hl_live_session_start (s, 100);
  run_until_final (s, 60);
  g_assert_cmpstr (hl_live_state_to_string (hl_live_session_get_state (s)), ==, "ended");
  wait_idle (s);

  guint n_stacks = 0;
  g_autofree HlCosts *stack_costs = hl_live_session_get_stack_costs (s, &n_stacks);
  HlCosts live = { 0 };
  for (guint i = 0; i < n_stacks; i++)
    hl_costs_add (&live, &stack_costs[i]);
  HlLiveTotals tot;
  hl_live_session_get_totals (s, &tot);
  g_assert_cmpuint (hl_recording_get_sample_bytes (hl_live_session_get_recording (s)), ==, 4096);

  g_autoptr (GFile) file = g_file_new_for_path (t.trace);
  GError *error = NULL;
  g_autoptr (HlRecording) trace = hl_recording_load (file, HL_LOAD_FLAGS_NO_SYMBOLS, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  HlSummary sum;
  hl_recording_get_summary (trace, &sum);
  g_test_message ("exact %" G_GUINT64_FORMAT " allocations, %" G_GUINT64_FORMAT " bytes; live estimate %"
                  G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "; trace estimate %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT,
                  tot.n_allocs, tot.bytes_allocated, live.allocations, live.bytes, sum.n_allocations,
                  sum.bytes_allocated);
  g_assert_cmpuint (hl_recording_get_sample_bytes (trace), ==, 4096);
  g_assert_cmpuint (live.allocations, ==, sum.n_allocations);
  g_assert_cmpuint (live.bytes, ==, sum.bytes_allocated);
  /* an estimate, not the count of the sampled blocks: near the exact
   * counters (3545 allocations of 9.7 MiB in the demo; at 4 KiB the
   * bytes' relative error is about 2 %) */
  g_assert_cmpfloat (fabs ((double) live.bytes - (double) tot.bytes_allocated), <, 0.15 * (double) tot.bytes_allocated);
  g_assert_cmpfloat (fabs ((double) live.allocations - (double) tot.n_allocs), <, 0.5 * (double) tot.n_allocs);

  target_cleanup (&t, s);
  g_object_unref (s);
}

/* Symbols are resolved on a worker while the polls go on feeding the
 * recording: the series grows from the first polls, not after the first
 * (slow) symbolization; the frames found land at a later poll. */
static void
test_feeds_while_symbolizing (void)
{
  Target t = { 0 };
  target_start (&t, "3", FALSE);
  HlLiveSession *s = open_when_ready (&t);
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!hl_live_session_is_symbolizing (s) && !is_final (s) && g_get_monotonic_time () < deadline)
    {
      hl_live_session_poll (s);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  g_assert_true (hl_live_session_is_symbolizing (s));
  /* no main loop turn: the worker's result cannot land in between */
  guint before, after;
  hl_live_session_get_samples (s, &before);
  HlSummary sum_before, sum_after;
  hl_recording_get_summary (hl_live_session_get_recording (s), &sum_before);
  g_usleep (60000);
  hl_live_session_poll (s);
  hl_live_session_get_samples (s, &after);
  hl_recording_get_summary (hl_live_session_get_recording (s), &sum_after);
  g_test_message ("samples %u -> %u while symbolizing", before, after);
  g_assert_true (hl_live_session_is_symbolizing (s));
  g_assert_cmpuint (after, >, before);
  /* the names arrive at a later poll */
  while (!frame_named (hl_live_session_get_recording (s), "demo_") && g_get_monotonic_time () < deadline)
    {
      hl_live_session_poll (s);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  g_assert_true (frame_named (hl_live_session_get_recording (s), "demo_"));
  target_cleanup (&t, s);
  wait_idle (s);
  g_object_unref (s);
}


/* A reader that attaches late, after more metadata changes than the
 * segment's log keeps (the demo makes > 1000: 480 documents, 600
 * requests): the older history comes from the trace file. */
static gboolean
history_has (HlLiveSession *s,
             const char    *key,
             const char    *value)
{
  GPtrArray *h = hl_live_session_get_history (s);
  for (guint i = 0; i < h->len; i++)
    {
      const HlLiveMetaInterval *m = g_ptr_array_index (h, i);
      if (strcmp (m->key, key) == 0 && strcmp (m->value, value) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
test_history_from_trace (void)
{
  Target t = { 0 };
  target_start (&t, "3", FALSE);
  /* late: well into the query phase (the first phases left the ring) */
  g_usleep (2600000);
  HlLiveSession *s = open_when_ready (&t);
  hl_live_session_poll (s);
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!(history_has (s, "phase", "load") && history_has (s, "phase", "index")) && g_get_monotonic_time () < deadline)
    {
      hl_live_session_poll (s);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  guint n_docs = 0;
  GPtrArray *h = hl_live_session_get_history (s);
  for (guint i = 0; i < h->len; i++)
    n_docs += strcmp (((HlLiveMetaInterval *) g_ptr_array_index (h, i))->key, "document") == 0;
  g_test_message ("history: %u intervals, %u documents", h->len, n_docs);
  g_assert_true (history_has (s, "phase", "load"));
  g_assert_true (history_has (s, "phase", "index"));
  g_assert_true (history_has (s, "phase", "query"));
  g_assert_cmpuint (h->len, >, 600);
  /* intervals in time order, each key's intervals not overlapping */
  for (guint i = 1; i < h->len; i++)
    g_assert_cmpuint (((HlLiveMetaInterval *) g_ptr_array_index (h, i - 1))->start_ns, <=,
                      ((HlLiveMetaInterval *) g_ptr_array_index (h, i))->start_ns);
  target_cleanup (&t, s);
  wait_idle (s);
  g_object_unref (s);
}

static void
test_sigkill (void)
{
  Target t = { 0 };
  HlLiveSession *s = start_polled (&t);
  kill (t.pid, SIGKILL);
  run_until_final (s, 20);
  /* killed: the segment is left RUNNING by a process that is gone */
  g_assert_cmpstr (hl_live_state_to_string (hl_live_session_get_state (s)), ==, "stale");
  target_cleanup (&t, s);
  g_object_unref (s);
}

/* A program that allocates nothing for longer than the heartbeat's 5 s
 * (one waiting for input) is running, not stale; once killed (a zombie
 * until reaped) it is stale. */
static void
test_idle_target (void)
{
  Target t = { 0 };
  char *argv[] = { (char *) "/bin/sleep", (char *) "30", NULL };
  target_start_argv (&t, argv, FALSE);
  HlLiveSession *s = open_when_ready (&t);
  hl_live_session_start (s, 50);
  run_for_ms (6500);
  g_assert_cmpstr (hl_live_state_to_string (hl_live_session_get_state (s)), ==, "running");
  kill (t.pid, SIGKILL);
  run_until_final (s, 20);
  g_assert_cmpstr (hl_live_state_to_string (hl_live_session_get_state (s)), ==, "stale");
  target_cleanup (&t, s);
  g_object_unref (s);
}

/* A session whose name is removed while its program runs (someone else's
 * `sessions --prune`) is still read through its mapping; once the program
 * is killed it has vanished, and what was read stays. */
static void
test_vanished (void)
{
  Target t = { 0 };
  target_start (&t, "30", FALSE);
  HlLiveSession *s = open_when_ready (&t);
  hl_live_session_start (s, 50);
  char *path = g_strdup_printf ("/dev/shm/%s", hl_live_session_get_name (s));
  g_assert_cmpint (g_unlink (path), ==, 0);
  HlLiveTotals before, after, last;
  hl_live_session_get_totals (s, &before);
  run_for_ms (1500);
  g_assert_cmpstr (hl_live_state_to_string (hl_live_session_get_state (s)), ==, "running");
  hl_live_session_get_totals (s, &after);
  g_assert_cmpuint (after.n_allocs, >, before.n_allocs);
  const char * const *warnings = hl_live_session_get_warnings (s);
  g_assert_nonnull (warnings[0]);
  g_assert_nonnull (strstr (warnings[0], "name was removed"));

  kill (t.pid, SIGKILL);
  run_until_final (s, 20);
  g_assert_cmpstr (hl_live_state_to_string (hl_live_session_get_state (s)), ==, "vanished");
  /* still readable: the mapping outlives the name and the program */
  hl_live_session_get_totals (s, &last);
  g_assert_cmpuint (last.n_allocs, >=, after.n_allocs);
  g_free (path);
  target_cleanup (&t, s);
  g_object_unref (s);
}

/* The program ends while a reader (a window's analysis) holds the
 * recording: the poll that sees the end cannot feed it. Polling goes on
 * until one does, so that the end's appends land, "updated" says so and
 * the next hold is granted (it stopped at the end, and every hold was
 * refused from then on: a window never showed the last totals). */
static void
on_updated_count (HlLiveSession *s,
                  gpointer       user_data)
{
  (*(guint *) user_data)++;
}

static void
test_end_while_held (void)
{
  Target t = { 0 };
  HlLiveSession *s = start_polled (&t);
  wait_idle (s);
  g_assert_true (hl_live_session_hold (s));
  kill (t.pid, SIGKILL);
  run_until_final (s, 20);
  g_assert_true (is_final (s));
  /* held through the end: the final poll did not feed */
  g_assert_false (hl_live_session_hold (s));
  guint updated = 0;
  gulong id = g_signal_connect (s, "updated", G_CALLBACK (on_updated_count), &updated);
  hl_live_session_release (s);
  gboolean held = FALSE;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!held && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, TRUE);
      held = updated > 0 && hl_live_session_hold (s);
    }
  g_assert_cmpuint (updated, >, 0);
  g_assert_true (held);
  hl_live_session_release (s);
  g_signal_handler_disconnect (s, id);
  target_cleanup (&t, s);
  wait_idle (s);
  g_object_unref (s);
}

static void
test_not_found (void)
{
  GError *error = NULL;
  HlLiveSession *s = hl_live_session_open_pid (G_MAXUINT32 - 7, &error);
  g_assert_null (s);
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  s = hl_live_session_open_name ("heaplens-0-1-doesnotexist", &error);
  g_assert_null (s);
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED);
  g_clear_error (&error);
}

/* ---- Hostile segments in memory ----------------------------------------- */

static void
build_segment (HlShmTestSegment *seg)
{
  hl_shm_test_init (seg, (uint32_t) getuid (), 4242, 64, 16384, 64, 256);
  const guint64 f1[] = { 0x401000, 0x402000, 0x403000 };
  const guint64 f2[] = { 0x401100, 0x402000 };
  hl_shm_test_add_stack (seg, 1, f1, 3);
  hl_shm_test_add_stack (seg, 2, f2, 2);
  hl_shm_test_add_thread (seg, 4242, "main");
  hl_shm_test_live (seg, 3, 0x10000, 7, 100, 1, 4242);
  hl_shm_test_live (seg, 9, 0x20000, 8, 300, 2, 4242);
  hl_shm_test_meta (seg, "phase", 0, "load");
  hl_shm_test_meta (seg, "request", 12, NULL);
  for (guint i = 1; i <= 30; i++)
    hl_shm_test_sample (seg, i * 10000000u, i * 1000u, 4u << 20);
}

static void
test_memory_segment (void)
{
  HlShmTestSegment seg;
  GError *error = NULL;
  build_segment (&seg);
  HlLiveSession *s = hl_live_session_open_memory (seg.base, seg.size, (guint32) getuid (), &error);
  g_assert_no_error (error);
  g_assert_cmpint (hl_live_session_get_state (s), ==, HL_LIVE_STATE_RUNNING);
  guint n;
  const HlLiveSample *samples = hl_live_session_get_samples (s, &n);
  g_assert_cmpuint (n, ==, 30);
  g_assert_cmpuint (samples[29].heap_bytes, ==, 30000);
  const HlLiveCallsite *sites = hl_live_session_get_callsites (s, &n);
  g_assert_cmpuint (n, ==, 2);
  /* stack 2: 2000 bytes, 1000 freed → 1000 live; stack 1: 500 live */
  g_assert_cmpuint (sites[0].stack_id, ==, 2);
  g_assert_cmpuint (sites[0].live_bytes, ==, 1000);
  g_assert_cmpuint (sites[0].live_count, ==, 10);
  g_assert_cmpuint (sites[0].n_frames, ==, 2);
  g_assert_cmpuint (sites[0].frames[0], ==, 0x401100);
  g_assert_cmpuint (sites[1].live_bytes, ==, 500);
  GPtrArray *meta = hl_live_session_get_metadata (s);
  g_assert_cmpuint (meta->len, ==, 2);
  g_assert_cmpstr (((HlLiveMetaInterval *) g_ptr_array_index (meta, 0))->value, ==, "load");
  g_assert_cmpstr (((HlLiveMetaInterval *) g_ptr_array_index (meta, 1))->value, ==, "12");

  /* the live table reaches the recording through a worker */
  while (g_main_context_iteration (NULL, FALSE) || hl_live_session_get_n_polls (s) < 1)
    ;
  gint64 until = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  HlSummary sum = { 0 };
  while (sum.n_allocations < 2 && g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      hl_recording_get_summary (hl_live_session_get_recording (s), &sum);
    }
  g_assert_cmpuint (sum.n_allocations, ==, 2);
  g_assert_cmpuint (sum.bytes_allocated, ==, 400);

  /* a change of metadata closes the previous interval */
  wait_idle (s);
  hl_shm_test_meta (&seg, "phase", 0, "query");
  hl_live_session_poll (s);
  GPtrArray *h = hl_live_session_get_history (s);
  g_assert_cmpuint (h->len, ==, 3);
  g_assert_cmpuint (((HlLiveMetaInterval *) g_ptr_array_index (h, 0))->end_ns, !=, G_MAXUINT64);
  g_assert_cmpstr (((HlLiveMetaInterval *) g_ptr_array_index (h, 2))->value, ==, "query");

  /* a program it started ran without the preload: the flag, set while it
   * runs, is seen at the next poll */
  g_assert_false (hl_live_session_get_unfollowed (s));
  __atomic_fetch_or (&seg.h->flags, (guint32) HL_SHM_FLAG_UNFOLLOWED, __ATOMIC_RELAXED);
  hl_live_session_poll (s);
  g_assert_true (hl_live_session_get_unfollowed (s));

  /* ended: exit status through the state */
  seg.h->exit_status = 3;
  __atomic_store_n (&seg.h->state_atomic, HL_SHM_STATE_ENDED, __ATOMIC_RELEASE);
  hl_live_session_poll (s);
  g_assert_cmpint (hl_live_session_get_state (s), ==, HL_LIVE_STATE_ENDED);
  g_assert_cmpint (hl_live_session_get_exit_status (s), ==, 3);
  seg.h->flags |= HL_SHM_FLAG_ENDED_BY_EXEC;
  hl_live_session_poll (s);
  g_assert_cmpint (hl_live_session_get_state (s), ==, HL_LIVE_STATE_RESTARTED);

  wait_idle (s);
  g_object_unref (s);
  hl_shm_test_clear (&seg);
}

static void
test_refused (void)
{
  HlShmTestSegment seg;
  GError *error = NULL;
  build_segment (&seg);

  memcpy (seg.h->magic, "GARBAGE", 8);
  g_assert_null (hl_live_session_open_memory (seg.base, seg.size, (guint32) getuid (), &error));
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED);
  g_clear_error (&error);
  memcpy (seg.h->magic, HL_SHM_MAGIC, 8);

  seg.h->version = HL_SHM_VERSION + 1;
  g_assert_null (hl_live_session_open_memory (seg.base, seg.size, (guint32) getuid (), &error));
  g_assert_nonnull (strstr (error->message, "version"));
  g_clear_error (&error);
  seg.h->version = HL_SHM_VERSION;

  g_assert_null (hl_live_session_open_memory (seg.base, seg.size, (guint32) getuid () + 1, &error));
  g_assert_nonnull (strstr (error->message, "uid"));
  g_clear_error (&error);

  seg.h->callsites.offset = seg.size + 4096;
  g_assert_null (hl_live_session_open_memory (seg.base, seg.size, (guint32) getuid (), &error));
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED);
  g_clear_error (&error);

  g_assert_null (hl_live_session_open_memory (seg.base, 2048, (guint32) getuid (), &error));
  g_assert_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED);
  g_clear_error (&error);
  hl_shm_test_clear (&seg);
}

/* Regions overwritten while the session reads them: warnings, no crash. */
static void
test_rewritten (void)
{
  HlShmTestSegment seg;
  GError *error = NULL;
  build_segment (&seg);
  HlLiveSession *s = hl_live_session_open_memory (seg.base, seg.size, (guint32) getuid (), &error);
  g_assert_no_error (error);

  /* targeted damage first */
  seg.rh->watermark_atomic = G_MAXUINT64 / 2;
  seg.ch->n_slots = G_MAXUINT64 / 40;
  seg.lh->n_slots = G_MAXUINT64 / 40;
  seg.meta->n_items_atomic = 1000000;
  seg.meta->items[0].seq_atomic = 1; /* a writer that never finishes */
  seg.cnt->n_samples_atomic = G_MAXUINT64 - 3;
  hl_live_session_poll (s);
  wait_idle (s);
  g_assert_nonnull (hl_live_session_get_warnings (s)[0]);

  /* then random bytes over everything after the header, many times */
  GRand *rand = g_rand_new_with_seed (8);
  for (int round = 0; round < 300; round++)
    {
      for (int k = 0; k < 64; k++)
        {
          gsize at = HL_SHM_HEADER_SIZE + g_rand_int_range (rand, 0, (gint32) (seg.size - HL_SHM_HEADER_SIZE - 8));
          seg.base[at] = (guint8) g_rand_int (rand);
        }
      if (round % 50 == 0)
        memset (seg.base + HL_SHM_HEADER_SIZE, 0xff, 4096);
      hl_live_session_poll (s);
      wait_idle (s);
    }
  /* the header copy taken at open stays what it was */
  g_assert_cmpuint (hl_live_session_get_pid (s), ==, 4242);
  HlLiveSnapshot *snap = hl_live_session_snapshot (s);
  g_assert_nonnull (snap);
  hl_live_snapshot_free (snap);
  g_rand_free (rand);
  wait_idle (s);
  g_object_unref (s);
  hl_shm_test_clear (&seg);
}

/* A read past the end of a mapping whose file shrank: SIGBUS, caught. */
static void
read_past_end (gpointer data)
{
  volatile const guint8 *p = data;
  guint8 sum = 0;
  for (gsize i = 0; i < 4 * 4096; i += 4096)
    sum = (guint8) (sum + p[i]);
  (void) sum;
}

static void
nothing (gpointer data)
{
  *(int *) data = 42;
}

static void
test_sigbus_guard (void)
{
  g_autofree char *path = g_strdup_printf ("/dev/shm/heaplens-%u-%u-guardtest", (unsigned) getuid (), (unsigned) getpid ());
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, 4 * 4096), ==, 0);
  void *map = mmap (NULL, 4 * 4096, PROT_READ, MAP_SHARED, fd, 0);
  g_assert_true (map != MAP_FAILED);
  g_assert_cmpint (ftruncate (fd, 4096), ==, 0);
  g_assert_false (hl_shm_guard_run (read_past_end, map));
  /* again (the handler is re-armed), and a guard that returns normally */
  g_assert_false (hl_shm_guard_run (read_past_end, map));
  int v = 0;
  g_assert_true (hl_shm_guard_run (nothing, &v));
  g_assert_cmpint (v, ==, 42);

  /* a real file segment truncated under an open session: refused or
   * stopped with a warning, never a crash */
  HlShmTestSegment seg;
  build_segment (&seg);
  g_assert_cmpint (ftruncate (fd, 0), ==, 0);
  g_assert_cmpint (pwrite (fd, seg.base, seg.size, 0), ==, (ssize_t) seg.size);
  GError *error = NULL;
  HlLiveSession *s = hl_live_session_open_name (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ftruncate (fd, HL_SHM_HEADER_SIZE + 64), ==, 0);
  hl_live_session_poll (s);
  wait_idle (s);
  g_assert_nonnull (hl_live_session_get_warnings (s)[0]);
  g_object_unref (s);
  hl_shm_test_clear (&seg);
  munmap (map, 4 * 4096);
  close (fd);
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/live/memory-segment", test_memory_segment);
  g_test_add_func ("/live/refused", test_refused);
  g_test_add_func ("/live/rewritten", test_rewritten);
  g_test_add_func ("/live/not-found", test_not_found);
  g_test_add_func ("/live/sigbus-guard", test_sigbus_guard);
  g_test_add_func ("/live/demo", test_demo);
  g_test_add_func ("/live/sampled", test_sampled);
  g_test_add_func ("/live/sigkill", test_sigkill);
  g_test_add_func ("/live/idle-target", test_idle_target);
  g_test_add_func ("/live/feeds-while-symbolizing", test_feeds_while_symbolizing);
  g_test_add_func ("/live/history-from-trace", test_history_from_trace);
  g_test_add_func ("/live/vanished", test_vanished);
  g_test_add_func ("/live/end-while-held", test_end_while_held);
  return g_test_run ();
}
