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
  GBytes       *payload;
  GError       *error;
  gint          done;
} FinishJob;

static gpointer
finish_thread (gpointer data)
{
  FinishJob *job = data;
  job->payload = hl_costs_packet_prepare_cancellable (job->trace, job->cancel, &job->error);
  g_atomic_int_set (&job->done, 1);
  return NULL;
}

/* The costs of TRACE loaded from its events now that the program has
 * exited, given up past the budget: the payload, or NULL. *SECONDS: the
 * time it took (or the budget). */
GBytes *
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
  if (job.payload == NULL)
    *seconds = MAX (*seconds, budget);
  g_clear_error (&job.error);
  g_object_unref (job.cancel);
  return job.payload;
}

