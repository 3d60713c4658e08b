/* hl-live-metadata.c — see hl-live-metadata.h.
 *
 * The log's entries come in the order the threads took their slots,
 * which is not quite their times' order: a change dated before the
 * latest one applied marks the history stale, and it is rebuilt from the
 * changes, stably sorted by time, when next asked for (so that no
 * interval ends before it starts, issue 26). */
#include "hl-live-metadata.h"

#include "hl-model-i18n.h"
#include "hl-trace-reader.h"

/* One change of a metadata key (VALUE NULL: removed). */
typedef struct
{
  guint64  time_ns;
  char    *key;
  char    *value;
} MetaChange;

struct _HlLiveMetadata
{
  GPtrArray  *current;        /* HlLiveMetaInterval*, the items now (end_ns = G_MAXUINT64) */
  GPtrArray  *history;        /* HlLiveMetaInterval*, all intervals */
  GHashTable *open_intervals; /* key -> HlLiveMetaInterval* (in history) */
  GArray     *log_entries;    /* MetaChange: every change the log gave, in order */
  GArray     *backfilled;     /* MetaChange: the trace's before filled_ns, by time; NULL: none */
  guint64     last_ns;        /* the latest change the history applied */
  gboolean    stale;          /* a change came before it: rebuilt when asked for */
  guint64     log_cursor;
  guint       log_delivered;  /* entries the last log read gave */
  guint64     gap_ns;         /* changes before this time may be lost (0: none lost) */
  guint64     filled_ns;      /* history filled from the trace up to this time */
  gboolean    backfilling;    /* a worker reads the trace's metadata */

  /* the log read in progress */
  HlShmMetaFunc entry_func;
  gpointer      entry_data;
};

static void
meta_change_clear (gpointer p)
{
  MetaChange *c = p;
  g_free (c->key);
  g_free (c->value);
}

void
hl_live_meta_interval_free (gpointer data)
{
  HlLiveMetaInterval *m = data;
  g_free (m->key);
  g_free (m->value);
  g_free (m);
}

GPtrArray *
hl_live_meta_intervals_copy (GPtrArray *intervals)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func (hl_live_meta_interval_free);
  for (guint i = 0; i < intervals->len; i++)
    {
      const HlLiveMetaInterval *m = g_ptr_array_index (intervals, i);
      HlLiveMetaInterval *c = g_new (HlLiveMetaInterval, 1);
      *c = *m;
      c->key = g_strdup (m->key);
      c->value = g_strdup (m->value);
      g_ptr_array_add (copy, c);
    }
  return copy;
}

char *
hl_live_meta_item_value (const HlShmMetaItem *item)
{
  if (item->flags & HL_SHM_META_IS_STRING)
    return g_utf8_make_valid (item->string_value, -1);
  return g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) item->int_value);
}

HlLiveMetadata *
hl_live_metadata_new (void)
{
  HlLiveMetadata *self = g_new0 (HlLiveMetadata, 1);
  self->current = g_ptr_array_new_with_free_func (hl_live_meta_interval_free);
  self->history = g_ptr_array_new_with_free_func (hl_live_meta_interval_free);
  self->open_intervals = g_hash_table_new (g_str_hash, g_str_equal);
  self->log_entries = g_array_new (FALSE, FALSE, sizeof (MetaChange));
  g_array_set_clear_func (self->log_entries, meta_change_clear);
  return self;
}

void
hl_live_metadata_free (HlLiveMetadata *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->current);
  g_hash_table_destroy (self->open_intervals);
  g_ptr_array_unref (self->history);
  g_array_unref (self->log_entries);
  g_clear_pointer (&self->backfilled, g_array_unref);
  g_free (self);
}

GPtrArray *
hl_live_metadata_get_current (HlLiveMetadata *self)
{
  return self->current;
}

static void rebuild_history (HlLiveMetadata *self);

GPtrArray *
hl_live_metadata_get_history (HlLiveMetadata *self)
{
  if (self->stale)
    rebuild_history (self);
  return self->history;
}

/* ---- The current items ------------------------------------------------ */

static void
item_cb (void                *user_data,
         const HlShmMetaItem *item)
{
  HlLiveMetadata *self = user_data;
  HlLiveMetaInterval *m = g_new0 (HlLiveMetaInterval, 1);
  m->key = g_utf8_make_valid (item->key, -1);
  m->value = hl_live_meta_item_value (item);
  m->start_ns = item->time_ns;
  m->end_ns = G_MAXUINT64;
  g_ptr_array_add (self->current, m);
}

int
hl_live_metadata_read_current (HlLiveMetadata *self,
                               HlShmReader    *reader,
                               HlFormatError  *err)
{
  g_ptr_array_set_size (self->current, 0);
  return hl_shm_reader_metadata (reader, item_cb, self, err);
}

/* ---- The history -------------------------------------------------------- */

/* One change into the history of intervals. */
static void
history_apply (HlLiveMetadata *self,
               guint64         time_ns,
               const char     *key,
               const char     *value)
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

/* A change as it arrives: applied at once while the changes come in
 * time order, else the history is stale. */
static void
history_take (HlLiveMetadata *self,
              guint64         time_ns,
              const char     *key,
              const char     *value)
{
  if (time_ns < self->last_ns)
    self->stale = TRUE;
  if (self->stale)
    return;
  history_apply (self, time_ns, key, value);
  self->last_ns = time_ns;
}

static gint
compare_change_ptrs (gconstpointer a,
                     gconstpointer b)
{
  const MetaChange *x = *(const MetaChange * const *) a, *y = *(const MetaChange * const *) b;
  return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The history again from the changes: the trace's before filled_ns (a
 * backfill), then the log's from there on, by time (ties in their
 * arrival order: g_ptr_array_sort() is stable). */
static void
rebuild_history (HlLiveMetadata *self)
{
  g_autoptr (GPtrArray) changes = g_ptr_array_new ();

  if (self->backfilled != NULL)
    for (guint i = 0; i < self->backfilled->len; i++)
      g_ptr_array_add (changes, &g_array_index (self->backfilled, MetaChange, i));
  for (guint i = 0; i < self->log_entries->len; i++)
    {
      MetaChange *c = &g_array_index (self->log_entries, MetaChange, i);
      if (self->backfilled == NULL || c->time_ns >= self->filled_ns)
        g_ptr_array_add (changes, c);
    }
  g_ptr_array_sort (changes, compare_change_ptrs);
  g_ptr_array_set_size (self->history, 0);
  g_hash_table_remove_all (self->open_intervals);
  self->last_ns = 0;
  for (guint i = 0; i < changes->len; i++)
    {
      const MetaChange *c = g_ptr_array_index (changes, i);
      history_apply (self, c->time_ns, c->key, c->value);
      self->last_ns = c->time_ns;
    }
  self->stale = FALSE;
}

void
hl_live_metadata_add_change (HlLiveMetadata *self,
                             guint64         time_ns,
                             const char     *key,
                             const char     *value)
{
  MetaChange c = { time_ns, g_utf8_make_valid (key, -1), value != NULL ? g_utf8_make_valid (value, -1) : NULL };

  g_array_append_val (self->log_entries, c);
  history_take (self, c.time_ns, c.key, c.value);
}

static void
log_cb (void                *user_data,
        const HlShmMetaItem *entry)
{
  HlLiveMetadata *self = user_data;
  self->entry_func (self->entry_data, entry);
  self->log_delivered++;
  if (entry->flags & HL_SHM_META_IS_MARK)
    return;
  {
    g_autofree char *value = (entry->flags & HL_SHM_META_REMOVED) ? NULL : hl_live_meta_item_value (entry);
    hl_live_metadata_add_change (self, entry->time_ns, entry->key, value);
  }
}

int
hl_live_metadata_read_log (HlLiveMetadata *self,
                           HlShmReader    *reader,
                           guint64         heartbeat_ns,
                           HlShmMetaFunc   entry_func,
                           gpointer        user_data,
                           gboolean       *changed,
                           HlFormatError  *err)
{
  guint64 log_before = self->log_cursor;
  guint history_before = self->log_entries->len;
  self->log_delivered = 0;
  self->entry_func = entry_func;
  self->entry_data = user_data;
  int rc = hl_shm_reader_metadata_log (reader, &self->log_cursor, log_cb, self, err);
  *changed = self->log_cursor != log_before;
  if (self->log_cursor > log_before && self->log_cursor - log_before > self->log_delivered)
    {
      /* the ring (the last HL_SHM_META_LOG changes) lost some before this
       * read: what came before its first entry may be missing; the trace
       * file has all of it */
      guint64 first = self->log_entries->len > history_before
                          ? g_array_index (self->log_entries, MetaChange, history_before).time_ns
                          : heartbeat_ns;
      self->gap_ns = MAX (self->gap_ns, first);
    }
  return rc;
}

/* ---- Backfill: the history the log lost, from the trace ------------------ */

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
 * their header's flags). On a worker. */
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

gboolean
hl_live_metadata_wants_backfill (HlLiveMetadata *self,
                                 const char     *trace_path)
{
  return !self->backfilling && self->gap_ns > self->filled_ns && trace_path[0] != '\0'
         && g_file_test (trace_path, G_FILE_TEST_IS_REGULAR);
}

void
hl_live_metadata_backfill_async (HlLiveMetadata      *self,
                                 const char          *trace_path,
                                 gpointer             source_object,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  Backfill *b = g_new0 (Backfill, 1);
  b->path = g_strdup (trace_path);
  b->before_ns = self->gap_ns;
  b->changes = g_array_new (FALSE, FALSE, sizeof (MetaChange));
  g_array_set_clear_func (b->changes, meta_change_clear);
  self->backfilling = TRUE;
  GTask *task = g_task_new (source_object, NULL, callback, user_data);
  g_task_set_task_data (task, b, backfill_free);
  g_task_run_in_thread (task, backfill_thread);
  g_object_unref (task);
}

gboolean
hl_live_metadata_backfill_finish (HlLiveMetadata  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  Backfill *b = g_task_get_task_data (G_TASK (result));
  self->backfilling = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  /* the history again: the trace's changes before the gap, then the
   * log's from the gap on (a later backfill reads from the start again,
   * up to a later gap) */
  if (b->before_ns >= self->filled_ns)
    {
      g_clear_pointer (&self->backfilled, g_array_unref);
      self->backfilled = g_array_ref (b->changes);
      self->filled_ns = b->before_ns;
    }
  rebuild_history (self);
  return TRUE;
}
