/* hl-cli-record-costs-finish.c — the costs the costs thread could not
 * follow, finished from the trace's events after the program exited,
 * within a bounded time (hl-cli-record-costs-finish.h). */
#include "hl-config.h"

#include "hl-cli-record-costs-finish.h"

#include <stdlib.h>

#include "hl-model.h"

/* Seconds `record` may spend after the program exited finishing the
 * costs that the costs thread could not follow (HEAPLENS_RECORD_COSTS_FINISH_S;
 * 0: never, the costs are then not saved). */
#define HL_RECORD_COSTS_FINISH_S 10.0

typedef struct
{
  const char   *trace;
  GCancellable *cancel;
  HlRecording  *rec;
  GError       *error;
  gint          done;
} FinishJob;

static gpointer
finish_thread (gpointer data)
{
  FinishJob *job = data;
  g_autoptr (GFile) file = g_file_new_for_path (job->trace);
  job->rec = hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_NO_SYMBOLS | HL_LOAD_FLAGS_NO_COSTS_PACKET,
                                job->cancel, NULL, NULL, &job->error);
  g_atomic_int_set (&job->done, 1);
  return NULL;
}

/* The costs of TRACE loaded from its events now that the program has
 * exited, given up past the budget: the costs-only recording, or NULL.
 * *SECONDS: the time it took (or the budget). */
HlRecording *
hl_record_finish_costs_bounded (const char *trace,
                      double     *seconds)
{
  const char *env = getenv ("HEAPLENS_RECORD_COSTS_FINISH_S");
  double budget = env != NULL ? g_ascii_strtod (env, NULL) : HL_RECORD_COSTS_FINISH_S;
  *seconds = 0;
  if (!(budget > 0))
    return NULL;
  FinishJob job = { trace, g_cancellable_new (), NULL, NULL, 0 };
  gint64 start = g_get_monotonic_time (), deadline = start + (gint64) (budget * G_USEC_PER_SEC);
  GThread *thread = g_thread_new ("hl-costs-finish", finish_thread, &job);
  while (!g_atomic_int_get (&job.done) && g_get_monotonic_time () < deadline)
    g_usleep (5000);
  if (!g_atomic_int_get (&job.done))
    g_cancellable_cancel (job.cancel);
  g_thread_join (thread);
  *seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  if (job.rec == NULL)
    *seconds = MAX (*seconds, budget);
  g_clear_error (&job.error);
  g_object_unref (job.cancel);
  return job.rec;
}

