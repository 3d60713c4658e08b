/* hl-recording-metadata.c — a recording's metadata: the changes as they
 * arrive and the intervals they make, in time order.
 *
 * Packets of several threads reach the model out of time order, so a
 * key's intervals cannot simply be closed in arrival order: a key set by
 * a worker after the main thread's last set would get an interval that
 * ends before it starts. Every change is kept (meta_changes); while they
 * arrive in time order the intervals are extended as they come, and one
 * that arrives earlier than the latest marks the intervals stale: they
 * are rebuilt from the changes, sorted by time (stable, so changes at
 * the same time keep their arrival order), by hl_recording_commit(),
 * which ends every batch of appends. Not when read: several readers may
 * hold a live recording at once (hl_live_feed_hold), and none may write
 * to it. */
#include "hl-recording-private.h"

#include <string.h>

static void
apply_change (HlRecording      *self,
              const HlMetaChange *c)
{
  gpointer open = g_hash_table_lookup (self->meta_open, c->key);

  if (open != NULL)
    {
      HlMetaInterval *iv = &g_array_index (self->meta, HlMetaInterval, GPOINTER_TO_UINT (open) - 1);
      iv->end_ns = c->time_ns;
      g_hash_table_remove (self->meta_open, c->key);
    }
  if (c->value != NULL)
    {
      HlMetaInterval iv = {
        .key = c->key, .value = c->value,
        .start_ns = c->time_ns, .end_ns = HL_TIME_NONE, .tid = c->tid,
      };
      g_array_append_val (self->meta, iv);
      g_hash_table_insert (self->meta_open, (char *) iv.key, GUINT_TO_POINTER (self->meta->len));
    }
}

static int
compare_change_times (gconstpointer a,
                      gconstpointer b)
{
  guint64 ta = ((const HlMetaChange *) a)->time_ns, tb = ((const HlMetaChange *) b)->time_ns;
  return ta < tb ? -1 : ta > tb;
}

void
hl_recording_sort_metadata (HlRecording *self)
{
  if (!self->meta_unsorted)
    return;
  /* g_array_sort() is stable (GLib ≥ 2.32). */
  g_array_sort (self->meta_changes, compare_change_times);
  g_array_set_size (self->meta, 0);
  g_hash_table_remove_all (self->meta_open);
  for (guint i = 0; i < self->meta_changes->len; i++)
    apply_change (self, &g_array_index (self->meta_changes, HlMetaChange, i));
  self->meta_unsorted = FALSE;
}

void
hl_recording_append_metadata (HlRecording *self,
                              guint64      time_ns,
                              guint32      tid,
                              const char  *key,
                              const char  *value)
{
  HlMetaChange c = { .time_ns = time_ns, .tid = tid };

  g_return_if_fail (HL_IS_RECORDING (self));
  g_return_if_fail (key != NULL);

  c.key = hl_recording_intern (self, key);
  c.value = value != NULL ? hl_recording_intern (self, value) : NULL;
  g_array_append_val (self->meta_changes, c);
  if (time_ns < self->meta_last_ns)
    self->meta_unsorted = TRUE;
  else
    self->meta_last_ns = time_ns;
  if (!self->meta_unsorted)
    apply_change (self, &c);
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
}

const HlMetaInterval *
hl_recording_get_metadata_intervals (HlRecording *self,
                                     guint       *n_intervals)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  /* Open intervals end with the recording. */
  for (guint i = 0; i < self->meta->len; i++)
    {
      HlMetaInterval *iv = &g_array_index (self->meta, HlMetaInterval, i);
      if (g_hash_table_lookup (self->meta_open, iv->key) == GUINT_TO_POINTER (i + 1))
        iv->end_ns = MAX (self->end_ns, iv->start_ns);
    }
  *n_intervals = self->meta->len;
  return (const HlMetaInterval *) self->meta->data;
}

gboolean
hl_recording_metadata_selects (HlRecording *self,
                               const char  *key,
                               const char  *value,
                               guint64      time_ns)
{
  for (guint i = 0; i < self->meta->len; i++)
    {
      const HlMetaInterval *iv = &g_array_index (self->meta, HlMetaInterval, i);
      gboolean open = g_hash_table_lookup (self->meta_open, iv->key) == GUINT_TO_POINTER (i + 1);
      if (time_ns >= iv->start_ns && (open || time_ns < iv->end_ns) &&
          strcmp (iv->key, key) == 0 && strcmp (iv->value, value) == 0)
        return TRUE;
    }
  return FALSE;
}
