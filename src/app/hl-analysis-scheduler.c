/* hl-analysis-scheduler.c — see hl-analysis-scheduler.h. */
#include "hl-config.h"

#include "hl-analysis-scheduler.h"

struct _HlAnalysisScheduler
{
  GObject        parent_instance;

  HlRecording   *recording;
  HlLiveSession *live;
  HlAnalysis    *analysis;      /* the current one */
  GCancellable  *cancellable;   /* the one being built */
  guint          running;
  gboolean       pending;       /* live: another one after this */
};

G_DEFINE_FINAL_TYPE (HlAnalysisScheduler, hl_analysis_scheduler, G_TYPE_OBJECT)

enum
{
  SIGNAL_READY,
  SIGNAL_FAILED,
  SIGNAL_RETRY,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  HlAnalysisScheduler *self;
  HlLiveSession       *held;   /* live: the recording held still while analysed */
} AnalysisCall;

static void
analysis_call_free (AnalysisCall *call)
{
  if (call->held != NULL)
    {
      hl_live_session_release (call->held);
      g_object_unref (call->held);
    }
  g_object_unref (call->self);
  g_free (call);
}

static void
on_analysis_ready (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  AnalysisCall *call = user_data;
  HlAnalysisScheduler *self = call->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(HlAnalysis) analysis = hl_analysis_new_finish (result, &error);

  self->running--;
  if (analysis == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_signal_emit (self, signals[SIGNAL_FAILED], 0, error->message);
      analysis_call_free (call);
      return;
    }
  /* of a recording replaced since (another file opened, or the saved
   * costs replaced by the events): the new one's analysis is on its way */
  if (hl_analysis_get_recording (analysis) != self->recording)
    {
      analysis_call_free (call);
      return;
    }
  g_set_object (&self->analysis, analysis);
  /* the views refresh while the session is still held */
  g_signal_emit (self, signals[SIGNAL_READY], 0, analysis);
  g_object_ref (self);
  analysis_call_free (call);
  if (self->live != NULL && self->pending)
    g_signal_emit (self, signals[SIGNAL_RETRY], 0);
  g_object_unref (self);
}

gboolean
hl_analysis_scheduler_start (HlAnalysisScheduler *self,
                             HlFilter            *filter)
{
  AnalysisCall *call;

  g_return_val_if_fail (HL_IS_ANALYSIS_SCHEDULER (self), FALSE);
  if (self->recording == NULL)
    return FALSE;
  call = g_new0 (AnalysisCall, 1);
  if (self->live != NULL)
    {
      /* A growing recording: one analysis at a time, built while the
       * session holds its appends back (it retries at the next update). */
      self->pending = TRUE;
      if (self->running > 0 || !hl_live_session_hold (self->live))
        {
          g_free (call);
          return FALSE;
        }
      call->held = g_object_ref (self->live);
    }
  self->pending = FALSE;
  call->self = g_object_ref (self);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->running++;
  hl_analysis_new_async (self->recording, filter, self->cancellable, on_analysis_ready, call);
  return TRUE;
}

void
hl_analysis_scheduler_forget (HlAnalysisScheduler *self)
{
  g_return_if_fail (HL_IS_ANALYSIS_SCHEDULER (self));
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  g_clear_object (&self->analysis);
}

void
hl_analysis_scheduler_set_recording (HlAnalysisScheduler *self,
                                     HlRecording         *recording)
{
  g_return_if_fail (HL_IS_ANALYSIS_SCHEDULER (self));
  g_set_object (&self->recording, recording);
}

HlRecording *
hl_analysis_scheduler_get_recording (HlAnalysisScheduler *self)
{
  g_return_val_if_fail (HL_IS_ANALYSIS_SCHEDULER (self), NULL);
  return self->recording;
}

void
hl_analysis_scheduler_set_live_session (HlAnalysisScheduler *self,
                                        HlLiveSession       *live)
{
  g_return_if_fail (HL_IS_ANALYSIS_SCHEDULER (self));
  g_set_object (&self->live, live);
}

HlLiveSession *
hl_analysis_scheduler_get_live_session (HlAnalysisScheduler *self)
{
  g_return_val_if_fail (HL_IS_ANALYSIS_SCHEDULER (self), NULL);
  return self->live;
}

HlAnalysis *
hl_analysis_scheduler_get_analysis (HlAnalysisScheduler *self)
{
  g_return_val_if_fail (HL_IS_ANALYSIS_SCHEDULER (self), NULL);
  return self->analysis;
}

HlAnalysisScheduler *
hl_analysis_scheduler_new (void)
{
  return g_object_new (HL_TYPE_ANALYSIS_SCHEDULER, NULL);
}

static void
hl_analysis_scheduler_dispose (GObject *object)
{
  HlAnalysisScheduler *self = HL_ANALYSIS_SCHEDULER (object);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->analysis);
  g_clear_object (&self->live);
  g_clear_object (&self->recording);
  G_OBJECT_CLASS (hl_analysis_scheduler_parent_class)->dispose (object);
}

static void
hl_analysis_scheduler_class_init (HlAnalysisSchedulerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = hl_analysis_scheduler_dispose;
  signals[SIGNAL_READY] = g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, HL_TYPE_ANALYSIS);
  signals[SIGNAL_FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_RETRY] = g_signal_new ("retry", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 0);
}

static void
hl_analysis_scheduler_init (HlAnalysisScheduler *self)
{
  self->cancellable = g_cancellable_new ();
}
