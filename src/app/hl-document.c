/* hl-document.c — the trace a window shows, as it loads. */
#include "hl-config.h"

#include "hl-document.h"

#include <glib/gi18n.h>

#include "hl-units.h"

struct _HlDocument
{
  GObject       parent_instance;

  /* Owned */
  GFile        *file;
  GCancellable *cancellable;       /* the load */
  HlAnalysisScheduler *analyses;
  GAsyncResult *held_result;       /* tests: the events' recording, waiting */
  gint64        progress_time_us;  /* the last progress told */
  gboolean      partial;           /* the saved costs are shown */
  gboolean      full_load_landed;  /* the events' recording arrived */
  gboolean      hold_events;
};

enum {
  PROP_0,
  PROP_FILE,
  PROP_PARTIAL,
  N_PROPS
};

enum {
  PROGRESS,
  SAVED_COSTS_LOADED,
  LOADED,
  FAILED,
  SALVAGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HlDocument, hl_document, G_TYPE_OBJECT)

HlDocument *
hl_document_new (void)
{
  return g_object_new (HL_TYPE_DOCUMENT, NULL);
}

GFile *
hl_document_get_file (HlDocument *self)
{
  g_return_val_if_fail (HL_IS_DOCUMENT (self), NULL);
  return self->file;
}

gboolean
hl_document_get_partial (HlDocument *self)
{
  g_return_val_if_fail (HL_IS_DOCUMENT (self), FALSE);
  return self->partial;
}

static void
set_partial (HlDocument *self,
             gboolean    partial)
{
  if (self->partial == partial)
    return;
  self->partial = partial;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PARTIAL]);
}

static void
set_file (HlDocument *self,
          GFile      *file)
{
  if (g_set_object (&self->file, file))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

gboolean
hl_document_shows_saved_costs_first (GFile *file)
{
  const char *env = g_getenv ("HEAPLENS_SAVED_COSTS_FIRST");
  guint64 min_size = env != NULL ? g_ascii_strtoull (env, NULL, 10) : 4 * 1024 * 1024;
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                                                 NULL, NULL);

  return info != NULL && (guint64) g_file_info_get_size (info) >= min_size;
}

static void
on_load_progress (guint64  bytes_done,
                  guint64  bytes_total,
                  guint64  events_done,
                  gpointer user_data)
{
  HlDocument *self = user_data;
  gint64 now = g_get_monotonic_time ();

  /* Five updates a second: each is a frame of the whole window, and a
   * software renderer's frames take CPU from the loading threads; two
   * while the views show the saved costs (a frame of the views costs
   * more than one of the loading page). */
  if (bytes_done < bytes_total && now - self->progress_time_us < G_USEC_PER_SEC / (self->partial ? 2 : 5))
    return;
  self->progress_time_us = now;
  g_signal_emit (self, signals[PROGRESS], 0, bytes_done, bytes_total, events_done);
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(HlDocument) self = user_data;
  g_autoptr(GError) error = NULL;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  g_autoptr(HlRecording) recording = NULL;

  if (self->hold_events && cancellable == self->cancellable)
    {
      g_set_object (&self->held_result, result);
      return;
    }
  recording = hl_recording_load_finish (result, &error);
  /* A load cancelled since (Cancel, or another file opened): its result,
   * or its "cancelled", is not this document's any more. */
  if (cancellable != self->cancellable)
    return;
  /* saved costs arriving after this are not shown (over an error page) */
  self->full_load_landed = TRUE;
  set_partial (self, FALSE);
  if (recording == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_file (self, NULL);
      g_signal_emit (self, signals[FAILED], 0, error);
      return;
    }
  g_signal_emit (self, signals[LOADED], 0, recording);
}

/* The costs saved in a large trace, while its events load. */
static void
on_costs_loaded (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(HlDocument) self = user_data;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  g_autoptr(HlRecording) recording = hl_recording_load_finish (result, NULL);

  /* no saved costs (the events will do), another file, or the events
   * were faster */
  if (recording == NULL || cancellable != self->cancellable || self->full_load_landed)
    return;
  set_partial (self, TRUE);
  g_signal_emit (self, signals[SAVED_COSTS_LOADED], 0, recording);
}

static void
renew_cancellable (HlDocument *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
}

/* The loads of FILE, once what a killed program left of it is in it. */
static void
start_loads (HlDocument *self,
             GFile      *file,
             gboolean    saved_costs_first)
{
  /* A large trace: the costs saved in it are shown while its events load
   * (a small one loads before they would be). */
  if (saved_costs_first && hl_document_shows_saved_costs_first (file))
    hl_recording_load_async (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_SAVED_COSTS_ONLY, self->cancellable,
                             NULL, NULL, NULL, on_costs_loaded, g_object_ref (self));
  /* The model loads on worker threads; progress comes back on this
   * thread's main context. Both callbacks hold the document. */
  hl_recording_load_async (file, HL_LOAD_FLAGS_NONE, self->cancellable,
                           on_load_progress, g_object_ref (self), g_object_unref,
                           on_loaded, g_object_ref (self));
}

typedef struct
{
  char     *path;
  gboolean  saved_costs_first;
} SalvageJob;

static void
salvage_job_free (gpointer data)
{
  SalvageJob *job = data;
  g_free (job->path);
  g_free (job);
}

/* On a worker: the session a program run with a bare LD_PRELOAD and
 * killed left with this trace, salvaged into it (the model's
 * hl_session_salvage_for_trace, as every heaplens-cli reader does). */
static void
salvage_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  SalvageJob *job = task_data;
  g_task_return_pointer (task, hl_session_salvage_for_trace (job->path), (GDestroyNotify) g_ptr_array_unref);
}

/* What was done with the session F, in a sentence for the window. */
static char *
salvage_sentence (const HlSessionSalvageFound *f)
{
  if (f->error != NULL)
    /* Translators: a toast; %u is a process id, then the reason */
    return g_strdup_printf (_("What pid %u left in its session could not be salvaged into this trace: %s"),
                            (unsigned) f->pid, f->error->message);
  if (f->outcome == HL_SESSION_SALVAGE_BUSY)
    /* Translators: a toast; %u is a process id */
    return g_strdup_printf (_("Another process is salvaging what pid %u left in its session: "
                              "the trace is shown without it"),
                            (unsigned) f->pid);
  g_autofree char *events = hl_format_count (f->salvage.events);
  if (!f->salvage.lost_known)
    /* Translators: a toast; the events a killed program left in its session, its process id */
    return g_strdup_printf (_("Salvaged %s events of pid %u, which died without ending its trace (lost unknown)"),
                            events, (unsigned) f->pid);
  g_autofree char *lost = hl_format_count (f->salvage.lost);
  /* Translators: a toast; the events a killed program left in its
   * session, its process id, and an upper bound of those lost */
  return g_strdup_printf (_("Salvaged %s events of pid %u, which died without ending its trace (at most %s lost)"),
                          events, (unsigned) f->pid, lost);
}

static void
on_salvaged (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  HlDocument *self = HL_DOCUMENT (source);
  GTask *task = G_TASK (result);
  SalvageJob *job = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) done = g_task_propagate_pointer (task, &error);

  /* another file opened since, or Cancel */
  if (g_task_get_cancellable (task) != self->cancellable)
    return;
  if (done == NULL)
    {
      /* stopped before the loads began: as a load stopped */
      self->full_load_landed = TRUE;
      set_file (self, NULL);
      g_signal_emit (self, signals[FAILED], 0, error);
      return;
    }
  for (guint i = 0; i < done->len; i++)
    {
      g_autofree char *sentence = salvage_sentence (g_ptr_array_index (done, i));
      g_signal_emit (self, signals[SALVAGED], 0, sentence);
    }
  start_loads (self, self->file, job->saved_costs_first);
}

void
hl_document_open (HlDocument *self,
                  GFile      *file,
                  gboolean    saved_costs_first)
{
  g_return_if_fail (HL_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));

  set_file (self, file);
  renew_cancellable (self);
  set_partial (self, FALSE);
  self->full_load_landed = FALSE;
  g_autofree char *path = g_file_get_path (file);
  if (path == NULL)
    {
      start_loads (self, file, saved_costs_first);
      return;
    }
  /* A plain trace whose program was killed (no launcher to salvage its
   * session): what its threads were still building goes into it first,
   * off this thread (it reads the trace). */
  SalvageJob *job = g_new0 (SalvageJob, 1);
  job->path = g_steal_pointer (&path);
  job->saved_costs_first = saved_costs_first;
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, on_salvaged, NULL);
  g_task_set_source_tag (task, hl_document_open);
  g_task_set_task_data (task, job, salvage_job_free);
  g_task_run_in_thread (task, salvage_thread);
}

void
hl_document_cancel (HlDocument *self)
{
  g_return_if_fail (HL_IS_DOCUMENT (self));
  renew_cancellable (self);
  set_partial (self, FALSE);
  set_file (self, NULL);
}

void
hl_document_stop (HlDocument *self)
{
  g_return_if_fail (HL_IS_DOCUMENT (self));
  g_cancellable_cancel (self->cancellable);
}

void
hl_document_hold_events (HlDocument *self,
                         gboolean    hold)
{
  g_return_if_fail (HL_IS_DOCUMENT (self));
  self->hold_events = hold;
  if (!hold && self->held_result != NULL)
    {
      g_autoptr(GAsyncResult) result = g_steal_pointer (&self->held_result);

      on_loaded (NULL, result, g_object_ref (self));
    }
}

static void
hl_document_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  HlDocument *self = HL_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_PARTIAL:
      g_value_set_boolean (value, self->partial);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hl_document_dispose (GObject *object)
{
  HlDocument *self = HL_DOCUMENT (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->held_result);
  g_clear_object (&self->analyses);
  g_clear_object (&self->file);
  G_OBJECT_CLASS (hl_document_parent_class)->dispose (object);
}

static void
hl_document_class_init (HlDocumentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = hl_document_get_property;
  object_class->dispose = hl_document_dispose;

  properties[PROP_FILE] = g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_PARTIAL] = g_param_spec_boolean ("partial", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                   | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* (bytes done, bytes in all, events decoded), a few times a second */
  signals[PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 3,
                                    G_TYPE_UINT64, G_TYPE_UINT64, G_TYPE_UINT64);
  /* the recording of the costs saved in the trace (no events, no times) */
  signals[SAVED_COSTS_LOADED] = g_signal_new ("saved-costs-loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                              NULL, NULL, NULL, G_TYPE_NONE, 1, HL_TYPE_RECORDING);
  /* the recording of the events */
  signals[LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, HL_TYPE_RECORDING);
  /* the load's error (G_IO_ERROR_CANCELLED: stopped; the file is forgotten) */
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  /* before the loads: what a killed program left in its session was
   * salvaged into the trace (or could not be), in a sentence */
  signals[SALVAGED] = g_signal_new ("salvaged", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
hl_document_init (HlDocument *self)
{
  self->cancellable = g_cancellable_new ();
  self->analyses = hl_analysis_scheduler_new ();
}

HlAnalysisScheduler *
hl_document_get_analyses (HlDocument *self)
{
  g_return_val_if_fail (HL_IS_DOCUMENT (self), NULL);
  return self->analyses;
}
