/* hl-live-segment.c — see hl-live-segment.h. */
#define _GNU_SOURCE
#include "hl-live-segment.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "hl-model-i18n.h"
#include "hl-shm-guard.h"

struct _HlLiveSegment
{
  HlShmReader *reader;
  HlShmHeader  header;   /* the copy taken at open; trace_path filled in later */
  char        *name;     /* base name; NULL for memory segments */
  char        *cmdline;
};

char *
hl_live_cmdline_join (const char *cmdline,
                      gsize       size)
{
  GString *cmd = g_string_new (NULL);
  const char *c = cmdline, *end = cmdline + size;
  while (c < end && *c != '\0')
    {
      gsize n = strnlen (c, (gsize) (end - c));
      if (cmd->len > 0)
        g_string_append_c (cmd, ' ');
      g_string_append_len (cmd, c, (gssize) n);
      c += n + 1;
    }
  return g_string_free (cmd, FALSE);
}

gboolean
hl_live_pid_alive (guint32 pid)
{
  return pid != 0 && (kill ((pid_t) pid, 0) == 0 || errno == EPERM);
}

static HlLiveSegment *
segment_new (HlShmReader *reader,
             const char  *name)
{
  HlLiveSegment *self = g_new0 (HlLiveSegment, 1);
  self->reader = reader;
  self->header = *hl_shm_reader_header (reader);
  if (name != NULL)
    self->name = g_strdup (strrchr (name, '/') != NULL ? strrchr (name, '/') + 1 : name);
  self->cmdline = hl_live_cmdline_join (self->header.cmdline, sizeof self->header.cmdline);
  return self;
}

typedef struct
{
  const char    *name;
  HlShmReader   *reader;
  HlFormatError  err;
  int            rc;
} OpenCtx;

static void
open_guarded (gpointer data)
{
  OpenCtx *o = data;
  o->rc = hl_shm_reader_open (o->name, &o->reader, &o->err);
}

HlLiveSegment *
hl_live_segment_open (const char  *name,
                      GError     **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  OpenCtx o = { name, NULL, { 0 }, -1 };
  if (!hl_shm_guard_run (open_guarded, &o))
    {
      g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED, _("%s: shrank while it was opened (SIGBUS)"), name);
      return NULL;
    }
  if (o.rc != 0)
    {
      /* a segment still being created is not there yet, not refused */
      g_set_error (error, HL_LIVE_ERROR,
                   o.err.code == HL_FORMAT_ERROR_NOT_READY ? HL_LIVE_ERROR_NOT_FOUND : HL_LIVE_ERROR_REFUSED,
                   "%s: %s", name, o.err.message);
      return NULL;
    }
  return segment_new (o.reader, name);
}

HlLiveSegment *
hl_live_segment_open_memory (const void  *data,
                             gsize        size,
                             guint32      expected_uid,
                             GError     **error)
{
  HlShmReader *r;
  HlFormatError err;
  if (hl_shm_reader_open_memory (data, size, expected_uid, &r, &err) != 0)
    {
      g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED, "%s", err.message);
      return NULL;
    }
  return segment_new (r, NULL);
}

void
hl_live_segment_free (HlLiveSegment *self)
{
  if (self == NULL)
    return;
  hl_shm_reader_free (self->reader);
  g_free (self->name);
  g_free (self->cmdline);
  g_free (self);
}

HlShmReader *
hl_live_segment_get_reader (HlLiveSegment *self)
{
  return self->reader;
}

const HlShmHeader *
hl_live_segment_get_header (HlLiveSegment *self)
{
  return &self->header;
}

const char *
hl_live_segment_get_name (HlLiveSegment *self)
{
  return self->name;
}

const char *
hl_live_segment_get_cmdline (HlLiveSegment *self)
{
  return self->cmdline;
}

const char *
hl_live_segment_get_trace_path (HlLiveSegment *self)
{
  /* opened while STARTING: the path comes with RUNNING */
  if (self->header.trace_path[0] == '\0')
    g_strlcpy (self->header.trace_path, hl_shm_reader_trace_path (self->reader), sizeof self->header.trace_path);
  return self->header.trace_path;
}

HlLiveState
hl_live_segment_read_state (HlLiveSegment *self,
                            guint64       *heartbeat_ns,
                            int           *exit_status,
                            guint32       *flags)
{
  guint64 hb = 0;
  gint32 status = 0;
  guint32 f = 0;
  HlShmState st = hl_shm_reader_state (self->reader, &hb);
  hl_shm_reader_end_info (self->reader, &status, NULL, &f);
  if (heartbeat_ns != NULL)
    *heartbeat_ns = hb;
  if (exit_status != NULL)
    *exit_status = status;
  if (flags != NULL)
    *flags = f;
  if (st == HL_SHM_STATE_ENDED)
    return (f & HL_SHM_FLAG_ENDED_BY_EXEC) ? HL_LIVE_STATE_RESTARTED : HL_LIVE_STATE_ENDED;
  return st == HL_SHM_STATE_RUNNING ? HL_LIVE_STATE_RUNNING : HL_LIVE_STATE_STARTING;
}

int
hl_live_segment_read_totals (HlLiveSegment *self,
                             HlLiveTotals  *totals,
                             guint64       *n_samples,
                             HlFormatError *err)
{
  HlShmTotals t;
  if (hl_shm_reader_totals (self->reader, &t, err) != 0)
    return -1;
  guint64 dropped = 0;
  for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
    dropped += t.dropped[i];
  HlLiveTotals nt = {
    t.n_allocs, t.n_frees, t.bytes_allocated, t.bytes_freed, t.heap_bytes, t.peak_heap_bytes,
    t.peak_heap_time_ns, t.rss_bytes, t.peak_rss_bytes, dropped, t.n_stacks, t.n_threads, t.stacks_dropped,
    t.dropped[HL_DROP_LIVE_TABLE],
  };
  *totals = nt;
  *n_samples = t.n_samples;
  return 0;
}

gboolean
hl_live_segment_pid_alive (HlLiveSegment *self)
{
  return hl_live_pid_alive (self->header.pid);
}

/* A program that allocates nothing for a while (waiting for input) is
 * still its target. */
gboolean
hl_live_segment_pid_is_target (HlLiveSegment *self)
{
  guint32 pid = self->header.pid;
  g_autofree char *stat_path = g_strdup_printf ("/proc/%u/stat", pid);
  g_autofree char *exe_path = g_strdup_printf ("/proc/%u/exe", pid);
  g_autofree char *stat = NULL;
  g_autofree char *exe = NULL;

  if (!hl_live_pid_alive (pid))
    return FALSE;
  /* a zombie: killed, its parent has not reaped it yet */
  if (g_file_get_contents (stat_path, &stat, NULL, NULL))
    {
      const char *p = strrchr (stat, ')');
      if (p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
        return FALSE;
    }
  /* another user's process cannot be read: taken to be the target */
  exe = g_file_read_link (exe_path, NULL);
  return exe == NULL || self->header.exe[0] == '\0' || g_str_has_prefix (exe, self->header.exe);
}

gboolean
hl_live_segment_name_exists (HlLiveSegment *self)
{
  if (self->name == NULL)
    return TRUE;
  g_autofree char *path = g_strdup_printf ("/dev/shm/%s", self->name);
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

guint64
hl_live_segment_now_ns (HlLiveSegment *self)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  guint64 now = (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
  return now > self->header.start_mono_ns ? now - self->header.start_mono_ns : 0;
}
