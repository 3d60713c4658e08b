/* hl-live-scan.c — see hl-live-scan.h. */
#define _GNU_SOURCE
#include "hl-live-scan.h"

#include <time.h>

#include "hl-live-types.h"
#include "hl-model-i18n.h"
#include "hl-recording-builder.h"
#include "hl-shm-guard.h"

/* An allocation the table gained. */
typedef struct
{
  guint64 index;
  guint64 id, address, size, time_ns;
  guint32 stack, tid;
} LiveAdded;

/* An allocation fed to the recording and not freed yet. */
typedef struct
{
  guint64 id;
  guint64 address;
  guint32 tid;
} LiveFed;

struct _HlLiveScan
{
  GHashTable *live_ids;  /* live-table slot + 1 -> LiveFed */
  guint32    *shadow;    /* the scans' view of the live table (hl_shm_reader_live_diff) */
  guint64     n_shadow;
  gboolean    running;   /* a worker scans */
};

/* One scan: the worker's input and what it found. */
typedef struct
{
  HlLiveScan    *scan;
  HlShmReader   *reader;
  GArray        *added;    /* LiveAdded */
  GArray        *removed;  /* guint64 slot index */
  HlFormatError  err;
  int            rc;
  double         cpu_ms;   /* the worker's CPU time */
} ScanCtx;

static double
thread_cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

HlLiveScan *
hl_live_scan_new (void)
{
  HlLiveScan *self = g_new0 (HlLiveScan, 1);
  self->live_ids = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  return self;
}

void
hl_live_scan_free (HlLiveScan *self)
{
  if (self == NULL)
    return;
  g_hash_table_destroy (self->live_ids);
  g_free (self->shadow);
  g_free (self);
}

gboolean
hl_live_scan_is_running (HlLiveScan *self)
{
  return self->running;
}

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
  HlLiveScan *self = c->scan;
  if (self->shadow == NULL)
    {
      /* zero pages until a slot is used */
      self->n_shadow = hl_shm_reader_live_n_slots (c->reader);
      self->shadow = g_new0 (guint32, MAX (self->n_shadow, 1));
    }
  c->rc = hl_shm_reader_live_diff (c->reader, self->shadow, self->n_shadow, scan_added, scan_removed, c, &c->err);
}

static void
scan_ctx_free (gpointer p)
{
  ScanCtx *c = p;
  g_array_unref (c->added);
  g_array_unref (c->removed);
  g_free (c);
}

/* On a worker. */
static void
scan_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ScanCtx *c = task_data;
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

void
hl_live_scan_async (HlLiveScan          *self,
                    HlShmReader         *reader,
                    gpointer             source_object,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_assert (!self->running);
  ScanCtx *c = g_new0 (ScanCtx, 1);
  c->scan = self;
  c->reader = reader;
  c->added = g_array_new (FALSE, FALSE, sizeof (LiveAdded));
  c->removed = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->running = TRUE;
  GTask *task = g_task_new (source_object, NULL, callback, user_data);
  g_task_set_task_data (task, c, scan_ctx_free);
  g_task_run_in_thread (task, scan_thread);
  g_object_unref (task);
}

gboolean
hl_live_scan_finish (HlLiveScan    *self,
                     GAsyncResult  *result,
                     HlRecording   *recording,
                     guint64        time_ns,
                     GError       **error)
{
  ScanCtx *c = g_task_get_task_data (G_TASK (result));
  self->running = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  double t0 = thread_cpu_ms ();
  for (guint i = 0; i < c->removed->len; i++)
    {
      gpointer key = GSIZE_TO_POINTER ((gsize) g_array_index (c->removed, guint64, i) + 1);
      LiveFed *fed = g_hash_table_lookup (self->live_ids, key);
      if (fed == NULL)
        continue;
      hl_recording_append_free (recording, fed->id, fed->address, time_ns, fed->tid);
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
      hl_recording_append_alloc (recording, a->id, a->time_ns, a->tid, a->size, a->address, a->stack);
    }
  hl_recording_commit (recording);
  if (g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0)
    g_printerr ("heaplens: timing: live table snapshot of %" G_GUINT64_FORMAT " slots: worker %.1f ms CPU, "
                "%u new and %u gone applied in %.1f ms CPU, %u live\n",
                self->n_shadow, c->cpu_ms, c->added->len, c->removed->len, thread_cpu_ms () - t0,
                g_hash_table_size (self->live_ids));
  return TRUE;
}
