/* hl-live-session.c — see hl-live-session.h. */
#define _GNU_SOURCE
#include "hl-live-session.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hl-live-discovery.h"
#include "hl-live-metadata.h"
#include "hl-live-scan.h"
#include "hl-live-segment.h"
#include "hl-model-i18n.h"
#include "hl-proc-maps.h"
#include "hl-recording-builder.h"
#include "hl-shm-guard.h"
#include "hl-symbolize-job.h"

#define STALE_AFTER_NS      (5 * G_GUINT64_CONSTANT (1000000000)) /* silent this long: is the pid still the target? */
#define SAMPLES_PER_POLL    2048
#define MAPS_REREAD_NS      (G_GUINT64_CONSTANT (500000000))

struct _HlLiveSession
{
  GObject       parent_instance;

  /* Owned parts (see docs/live.md) */
  HlLiveSegment  *segment;      /* the mapped segment */
  HlLiveMetadata *meta;         /* current metadata and its history */

  char         *next_session;
  HlLiveState   state;
  int           exit_status;
  gboolean      unfollowed;     /* HL_SHM_FLAG_UNFOLLOWED seen (set at any time) */
  guint64       heartbeat_ns;
  guint         n_polls;
  GPtrArray    *warnings;       /* char*, NULL-terminated view built on demand */
  GHashTable   *warned;         /* message -> 1 */

  HlLiveTotals  totals;
  GArray       *samples;        /* HlLiveSample */
  guint64       next_sample;
  guint64       res_cursor;
  GHashTable   *stacks;         /* stack id -> GArray of guint64 */
  GArray       *callsites;      /* HlLiveCallsite */
  guint64       dropped_fed;
  GArray       *pending_meta;   /* HlShmMetaItem log entries not yet fed (a worker held the recording) */
  gboolean      feeding;        /* appends to the recording are allowed now */
  guint         holds;          /* hl_live_session_hold(): readers of the recording (analyses) */
  gboolean      feed_waiting;   /* a poll could not feed because of a hold: no new holds until one does */
  gboolean      hold_wanted;    /* a hold was refused: the next poll starts no scan, so the next hold gets in */
  gboolean      scan_skipped;   /* the last feeding poll skipped its scan for a hold: this one scans */

  /* The recording fed from the session */
  HlRecording  *recording;
  HlLiveScan   *scan;           /* the live table's feed */
  GArray       *modules;        /* HlProcModule, the ones fed */
  guint64       maps_read_ns;
  gboolean      need_maps;
  gboolean      need_symbols;
  gboolean      symbolizing;    /* a worker resolves addresses (the recording is not touched) */
  HlSymbolizeJob *symbols_ready; /* resolved, to store at the next poll that may append */
  gboolean      ended_fed;

  gboolean      state_pending;  /* notify "state" once out of the SIGBUS guard */
  gboolean      broken;         /* a read raised SIGBUS: the segment shrank */
  guint         timeout_id;
  GMainContext *context;
};

G_DEFINE_TYPE (HlLiveSession, hl_live_session, G_TYPE_OBJECT)
G_DEFINE_QUARK (hl-live-error-quark, hl_live_error)

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

GType
hl_live_state_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { HL_LIVE_STATE_STARTING, "HL_LIVE_STATE_STARTING", "starting" },
    { HL_LIVE_STATE_RUNNING, "HL_LIVE_STATE_RUNNING", "running" },
    { HL_LIVE_STATE_ENDED, "HL_LIVE_STATE_ENDED", "ended" },
    { HL_LIVE_STATE_STALE, "HL_LIVE_STATE_STALE", "stale" },
    { HL_LIVE_STATE_VANISHED, "HL_LIVE_STATE_VANISHED", "vanished" },
    { HL_LIVE_STATE_RESTARTED, "HL_LIVE_STATE_RESTARTED", "restarted" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("HlLiveState", values));
  return type;
}

const char *
hl_live_state_to_string (HlLiveState state)
{
  switch (state)
    {
    case HL_LIVE_STATE_STARTING:
      return "starting";
    case HL_LIVE_STATE_RUNNING:
      return "running";
    case HL_LIVE_STATE_ENDED:
      return "ended";
    case HL_LIVE_STATE_STALE:
      return "stale";
    case HL_LIVE_STATE_VANISHED:
      return "vanished";
    case HL_LIVE_STATE_RESTARTED:
      return "restarted";
    default:
      return "unknown";
    }
}

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
  g_clear_pointer (&self->segment, hl_live_segment_free);
  g_clear_pointer (&self->meta, hl_live_metadata_free);
  g_free (self->next_session);
  g_ptr_array_unref (self->warnings);
  g_hash_table_destroy (self->warned);
  g_array_unref (self->samples);
  g_hash_table_destroy (self->stacks);
  g_array_unref (self->callsites);
  g_clear_object (&self->recording);
  g_clear_pointer (&self->scan, hl_live_scan_free);
  g_array_unref (self->modules);
  g_array_unref (self->pending_meta);
  g_clear_pointer (&self->symbols_ready, hl_symbolize_job_free);
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
stack_frames_free (gpointer data)
{
  g_array_unref (data);
}

static void
proc_module_clear (gpointer data)
{
  g_free (((HlProcModule *) data)->path);
}

static void
hl_live_session_init (HlLiveSession *self)
{
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->samples = g_array_new (FALSE, FALSE, sizeof (HlLiveSample));
  self->stacks = g_hash_table_new_full (NULL, NULL, NULL, stack_frames_free);
  self->callsites = g_array_new (FALSE, FALSE, sizeof (HlLiveCallsite));
  self->meta = hl_live_metadata_new ();
  self->recording = hl_recording_new ();
  self->scan = hl_live_scan_new ();
  self->modules = g_array_new (FALSE, TRUE, sizeof (HlProcModule));
  g_array_set_clear_func (self->modules, proc_module_clear);
  self->need_maps = TRUE;
  self->pending_meta = g_array_new (FALSE, FALSE, sizeof (HlShmMetaItem));
}

/* ---- Opening ---------------------------------------------------------- */

static HlLiveSession *
session_new (HlLiveSegment *segment)
{
  HlLiveSession *self = g_object_new (HL_TYPE_LIVE_SESSION, NULL);
  const HlShmHeader *h = hl_live_segment_get_header (segment);
  self->segment = segment;

  char pid[16];
  g_snprintf (pid, sizeof pid, "%u", (unsigned) h->pid);
  hl_recording_append_info (self->recording, "exe", h->exe);
  hl_recording_append_info (self->recording, "cmdline", hl_live_segment_get_cmdline (segment));
  hl_recording_append_info (self->recording, "pid", pid);
  hl_recording_append_info (self->recording, "live", "1");
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

static void
stack_cb (void           *user_data,
          uint32_t        stack_id,
          const uint64_t *frames,
          uint32_t        n_frames)
{
  HlLiveSession *self = user_data;
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n_frames);
  g_array_append_vals (a, frames, n_frames);
  g_hash_table_replace (self->stacks, GUINT_TO_POINTER (stack_id), a);
  hl_recording_append_stack (self->recording, stack_id, frames, n_frames);
  self->need_symbols = TRUE;
  /* an address outside the modules known so far: read the map again */
  for (guint32 i = 0; i < n_frames && !self->need_maps; i++)
    {
      gboolean inside = FALSE;
      for (guint m = 0; m < self->modules->len && !inside; m++)
        {
          const HlProcModule *mod = &g_array_index (self->modules, HlProcModule, m);
          inside = frames[i] >= mod->start && frames[i] < mod->end;
        }
      if (!inside)
        self->need_maps = TRUE;
    }
}

static void
thread_cb (void       *user_data,
           uint32_t    tid,
           const char *name)
{
  HlLiveSession *self = user_data;
  hl_recording_append_thread (self->recording, self->heartbeat_ns, tid, name, FALSE);
}

static void
callsite_cb (void                    *user_data,
             const HlShmCallsiteView *site)
{
  HlLiveSession *self = user_data;
  HlLiveCallsite c = { 0 };
  c.stack_id = site->stack_id;
  c.calls = site->calls;
  c.bytes = site->bytes;
  c.live_bytes = site->bytes > site->freed_bytes ? site->bytes - site->freed_bytes : 0;
  c.live_count = site->calls > site->frees ? site->calls - site->frees : 0;
  GArray *frames = g_hash_table_lookup (self->stacks, GUINT_TO_POINTER (site->stack_id));
  if (frames != NULL)
    {
      c.frames = (const guint64 *) frames->data;
      c.n_frames = frames->len;
    }
  g_array_append_val (self->callsites, c);
}

static gint
compare_callsites (gconstpointer a,
                   gconstpointer b)
{
  const HlLiveCallsite *x = a, *y = b;
  if (x->live_bytes != y->live_bytes)
    return x->live_bytes < y->live_bytes ? 1 : -1;
  return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* A metadata log entry into the recording. */
static void
feed_meta (HlLiveSession       *self,
           const HlShmMetaItem *entry)
{
  char *key = g_utf8_make_valid (entry->key, -1);
  /* a mark's text is in string_value (without IS_STRING) */
  char *value = (entry->flags & HL_SHM_META_IS_MARK) ? g_utf8_make_valid (entry->string_value, -1)
                                                     : hl_live_meta_item_value (entry);
  if (entry->flags & HL_SHM_META_IS_MARK)
    hl_recording_append_mark (self->recording, entry->time_ns, 0, value);
  else
    hl_recording_append_metadata (self->recording, entry->time_ns, 0, key,
                                  (entry->flags & HL_SHM_META_REMOVED) ? NULL : value);
  g_free (key);
  g_free (value);
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

static void
meta_log_cb (void                *user_data,
             const HlShmMetaItem *entry)
{
  HlLiveSession *self = user_data;
  if (self->feeding)
    feed_meta (self, entry);
  else
    g_array_append_val (self->pending_meta, *entry);
}

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
update_state (HlLiveSession *self)
{
  HlLiveSegment *seg = self->segment;
  guint64 hb = 0;
  int status = 0;
  guint32 flags = 0;
  HlLiveState st = hl_live_segment_read_state (seg, &hb, &status, &flags);
  self->heartbeat_ns = hb;
  if (flags & HL_SHM_FLAG_UNFOLLOWED)
    self->unfollowed = TRUE;
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

static void
read_maps (HlLiveSession *self)
{
  self->need_maps = FALSE;
  self->maps_read_ns = hl_live_segment_now_ns (self->segment);
  if (hl_live_segment_get_name (self->segment) == NULL || !hl_live_segment_pid_alive (self->segment))
    return;
  g_autoptr(GError) error = NULL;
  GArray *mods = hl_proc_maps_read (hl_live_session_get_pid (self), &error);
  if (mods == NULL)
    {
      char *w = g_strdup_printf (_("no module map for pid %u: %s (addresses stay raw)"),
                                 (unsigned) hl_live_session_get_pid (self), error->message);
      warn (self, w);
      g_free (w);
      return;
    }
  for (guint i = 0; i < mods->len; i++)
    {
      HlProcModule *m = &g_array_index (mods, HlProcModule, i);
      gboolean known = FALSE;
      for (guint k = 0; k < self->modules->len && !known; k++)
        known = strcmp (g_array_index (self->modules, HlProcModule, k).path, m->path) == 0
                && g_array_index (self->modules, HlProcModule, k).start == m->start;
      if (known)
        continue;
      hl_recording_append_module (self->recording, m->path, m->start, m->end - m->start, 0, NULL, 0);
      HlProcModule copy = { g_strdup (m->path), m->start, m->end };
      g_array_append_val (self->modules, copy);
      self->need_symbols = TRUE;
    }
  g_array_unref (mods);
}

static void start_symbolize (HlLiveSession *self);

/* -- worker: changes of the live table (hl-live-scan.h) -------------------- */

static void
scan_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  HlLiveSession *self = HL_LIVE_SESSION (source);
  g_autoptr(GError) error = NULL;
  if (!hl_live_scan_finish (self->scan, result, self->recording, self->heartbeat_ns, &error))
    {
      warn (self, error->message);
      return;
    }
  if (self->need_symbols)
    start_symbolize (self);
  g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
}

static void
start_scan (HlLiveSession *self)
{
  hl_live_scan_async (self->scan, hl_live_segment_get_reader (self->segment), self, scan_done, NULL);
}

/* -- worker: symbols ------------------------------------------------------ */

/* The addresses are resolved on a worker while the polls go on feeding the
 * recording (the first run opens every module and takes a second or two);
 * the frames found are stored between appends, when no analysis reads the
 * recording. */
static void
symbolize_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  hl_symbolize_job_run (task_data, cancellable);
  g_task_return_pointer (task, task_data, (GDestroyNotify) hl_symbolize_job_free);
}

static void
store_symbols (HlLiveSession *self)
{
  if (self->symbols_ready == NULL || self->holds > 0)
    return;
  hl_symbolize_job_finish (self->symbols_ready, self->recording);
  g_clear_pointer (&self->symbols_ready, hl_symbolize_job_free);
  hl_recording_commit (self->recording);
}

static void
symbolize_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  HlLiveSession *self = HL_LIVE_SESSION (source);
  self->symbolizing = FALSE;
  self->symbols_ready = g_task_propagate_pointer (G_TASK (result), NULL);
  store_symbols (self);
  if (self->symbols_ready == NULL)
    g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
}

static void
start_symbolize (HlLiveSession *self)
{
  if (self->symbolizing || self->symbols_ready != NULL || self->holds > 0)
    return;
  self->need_symbols = FALSE;
  HlSymbolizeJob *job = hl_symbolize_job_begin (self->recording);
  if (job == NULL)
    return;
  self->symbolizing = TRUE;
  GTask *task = g_task_new (self, NULL, symbolize_done, NULL);
  g_task_set_task_data (task, job, NULL); /* returned by the worker */
  g_task_run_in_thread (task, symbolize_thread);
  g_object_unref (task);
}

typedef struct
{
  HlLiveSession *self;
  gboolean       changed;
} PollCtx;

static gboolean poll_segment (HlLiveSession *self);

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
                self->holds > 0 ? ", held" : "");
  if (ctx.changed)
    g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
  g_object_unref (self);
  return ctx.changed;
}

/* One poll; signals are emitted by the caller, out of the guard. */
static gboolean
poll_segment (HlLiveSession *self)
{
  HlShmReader *reader = hl_live_segment_get_reader (self->segment);
  HlFormatError err;
  gboolean changed = FALSE;
  HlLiveState before = self->state;
  /* a previous poll could not feed (a reader held the recording) */
  gboolean was_waiting = self->feed_waiting;

  self->n_polls++;
  update_state (self);
  changed |= self->state != before;
  /* opened while STARTING: the path comes with RUNNING */
  const char *trace_path = hl_live_segment_get_trace_path (self->segment);

  HlShmTotals t;
  if (hl_shm_reader_totals (reader, &t, &err) != 0)
    {
      warn (self, err.message);
      return changed;
    }
  guint64 dropped = 0;
  for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
    dropped += t.dropped[i];
  HlLiveTotals nt = {
    t.n_allocs, t.n_frees, t.bytes_allocated, t.bytes_freed, t.heap_bytes, t.peak_heap_bytes,
    t.peak_heap_time_ns, t.rss_bytes, t.peak_rss_bytes, dropped, t.n_stacks, t.n_threads, t.stacks_dropped,
  };
  changed |= memcmp (&nt, &self->totals, sizeof nt) != 0;
  self->totals = nt;

  /* Appends to the recording wait while analyses of it are being built
   * (hl_live_session_hold). */
  gboolean feed = self->holds == 0;
  /* fairness: back-to-back analyses must not starve the feeding */
  self->feed_waiting = self->holds > 0;
  self->feeding = feed;
  if (feed && self->pending_meta->len > 0)
    {
      for (guint i = 0; i < self->pending_meta->len; i++)
        feed_meta (self, &g_array_index (self->pending_meta, HlShmMetaItem, i));
      g_array_set_size (self->pending_meta, 0);
    }

  /* new samples (the ring keeps the last HL_SHM_SAMPLES) */
  if (feed && t.n_samples > self->next_sample)
    {
      guint64 first = self->next_sample;
      if (t.n_samples - first > HL_SHM_SAMPLES)
        first = t.n_samples - HL_SHM_SAMPLES;
      HlShmSample buf[256];
      guint64 budget = SAMPLES_PER_POLL;
      while (first < t.n_samples && budget > 0)
        {
          size_t n = hl_shm_reader_samples (reader, first, buf, G_N_ELEMENTS (buf));
          if (n == 0)
            break;
          for (size_t i = 0; i < n; i++)
            {
              HlLiveSample s = { buf[i].time_ns, buf[i].heap_bytes, buf[i].rss_bytes, buf[i].n_allocs, 0, dropped };
              if (self->samples->len > 0)
                {
                  const HlLiveSample *p = &g_array_index (self->samples, HlLiveSample, self->samples->len - 1);
                  if (s.time_ns <= p->time_ns)
                    continue; /* out of order: a damaged or rewritten ring */
                  s.rate = s.n_allocs >= p->n_allocs
                               ? (double) (s.n_allocs - p->n_allocs) * 1e9 / (double) (s.time_ns - p->time_ns)
                               : 0;
                }
              g_array_append_val (self->samples, s);
              hl_recording_append_counters (self->recording, s.time_ns, s.heap_bytes, s.rss_bytes);
            }
          first += n;
          budget = budget > n ? budget - n : 0;
          changed = TRUE;
        }
      self->next_sample = first;
    }

  if (feed)
    {
      guint64 before_cursor = self->res_cursor;
      if (hl_shm_reader_resources (reader, &self->res_cursor, stack_cb, thread_cb, self, &err) != 0)
        warn (self, err.message);
      changed |= self->res_cursor != before_cursor;
      if (self->need_maps && hl_live_segment_now_ns (self->segment) >= self->maps_read_ns + MAPS_REREAD_NS / 10)
        read_maps (self);
      if (dropped > self->dropped_fed)
        {
          hl_recording_append_dropped (self->recording, self->heartbeat_ns, dropped - self->dropped_fed);
          self->dropped_fed = dropped;
        }
    }
  gboolean log_moved = FALSE;
  if (hl_live_metadata_read_log (self->meta, reader, self->heartbeat_ns, meta_log_cb, self, &log_moved, &err) != 0)
    warn (self, err.message);
  changed |= log_moved;
  if (hl_live_metadata_wants_backfill (self->meta, trace_path))
    hl_live_metadata_backfill_async (self->meta, trace_path, self, backfill_done, NULL);

  g_array_set_size (self->callsites, 0);
  if (hl_shm_reader_callsites (reader, callsite_cb, self, &err) != 0)
    warn (self, err.message);
  g_array_sort (self->callsites, compare_callsites);

  if (hl_live_metadata_read_current (self->meta, reader, &err) != 0)
    warn (self, err.message);

  if (feed && state_is_final (self->state) && !self->ended_fed && self->state == HL_LIVE_STATE_ENDED)
    {
      self->ended_fed = TRUE;
      guint64 ended_ns = 0;
      hl_shm_reader_end_info (reader, NULL, &ended_ns, NULL);
      hl_recording_append_end (self->recording, ended_ns, self->exit_status);
    }

  if (feed)
    {
      hl_recording_commit (self->recording);
      store_symbols (self);
      if (self->need_symbols && !hl_live_scan_is_running (self->scan))
        start_symbolize (self);
      /* fairness: a reader refused a hold goes before the next scan (one
       * scan skipped, so that neither starves the other) */
      if (self->hold_wanted && !self->scan_skipped)
        {
          self->hold_wanted = FALSE;
          self->scan_skipped = TRUE;
        }
      else if (!hl_live_scan_is_running (self->scan) && !self->broken)
        {
          self->scan_skipped = FALSE;
          start_scan (self);
        }
      /* the appends that waited for a hold are in: the readers refused
       * meanwhile try again (after the program's end no other poll would
       * tell them) */
      changed |= was_waiting;
    }

  return changed;
}

static gboolean
poll_timeout (gpointer user_data)
{
  HlLiveSession *self = user_data;
  hl_live_session_poll (self);
  /* the last poll must also feed: one held off by a reader (an analysis)
   * leaves the end's appends waiting, and the readers' holds refused */
  if ((state_is_final (self->state) && !self->feed_waiting) || self->broken)
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
guint64 hl_live_session_get_start_wall_ns (HlLiveSession *self) { return hl_live_segment_get_header (self->segment)->start_wall_ns; }
guint hl_live_session_get_n_polls (HlLiveSession *self) { return self->n_polls; }
gboolean hl_live_session_is_busy (HlLiveSession *self) { return hl_live_scan_is_running (self->scan) || self->symbolizing; }
gboolean hl_live_session_is_symbolizing (HlLiveSession *self) { return self->symbolizing; }

gboolean
hl_live_session_hold (HlLiveSession *self)
{
  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), FALSE);
  /* a scan in flight appends when it lands, a symbolizer rewrites frames */
  if (self->feed_waiting || (self->holds == 0 && hl_live_scan_is_running (self->scan)))
    {
      self->hold_wanted = TRUE;
      return FALSE;
    }
  self->hold_wanted = FALSE;
  self->holds++;
  return TRUE;
}

void
hl_live_session_release (HlLiveSession *self)
{
  g_return_if_fail (HL_IS_LIVE_SESSION (self));
  g_return_if_fail (self->holds > 0);
  self->holds--;
}
HlRecording *hl_live_session_get_recording (HlLiveSession *self) { return self->recording; }

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

const HlLiveSample *
hl_live_session_get_samples (HlLiveSession *self,
                             guint         *n_samples)
{
  *n_samples = self->samples->len;
  return (const HlLiveSample *) self->samples->data;
}

const HlLiveCallsite *
hl_live_session_get_callsites (HlLiveSession *self,
                               guint         *n_callsites)
{
  *n_callsites = self->callsites->len;
  return (const HlLiveCallsite *) self->callsites->data;
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
  HlCosts *costs;

  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), NULL);
  g_return_val_if_fail (n_stacks != NULL, NULL);

  *n_stacks = hl_recording_get_n_stacks (self->recording);
  costs = g_new0 (HlCosts, MAX (*n_stacks, 1));
  for (guint i = 0; i < self->callsites->len; i++)
    {
      const HlLiveCallsite *c = &g_array_index (self->callsites, HlLiveCallsite, i);
      HlStackId s = hl_recording_lookup_stack (self->recording, c->stack_id);

      if (s == 0 || s >= *n_stacks)
        continue;
      costs[s].allocations += c->calls;
      costs[s].bytes += c->bytes;
      costs[s].leaked_bytes += c->live_bytes;
      costs[s].leaked_blocks += c->live_count;
    }
  return costs;
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
  s->samples = g_array_copy (self->samples);
  s->callsites = g_array_copy (self->callsites);
  for (guint i = 0; i < s->callsites->len; i++)
    {
      HlLiveCallsite *c = &g_array_index (s->callsites, HlLiveCallsite, i);
      c->frames = g_memdup2 (c->frames, sizeof (guint64) * c->n_frames);
    }
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
