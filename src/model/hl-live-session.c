/* hl-live-session.c — see hl-live-session.h. */
#define _GNU_SOURCE
#include "hl-live-session.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hl-proc-maps.h"
#include "hl-recording-builder.h"
#include "hl-shm-guard.h"
#include "hl-model-i18n.h"
#include "hl-shm-reader.h"
#include "hl-symbolize-job.h"
#include "hl-trace-reader.h"

#define STALE_AFTER_NS      (5 * G_GUINT64_CONSTANT (1000000000)) /* silent this long: is the pid still the target? */
#define SAMPLES_PER_POLL    2048
#define MAPS_REREAD_NS      (G_GUINT64_CONSTANT (500000000))

struct _HlLiveSession
{
  GObject       parent_instance;

  HlShmReader  *reader;
  HlShmHeader   header;
  char         *name;           /* NULL for memory segments */
  char         *cmdline;
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
  GPtrArray    *metadata;       /* HlLiveMetaInterval*, current */
  GPtrArray    *history;        /* HlLiveMetaInterval*, all */
  GHashTable   *open_intervals; /* key -> HlLiveMetaInterval* (in history) */
  GArray       *log_entries;    /* MetaChange: every change the log gave, in order */
  guint         log_delivered;  /* entries the last log read gave */
  guint64       gap_ns;         /* changes before this time may be lost (0: none lost) */
  guint64       filled_ns;      /* history filled from the trace up to this time */
  gboolean      backfilling;    /* a worker reads the trace's metadata */
  guint64       log_cursor;
  guint64       dropped_fed;
  GArray       *pending_meta;   /* HlShmMetaItem log entries not yet fed (a worker held the recording) */
  gboolean      feeding;        /* appends to the recording are allowed now */
  guint         holds;          /* hl_live_session_hold(): readers of the recording (analyses) */
  gboolean      feed_waiting;   /* a poll could not feed because of a hold: no new holds until one does */
  gboolean      hold_wanted;    /* a hold was refused: the next poll starts no scan, so the next hold gets in */
  gboolean      scan_skipped;   /* the last feeding poll skipped its scan for a hold: this one scans */

  /* The recording fed from the session */
  HlRecording  *recording;
  GHashTable   *live_ids;       /* live-table slot + 1 -> LiveFed, allocations fed and not yet freed */
  guint32      *shadow;         /* the scans' view of the live table (hl_shm_reader_live_diff) */
  guint64       n_shadow;
  GArray       *modules;        /* HlProcModule, the ones fed */
  guint64       maps_read_ns;
  gboolean      need_maps;
  gboolean      need_symbols;
  gboolean      scanning;       /* a worker copies the live table */
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

static double
thread_cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static gboolean
state_is_final (HlLiveState s)
{
  return s == HL_LIVE_STATE_ENDED || s == HL_LIVE_STATE_STALE || s == HL_LIVE_STATE_VANISHED
         || s == HL_LIVE_STATE_RESTARTED;
}

static void
interval_free (gpointer data)
{
  HlLiveMetaInterval *m = data;
  g_free (m->key);
  g_free (m->value);
  g_free (m);
}

/* One change of a metadata key (VALUE NULL: removed). */
typedef struct
{
  guint64  time_ns;
  char    *key;
  char    *value;
} MetaChange;

static void
meta_change_clear (gpointer p)
{
  MetaChange *c = p;
  g_free (c->key);
  g_free (c->value);
}

static HlLiveMetaInterval *
interval_copy (const HlLiveMetaInterval *m)
{
  HlLiveMetaInterval *c = g_new (HlLiveMetaInterval, 1);
  *c = *m;
  c->key = g_strdup (m->key);
  c->value = g_strdup (m->value);
  return c;
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
  if (self->reader != NULL)
    hl_shm_reader_free (self->reader);
  g_free (self->name);
  g_free (self->cmdline);
  g_free (self->next_session);
  g_ptr_array_unref (self->warnings);
  g_hash_table_destroy (self->warned);
  g_array_unref (self->samples);
  g_hash_table_destroy (self->stacks);
  g_array_unref (self->callsites);
  g_ptr_array_unref (self->metadata);
  g_hash_table_destroy (self->open_intervals);
  g_array_unref (self->log_entries);
  g_ptr_array_unref (self->history);
  g_clear_object (&self->recording);
  g_hash_table_destroy (self->live_ids);
  g_free (self->shadow);
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
  self->metadata = g_ptr_array_new_with_free_func (interval_free);
  self->history = g_ptr_array_new_with_free_func (interval_free);
  self->open_intervals = g_hash_table_new (g_str_hash, g_str_equal);
  self->log_entries = g_array_new (FALSE, FALSE, sizeof (MetaChange));
  g_array_set_clear_func (self->log_entries, meta_change_clear);
  self->recording = hl_recording_new ();
  self->live_ids = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  self->modules = g_array_new (FALSE, TRUE, sizeof (HlProcModule));
  g_array_set_clear_func (self->modules, proc_module_clear);
  self->need_maps = TRUE;
  self->pending_meta = g_array_new (FALSE, FALSE, sizeof (HlShmMetaItem));
}

/* ---- Opening ---------------------------------------------------------- */

static HlLiveSession *
session_new (HlShmReader *reader,
             const char  *name)
{
  HlLiveSession *self = g_object_new (HL_TYPE_LIVE_SESSION, NULL);
  self->reader = reader;
  self->header = *hl_shm_reader_header (reader);
  self->name = g_strdup (name);
  GString *cmd = g_string_new (NULL);
  const char *c = self->header.cmdline, *end = c + sizeof self->header.cmdline;
  while (c < end && *c != '\0')
    {
      gsize n = strnlen (c, (gsize) (end - c));
      if (cmd->len > 0)
        g_string_append_c (cmd, ' ');
      g_string_append_len (cmd, c, (gssize) n);
      c += n + 1;
    }
  self->cmdline = g_string_free (cmd, FALSE);

  char pid[16];
  g_snprintf (pid, sizeof pid, "%u", (unsigned) self->header.pid);
  hl_recording_append_info (self->recording, "exe", self->header.exe);
  hl_recording_append_info (self->recording, "cmdline", self->cmdline);
  hl_recording_append_info (self->recording, "pid", pid);
  hl_recording_append_info (self->recording, "live", "1");
  /* a first poll, so that the object starts with numbers */
  hl_live_session_poll (self);
  return self;
}

typedef struct
{
  const char    *name;
  HlShmReader   *r;
  HlFormatError  err;
  int            rc;
} OpenCtx;

static void
open_guarded (gpointer data)
{
  OpenCtx *o = data;
  o->rc = hl_shm_reader_open (o->name, &o->r, &o->err);
}

HlLiveSession *
hl_live_session_open_name (const char  *name,
                           GError     **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  OpenCtx o = { name, NULL, { 0 }, -1 };
  if (!hl_shm_guard_run (open_guarded, &o))
    {
      g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED, _("%s: shrank while it was opened (SIGBUS)"), name);
      return NULL;
    }
  HlShmReader *r = o.r;
  HlFormatError err = o.err;
  if (o.rc != 0)
    {
      /* a segment still being created is not there yet, not refused */
      g_set_error (error, HL_LIVE_ERROR,
                   err.code == HL_FORMAT_ERROR_NOT_READY ? HL_LIVE_ERROR_NOT_FOUND : HL_LIVE_ERROR_REFUSED,
                   "%s: %s", name, err.message);
      return NULL;
    }
  const char *base = strrchr (name, '/') != NULL ? strrchr (name, '/') + 1 : name;
  return session_new (r, base);
}

HlLiveSession *
hl_live_session_open_memory (const void  *data,
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
  return session_new (r, NULL);
}

typedef struct
{
  guint32  pid;
  char    *best;
  guint64  best_start;
  gboolean best_final;
  char    *refused;
  guint32  foreign_uid;
  gboolean foreign;
  gboolean being_created;
} FindPid;

static void
find_pid_cb (void                   *user_data,
             const HlShmSessionName *s)
{
  FindPid *f = user_data;
  if (s->pid != f->pid)
    return;
  if (s->uid != (guint32) getuid ())
    {
      f->foreign_uid = s->uid;
      f->foreign = TRUE;
      return;
    }
  HlShmReader *r;
  HlFormatError err;
  if (hl_shm_reader_open (s->name, &r, &err) != 0)
    {
      if (err.code == HL_FORMAT_ERROR_NOT_READY)
        {
          f->being_created = TRUE;
          return;
        }
      g_free (f->refused);
      f->refused = g_strdup_printf ("%s: %s", s->name, err.message);
      return;
    }
  guint32 flags = 0;
  hl_shm_reader_end_info (r, NULL, NULL, &flags);
  gboolean final = !(flags & HL_SHM_FLAG_ENDED_BY_EXEC);
  guint64 start = hl_shm_reader_header (r)->start_wall_ns;
  if (f->best == NULL || (final && !f->best_final) || (final == f->best_final && start > f->best_start))
    {
      g_free (f->best);
      f->best = g_strdup (s->name);
      f->best_start = start;
      f->best_final = final;
    }
  hl_shm_reader_free (r);
}

static void
list_all_guarded (gpointer data)
{
  hl_shm_list_sessions (UINT32_MAX, find_pid_cb, data);
}

HlLiveSession *
hl_live_session_open_pid (guint32   pid,
                          GError  **error)
{
  FindPid f = { .pid = pid };
  HlLiveSession *self = NULL;
  hl_shm_guard_run (list_all_guarded, &f);
  if (f.best != NULL)
    self = hl_live_session_open_name (f.best, error);
  else if (f.refused != NULL)
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED, "%s", f.refused);
  else if (f.foreign)
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED,
                 _("the session of pid %u belongs to uid %u, not to you (%u)"), (unsigned) pid,
                 (unsigned) f.foreign_uid, (unsigned) getuid ());
  else if (f.being_created)
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND,
                 _("the session of pid %u is still being created"), (unsigned) pid);
  else
    g_set_error (error, HL_LIVE_ERROR, HL_LIVE_ERROR_NOT_FOUND,
                 _("no session for pid %u (is it running under the Heaplens preload?)"), (unsigned) pid);
  g_free (f.best);
  g_free (f.refused);
  return self;
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

static char *
item_value (const HlShmMetaItem *item)
{
  if (item->flags & HL_SHM_META_IS_STRING)
    return g_utf8_make_valid (item->string_value, -1);
  return g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) item->int_value);
}

static void
meta_item_cb (void                *user_data,
              const HlShmMetaItem *item)
{
  HlLiveSession *self = user_data;
  HlLiveMetaInterval *m = g_new0 (HlLiveMetaInterval, 1);
  m->key = g_utf8_make_valid (item->key, -1);
  m->value = item_value (item);
  m->start_ns = item->time_ns;
  m->end_ns = G_MAXUINT64;
  g_ptr_array_add (self->metadata, m);
}

/* A metadata log entry into the recording. */
static void
feed_meta (HlLiveSession       *self,
           const HlShmMetaItem *entry)
{
  char *key = g_utf8_make_valid (entry->key, -1);
  /* a mark's text is in string_value (without IS_STRING) */
  char *value = (entry->flags & HL_SHM_META_IS_MARK) ? g_utf8_make_valid (entry->string_value, -1)
                                                     : item_value (entry);
  if (entry->flags & HL_SHM_META_IS_MARK)
    hl_recording_append_mark (self->recording, entry->time_ns, 0, value);
  else
    hl_recording_append_metadata (self->recording, entry->time_ns, 0, key,
                                  (entry->flags & HL_SHM_META_REMOVED) ? NULL : value);
  g_free (key);
  g_free (value);
}

/* One change into the history of intervals. */
static void
history_apply (HlLiveSession *self,
               guint64        time_ns,
               const char    *key,
               const char    *value)
{
  HlLiveMetaInterval *open = g_hash_table_lookup (self->open_intervals, key);
  if (open != NULL)
    {
      open->end_ns = time_ns;
      g_hash_table_remove (self->open_intervals, key);
    }
  if (value == NULL)
    return;
  HlLiveMetaInterval *m = g_new0 (HlLiveMetaInterval, 1);
  m->key = g_strdup (key);
  m->value = g_strdup (value);
  m->start_ns = time_ns;
  m->end_ns = G_MAXUINT64;
  g_ptr_array_add (self->history, m);
  g_hash_table_insert (self->open_intervals, m->key, m);
}

/* -- worker: the history the log lost, from the trace ----------------------- */

typedef struct
{
  char    *path;
  guint64  before_ns;
  GArray  *changes;   /* MetaChange, by time */
} Backfill;

static void
backfill_free (gpointer p)
{
  Backfill *b = p;
  g_free (b->path);
  g_array_unref (b->changes);
  g_free (b);
}

static gint
compare_changes (gconstpointer a,
                 gconstpointer b)
{
  const MetaChange *x = a, *y = b;
  return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The metadata changes the trace holds before BEFORE_NS (the trace is
 * written as the program runs; packets without metadata are skipped by
 * their header's flags). */
static void
backfill_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  Backfill *b = task_data;
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_file (b->path, &r, &err) != 0)
    {
      g_task_return_new_error (task, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED, "%s", err.message);
      return;
    }
  HlPacketView pkt;
  HlEvent ev;
  HlEventCursor *cursor = g_new (HlEventCursor, 1);
  while (hl_trace_reader_next_packet (r, &pkt, &err) == 1)
    {
      if (!(pkt.header.flags & HL_PACKET_FLAG_HAS_META))
        continue;
      hl_event_cursor_init (cursor, &pkt);
      while (hl_event_cursor_next (cursor, &ev, &err) == 1)
        {
          if (ev.time_ns >= b->before_ns)
            continue;
          if (ev.type != HL_EVENT_META_INT && ev.type != HL_EVENT_META_STRING && ev.type != HL_EVENT_META_REMOVE)
            continue;
          MetaChange c = { ev.time_ns, g_utf8_make_valid (ev.u.meta.key, -1), NULL };
          if (ev.type == HL_EVENT_META_STRING)
            c.value = g_utf8_make_valid (ev.u.meta.string_value, -1);
          else if (ev.type == HL_EVENT_META_INT)
            c.value = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) ev.u.meta.int_value);
          g_array_append_val (b->changes, c);
        }
    }
  g_free (cursor);
  hl_trace_reader_free (r);
  g_array_sort (b->changes, compare_changes);
  g_task_return_boolean (task, TRUE);
}

static void
backfill_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  HlLiveSession *self = HL_LIVE_SESSION (source);
  Backfill *b = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  self->backfilling = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      warn (self, error->message);
      return;
    }
  /* the history again: the trace's changes before the gap, then the
   * log's from the gap on */
  g_ptr_array_set_size (self->history, 0);
  g_hash_table_remove_all (self->open_intervals);
  for (guint i = 0; i < b->changes->len; i++)
    {
      const MetaChange *c = &g_array_index (b->changes, MetaChange, i);
      history_apply (self, c->time_ns, c->key, c->value);
    }
  for (guint i = 0; i < self->log_entries->len; i++)
    {
      const MetaChange *c = &g_array_index (self->log_entries, MetaChange, i);
      if (c->time_ns >= b->before_ns)
        history_apply (self, c->time_ns, c->key, c->value);
    }
  self->filled_ns = MAX (self->filled_ns, b->before_ns);
  g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
}

static void
start_backfill (HlLiveSession *self)
{
  if (self->backfilling || self->gap_ns <= self->filled_ns || self->header.trace_path[0] == '\0'
      || !g_file_test (self->header.trace_path, G_FILE_TEST_IS_REGULAR))
    return;
  Backfill *b = g_new0 (Backfill, 1);
  b->path = g_strdup (self->header.trace_path);
  b->before_ns = self->gap_ns;
  b->changes = g_array_new (FALSE, FALSE, sizeof (MetaChange));
  g_array_set_clear_func (b->changes, meta_change_clear);
  self->backfilling = TRUE;
  GTask *task = g_task_new (self, NULL, backfill_done, NULL);
  g_task_set_task_data (task, b, backfill_free);
  g_task_run_in_thread (task, backfill_thread);
  g_object_unref (task);
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
  self->log_delivered++;
  if (entry->flags & HL_SHM_META_IS_MARK)
    return;
  MetaChange c = { entry->time_ns, g_utf8_make_valid (entry->key, -1),
                   (entry->flags & HL_SHM_META_REMOVED) ? NULL : item_value (entry) };
  g_array_append_val (self->log_entries, c);
  history_apply (self, c.time_ns, c.key, c.value);
}

static gboolean
pid_alive (guint32 pid)
{
  return pid != 0 && (kill ((pid_t) pid, 0) == 0 || errno == EPERM);
}

/* The process at the session's pid is still the program that made the
 * session: not a zombie (killed, its parent has not reaped it yet), not
 * another program that has taken the pid over. A program that allocates
 * nothing for a while (waiting for input) is not stale. */
static gboolean
pid_is_target (HlLiveSession *self)
{
  guint32 pid = self->header.pid;
  g_autofree char *stat_path = g_strdup_printf ("/proc/%u/stat", pid);
  g_autofree char *exe_path = g_strdup_printf ("/proc/%u/exe", pid);
  g_autofree char *stat = NULL;
  g_autofree char *exe = NULL;

  if (!pid_alive (pid))
    return FALSE;
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

static guint64
now_since_start (HlLiveSession *self)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  guint64 now = (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
  return now > self->header.start_mono_ns ? now - self->header.start_mono_ns : 0;
}

typedef struct
{
  guint32 pid;
  const char *self_name;
  guint64 start;
  char *newer;
} FindNewer;

static void
find_newer_cb (void                   *user_data,
               const HlShmSessionName *s)
{
  FindNewer *f = user_data;
  if (s->pid == f->pid && g_strcmp0 (s->name, f->self_name) != 0 && f->newer == NULL)
    f->newer = g_strdup (s->name);
}

static void
update_state (HlLiveSession *self)
{
  guint64 hb = 0;
  HlShmState st = hl_shm_reader_state (self->reader, &hb);
  self->heartbeat_ns = hb;
  guint32 now_flags = 0;
  hl_shm_reader_end_info (self->reader, NULL, NULL, &now_flags);
  if (now_flags & HL_SHM_FLAG_UNFOLLOWED)
    self->unfollowed = TRUE;
  if (st == HL_SHM_STATE_ENDED)
    {
      gint32 status = 0;
      guint32 flags = 0;
      hl_shm_reader_end_info (self->reader, &status, NULL, &flags);
      self->exit_status = status;
      if (flags & HL_SHM_FLAG_ENDED_BY_EXEC)
        {
          FindNewer f = { .pid = self->header.pid, .self_name = self->name };
          hl_shm_list_sessions ((guint32) getuid (), find_newer_cb, &f);
          g_free (self->next_session);
          self->next_session = f.newer;
          set_state (self, HL_LIVE_STATE_RESTARTED);
        }
      else
        set_state (self, HL_LIVE_STATE_ENDED);
      return;
    }
  if (self->name != NULL)
    {
      char *path = g_strdup_printf ("/dev/shm/%s", self->name);
      gboolean exists = g_file_test (path, G_FILE_TEST_EXISTS);
      g_free (path);
      /* A name removed while the program runs (someone's `sessions
       * --prune`, a launcher that tidied up early) leaves the mapping we
       * read: the session goes on. Gone with its name: vanished. */
      if (!exists && !pid_is_target (self))
        {
          set_state (self, HL_LIVE_STATE_VANISHED);
          return;
        }
      if (!exists)
        warn (self, _("the session's name was removed while the program runs: still reading it"));
      if (!pid_alive (self->header.pid))
        {
          set_state (self, HL_LIVE_STATE_STALE);
          return;
        }
      if (now_since_start (self) > hb + STALE_AFTER_NS && !pid_is_target (self))
        {
          set_state (self, HL_LIVE_STATE_STALE);
          return;
        }
    }
  set_state (self, st == HL_SHM_STATE_RUNNING ? HL_LIVE_STATE_RUNNING : HL_LIVE_STATE_STARTING);
}

static void
read_maps (HlLiveSession *self)
{
  self->need_maps = FALSE;
  self->maps_read_ns = now_since_start (self);
  if (self->name == NULL || !pid_alive (self->header.pid))
    return;
  g_autoptr(GError) error = NULL;
  GArray *mods = hl_proc_maps_read (self->header.pid, &error);
  if (mods == NULL)
    {
      char *w = g_strdup_printf (_("no module map for pid %u: %s (addresses stay raw)"),
                                 (unsigned) self->header.pid, error->message);
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

/* -- worker: changes of the live table ------------------------------------ */

/* A worker compares the live table with the shadow of the last scan (one
 * 32-bit value per slot, owned by the scans, which run one at a time) and
 * hands back only what changed; the main thread appends those. A steady
 * table of a million allocations costs one sequential pass. */

typedef struct
{
  guint64 index;
  guint64 id, address, size, time_ns;
  guint32 stack, tid;
} LiveAdded;

typedef struct
{
  guint64 id;
  guint64 address;
  guint32 tid;
} LiveFed;

typedef struct
{
  HlLiveSession *self;
  HlShmReader   *reader;
  guint32       *shadow;
  guint64        n_shadow;
  GArray        *added;    /* LiveAdded */
  GArray        *removed;  /* guint64 slot index */
  HlFormatError  err;
  int            rc;
  double         cpu_ms;   /* the worker's CPU time */
} ScanCtx;

static void
scan_added (void                *user_data,
            uint64_t             index,
            const HlShmLiveSlot *slot)
{
  ScanCtx *c = user_data;
  LiveAdded a = { index, slot->alloc_id, slot->address_atomic, slot->size, slot->time_ns, slot->stack_id, slot->tid };
  g_array_append_val (c->added, a);
}

static void
scan_removed (void     *user_data,
              uint64_t  index)
{
  ScanCtx *c = user_data;
  guint64 i = index;
  g_array_append_val (c->removed, i);
}

static void
scan_guarded (gpointer data)
{
  ScanCtx *c = data;
  HlLiveSession *self = c->self;
  if (self->shadow == NULL)
    {
      /* zero pages until a slot is used */
      self->n_shadow = hl_shm_reader_live_n_slots (self->reader);
      self->shadow = g_new0 (guint32, MAX (self->n_shadow, 1));
    }
  c->shadow = self->shadow;
  c->n_shadow = self->n_shadow;
  c->rc = hl_shm_reader_live_diff (c->reader, c->shadow, c->n_shadow, scan_added, scan_removed, c, &c->err);
}

static void
scan_ctx_free (gpointer p)
{
  ScanCtx *c = p;
  g_array_unref (c->added);
  g_array_unref (c->removed);
  g_free (c);
}

static void
scan_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  HlLiveSession *self = source;
  ScanCtx *c = task_data;
  c->self = self;
  c->reader = self->reader;
  double t0 = thread_cpu_ms ();
  gboolean ran = hl_shm_guard_run (scan_guarded, c);
  c->cpu_ms = thread_cpu_ms () - t0;
  if (!ran)
    {
      g_task_return_new_error (task, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED,
                               _("the session segment shrank while it was read (SIGBUS)"));
      return;
    }
  if (c->rc != 0)
    {
      g_task_return_new_error (task, HL_LIVE_ERROR, HL_LIVE_ERROR_REFUSED, "%s", c->err.message);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void start_symbolize (HlLiveSession *self);

static void
scan_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  HlLiveSession *self = HL_LIVE_SESSION (source);
  g_autoptr(GError) error = NULL;
  ScanCtx *c = g_task_get_task_data (G_TASK (result));
  self->scanning = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      warn (self, error->message);
      return;
    }
  /* the allocations gone since the last scan (freed at this poll's time),
   * then the ones seen for the first time */
  guint64 t = self->heartbeat_ns;
  double t0 = thread_cpu_ms ();
  for (guint i = 0; i < c->removed->len; i++)
    {
      gpointer key = GSIZE_TO_POINTER ((gsize) g_array_index (c->removed, guint64, i) + 1);
      LiveFed *fed = g_hash_table_lookup (self->live_ids, key);
      if (fed == NULL)
        continue;
      hl_recording_append_free (self->recording, fed->id, fed->address, t, fed->tid);
      g_hash_table_remove (self->live_ids, key);
    }
  for (guint i = 0; i < c->added->len; i++)
    {
      const LiveAdded *a = &g_array_index (c->added, LiveAdded, i);
      LiveFed *fed = g_new (LiveFed, 1);
      fed->id = a->id;
      fed->address = a->address;
      fed->tid = a->tid;
      g_hash_table_replace (self->live_ids, GSIZE_TO_POINTER ((gsize) a->index + 1), fed);
      hl_recording_append_alloc (self->recording, a->id, a->time_ns, a->tid, a->size, a->address, a->stack);
    }
  hl_recording_commit (self->recording);
  if (timing_enabled ())
    g_printerr ("heaplens: timing: live table snapshot of %" G_GUINT64_FORMAT " slots: worker %.1f ms CPU, "
                "%u new and %u gone applied in %.1f ms CPU, %u live\n",
                c->n_shadow, c->cpu_ms, c->added->len, c->removed->len, thread_cpu_ms () - t0,
                g_hash_table_size (self->live_ids));
  if (self->need_symbols)
    start_symbolize (self);
  g_signal_emit (self, signals[SIGNAL_UPDATED], 0);
}

static void
start_scan (HlLiveSession *self)
{
  ScanCtx *c = g_new0 (ScanCtx, 1);
  c->added = g_array_new (FALSE, FALSE, sizeof (LiveAdded));
  c->removed = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->scanning = TRUE;
  GTask *task = g_task_new (self, NULL, scan_done, NULL);
  g_task_set_task_data (task, c, scan_ctx_free);
  g_task_run_in_thread (task, scan_thread);
  g_object_unref (task);
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
  HlFormatError err;
  gboolean changed = FALSE;
  HlLiveState before = self->state;
  /* a previous poll could not feed (a reader held the recording) */
  gboolean was_waiting = self->feed_waiting;

  self->n_polls++;
  update_state (self);
  changed |= self->state != before;
  /* opened while STARTING: the path comes with RUNNING */
  if (self->header.trace_path[0] == '\0')
    g_strlcpy (self->header.trace_path, hl_shm_reader_trace_path (self->reader),
               sizeof self->header.trace_path);

  HlShmTotals t;
  if (hl_shm_reader_totals (self->reader, &t, &err) != 0)
    {
      warn (self, err.message);
      return changed;
    }
  guint64 dropped = 0;
  for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
    dropped += t.dropped[i];
  HlLiveTotals nt = {
    t.n_allocs, t.n_frees, t.bytes_allocated, t.bytes_freed, t.heap_bytes, t.peak_heap_bytes,
    t.peak_heap_time_ns, t.rss_bytes, t.peak_rss_bytes, dropped, t.n_stacks, t.n_threads,
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
          size_t n = hl_shm_reader_samples (self->reader, first, buf, G_N_ELEMENTS (buf));
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
      if (hl_shm_reader_resources (self->reader, &self->res_cursor, stack_cb, thread_cb, self, &err) != 0)
        warn (self, err.message);
      changed |= self->res_cursor != before_cursor;
      if (self->need_maps && now_since_start (self) >= self->maps_read_ns + MAPS_REREAD_NS / 10)
        read_maps (self);
      if (dropped > self->dropped_fed)
        {
          hl_recording_append_dropped (self->recording, self->heartbeat_ns, dropped - self->dropped_fed);
          self->dropped_fed = dropped;
        }
    }
  guint64 log_before = self->log_cursor;
  guint history_before = self->log_entries->len;
  self->log_delivered = 0;
  if (hl_shm_reader_metadata_log (self->reader, &self->log_cursor, meta_log_cb, self, &err) != 0)
    warn (self, err.message);
  changed |= self->log_cursor != log_before;
  if (self->log_cursor > log_before && self->log_cursor - log_before > self->log_delivered)
    {
      /* the ring (the last HL_SHM_META_LOG changes) lost some before this
       * read: what came before its first entry may be missing; the trace
       * file has all of it */
      guint64 first = self->log_entries->len > history_before
                          ? g_array_index (self->log_entries, MetaChange, history_before).time_ns
                          : self->heartbeat_ns;
      self->gap_ns = MAX (self->gap_ns, first);
    }
  if (self->gap_ns > self->filled_ns)
    start_backfill (self);

  g_array_set_size (self->callsites, 0);
  if (hl_shm_reader_callsites (self->reader, callsite_cb, self, &err) != 0)
    warn (self, err.message);
  g_array_sort (self->callsites, compare_callsites);

  g_ptr_array_set_size (self->metadata, 0);
  if (hl_shm_reader_metadata (self->reader, meta_item_cb, self, &err) != 0)
    warn (self, err.message);

  if (feed && state_is_final (self->state) && !self->ended_fed && self->state == HL_LIVE_STATE_ENDED)
    {
      self->ended_fed = TRUE;
      guint64 ended_ns = 0;
      hl_shm_reader_end_info (self->reader, NULL, &ended_ns, NULL);
      hl_recording_append_end (self->recording, ended_ns, self->exit_status);
    }

  if (feed)
    {
      hl_recording_commit (self->recording);
      store_symbols (self);
      if (self->need_symbols && !self->scanning)
        start_symbolize (self);
      /* fairness: a reader refused a hold goes before the next scan (one
       * scan skipped, so that neither starves the other) */
      if (self->hold_wanted && !self->scan_skipped)
        {
          self->hold_wanted = FALSE;
          self->scan_skipped = TRUE;
        }
      else if (!self->scanning && !self->broken)
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
guint32 hl_live_session_get_pid (HlLiveSession *self) { return self->header.pid; }
const char *hl_live_session_get_name (HlLiveSession *self) { return self->name; }
const char *hl_live_session_get_exe (HlLiveSession *self) { return self->header.exe; }
const char *hl_live_session_get_cmdline (HlLiveSession *self) { return self->cmdline; }
const char *hl_live_session_get_trace_path (HlLiveSession *self) { return self->header.trace_path; }
const char *hl_live_session_get_next_session (HlLiveSession *self) { return self->next_session; }
gboolean hl_live_session_get_unfollowed (HlLiveSession *self) { return self->unfollowed; }
guint64 hl_live_session_get_start_wall_ns (HlLiveSession *self) { return self->header.start_wall_ns; }
guint hl_live_session_get_n_polls (HlLiveSession *self) { return self->n_polls; }
gboolean hl_live_session_is_busy (HlLiveSession *self) { return self->scanning || self->symbolizing; }
gboolean hl_live_session_is_symbolizing (HlLiveSession *self) { return self->symbolizing; }

gboolean
hl_live_session_hold (HlLiveSession *self)
{
  g_return_val_if_fail (HL_IS_LIVE_SESSION (self), FALSE);
  /* a scan in flight appends when it lands, a symbolizer rewrites frames */
  if (self->feed_waiting || (self->holds == 0 && self->scanning))
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
  return self->metadata;
}

GPtrArray *
hl_live_session_get_history (HlLiveSession *self)
{
  return self->history;
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
  s->metadata = g_ptr_array_new_with_free_func (interval_free);
  for (guint i = 0; i < self->metadata->len; i++)
    g_ptr_array_add (s->metadata, interval_copy (g_ptr_array_index (self->metadata, i)));
  s->history = g_ptr_array_new_with_free_func (interval_free);
  for (guint i = 0; i < self->history->len; i++)
    g_ptr_array_add (s->history, interval_copy (g_ptr_array_index (self->history, i)));
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
