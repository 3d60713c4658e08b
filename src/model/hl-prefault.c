/* hl-prefault.c — faulting in memory ahead of its writer (hl-prefault.h). */
#define _GNU_SOURCE
#include "hl-prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#define MAX_RANGES 4
/* 4 MiB at a time: the stop flag is seen within a millisecond or so. */
#define STEP ((gsize) 4 << 20)

struct _HlPrefault
{
  GThread *thread;
  gint     stop;
  guint    n_ranges;
  guint8  *start[MAX_RANGES];
  gsize    len[MAX_RANGES];
};

static gpointer
prefault_thread (gpointer user_data)
{
#ifdef MADV_POPULATE_WRITE
  HlPrefault *self = user_data;
  gsize page = (gsize) sysconf (_SC_PAGESIZE);

  for (guint r = 0; r < self->n_ranges; r++)
    {
      /* whole pages inside the range only */
      guintptr begin = ((guintptr) self->start[r] + page - 1) & ~(guintptr) (page - 1);
      guintptr end = ((guintptr) self->start[r] + self->len[r]) & ~(guintptr) (page - 1);

      for (guintptr at = begin; at < end && !g_atomic_int_get (&self->stop); at += STEP)
        if (madvise ((void *) at, MIN (STEP, end - at), MADV_POPULATE_WRITE) != 0)
          break; /* not supported, or no longer mapped */
    }
#endif
  return NULL;
}

HlPrefault *
hl_prefault_start (gpointer const *start,
                   const gsize    *len,
                   guint           n_ranges)
{
  HlPrefault *self = g_new0 (HlPrefault, 1);

  self->n_ranges = MIN (n_ranges, MAX_RANGES);
  for (guint r = 0; r < self->n_ranges; r++)
    {
      self->start[r] = start[r];
      self->len[r] = start[r] != NULL ? len[r] : 0;
    }
  self->thread = g_thread_new ("hl-prefault", prefault_thread, self);
  return self;
}

void
hl_prefault_finish (HlPrefault *self)
{
  if (self == NULL)
    return;
  g_atomic_int_set (&self->stop, 1);
  g_thread_join (self->thread);
  g_free (self);
}
