/* hl-cli-record-stream.c — compressing the recorded program's traces while
 * it runs (hl-cli-record-stream.h). */
#include "hl-config.h"

#include "hl-cli-record-stream.h"

#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hl-cli-record-follow.h"
#include "hl-cli-session-file.h"
#include "hl-model.h"
#include "hl-shm-reader.h"
#include "hl-trace-compress-stream.h"
#include "hl-trace-zstd.h"

/* Often, so that the stream starts early and little is left at the exit;
 * a poll with nothing new costs a directory read and a stat, and 10 ms
 * polls cost python3's recording 0.07 s more CPU than 50 ms ones. */
#define POLL_INTERVAL_US (20 * 1000)
#define IDLE_POLL_INTERVAL_US (160 * 1000)

struct HlRecordStreams
{
  HlLaunchFamily *family;    /* the program's processes */
  int         level;
  bool        costs;
  GThread    *thread;
  GMutex      lock;          /* stop, and the wait between polls */
  GCond       wake;
  bool        stop;
  GHashTable *seen;          /* segment name -> 1: read once, settled */
  GHashTable *streams;       /* trace path -> HlTraceCompressStream (NULL: failed) */
  GHashTable *costs_of;      /* trace path -> HlCostsStream */
  GHashTable *payloads;      /* trace path -> CostsResult */
  HlFollowTuning tuning;     /* the threads' nice values, the costs' lag */
  double      follow_cpu_s;  /* the compress thread's CPU while the program ran */
  const HlRecordProfiles *profiles;  /* borrowed; NULL or off: none */
};

/* What following a trace's costs gave: a recording, or why not. */
typedef struct
{
  HlRecording *costs;
  char        *why;
  bool         lagged;
} CostsResult;

static void
costs_result_free (gpointer p)
{
  CostsResult *r = p;
  g_clear_object (&r->costs);
  g_free (r->why);
  g_free (r);
}

/* The costs of a trace finished (hl_costs_stream_finish()), on a thread
 * of their own beside the compressed trace's sync. */
typedef struct
{
  HlCostsStream *costs;
  CostsResult   *result;
  gint64         done_us;
} CostsFinish;

static gpointer
costs_finish_thread (gpointer data)
{
  CostsFinish *job = data;
  GError *error = NULL;
  CostsResult *r = g_new0 (CostsResult, 1);
  r->costs = hl_costs_stream_finish (job->costs, &error);
  r->why = error != NULL ? g_strdup (error->message) : NULL;
  r->lagged = hl_costs_stream_lagged (job->costs);
  if (r->lagged)
    {
      g_free (r->why);
      r->why = g_strdup (hl_costs_stream_lag_reason (job->costs));
    }
  g_clear_error (&error);
  job->result = r;
  job->done_us = g_get_monotonic_time ();
  return NULL;
}

/* A segment of the program or of a descendant whose parent is known? */
static void
discover_cb (const char *name,
             void       *user_data)
{
  HlRecordStreams *rs = user_data;
  if (g_hash_table_contains (rs->seen, name))
    return;
  HlCliSession s;
  char err[256];
  if (!hl_cli_session_read (name, &s, err, sizeof err))
    return; /* not ready or not ours: read again next time */
  HlLaunchFamilyVerdict verdict = hl_launch_family_judge (rs->family, s.header.pid, s.header.ppid,
                                                          s.header.start_wall_ns, s.header.launcher_pid);
  if (verdict == HL_LAUNCH_FAMILY_BEFORE)
    {
      g_hash_table_add (rs->seen, g_strdup (name));
      return;
    }
  if (verdict == HL_LAUNCH_FAMILY_OTHER)
    return; /* a descendant whose parent's session is not seen yet, or another program's */
  const char *trace = s.header.trace_path;
  /* the preload writes the path, then says RUNNING (release): until then
   * it may be empty or half copied; read again next time */
  if (s.header.state_atomic == HL_SHM_STATE_STARTING || trace[0] == '\0')
    return;
  g_hash_table_add (rs->seen, g_strdup (name));
  if (g_hash_table_contains (rs->streams, trace))
    return;
  HlTraceCompressStream *stream = hl_trace_compress_stream_new (trace, trace, hl_trace_codec_zstd (rs->level), 0);
  /* the compressed image ends with the trailing index (the plain file,
   * which the costs follow, does not) */
  if (stream != NULL)
    hl_trace_compress_stream_set_index (stream, true);
  g_hash_table_insert (rs->streams, g_strdup (trace), stream);
  if (rs->costs && stream != NULL)
    {
      HlCostsStream *costs = hl_follow_costs_new (&rs->tuning, rs->profiles, 0, 0);
      hl_trace_compress_stream_set_packet_func (stream, hl_costs_stream_take, costs);
      g_hash_table_insert (rs->costs_of, g_strdup (trace), costs);
    }
}

/* Polls every stream: the bytes taken in so far, all streams together. */
static unsigned long long
poll_streams (HlRecordStreams *rs)
{
  GHashTableIter it;
  gpointer key, value;
  unsigned long long taken = 0;
  g_hash_table_iter_init (&it, rs->streams);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      HlFormatError err;
      if (value != NULL && hl_trace_compress_stream_poll (value, &err) != 0)
        {
          /* the end compresses this one whole and says why if it fails again */
          if (getenv ("HEAPLENS_RECORD_COSTS_VERBOSE") != NULL)
            fprintf (stderr, "heaplens: following %s stopped: %s\n", (const char *) key, err.message);
          hl_trace_compress_stream_free (value);
          g_hash_table_iter_replace (&it, NULL);
          g_hash_table_remove (rs->costs_of, key);
        }
      else if (value != NULL)
        taken += hl_trace_compress_stream_taken (value);
    }
  return taken;
}

static gpointer
follow (gpointer data)
{
  HlRecordStreams *rs = data;
  /* Linux: this thread's own nice value; the program goes first */
  if (rs->tuning.compress_nice != 0 && setpriority (PRIO_PROCESS, 0, rs->tuning.compress_nice) != 0)
    g_debug ("compress thread: setpriority: %s", g_strerror (errno));
  unsigned long long taken = 0;
  gint64 interval = POLL_INTERVAL_US;
  g_mutex_lock (&rs->lock);
  while (!rs->stop)
    {
      g_mutex_unlock (&rs->lock);
      hl_cli_session_foreach (discover_cb, rs);
      unsigned long long now_taken = poll_streams (rs);
      /* nothing new (a program waiting for input): poll less often, up
       * to IDLE_POLL_INTERVAL_US; back to the short interval at once */
      interval = now_taken != taken ? POLL_INTERVAL_US : MIN (interval * 2, IDLE_POLL_INTERVAL_US);
      taken = now_taken;
      gint64 until = g_get_monotonic_time () + interval;
      g_mutex_lock (&rs->lock);
      /* stop wakes it at once: the program's exit is not kept waiting */
      while (!rs->stop && g_cond_wait_until (&rs->wake, &rs->lock, until))
        ;
    }
  g_mutex_unlock (&rs->lock);
  /* HEAPLENS_DEBUG=timing: what compressing while the program ran cost */
  struct timespec cpu;
  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
    rs->follow_cpu_s = (double) cpu.tv_sec + (double) cpu.tv_nsec / 1e9;
  return NULL;
}

static void
stream_free (gpointer p)
{
  hl_trace_compress_stream_free (p);
}

static void
costs_free (gpointer p)
{
  hl_costs_stream_free (p);
}

HlRecordStreams *
hl_record_streams_start (pid_t                   pid,
                         uint64_t                since_wall_ns,
                         int                     level,
                         bool                    costs,
                         const HlRecordProfiles *profiles)
{
  HlRecordStreams *rs = g_new0 (HlRecordStreams, 1);
  rs->profiles = profiles;
  rs->family = hl_launch_family_new ((uint32_t) pid, since_wall_ns);
  rs->level = level;
  rs->costs = costs;
  /* HEAPLENS_RECORD_NICE, HEAPLENS_RECORD_COSTS_LAG (bench, tests) */
  hl_follow_tuning_init (&rs->tuning);
  rs->costs_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, costs_free);
  rs->payloads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, costs_result_free);
  rs->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  rs->streams = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, stream_free);
  g_mutex_init (&rs->lock);
  g_cond_init (&rs->wake);
  rs->thread = g_thread_try_new ("hl-compress", follow, rs, NULL);
  if (rs->thread == NULL)
    {
      hl_record_streams_free (rs);
      return NULL;
    }
  return rs;
}

void
hl_record_streams_stop (HlRecordStreams *rs)
{
  if (rs == NULL || rs->thread == NULL)
    return;
  g_mutex_lock (&rs->lock);
  rs->stop = true;
  g_cond_signal (&rs->wake);
  g_mutex_unlock (&rs->lock);
  g_thread_join (rs->thread);
  rs->thread = NULL;
  /* A program shorter than a poll has a stream too: finish then does the
   * whole compression (and the costs) in one go, as compressing the file
   * whole would. Found first, so that its costs are hurried too. */
  hl_cli_session_foreach (discover_cb, rs);
  /* the program has exited: its costs are applied at record's own
   * priority from now on, beside the compression's finish (a stream
   * whose costs thread has not started yet starts it so) */
  GHashTableIter it;
  gpointer costs;
  g_hash_table_iter_init (&it, rs->costs_of);
  bool timing = g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0;
  while (g_hash_table_iter_next (&it, NULL, &costs))
    {
      if (timing)
        fprintf (stderr, "heaplens: timing: costs: %.1f MiB of trace queued at the program's exit\n",
                 (double) hl_costs_stream_queued (costs) / 1048576.0);
      hl_costs_stream_hurry (costs);
    }
}

bool
hl_record_streams_finish (HlRecordStreams *rs,
                          const char      *trace)
{
  if (rs == NULL)
    return false;
  HlTraceCompressStream *stream = g_hash_table_lookup (rs->streams, trace);
  if (stream == NULL)
    return false;
  HlFormatError err;
  struct stat st;
  /* bench/capture.sh: how much was left for after the program's exit */
  bool timing = g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0;
  if (timing && stat (trace, &st) == 0)
    fprintf (stderr, "heaplens: timing: %.1f of %.1f MiB taken in while the program ran (compress thread: %.3f s CPU)\n",
             (double) hl_trace_compress_stream_taken (stream) / 1048576.0, (double) st.st_size / 1048576.0,
             rs->follow_cpu_s);
  gint64 t0 = g_get_monotonic_time ();
  /* the last frame, then the costs (their last packets known now) on a
   * thread beside the sync and the rename */
  bool ok = hl_trace_compress_stream_finish_frames (stream, &err) == 0;
  gint64 t1 = g_get_monotonic_time ();
  HlCostsStream *costs = g_hash_table_lookup (rs->costs_of, trace);
  CostsFinish job = { costs, NULL, 0 };
  GThread *thread = ok && costs != NULL ? g_thread_try_new ("hl-costs-end", costs_finish_thread, &job, NULL) : NULL;
  if (ok && costs != NULL && thread == NULL)
    costs_finish_thread (&job);
  ok = ok && hl_trace_compress_stream_finish (stream, &err) == 0;
  gint64 t2 = g_get_monotonic_time ();
  if (thread != NULL)
    g_thread_join (thread);
  unsigned long long total = hl_trace_compress_stream_taken (stream);
  if (!ok)
    fprintf (stderr, _("heaplens: compressing %s while it was written failed (%s): compressing it again\n"),
             trace, err.message);
  g_hash_table_remove (rs->streams, trace);
  if (ok && job.result != NULL)
    {
      if (timing)
        fprintf (stderr, "heaplens: timing: costs thread's worst lag %.3f s%s\n",
                 (double) hl_costs_stream_worst_lag (costs) / 1e9, job.result->lagged ? " (given up)" : "");
      g_hash_table_insert (rs->payloads, g_strdup (trace), g_steal_pointer (&job.result));
    }
  g_clear_pointer (&job.result, costs_result_free);
  if (costs != NULL)
    hl_record_profiles_say_written (rs->profiles, hl_costs_stream_n_profiles (costs), trace);
  g_hash_table_remove (rs->costs_of, trace);
  if (timing)
    fprintf (stderr, "heaplens: timing: %.3f s to compress the last of %.1f MiB, then %.3f s to sync and rename "
             "it; the costs finished %.3f s after the compression\n",
             (double) (t1 - t0) / 1e6, (double) total / 1048576.0, (double) (t2 - t1) / 1e6,
             job.done_us > 0 ? (double) (job.done_us - t1) / 1e6 : 0.0);
  return ok;
}

bool
hl_record_streams_following_costs (HlRecordStreams *rs,
                                   const char      *trace)
{
  HlCostsStream *costs = rs != NULL ? g_hash_table_lookup (rs->costs_of, trace) : NULL;
  return costs != NULL && !hl_costs_stream_failed (costs);
}

void *
hl_record_streams_take_costs (HlRecordStreams *rs,
                              const char      *trace,
                              char            *why,
                              size_t           why_size,
                              bool            *lagged)
{
  snprintf (why, why_size, "%s", "");
  *lagged = false;
  CostsResult *r = rs != NULL ? g_hash_table_lookup (rs->payloads, trace) : NULL;
  if (r == NULL)
    return NULL;
  HlRecording *costs = g_steal_pointer (&r->costs);
  *lagged = r->lagged;
  if (r->why != NULL)
    snprintf (why, why_size, "%s", r->why);
  g_hash_table_remove (rs->payloads, trace);
  return costs;
}

void
hl_record_streams_free (HlRecordStreams *rs)
{
  if (rs == NULL)
    return;
  hl_record_streams_stop (rs);
  g_hash_table_unref (rs->seen);
  hl_launch_family_free (rs->family);
  g_hash_table_unref (rs->streams);
  g_hash_table_unref (rs->costs_of);
  g_hash_table_unref (rs->payloads);
  g_mutex_clear (&rs->lock);
  g_cond_clear (&rs->wake);
  g_free (rs);
}
