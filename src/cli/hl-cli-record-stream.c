/* hl-cli-record-stream.c — compressing the recorded program's traces while
 * it runs (hl-cli-record-stream.h). */
#include "hl-config.h"

#include "hl-cli-record-stream.h"

#include <glib.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-cli-session-file.h"
#include "hl-shm-reader.h"
#include "hl-trace-compress-stream.h"
#include "hl-trace-zstd.h"

/* Often, so that the stream starts early and little is left at the exit;
 * a poll with nothing new costs a directory read and a stat, and 10 ms
 * polls cost python3's recording 0.07 s more CPU than 50 ms ones. */
#define POLL_INTERVAL_US (20 * 1000)

struct HlRecordStreams
{
  pid_t       root;
  uint64_t    since_wall_ns;
  int         level;
  GThread    *thread;
  GMutex      lock;          /* stop, and the wait between polls */
  GCond       wake;
  bool        stop;
  GHashTable *seen;          /* segment name -> 1: read once, settled */
  GHashTable *pids;          /* pids of the program's processes */
  GHashTable *streams;       /* trace path -> HlTraceCompressStream (NULL: failed) */
};

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
  if (s.header.start_wall_ns < rs->since_wall_ns)
    {
      g_hash_table_add (rs->seen, g_strdup (name));
      return;
    }
  bool ours = s.header.pid == (uint32_t) rs->root
              || g_hash_table_contains (rs->pids, GUINT_TO_POINTER (s.header.ppid));
  if (!ours)
    return; /* a descendant whose parent's session is not seen yet, or another program's */
  g_hash_table_add (rs->seen, g_strdup (name));
  g_hash_table_add (rs->pids, GUINT_TO_POINTER (s.header.pid));
  const char *trace = s.header.trace_path;
  if (trace[0] == '\0' || g_hash_table_contains (rs->streams, trace))
    return;
  HlTraceCompressStream *stream = hl_trace_compress_stream_new (trace, trace, hl_trace_codec_zstd (rs->level), 0);
  g_hash_table_insert (rs->streams, g_strdup (trace), stream);
}

static void
poll_streams (HlRecordStreams *rs)
{
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, rs->streams);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      HlFormatError err;
      if (value != NULL && hl_trace_compress_stream_poll (value, &err) != 0)
        {
          /* the end compresses this one whole and says why if it fails again */
          hl_trace_compress_stream_free (value);
          g_hash_table_iter_replace (&it, NULL);
        }
    }
}

static gpointer
follow (gpointer data)
{
  HlRecordStreams *rs = data;
  g_mutex_lock (&rs->lock);
  while (!rs->stop)
    {
      g_mutex_unlock (&rs->lock);
      hl_cli_session_foreach (discover_cb, rs);
      poll_streams (rs);
      gint64 until = g_get_monotonic_time () + POLL_INTERVAL_US;
      g_mutex_lock (&rs->lock);
      /* stop wakes it at once: the program's exit is not kept waiting */
      while (!rs->stop && g_cond_wait_until (&rs->wake, &rs->lock, until))
        ;
    }
  g_mutex_unlock (&rs->lock);
  return NULL;
}

static void
stream_free (gpointer p)
{
  hl_trace_compress_stream_free (p);
}

HlRecordStreams *
hl_record_streams_start (pid_t    pid,
                         uint64_t since_wall_ns,
                         int      level)
{
  HlRecordStreams *rs = g_new0 (HlRecordStreams, 1);
  rs->root = pid;
  rs->since_wall_ns = since_wall_ns;
  rs->level = level;
  rs->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  rs->pids = g_hash_table_new (g_direct_hash, g_direct_equal);
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
  if (g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0 && stat (trace, &st) == 0)
    fprintf (stderr, "heaplens: timing: %.1f of %.1f MiB taken in while the program ran\n",
             (double) hl_trace_compress_stream_taken (stream) / 1048576.0, (double) st.st_size / 1048576.0);
  bool ok = hl_trace_compress_stream_finish (stream, &err) == 0;
  if (!ok)
    fprintf (stderr, _("heaplens: compressing %s while it was written failed (%s): compressing it again\n"),
             trace, err.message);
  g_hash_table_remove (rs->streams, trace);
  return ok;
}

void
hl_record_streams_free (HlRecordStreams *rs)
{
  if (rs == NULL)
    return;
  hl_record_streams_stop (rs);
  g_hash_table_unref (rs->seen);
  g_hash_table_unref (rs->pids);
  g_hash_table_unref (rs->streams);
  g_mutex_clear (&rs->lock);
  g_cond_clear (&rs->wake);
  g_free (rs);
}
