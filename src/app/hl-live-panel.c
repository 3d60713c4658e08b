/* hl-live-panel.c — see hl-live-panel.h. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "hl-flame-graph.h"
#include "hl-model.h"
#include "hl-live-panel.h"
#include "hl-live-status.h"
#include "hl-timing.h"
#include "hl-model-adapter.h"
#include "hl-timeline.h"
#include "hl-units.h"

/* A poll that saw something new refreshes the views at once, unless the
 * last refresh was less than MIN_REFRESH_MS ago: then the refresh timer
 * (REFRESH_MS) picks it up. About 10 refreshes a second (issue 8: ≥ 5). */
#define POLL_MS           100
#define MIN_REFRESH_MS    80
#define REFRESH_MS        50
#define STOP_ESCALATE_MS  2000
#define TRACE_TRIES       25    /* the trace looked for every 200 ms, 5 s */
#define FLAME_MIN_FRACTION 0.0005

struct _HlLivePanel
{
  GtkBox           parent_instance;

  GtkWindow       *window;        /* weak: the window this panel lives in */
  char            *title;         /* "title": the window's */

  HlLiveSession   *session;
  GSubprocess     *process;       /* when recording */
  HlLaunchClock   *clock;         /* keeps the recorded program's clock while it runs */
  GCancellable    *cancellable;
  char            *trace_path;
  guint            find_id;       /* waiting for the session of a recorded program */
  gboolean         waited;        /* on_process_exited() ran (GSubprocess forgets the pid earlier) */
  gboolean         exited;        /* the recorded program was reaped: */
  int              wait_status;   /* its wait status */
  guint64          exited_mono_ns; /* when (CLOCK_MONOTONIC) */
  guint            refresh_id;
  guint            stop_id;
  int              stop_stage;
  gboolean         frozen;
  gboolean         dirty;
  gboolean         finished;
  gboolean         exec_lost;     /* the session after an exec was not found */
  guint            trace_tries;
  guint            n_refreshes;
  gint64           last_refresh_us;
  gboolean         showing_trace; /* the window switched to the saved trace */
  gboolean         injected;      /* attached by us (hl_attach_async): Stop detaches */

  GtkLabel        *status;
  GtkLabel        *metadata;
  GtkLabel        *history;
  GtkWidget       *history_title;  /* the History section: shown once it has an entry */
  GtkWidget       *history_scroll;
  GtkTextBuffer   *console;
  GtkWidget       *console_box;
  GtkWidget       *stop_button;
  GtkWidget       *detach_button;
  GtkToggleButton *snapshot_button;
  GtkWidget       *children_button;
  GMenu           *children_menu;
  GHashTable      *children;      /* session names listed */
  gint64           children_scan_us; /* the last look for child processes */
  char            *status_text;
};

G_DEFINE_FINAL_TYPE (HlLivePanel, hl_live_panel, GTK_TYPE_BOX)

enum { PROP_0, PROP_TITLE, N_PROPS };
/* see hl-live-panel.h */
enum { SIGNAL_WAITING, SIGNAL_LIVE_STARTED, SIGNAL_LIVE_UPDATED, SIGNAL_SWITCH_TO_FILE, SIGNAL_OPEN_SESSION,
       SIGNAL_DETACHED, N_SIGNALS };

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
set_title (HlLivePanel *self,
           const char  *title)
{
  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

/* ---- Views ------------------------------------------------------------- */

/* Text set only when it changed: a label given new text is laid out again,
 * and its window with it. */
static void
label_update (GtkLabel   *label,
              const char *text,
              gboolean    markup)
{
  if (g_strcmp0 (gtk_label_get_label (label), text) == 0)
    return;
  if (markup)
    gtk_label_set_markup (label, text);
  else
    gtk_label_set_text (label, text);
}

static char *
state_line (HlLivePanel *self)
{
  return hl_live_status_line (self->session, self->frozen);
}

static void
refresh_metadata (HlLivePanel *self)
{
  GPtrArray *meta = hl_live_session_get_metadata (self->session);
  GString *now = g_string_new (NULL);
  for (guint i = 0; i < meta->len; i++)
    {
      HlLiveMetaInterval *m = g_ptr_array_index (meta, i);
      g_autofree char *k = g_markup_escape_text (m->key, -1);
      g_autofree char *v = g_markup_escape_text (m->value, -1);
      g_string_append_printf (now, "%s<b>%s</b> = %s", now->len ? "\n" : "", k, v);
    }
  label_update (self->metadata, now->len ? now->str : _("<i>No metadata set</i>"), TRUE);
  g_string_free (now, TRUE);

  /* the history of keys that change now and then (a request counter
   * changing hundreds of times is summarised by its number of values) */
  GPtrArray *h = hl_live_session_get_history (self->session);
  gboolean running = hl_live_session_get_state (self->session) == HL_LIVE_STATE_RUNNING;
  GHashTable *changes = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < h->len; i++)
    {
      HlLiveMetaInterval *m = g_ptr_array_index (h, i);
      g_hash_table_insert (changes, m->key,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (changes, m->key)) + 1));
    }
  GString *hist = g_string_new (NULL);
  GHashTable *summarised = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < h->len; i++)
    {
      HlLiveMetaInterval *m = g_ptr_array_index (h, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (changes, m->key));
      g_autofree char *k = g_markup_escape_text (m->key, -1);
      if (n > 8)
        {
          if (!g_hash_table_contains (summarised, m->key))
            {
              g_hash_table_add (summarised, m->key);
              /* Translators: a metadata key that took N values, e.g. "request: 600 values" */
              g_autofree char *values = g_strdup_printf (g_dngettext (NULL, "%u value", "%u values", n), n);
              g_string_append_printf (hist, "%s<b>%s</b>: %s", hist->len ? "\n" : "", k, values);
            }
          continue;
        }
      g_autofree char *t0 = hl_format_time (m->start_ns);
      /* an interval still open when the program ended lasted to its end */
      g_autofree char *t1 = m->end_ns != G_MAXUINT64 ? hl_format_time (m->end_ns)
                            : running ? g_strdup (_("now")) : g_strdup (_("end"));
      g_autofree char *v = g_markup_escape_text (m->value, -1);
      g_string_append_printf (hist, "%s%s – %s  <b>%s</b> = %s", hist->len ? "\n" : "", t0, t1, k, v);
    }
  g_hash_table_destroy (changes);
  g_hash_table_destroy (summarised);
  label_update (self->history, hist->len ? hist->str : "", TRUE);
  /* an empty History takes no room (issue 27.6) */
  gtk_widget_set_visible (self->history_title, hist->len > 0);
  gtk_widget_set_visible (self->history_scroll, hist->len > 0);
  g_string_free (hist, TRUE);
}

static void
refresh_views (HlLivePanel *self)
{
  /* the window's own views (timeline, summary, flame graph...) show the
   * session's recording (hl-live-window.c) */
  g_signal_emit (self, signals[SIGNAL_LIVE_UPDATED], 0);
}

/* ---- Child processes: one session each --------------------------------- */

/* The sessions of the process's children not listed yet go into the
 * children menu. */
static void
list_children (HlLivePanel *self,
               guint32      pid)
{
  g_autoptr(GPtrArray) sessions = hl_live_session_list (HL_LIVE_LIST_NAMES_ONLY, NULL);
  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    {
      const char *name = ((const HlLiveSessionInfo *) g_ptr_array_index (sessions, i))->name;
      if (g_hash_table_contains (self->children, name))
        continue;
      g_autoptr(HlLiveSessionInfo) s = hl_live_session_info_read (name);
      if (!s->readable || s->ppid != pid || s->pid == pid)
        continue;
      const char *base = strrchr (s->exe, '/') ? strrchr (s->exe, '/') + 1 : s->exe;
      g_autofree char *label = g_strdup_printf (_("%s — pid %u"), base, (unsigned) s->pid);
      g_autofree char *action = g_strdup_printf ("live.open-process('%s')", name);
      g_menu_append (self->children_menu, label, action);
      g_hash_table_add (self->children, g_strdup (name));
    }
}

static void
scan_children_now (HlLivePanel *self)
{
  if (self->session == NULL)
    return;
  list_children (self, hl_live_session_get_pid (self->session));
  guint n = g_hash_table_size (self->children);
  if (n > 0)
    {
      g_autofree char *label = g_strdup_printf (g_dngettext (NULL, "%u Child Process", "%u Child Processes", n), n);
      gtk_menu_button_set_label (GTK_MENU_BUTTON (self->children_button), label);
      gtk_widget_set_visible (self->children_button, TRUE);
    }
}

/* Ended sessions of PID's earlier images (before an exec): record keeps
 * them for the launcher, which removes them. */
static void
unlink_exec_ended (guint32 pid)
{
  g_autoptr(GPtrArray) sessions = hl_live_session_list (HL_LIVE_LIST_NAMES_ONLY, NULL);
  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    {
      const HlLiveSessionInfo *listed = g_ptr_array_index (sessions, i);
      if (listed->pid != pid)
        continue;
      g_autoptr(HlLiveSessionInfo) s = hl_live_session_info_read (listed->name);
      if (s->readable && s->state == HL_LIVE_STATE_RESTARTED)
        {
          g_autofree char *path = g_strdup_printf ("/dev/shm/%s", listed->name);
          g_unlink (path);
        }
    }
}

/* Every CHILDREN_SCAN_MS, not every Nth refresh: a slow main loop (a
 * sanitizer build on a loaded machine refreshes once a second or less)
 * listed a child only after 25 s, when it had often ended. */
#define CHILDREN_SCAN_MS 700

static void
scan_children (HlLivePanel *self)
{
  gint64 now = g_get_monotonic_time ();
  if (now < self->children_scan_us + CHILDREN_SCAN_MS * 1000)
    return;
  self->children_scan_us = now;
  scan_children_now (self);
}

static void
action_open_process (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  HlLivePanel *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(HlLiveSession) session = hl_live_session_open_name (g_variant_get_string (param, NULL), &error);
  if (session == NULL)
    {
      g_free (self->status_text);
      self->status_text = g_strdup (error->message);
      gtk_label_set_text (self->status, self->status_text);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_OPEN_SESSION], 0, session);
}

static void
refresh (HlLivePanel *self)
{
  gint64 t0 = g_get_monotonic_time ();
  scan_children (self);
  g_free (self->status_text);
  self->status_text = state_line (self);
  label_update (self->status, self->status_text, FALSE);
  if (self->session == NULL)
    return;
  refresh_metadata (self);
  if (!self->frozen)
    {
      gint64 t1 = g_get_monotonic_time ();
      refresh_views (self);
      self->n_refreshes++;
      self->dirty = FALSE;
      if (hl_timing_enabled ())
        g_printerr ("heaplens: timing: live refresh %u at %.3f s (+%.0f ms): panel %.1f ms, views %.1f ms\n",
                    self->n_refreshes, t0 / 1e6, (t0 - self->last_refresh_us) / 1000.0, (t1 - t0) / 1000.0,
                    (g_get_monotonic_time () - t1) / 1000.0);
      self->last_refresh_us = t0;
    }
}

static gboolean
refresh_timeout (gpointer user_data)
{
  HlLivePanel *self = user_data;
  if (self->dirty && g_get_monotonic_time () >= self->last_refresh_us + MIN_REFRESH_MS * 1000)
    refresh (self);
  return G_SOURCE_CONTINUE;
}

static void
on_session_updated (HlLiveSession *session,
                    HlLivePanel  *self)
{
  self->dirty = TRUE;
  if (g_get_monotonic_time () >= self->last_refresh_us + MIN_REFRESH_MS * 1000)
    refresh (self);
}

/* ---- The end: the saved trace takes this window's place ----------------- */

static gboolean
open_trace_idle (gpointer user_data)
{
  HlLivePanel *self = user_data;
  /* the trace may come a moment after the session ended (written by
   * another process, on a loaded machine): looked for a few seconds */
  if (self->window != NULL && self->trace_path != NULL && self->trace_path[0] != '\0'
      && !g_file_test (self->trace_path, G_FILE_TEST_IS_REGULAR) && ++self->trace_tries < TRACE_TRIES)
    {
      g_timeout_add_full (G_PRIORITY_DEFAULT, 200, open_trace_idle, g_object_ref (self), g_object_unref);
      return G_SOURCE_REMOVE;
    }
  if (self->window == NULL || self->trace_path == NULL || !g_file_test (self->trace_path, G_FILE_TEST_IS_REGULAR))
    {
      refresh (self);
      return G_SOURCE_REMOVE;
    }
  /* The same window goes on with the complete trace: its view, time range,
   * filters and flame graph zoom stay ("switch-to-file"). */
  g_autoptr(GFile) file = g_file_new_for_path (self->trace_path);
  g_signal_emit (self, signals[SIGNAL_SWITCH_TO_FILE], 0, file);
  self->showing_trace = TRUE;
  gtk_widget_set_visible (self->detach_button, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->snapshot_button), FALSE);
  gtk_widget_set_visible (self->stop_button, FALSE);
  return G_SOURCE_REMOVE;
}

/* Removes the kept sessions of the children that ended. */
static void
unlink_ended_children (HlLivePanel *self)
{
  GHashTableIter it;
  gpointer name;
  g_hash_table_iter_init (&it, self->children);
  while (g_hash_table_iter_next (&it, &name, NULL))
    {
      g_autoptr(HlLiveSessionInfo) s = hl_live_session_info_read (name);
      if (s->readable && (s->state == HL_LIVE_STATE_ENDED || s->state == HL_LIVE_STATE_RESTARTED))
        {
          g_autofree char *child = g_strdup_printf ("/dev/shm/%s", (const char *) name);
          g_unlink (child);
        }
    }
}

static void
maybe_finish (HlLivePanel *self)
{
  if (self->finished || self->session == NULL)
    return;
  HlLiveState st = hl_live_session_get_state (self->session);
  if (st == HL_LIVE_STATE_RUNNING || st == HL_LIVE_STATE_STARTING)
    return;
  /* follow_exec() takes over, also when the program already exited (a slow
   * main loop may see its exit before the exec is followed: finishing on
   * the image that exec'd away never opened the trace) */
  if (st == HL_LIVE_STATE_RESTARTED && !self->exec_lost)
    return;
  /* a recorded program: wait for the process itself too (its status: see waited) */
  if (self->process != NULL && !self->waited)
    return; /* still running: on_process_exited() comes back here */
  self->finished = TRUE;
  gtk_widget_set_sensitive (self->stop_button, FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->snapshot_button), FALSE);
  self->frozen = FALSE;
  refresh (self);
  g_free (self->trace_path);
  self->trace_path = g_strdup (hl_live_session_get_trace_path (self->session));
  if (self->process != NULL && self->exited && hl_live_session_get_name (self->session) != NULL)
    {
      /* as `heaplens-cli record`: a program killed without ending its
       * trace (SIGKILL, the OOM killer) left its last packets in the
       * session; they go into the trace before it is loaded, with the
       * record of the death (hl-session-salvage.h) */
      g_autoptr (GError) error = NULL;
      if (!hl_session_salvage_after_death (hl_live_session_get_name (self->session), self->wait_status,
                                           self->exited_mono_ns, NULL, NULL, &error))
        g_message ("the events %s left buffered could not be saved: %s",
                   hl_live_session_get_trace_path (self->session), error->message);
    }
  if (self->injected && hl_live_session_get_name (self->session) != NULL)
    {
      /* the attach kept the ended session for us, its launcher */
      g_autofree char *path = g_strdup_printf ("/dev/shm/%s", hl_live_session_get_name (self->session));
      g_unlink (path);
    }
  if (self->process != NULL && hl_live_session_get_name (self->session) != NULL)
    {
      /* record keeps the ended session for us (HEAPLENS_KEEP_SESSION) */
      g_autofree char *path = g_strdup_printf ("/dev/shm/%s", hl_live_session_get_name (self->session));
      g_unlink (path);
      /* and those of its children that ended (the running ones unlink
       * theirs when their own window is done, or `sessions --prune`) */
      unlink_exec_ended (hl_live_session_get_pid (self->session));
      scan_children_now (self);
      unlink_ended_children (self);
    }
  /* a session removed by its recorder as the program ended (heaplens-cli
   * record does) leaves its trace too */
  if (st == HL_LIVE_STATE_ENDED || st == HL_LIVE_STATE_STALE || st == HL_LIVE_STATE_VANISHED)
    g_idle_add_full (G_PRIORITY_DEFAULT, open_trace_idle, g_object_ref (self), g_object_unref);
}

static void set_session (HlLivePanel *self, HlLiveSession *session);

/* The target exec'd another program: follow it into its new session. */
static gboolean
follow_exec (gpointer user_data)
{
  HlLivePanel *self = user_data;
  const char *next = self->session != NULL ? hl_live_session_get_next_session (self->session) : NULL;
  guint32 pid = self->session != NULL ? hl_live_session_get_pid (self->session) : 0;
  g_autoptr(HlLiveSession) session = next != NULL ? hl_live_session_open_name (next, NULL)
                                                  : hl_live_session_open_pid (pid, NULL);
  if (session != NULL && g_strcmp0 (hl_live_session_get_name (session), hl_live_session_get_name (self->session)) != 0)
    {
      if (self->process != NULL && hl_live_session_get_name (self->session) != NULL)
        {
          g_autofree char *path = g_strdup_printf ("/dev/shm/%s", hl_live_session_get_name (self->session));
          g_unlink (path);
        }
      g_signal_handlers_disconnect_by_data (self->session, self);
      set_session (self, session);
    }
  else
    {
      self->exec_lost = TRUE;
      maybe_finish (self);
    }
  return G_SOURCE_REMOVE;
}

static void
on_state_changed (HlLiveSession *session,
                  GParamSpec    *pspec,
                  HlLivePanel  *self)
{
  self->dirty = TRUE;
  if (hl_live_session_get_state (session) == HL_LIVE_STATE_RESTARTED)
    {
      g_timeout_add_full (G_PRIORITY_DEFAULT, 50, follow_exec, g_object_ref (self), g_object_unref);
      return;
    }
  maybe_finish (self);
}

static void
set_session (HlLivePanel  *self,
             HlLiveSession *session)
{
  g_set_object (&self->session, session);
  g_signal_connect_object (session, "updated", G_CALLBACK (on_session_updated), self, 0);
  g_signal_connect_object (session, "notify::state", G_CALLBACK (on_state_changed), self, 0);
  g_autofree char *title = g_strdup_printf (_("%s — pid %u"), hl_live_session_get_exe (session),
                                            (unsigned) hl_live_session_get_pid (session));
  set_title (self, title);
  g_signal_emit (self, signals[SIGNAL_LIVE_STARTED], 0, session);
  hl_live_session_start (session, POLL_MS);
  self->dirty = TRUE;
  refresh (self);
  maybe_finish (self);
}

/* ---- Recording a program ------------------------------------------------ */

static void
console_append (HlLivePanel *self,
                const char   *text,
                gsize         len)
{
  GtkTextIter end;
  gtk_text_buffer_get_end_iter (self->console, &end);
  /* a program's output as it wrote it: a line too long for the panel
   * breaks anywhere, without the hyphens Pango adds inside words */
  gtk_text_buffer_insert_with_tags_by_name (self->console, &end, text, (int) len, "verbatim", NULL);
}

typedef struct
{
  HlLivePanel *self;
  GInputStream *stream;
  char          buf[4096];
} Reader;

static void read_more (Reader *r);

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Reader *r = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);
  if (n <= 0)
    {
      g_object_unref (r->self);
      g_free (r);
      return;
    }
  g_autofree char *valid = g_utf8_make_valid (r->buf, n);
  console_append (r->self, valid, strlen (valid));
  read_more (r);
}

static void
read_more (Reader *r)
{
  g_input_stream_read_async (r->stream, r->buf, sizeof r->buf, G_PRIORITY_DEFAULT,
                             r->self->cancellable, on_read, r);
}

static void
read_stream (HlLivePanel *self,
             GInputStream *stream)
{
  Reader *r = g_new0 (Reader, 1);
  r->self = g_object_ref (self);
  r->stream = stream;
  read_more (r);
}

static gboolean
find_session (gpointer user_data)
{
  HlLivePanel *self = user_data;
  const char *id = g_subprocess_get_identifier (self->process);
  if (id == NULL)
    {
      /* exited before its session could be seen */
      self->find_id = 0;
      g_free (self->status_text);
      self->status_text = g_strdup (_("The program exited before it could be watched"));
      gtk_label_set_text (self->status, self->status_text);
      return G_SOURCE_REMOVE;
    }
  g_autoptr(HlLiveSession) session = hl_live_session_open_pid ((guint32) g_ascii_strtoull (id, NULL, 10), NULL);
  if (session == NULL)
    return G_SOURCE_CONTINUE;
  self->find_id = 0;
  set_session (self, session);
  return G_SOURCE_REMOVE;
}

static void
on_process_exited (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  HlLivePanel *self = user_data;
  self->waited = TRUE;
  if (g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL))
    {
      self->exited = TRUE;
      self->exited_mono_ns = (guint64) g_get_monotonic_time () * 1000u;
      self->wait_status = g_subprocess_get_status (G_SUBPROCESS (source));
    }
  g_clear_pointer (&self->clock, hl_launch_clock_stop);
  if (self->stop_id != 0)
    {
      g_source_remove (self->stop_id);
      self->stop_id = 0;
    }
  if (self->session != NULL)
    hl_live_session_poll (self->session);
  maybe_finish (self);
  g_object_unref (self);
}

gboolean
hl_live_panel_record (HlLivePanel               *self,
                      const HlLiveRecordOptions *options,
                      GError                   **error)
{
  g_return_val_if_fail (HL_IS_LIVE_PANEL (self), FALSE);
  g_return_val_if_fail (self->process == NULL && self->session == NULL, FALSE);
  g_return_val_if_fail (options->argv != NULL && options->argv[0] != NULL, FALSE);
  gint64 spawned_wall_ns;
  GSubprocess *process = hl_live_launch (options, &spawned_wall_ns, error);
  if (process == NULL)
    return FALSE;

  self->process = process;
  /* as `heaplens-cli record` does: the preload stamps events with the
   * word this keeps instead of reading the clock (hl-launch-clock.h) */
  const char *pid = g_subprocess_get_identifier (process);
  if (pid != NULL)
    self->clock = hl_launch_clock_start ((pid_t) g_ascii_strtoll (pid, NULL, 10),
                                         (uint64_t) (spawned_wall_ns - 1000000));
  gtk_widget_set_visible (self->console_box, TRUE);
  gtk_widget_set_visible (self->stop_button, TRUE);
  g_autofree char *cmd = g_strjoinv (" ", options->argv);
  set_title (self, cmd);
  read_stream (self, g_subprocess_get_stdout_pipe (process));
  read_stream (self, g_subprocess_get_stderr_pipe (process));
  g_subprocess_wait_async (process, self->cancellable, on_process_exited, g_object_ref (self));
  self->find_id = g_timeout_add (20, find_session, self);
  return TRUE;
}

void
hl_live_panel_attach (HlLivePanel   *self,
                      HlLiveSession *session)
{
  g_return_if_fail (HL_IS_LIVE_PANEL (self));
  g_return_if_fail (HL_IS_LIVE_SESSION (session));
  g_return_if_fail (self->process == NULL && self->session == NULL);
  set_session (self, session);
}

void
hl_live_panel_set_injected (HlLivePanel *self)
{
  g_return_if_fail (HL_IS_LIVE_PANEL (self));
  self->injected = TRUE;
  gtk_widget_set_tooltip_text (self->stop_button, _("End the recording: the allocator is put back and the program "
                                                    "goes on running"));
  gtk_widget_set_visible (self->stop_button, TRUE);
  gtk_widget_set_visible (self->detach_button, FALSE);
}

void
hl_live_panel_start (HlLivePanel *self)
{
  g_return_if_fail (HL_IS_LIVE_PANEL (self));
  g_signal_emit (self, signals[SIGNAL_WAITING], 0, _("Starting the program…"));
  refresh (self);
}

/* ---- Stop, detach, snapshot ------------------------------------------------ */

static gboolean
stop_escalate (gpointer user_data)
{
  HlLivePanel *self = user_data;
  self->stop_stage++;
  g_subprocess_send_signal (self->process, self->stop_stage == 1 ? SIGTERM : SIGKILL);
  if (self->stop_stage >= 2)
    {
      self->stop_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

void
hl_live_panel_stop (HlLivePanel *self)
{
  g_return_if_fail (HL_IS_LIVE_PANEL (self));
  if (self->injected && self->session != NULL && !self->finished)
    {
      /* the control word: the preload detaches at its next allocation */
      g_autoptr (GError) error = NULL;
      if (!hl_attach_request_detach (hl_live_session_get_name (self->session),
                                     hl_live_session_get_pid (self->session), &error))
        g_message ("%s", error->message);
      gtk_widget_set_sensitive (self->stop_button, FALSE);
      return;
    }
  if (self->process == NULL || self->stop_id != 0 || g_subprocess_get_identifier (self->process) == NULL)
    return;
  self->stop_stage = 0;
  g_subprocess_send_signal (self->process, SIGINT);
  self->stop_id = g_timeout_add (STOP_ESCALATE_MS, stop_escalate, self);
}

void
hl_live_panel_detach (HlLivePanel *self)
{
  g_return_if_fail (HL_IS_LIVE_PANEL (self));
  if (self->session != NULL)
    hl_live_session_stop (self->session);
  /* the program goes on; its console pipes are closed with the window */
  self->finished = TRUE;
  g_signal_emit (self, signals[SIGNAL_DETACHED], 0);
}

void
hl_live_panel_set_frozen (HlLivePanel *self,
                           gboolean      frozen)
{
  g_return_if_fail (HL_IS_LIVE_PANEL (self));
  if (gtk_toggle_button_get_active (self->snapshot_button) != frozen)
    {
      gtk_toggle_button_set_active (self->snapshot_button, frozen); /* comes back here */
      return;
    }
  self->frozen = frozen;
  gtk_button_set_label (GTK_BUTTON (self->snapshot_button), frozen ? _("Resume Live") : _("Snapshot"));
  self->dirty = TRUE;
  refresh (self);
}

static void
on_snapshot_toggled (GtkToggleButton *button,
                     HlLivePanel    *self)
{
  hl_live_panel_set_frozen (self, gtk_toggle_button_get_active (button));
}

static void
on_stop_clicked (GtkButton    *button,
                 HlLivePanel *self)
{
  hl_live_panel_stop (self);
}

static void
on_detach_clicked (GtkButton    *button,
                   HlLivePanel *self)
{
  hl_live_panel_detach (self);
}

/* ---- Accessors ------------------------------------------------------------ */

HlLiveSession *hl_live_panel_get_session (HlLivePanel *self) { return self->session; }
const char *hl_live_panel_get_status (HlLivePanel *self) { return self->status_text; }
guint hl_live_panel_get_n_refreshes (HlLivePanel *self) { return self->n_refreshes; }
GtkWindow *hl_live_panel_get_trace_window (HlLivePanel *self) { return self->showing_trace ? self->window : NULL; }
GtkWindow *hl_live_panel_get_window (HlLivePanel *self) { return self->window; }
guint hl_live_panel_get_n_children (HlLivePanel *self) { return g_hash_table_size (self->children); }

char *
hl_live_panel_get_console (HlLivePanel *self)
{
  GtkTextIter a, b;
  gtk_text_buffer_get_bounds (self->console, &a, &b);
  return gtk_text_buffer_get_text (self->console, &a, &b, FALSE);
}

char *
hl_live_panel_get_metadata_text (HlLivePanel *self)
{
  return g_strdup (gtk_label_get_text (self->metadata));
}

/* ---- GObject ---------------------------------------------------------------- */

static void
hl_live_panel_dispose (GObject *object)
{
  HlLivePanel *self = HL_LIVE_PANEL (object);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->find_id, g_source_remove);
  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_clear_handle_id (&self->stop_id, g_source_remove);
  /* the session itself is kept until finalize: its numbers stay readable */
  if (self->session != NULL)
    {
      /* an attach of ours is not left recording with no one to end it */
      if (self->injected && !self->finished)
        (void) hl_attach_request_detach (hl_live_session_get_name (self->session),
                                         hl_live_session_get_pid (self->session), NULL);
      hl_live_session_stop (self->session);
      g_signal_handlers_disconnect_by_data (self->session, self);
    }
  g_clear_pointer (&self->clock, hl_launch_clock_stop);
  g_clear_object (&self->process);
  g_clear_weak_pointer (&self->window);
  G_OBJECT_CLASS (hl_live_panel_parent_class)->dispose (object);
}

static void
hl_live_panel_finalize (GObject *object)
{
  HlLivePanel *self = HL_LIVE_PANEL (object);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->session);
  g_clear_object (&self->children_menu);
  g_clear_pointer (&self->children, g_hash_table_destroy);
  g_free (self->trace_path);
  g_free (self->status_text);
  g_free (self->title);
  G_OBJECT_CLASS (hl_live_panel_parent_class)->finalize (object);
}

static void
action_open_process_cb (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param);

static void
hl_live_panel_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  HlLivePanel *self = HL_LIVE_PANEL (object);
  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The window the panel is put in: for hl_live_panel_get_window. */
static void
hl_live_panel_root (GtkWidget *widget)
{
  HlLivePanel *self = HL_LIVE_PANEL (widget);
  GTK_WIDGET_CLASS (hl_live_panel_parent_class)->root (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  if (GTK_IS_WINDOW (root))
    g_set_weak_pointer (&self->window, GTK_WINDOW (root));
}

static void
hl_live_panel_class_init (HlLivePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = hl_live_panel_dispose;
  object_class->finalize = hl_live_panel_finalize;
  object_class->get_property = hl_live_panel_get_property;
  GTK_WIDGET_CLASS (klass)->root = hl_live_panel_root;

  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  signals[SIGNAL_WAITING] = g_signal_new ("waiting", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_LIVE_STARTED] = g_signal_new ("live-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 1, HL_TYPE_LIVE_SESSION);
  signals[SIGNAL_LIVE_UPDATED] = g_signal_new ("live-updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_SWITCH_TO_FILE] = g_signal_new ("switch-to-file", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_FILE);
  signals[SIGNAL_OPEN_SESSION] = g_signal_new ("open-session", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 1, HL_TYPE_LIVE_SESSION);
  signals[SIGNAL_DETACHED] = g_signal_new ("detached", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 0);
  gtk_widget_class_install_action (GTK_WIDGET_CLASS (klass), "live.open-process", "s", action_open_process_cb);
}

static GtkWidget *
section_title (const char *text)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  return label;
}

static void
action_open_process_cb (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  action_open_process (NULL, param, widget);
}

static void
hl_live_panel_init (HlLivePanel *self)
{
  self->cancellable = g_cancellable_new ();
  self->title = g_strdup (_("Heaplens — Live"));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);
  gtk_widget_set_size_request (GTK_WIDGET (self), 300, -1);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 6);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 12);

  /* Stop, Detach, Snapshot and the child processes */
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->stop_button = gtk_button_new_with_mnemonic (_("_Stop"));
  gtk_widget_add_css_class (self->stop_button, "destructive-action");
  gtk_widget_set_tooltip_text (self->stop_button, _("Interrupt the program (then terminate, then kill)"));
  gtk_widget_set_visible (self->stop_button, FALSE);
  g_signal_connect (self->stop_button, "clicked", G_CALLBACK (on_stop_clicked), self);
  gtk_box_append (GTK_BOX (buttons), self->stop_button);

  self->detach_button = gtk_button_new_with_mnemonic (_("_Detach"));
  gtk_widget_set_tooltip_text (self->detach_button, _("Stop watching and leave the program running"));
  g_signal_connect (self->detach_button, "clicked", G_CALLBACK (on_detach_clicked), self);
  gtk_box_append (GTK_BOX (buttons), self->detach_button);

  self->snapshot_button = GTK_TOGGLE_BUTTON (gtk_toggle_button_new_with_label (_("Snapshot")));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->snapshot_button),
                               _("Freeze the views on the current state while recording goes on"));
  g_signal_connect (self->snapshot_button, "toggled", G_CALLBACK (on_snapshot_toggled), self);
  gtk_box_append (GTK_BOX (buttons), GTK_WIDGET (self->snapshot_button));

  /* the processes it forked, each with its own session */
  self->children = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->children_menu = g_menu_new ();
  self->children_button = gtk_menu_button_new ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->children_button), G_MENU_MODEL (self->children_menu));
  gtk_widget_set_tooltip_text (self->children_button, _("Processes started by the target, each recorded on its own"));
  gtk_widget_set_visible (self->children_button, FALSE);
  gtk_box_append (GTK_BOX (buttons), self->children_button);
  gtk_box_append (GTK_BOX (self), buttons);

  self->status = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->status, 0);
  gtk_label_set_wrap (self->status, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->status), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Status"), -1);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->status));

  gtk_box_append (GTK_BOX (self), section_title (_("Metadata")));
  self->metadata = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->metadata, 0);
  gtk_label_set_selectable (self->metadata, TRUE);
  gtk_label_set_wrap (self->metadata, TRUE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->metadata));
  self->history_title = section_title (_("History"));
  gtk_widget_set_visible (self->history_title, FALSE);
  gtk_box_append (GTK_BOX (self), self->history_title);
  GtkWidget *history_scroll = gtk_scrolled_window_new ();
  self->history_scroll = history_scroll;
  gtk_widget_set_visible (history_scroll, FALSE);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (history_scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand (history_scroll, TRUE);
  self->history = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->history, 0);
  gtk_label_set_yalign (self->history, 0);
  gtk_label_set_wrap (self->history, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->history), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->history), "caption");
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (history_scroll), GTK_WIDGET (self->history));
  gtk_box_append (GTK_BOX (self), history_scroll);

  /* console of a recorded program */
  self->console_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_append (GTK_BOX (self->console_box), section_title (_("Console")));
  GtkWidget *scroll = gtk_scrolled_window_new ();
  gtk_widget_set_size_request (scroll, -1, 140);
  GtkWidget *text = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (text), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (text), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (text), GTK_WRAP_CHAR);
  gtk_accessible_update_property (GTK_ACCESSIBLE (text), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Program output"), -1);
  self->console = gtk_text_view_get_buffer (GTK_TEXT_VIEW (text));
  gtk_text_buffer_create_tag (self->console, "verbatim", "insert-hyphens", FALSE, NULL);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), text);
  gtk_box_append (GTK_BOX (self->console_box), scroll);
  gtk_widget_set_visible (self->console_box, FALSE);
  gtk_box_append (GTK_BOX (self), self->console_box);

  self->refresh_id = g_timeout_add (REFRESH_MS, refresh_timeout, self);
}

HlLivePanel *
hl_live_panel_new (void)
{
  return g_object_new (HL_TYPE_LIVE_PANEL, NULL);
}
