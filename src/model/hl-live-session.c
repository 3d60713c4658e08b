/* hl-live-session.c — see hl-live-session.h. */
#define _GNU_SOURCE
#include "hl-live-session.h"

#include <errno.h>
#include <string.h>

#include "hl-live-discovery.h"
#include "hl-live-feed.h"
#include "hl-live-metadata.h"
#include "hl-live-segment.h"
#include "hl-model-i18n.h"
#include "hl-recording-builder.h"
#include "hl-shm-control.h"
#include "hl-shm-guard.h"
#include "hl-shm-reader.h"
#include "hl-trace-format.h"

#define STALE_AFTER_NS      (5 * G_GUINT64_CONSTANT (1000000000)) /* silent this long: is the pid still the target? */

struct _HlLiveSession
{
  GObject       parent_instance;

  /* Owned parts (see docs/live.md) */
  HlLiveSegment  *segment;      /* the mapped segment */
  HlLiveMetadata *meta;         /* current metadata and its history */
  HlLiveFeed     *feed;         /* the recording, and everything that appends to it */

  char         *next_session;
  HlLiveState   state;
  int           exit_status;
  gboolean      unfollowed;     /* HL_SHM_FLAG_UNFOLLOWED seen (set at any time) */
  gboolean      attached;       /* HL_SHM_FLAG_ATTACHED: made by an attach */
  gboolean      shm_full;       /* HL_SHM_FLAG_SHM_FULL seen */
  guint64       heartbeat_ns;
  guint         n_polls;
  GPtrArray    *warnings;       /* char*, NULL-terminated view built on demand */
  GHashTable   *warned;         /* message -> 1 */

  HlLiveTotals  totals;
  guint64       totals_time_ns; /* when they were read, on the trace's clock */
  HlLiveLeakScan leak_scan;     /* the last scan on demand, as of the last poll */

  gboolean      state_pending;  /* notify "state" once out of the SIGBUS guard */
  gboolean      broken;         /* a read raised SIGBUS: the segment shrank */
  guint         timeout_id;
  GMainContext *context;
};

G_DEFINE_TYPE (HlLiveSession, hl_live_session, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_STATE,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_UPDATED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static gboolean
timing_enabled (void)
{
  static int enabled = -1;
  if (enabled < 0)
    enabled = g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0;
  return enabled;
}

static gboolean
state_is_final (HlLiveState s)
{
  return s == HL_LIVE_STATE_ENDED || s == HL_LIVE_STATE_STALE || s == HL_LIVE_STATE_VANISHED
         || s == HL_LIVE_STATE_RESTARTED;
}

static void
warn (HlLiveSession *self,
      const char    *message)
{
  if (g_hash_table_contains (self->warned, message))
    return;
  g_hash_table_add (self->warned, g_strdup (message));
  /* keep the array NULL-terminated */
  if (self->warnings->len > 0)
    g_ptr_array_remove_index (self->warnings, self->warnings->len - 1);
  g_ptr_array_add (self->warnings, g_strdup (message));
  g_ptr_array_add (self->warnings, NULL);
}

static void
set_state (HlLiveSession *self,
           HlLiveState    state)
{
  if (self->state == state)
    return;
  self->state = state;
  self->state_pending = TRUE;
}

/* ---- Lifecycle ------------------------------------------------------------ */

static void
hl_live_session_dispose (GObject *object)
{
  HlLiveSession *self = HL_LIVE_SESSION (object);
  hl_live_session_stop (self);
  G_OBJECT_CLASS (hl_live_session_parent_class)->dispose (object);
}

static void
hl_live_session_finalize (GObject *object)
{
  HlLiveSession *self = HL_LIVE_SESSION (object);
  /* the workers' tasks hold the session: none is in flight */
  g_clear_pointer (&self->feed, hl_live_feed_free);
  g_clear_pointer (&self->segment, hl_live_segment_free);
  g_clear_pointer (&self->meta, hl_live_metadata_free);
  g_free (self->next_session);
  g_ptr_array_unref (self->warnings);
  g_hash_table_destroy (self->warned);
  if (self->context != NULL)
    g_main_context_unref (self->context);
  G_OBJECT_CLASS (hl_live_session_parent_class)->finalize (object);
}

static void
hl_live_session_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  HlLiveSession *self = HL_LIVE_SESSION (object);
  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_live_session_class_init (HlLiveSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = hl_live_session_dispose;
  object_class->finalize = hl_live_session_finalize;
  object_class->get_property = hl_live_session_get_property;

  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL, HL_TYPE_LIVE_STATE,
                                              HL_LIVE_STATE_STARTING,
                                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* After a poll that saw something new (samples, stacks, metadata...). */
  signals[SIGNAL_UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
hl_live_session_init (HlLiveSession *self)
{
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->meta = hl_live_metadata_new ();
}

/* ---- The feed's events ---------------------------------------------------- */

static void
feed_warn (gpointer    owner,
           const char *message)
{
  warn (owner, message);
}

static void
feed_updated (gpointer owner)
{
  g_signal_emit (owner, signals[SIGNAL_UPDATED], 0);
}

static const HlLiveFeedEvents feed_events = { feed_warn, feed_updated };

/* ---- Opening ---------------------------------------------------------- */

static HlLiveSession *
session_new (HlLiveSegment *segment)
{
  HlLiveSession *self = g_object_new (HL_TYPE_LIVE_SESSION, NULL);
  const HlShmHeader *h = hl_live_segment_get_header (segment);
  self->segment = segment;
  self->feed = hl_live_feed_new (segment, self, &feed_events);

  HlRecording *rec = hl_live_feed_get_recording (self->feed);
  char pid[16];
  g_snprintf (pid, sizeof pid, "%u", (unsigned) h->pid);
  hl_recording_append_info (rec, "exe", h->exe);
  hl_recording_append_info (rec, "cmdline", hl_live_segment_get_cmdline (segment));
  hl_recording_append_info (rec, "pid", pid);
  hl_recording_append_info (rec, "live", "1");
  if (h->sample_bytes != 0)
    {
      /* a sampled session: its blocks weighed as in its trace (the info
       * before any allocation; out of range, it is ignored) */
      char n[24];
      g_snprintf (n, sizeof n, "%" G_GUINT64_FORMAT, (guint64) h->sample_bytes);
      hl_recording_append_info (rec, "sample_bytes", n);
    }
  /* a first poll, so that the object starts with numbers */
  hl_live_session_poll (self);
  return self;
}

HlLiveSession *
hl_live_session_open_name (const char  *name,
                           GError     **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  HlLiveSegment *segment = hl_live_segment_open (name, error);
  return segment != NULL ? session_new (segment) : NULL;
}

HlLiveSession *
hl_live_session_open_memory (const void  *data,
                             gsize        size,
                             guint32      expected_uid,
                             GError     **error)
{
  HlLiveSegment *segment = hl_live_segment_open_memory (data, size, expected_uid, error);
  return segment != NULL ? session_new (segment) : NULL;
}

HlLiveSession *
hl_live_session_open_pid (guint32   pid,
                          GError  **error)
{
  g_autofree char *name = hl_live_session_find_pid (pid, error);
  return name != NULL ? hl_live_session_open_name (name, error) : NULL;
}

/* ---- Polling ------------------------------------------------------------- */

/* The session of the same pid that followed an exec, or NULL. */
static char *
find_next_session (HlLiveSession *self)
{
  g_autoptr(GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_NAMES_ONLY, NULL);
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const HlLiveSessionInfo *info = g_ptr_array_index (list, i);
      if (info->pid == hl_live_session_get_pid (self)
          && g_strcmp0 (info->name, hl_live_segment_get_name (self->segment)) != 0)
        return g_strdup (info->name);
    }
  return NULL;
}

/* The state machine: what the segment says, checked against the process
 * and the segment's name. */
static void
read_state (HlLiveSession *self)
{
  HlLiveSegment *seg = self->segment;
  guint64 hb = 0;
  int status = 0;
  guint32 flags = 0;
  HlLiveState st = hl_live_segment_read_state (seg, &hb, &status, &flags);
  /* opened while STARTING: the trace's path comes with RUNNING */
  hl_live_segment_get_trace_path (seg);
  self->heartbeat_ns = hb;
  hl_live_feed_set_time (self->feed, hb);
  if (flags & HL_SHM_FLAG_UNFOLLOWED)
    self->unfollowed = TRUE;
  if (flags & HL_SHM_FLAG_SHM_FULL)
    self->shm_full = TRUE;
  if (flags & HL_SHM_FLAG_ATTACHED)
    self->attached = TRUE;
  if (st == HL_LIVE_STATE_ENDED || st == HL_LIVE_STATE_RESTARTED)
    {
      self->exit_status = status;
      if (st == HL_LIVE_STATE_RESTARTED)
        {
          g_free (self->next_session);
          self->next_session = find_next_session (self);
        }
      set_state (self, st);
      return;
    }
  if (hl_live_segment_get_name (seg) != NULL)
    {
      gboolean exists = hl_live_segment_name_exists (seg);
      /* A name removed while the program runs (someone's `sessions
       * --prune`, a launcher that tidied up early) leaves the mapping we
       * read: the session goes on. Gone with its name: vanished. */
      if (!exists && !hl_live_segment_pid_is_target (seg))
        {
          set_state (self, HL_LIVE_STATE_VANISHED);
          return;
        }
      if (!exists)
        warn (self, _("the session's name was removed while the program runs: still reading it"));
      if (!hl_live_segment_pid_alive (seg))
        {
          set_state (self, HL_LIVE_STATE_STALE);
          return;
        }
      if (hl_live_segment_now_ns (seg) > hb + STALE_AFTER_NS && !hl_live_segment_pid_is_target (seg))
        {
          set_state (self, HL_LIVE_STATE_STALE);
          return;
        }
    }
  set_state (self, st);
}

static gboolean
update_state (HlLiveSession *self)
{
  HlLiveState before = self->state;
  read_state (self);
  return self->state != before;
}

/* The segment's counters; FALSE when they could not be read. */
static gboolean
read_totals (HlLiveSession *self,
             guint64       *n_samples,
             gboolean      *changed)
{
  HlLiveTotals t;
  HlFormatError err;
  if (hl_live_segment_read_totals (self->segment, &t, n_samples, &err) != 0)
    {
      warn (self, err.message);
      return FALSE;
    }
  *changed |= memcmp (&t, &self->totals, sizeof t) != 0;
  self->totals = t;
  /* after the counters: their peak happened before this */
  self->totals_time_ns = MAX (hl_live_segment_now_ns (self->segment), t.peak_heap_time_ns);
  return TRUE;
}

static void
backfill_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  HlLiveSession *self = HL_LIVE_SESSION (source);
  g_autoptr(GError) error = NULL;
  if (!hl_live_metadata_backfill_finish (self->meta, result, &error))
    {
      warn (self, error->message);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
}

/* The metadata log's new entries, into the history and (through the feed)
 * the recording; a backfill from the trace when the log lost some. TRUE
 * when the log moved. */
static gboolean
read_metadata_log (HlLiveSession *self)
{
  HlShmReader *reader = hl_live_segment_get_reader (self->segment);
  const char *trace_path = hl_live_segment_get_trace_path (self->segment);
  HlFormatError err;
  gboolean moved = FALSE;
  if (hl_live_metadata_read_log (self->meta, reader, self->heartbeat_ns, hl_live_feed_meta_entry, self->feed,
                                 &moved, &err) != 0)
    warn (self, err.message);
  if (hl_live_metadata_wants_backfill (self->meta, trace_path))
    hl_live_metadata_backfill_async (self->meta, trace_path, self, backfill_done, NULL);
  return moved;
}

static void
read_metadata_current (HlLiveSession *self)
{
  HlFormatError err;
  if (hl_live_metadata_read_current (self->meta, hl_live_segment_get_reader (self->segment), &err) != 0)
    warn (self, err.message);
}

/* One poll, inside the SIGBUS guard; signals are emitted by the caller,
 * out of it. TRUE when something changed. */
/* The header's last leak scan on demand: TRUE when a new one was
 * published since the last poll. */
static gboolean
read_leak_scan (HlLiveSession *self)
{
  HlShmLeakScan l;
  HlLiveLeakScan *out = &self->leak_scan;

  if (hl_shm_reader_leak_scan (hl_live_segment_get_reader (self->segment), &l, NULL) != 0
      || l.seq_atomic / 2 == out->n_scans)
    return FALSE;
  out->n_scans = l.seq_atomic / 2;
  out->status = l.status <= HL_LIVE_LEAK_SCAN_NO_TRACE ? (HlLiveLeakScanStatus) l.status : HL_LIVE_LEAK_SCAN_NONE;
  out->complete = l.status == HL_SHM_LEAK_SCAN_DONE && (l.flags & HL_REACH_FLAG_INCOMPLETE) == 0;
  out->read_errno = l.status == HL_SHM_LEAK_SCAN_UNREADABLE ? (int) MIN (l.flags, (guint32) G_MAXINT) : 0;
  out->time_ns = l.time_ns;
  out->scan_ns = l.scan_ns;
  for (guint k = 0; k < 4; k++)
    {
      out->blocks[k] = l.blocks[k];
      out->bytes[k] = l.bytes[k];
    }
  return TRUE;
}

static gboolean
poll_segment (HlLiveSession *self)
{
  gboolean changed;
  guint64 n_samples;

  self->n_polls++;
  changed = update_state (self);
  if (!read_totals (self, &n_samples, &changed))
    return changed;
  hl_live_feed_begin (self->feed);
  changed |= hl_live_feed_read_samples (self->feed, n_samples, self->totals.dropped);
  changed |= hl_live_feed_read_resources (self->feed, self->totals.dropped);
  changed |= read_metadata_log (self);
  hl_live_feed_read_callsites (self->feed);
  read_metadata_current (self);
  changed |= read_leak_scan (self);
  changed |= hl_live_feed_end (self->feed, self->state, self->exit_status);
  return changed;
}

typedef struct
{
  HlLiveSession *self;
  gboolean       changed;
} PollCtx;

static void
poll_guarded (gpointer data)
{
  PollCtx *ctx = data;
  ctx->changed = poll_segment (ctx->self);
}

gboolean
hl_live_session_poll (HlLiveSession *self)
{
  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), FALSE);
  if (self->broken)
    return FALSE;
  PollCtx ctx = { self, FALSE };
  gint64 t0 = g_get_monotonic_time ();
  g_object_ref (self);
  if (!hl_shm_guard_run (poll_guarded, &ctx))
    {
      self->broken = TRUE;
      warn (self, _("the session segment shrank while it was read (SIGBUS): it is not read any more"));
      set_state (self, HL_LIVE_STATE_VANISHED);
      ctx.changed = TRUE;
    }
  if (self->state_pending)
    {
      self->state_pending = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
    }
  if (timing_enabled ())
    g_printerr ("heaplens: timing: live poll %u at %.3f s: %.1f ms, %s%s\n", self->n_polls, t0 / 1e6,
                (g_get_monotonic_time () - t0) / 1000.0, ctx.changed ? "changed" : "unchanged",
                hl_live_feed_is_held (self->feed) ? ", held" : "");
  if (ctx.changed)
    g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
  g_object_unref (self);
  return ctx.changed;
}

static gboolean
poll_timeout (gpointer user_data)
{
  HlLiveSession *self = user_data;
  hl_live_session_poll (self);
  /* the last poll must also feed: one held off by a reader (an analysis)
   * leaves the end's appends waiting, and the readers' holds refused */
  if ((state_is_final (self->state) && !hl_live_feed_is_waiting (self->feed)) || self->broken)
    {
      self->timeout_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

void
hl_live_session_start (HlLiveSession *self,
                       guint          interval_ms)
{
  g_return_if_fail (HL_IS_LIVE_SESSION (self));
  hl_live_session_stop (self);
  if (state_is_final (self->state))
    return;
  GSource *source = g_timeout_source_new (MAX (interval_ms, 10u));
  g_source_set_callback (source, poll_timeout, self, NULL);
  g_source_set_name (source, "[heaplens] live session poll");
  self->context = g_main_context_ref_thread_default ();
  self->timeout_id = g_source_attach (source, self->context);
  g_source_unref (source);
}

void
hl_live_session_stop (HlLiveSession *self)
{
  g_return_if_fail (HL_IS_LIVE_SESSION (self));
  if (self->timeout_id != 0)
    {
      GSource *s = g_main_context_find_source_by_id (self->context, self->timeout_id);
      if (s != NULL)
        g_source_destroy (s);
      self->timeout_id = 0;
    }
}

/* ---- Reading ---------------------------------------------------------- */

HlLiveState hl_live_session_get_state (HlLiveSession *self) { return self->state; }
int hl_live_session_get_exit_status (HlLiveSession *self) { return self->exit_status; }
guint32 hl_live_session_get_pid (HlLiveSession *self) { return hl_live_segment_get_header (self->segment)->pid; }
const char *hl_live_session_get_name (HlLiveSession *self) { return hl_live_segment_get_name (self->segment); }
const char *hl_live_session_get_exe (HlLiveSession *self) { return hl_live_segment_get_header (self->segment)->exe; }
const char *hl_live_session_get_cmdline (HlLiveSession *self) { return hl_live_segment_get_cmdline (self->segment); }
const char *hl_live_session_get_trace_path (HlLiveSession *self) { return hl_live_segment_get_header (self->segment)->trace_path; }
const char *hl_live_session_get_next_session (HlLiveSession *self) { return self->next_session; }
gboolean hl_live_session_get_unfollowed (HlLiveSession *self) { return self->unfollowed; }
gboolean hl_live_session_get_attached (HlLiveSession *self) { return self->attached; }
gboolean hl_live_session_get_shm_full (HlLiveSession *self) { return self->shm_full; }
guint64 hl_live_session_get_start_wall_ns (HlLiveSession *self) { return hl_live_segment_get_header (self->segment)->start_wall_ns; }
guint hl_live_session_get_n_polls (HlLiveSession *self) { return self->n_polls; }
gboolean hl_live_session_is_busy (HlLiveSession *self) { return hl_live_feed_is_busy (self->feed); }
gboolean hl_live_session_is_symbolizing (HlLiveSession *self) { return hl_live_feed_is_symbolizing (self->feed); }

gboolean
hl_live_session_request_leak_scan (HlLiveSession *self,
                                   GError       **error)
{
  const char *name;

  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), FALSE);
  name = hl_live_segment_get_name (self->segment);
  if (self->state != HL_LIVE_STATE_RUNNING || name == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                   _("the program is not running any more: its leaks at exit are in the trace"));
      return FALSE;
    }
  if (hl_shm_request_control (name, hl_live_segment_get_header (self->segment)->pid, HL_SHM_CONTROL_LEAK_SCAN) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("cannot ask %s for a leak scan: %s"), name,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

void
hl_live_session_get_leak_scan (HlLiveSession  *self,
                               HlLiveLeakScan *out)
{
  g_return_if_fail (HL_IS_LIVE_SESSION (self) && out != NULL);
  *out = self->leak_scan;
}

gboolean
hl_live_session_hold (HlLiveSession *self)
{
  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), FALSE);
  return hl_live_feed_hold (self->feed);
}

void
hl_live_session_release (HlLiveSession *self)
{
  g_return_if_fail (HL_IS_LIVE_SESSION (self));
  hl_live_feed_release (self->feed);
}

HlRecording *hl_live_session_get_recording (HlLiveSession *self) { return hl_live_feed_get_recording (self->feed); }

const char * const *
hl_live_session_get_warnings (HlLiveSession *self)
{
  return (const char * const *) self->warnings->pdata;
}

void
hl_live_session_get_totals (HlLiveSession *self,
                            HlLiveTotals  *out)
{
  *out = self->totals;
}

guint64
hl_live_session_get_totals_time_ns (HlLiveSession *self)
{
  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), 0);
  return self->totals_time_ns;
}

const HlLiveSample *
hl_live_session_get_samples (HlLiveSession *self,
                             guint         *n_samples)
{
  return hl_live_feed_get_samples (self->feed, n_samples);
}

const HlLiveCallsite *
hl_live_session_get_callsites (HlLiveSession *self,
                               guint         *n_callsites)
{
  return hl_live_feed_get_callsites (self->feed, n_callsites);
}

GPtrArray *
hl_live_session_get_metadata (HlLiveSession *self)
{
  return hl_live_metadata_get_current (self->meta);
}

GPtrArray *
hl_live_session_get_history (HlLiveSession *self)
{
  return hl_live_metadata_get_history (self->meta);
}

HlCosts *
hl_live_session_get_stack_costs (HlLiveSession *self,
                                 guint         *n_stacks)
{
  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), NULL);
  g_return_val_if_fail (n_stacks != NULL, NULL);
  return hl_live_feed_get_stack_costs (self->feed, n_stacks);
}

HlLiveSnapshot *
hl_live_session_snapshot (HlLiveSession *self)
{
  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), NULL);
  HlLiveSnapshot *s = g_new0 (HlLiveSnapshot, 1);
  s->state = self->state;
  s->exit_status = self->exit_status;
  s->time_ns = self->heartbeat_ns;
  s->totals = self->totals;
  hl_live_feed_snapshot (self->feed, s);
  s->metadata = hl_live_meta_intervals_copy (hl_live_metadata_get_current (self->meta));
  s->history = hl_live_meta_intervals_copy (hl_live_metadata_get_history (self->meta));
  return s;
}

void
hl_live_snapshot_free (HlLiveSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;
  for (guint i = 0; i < snapshot->callsites->len; i++)
    g_free ((gpointer) g_array_index (snapshot->callsites, HlLiveCallsite, i).frames);
  g_array_unref (snapshot->callsites);
  g_array_unref (snapshot->samples);
  g_ptr_array_unref (snapshot->metadata);
  g_ptr_array_unref (snapshot->history);
  g_free (snapshot);
}
