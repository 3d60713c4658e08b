/* hl-live-feed-symbols.c — a live recording's module map, read from
 * /proc/PID/maps of the target, and the symbolization of its new
 * addresses on a worker (hl-symbolize-job.h).
 *
 * The addresses are resolved on a worker while the polls go on feeding the
 * recording (the first run opens every module and takes a second or two);
 * the frames found are stored between appends, when no analysis reads the
 * recording. */
#define _GNU_SOURCE
#include "hl-live-feed-private.h"

#include <string.h>

#include "hl-model-i18n.h"
#include "hl-proc-maps.h"
#include "hl-recording-builder.h"

/* ---- The module map ------------------------------------------------------- */

static gboolean
module_known (HlLiveFeed         *self,
              const HlProcModule *m)
{
  for (guint k = 0; k < self->modules->len; k++)
    {
      const HlProcModule *known = &g_array_index (self->modules, HlProcModule, k);
      if (strcmp (known->path, m->path) == 0 && known->start == m->start)
        return TRUE;
    }
  return FALSE;
}

void
hl_live_feed_read_maps (HlLiveFeed *self)
{
  self->need_maps = FALSE;
  self->maps_read_ns = hl_live_segment_now_ns (self->segment);
  if (hl_live_segment_get_name (self->segment) == NULL || !hl_live_segment_pid_alive (self->segment))
    return;
  guint32 pid = hl_live_segment_get_header (self->segment)->pid;
  g_autoptr(GError) error = NULL;
  GArray *mods = hl_proc_maps_read (pid, &error);
  if (mods == NULL)
    {
      char *w = g_strdup_printf (_("no module map for pid %u: %s (addresses stay raw)"), (unsigned) pid,
                                 error->message);
      hl_live_feed_warn (self, w);
      g_free (w);
      return;
    }
  for (guint i = 0; i < mods->len; i++)
    {
      HlProcModule *m = &g_array_index (mods, HlProcModule, i);
      if (module_known (self, m))
        continue;
      hl_recording_append_module (self->recording, m->path, m->start, m->end - m->start, 0, NULL, 0);
      HlProcModule copy = { g_strdup (m->path), m->start, m->end };
      g_array_append_val (self->modules, copy);
      self->need_symbols = TRUE;
    }
  g_array_unref (mods);
}

/* ---- The worker ----------------------------------------------------------- */

static void
symbolize_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  hl_symbolize_job_run (task_data, cancellable);
  g_task_return_pointer (task, task_data, (GDestroyNotify) hl_symbolize_job_free);
}

void
hl_live_feed_store_symbols (HlLiveFeed *self)
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
  HlLiveFeed *self = user_data;
  self->symbolizing = FALSE;
  self->symbols_ready = g_task_propagate_pointer (G_TASK (result), NULL);
  hl_live_feed_store_symbols (self);
  if (self->symbols_ready == NULL)
    self->events.updated (self->owner);
}

void
hl_live_feed_start_symbolize (HlLiveFeed *self)
{
  if (self->symbolizing || self->symbols_ready != NULL || self->holds > 0)
    return;
  self->need_symbols = FALSE;
  HlSymbolizeJob *job = hl_symbolize_job_begin (self->recording);
  if (job == NULL)
    return;
  self->symbolizing = TRUE;
  GTask *task = g_task_new (self->owner, NULL, symbolize_done, self);
  g_task_set_task_data (task, job, NULL); /* returned by the worker */
  g_task_run_in_thread (task, symbolize_thread);
  g_object_unref (task);
}

gboolean
hl_live_feed_is_symbolizing (HlLiveFeed *self)
{
  return self->symbolizing;
}
