/* hl-live-feed.c — see hl-live-feed.h: the reads of a poll that feed the
 * recording (samples, stacks, threads, drops, metadata entries, the end)
 * and the call-site table. */
#define _GNU_SOURCE
#include "hl-live-feed-private.h"

#include "hl-live-metadata.h"
#include "hl-proc-maps.h"
#include "hl-recording-builder.h"

#define SAMPLES_PER_POLL    2048
#define MAPS_REREAD_NS      (G_GUINT64_CONSTANT (500000000))

/* ---- Lifecycle ------------------------------------------------------------ */

static void
stack_frames_free (gpointer data)
{
  g_array_unref (data);
}

static void
proc_module_clear (gpointer data)
{
  g_free (((HlProcModule *) data)->path);
}

HlLiveFeed *
hl_live_feed_new (HlLiveSegment          *segment,
                  gpointer                owner,
                  const HlLiveFeedEvents *events)
{
  g_return_val_if_fail (segment != NULL, NULL);
  g_return_val_if_fail (G_IS_OBJECT (owner), NULL);
  g_return_val_if_fail (events != NULL, NULL);

  HlLiveFeed *self = g_new0 (HlLiveFeed, 1);
  self->segment = segment;
  self->owner = owner;
  self->events = *events;
  self->recording = hl_recording_new ();
  self->scan = hl_live_scan_new ();
  self->samples = g_array_new (FALSE, FALSE, sizeof (HlLiveSample));
  self->stacks = g_hash_table_new_full (NULL, NULL, NULL, stack_frames_free);
  self->callsites = g_array_new (FALSE, FALSE, sizeof (HlLiveCallsite));
  self->pending_meta = g_array_new (FALSE, FALSE, sizeof (HlShmMetaItem));
  self->modules = g_array_new (FALSE, TRUE, sizeof (HlProcModule));
  g_array_set_clear_func (self->modules, proc_module_clear);
  self->need_maps = TRUE;
  return self;
}

void
hl_live_feed_free (HlLiveFeed *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->recording);
  g_clear_pointer (&self->scan, hl_live_scan_free);
  g_array_unref (self->samples);
  g_hash_table_destroy (self->stacks);
  g_array_unref (self->callsites);
  g_array_unref (self->pending_meta);
  g_array_unref (self->modules);
  g_clear_pointer (&self->symbols_ready, hl_symbolize_job_free);
  g_free (self);
}

void
hl_live_feed_warn (HlLiveFeed *self,
                   const char *message)
{
  self->events.warn (self->owner, message);
}

void
hl_live_feed_set_time (HlLiveFeed *self,
                       guint64     time_ns)
{
  self->time_ns = time_ns;
}

/* ---- Samples ------------------------------------------------------------- */

/* S after the previous sample, with its rate; FALSE when it is out of
 * order (a damaged or rewritten ring). */
static gboolean
sample_follows (HlLiveFeed   *self,
                HlLiveSample *s)
{
  if (self->samples->len == 0)
    return TRUE;
  const HlLiveSample *p = &g_array_index (self->samples, HlLiveSample, self->samples->len - 1);
  if (s->time_ns <= p->time_ns)
    return FALSE;
  s->rate = s->n_allocs >= p->n_allocs
                ? (double) (s->n_allocs - p->n_allocs) * 1e9 / (double) (s->time_ns - p->time_ns)
                : 0;
  return TRUE;
}

gboolean
hl_live_feed_read_samples (HlLiveFeed *self,
                           guint64     n_samples,
                           guint64     dropped)
{
  if (!self->feeding || n_samples <= self->next_sample)
    return FALSE;

  HlShmReader *reader = hl_live_segment_get_reader (self->segment);
  gboolean changed = FALSE;
  /* the ring keeps the last HL_SHM_SAMPLES */
  guint64 first = self->next_sample;
  if (n_samples - first > HL_SHM_SAMPLES)
    first = n_samples - HL_SHM_SAMPLES;
  HlShmSample buf[256];
  guint64 budget = SAMPLES_PER_POLL;
  while (first < n_samples && budget > 0)
    {
      size_t n = hl_shm_reader_samples (reader, first, buf, G_N_ELEMENTS (buf));
      if (n == 0)
        break;
      for (size_t i = 0; i < n; i++)
        {
          HlLiveSample s = { buf[i].time_ns, buf[i].heap_bytes, buf[i].rss_bytes, buf[i].n_allocs, 0, dropped };
          if (!sample_follows (self, &s))
            continue;
          g_array_append_val (self->samples, s);
          hl_recording_append_counters (self->recording, s.time_ns, s.heap_bytes, s.rss_bytes);
        }
      first += n;
      budget = budget > n ? budget - n : 0;
      changed = TRUE;
    }
  self->next_sample = first;
  return changed;
}

/* ---- Resources: stacks, threads, drops ------------------------------------ */

static gboolean
address_in_modules (HlLiveFeed *self,
                    guint64     address)
{
  for (guint m = 0; m < self->modules->len; m++)
    {
      const HlProcModule *mod = &g_array_index (self->modules, HlProcModule, m);
      if (address >= mod->start && address < mod->end)
        return TRUE;
    }
  return FALSE;
}

static void
stack_cb (void           *user_data,
          uint32_t        stack_id,
          const uint64_t *frames,
          uint32_t        n_frames)
{
  HlLiveFeed *self = user_data;
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n_frames);
  g_array_append_vals (a, frames, n_frames);
  g_hash_table_replace (self->stacks, GUINT_TO_POINTER (stack_id), a);
  hl_recording_append_stack (self->recording, stack_id, frames, n_frames);
  self->need_symbols = TRUE;
  /* an address outside the modules known so far: read the map again */
  for (guint32 i = 0; i < n_frames && !self->need_maps; i++)
    if (!address_in_modules (self, frames[i]))
      self->need_maps = TRUE;
}

static void
thread_cb (void       *user_data,
           uint32_t    tid,
           const char *name)
{
  HlLiveFeed *self = user_data;
  hl_recording_append_thread (self->recording, self->time_ns, tid, name, FALSE);
}

gboolean
hl_live_feed_read_resources (HlLiveFeed *self,
                             guint64     dropped)
{
  if (!self->feeding)
    return FALSE;

  HlShmReader *reader = hl_live_segment_get_reader (self->segment);
  HlFormatError err;
  guint64 before_cursor = self->res_cursor;
  if (hl_shm_reader_resources (reader, &self->res_cursor, stack_cb, thread_cb, self, &err) != 0)
    hl_live_feed_warn (self, err.message);
  if (self->need_maps && hl_live_segment_now_ns (self->segment) >= self->maps_read_ns + MAPS_REREAD_NS / 10)
    hl_live_feed_read_maps (self);
  if (dropped > self->dropped_fed)
    {
      hl_recording_append_dropped (self->recording, self->time_ns, dropped - self->dropped_fed);
      self->dropped_fed = dropped;
    }
  return self->res_cursor != before_cursor;
}

/* ---- Metadata log entries ------------------------------------------------- */

void
hl_live_feed_append_meta (HlLiveFeed          *self,
                          const HlShmMetaItem *entry)
{
  char *key = g_utf8_make_valid (entry->key, -1);
  /* a mark's text is in string_value (without IS_STRING) */
  char *value = (entry->flags & HL_SHM_META_IS_MARK) ? g_utf8_make_valid (entry->string_value, -1)
                                                     : hl_live_meta_item_value (entry);
  if (entry->flags & HL_SHM_META_IS_MARK)
    hl_recording_append_mark (self->recording, entry->time_ns, 0, value);
  else
    hl_recording_append_metadata (self->recording, entry->time_ns, 0, key,
                                  (entry->flags & HL_SHM_META_REMOVED) ? NULL : value);
  g_free (key);
  g_free (value);
}

void
hl_live_feed_meta_entry (void                *user_data,
                         const HlShmMetaItem *entry)
{
  HlLiveFeed *self = user_data;
  if (self->feeding)
    hl_live_feed_append_meta (self, entry);
  else
    g_array_append_val (self->pending_meta, *entry);
}

/* ---- Call sites ----------------------------------------------------------- */

static void
callsite_cb (void                    *user_data,
             const HlShmCallsiteView *site)
{
  HlLiveFeed *self = user_data;
  HlLiveCallsite c = { 0 };
  c.stack_id = site->stack_id;
  c.calls = site->calls;
  c.bytes = site->bytes;
  c.live_bytes = site->bytes > site->freed_bytes ? site->bytes - site->freed_bytes : 0;
  c.live_count = site->calls > site->frees ? site->calls - site->frees : 0;
  GArray *frames = g_hash_table_lookup (self->stacks, GUINT_TO_POINTER (site->stack_id));
  if (frames != NULL)
    {
      c.frames = (const guint64 *) frames->data;
      c.n_frames = frames->len;
    }
  g_array_append_val (self->callsites, c);
}

static gint
compare_callsites (gconstpointer a,
                   gconstpointer b)
{
  const HlLiveCallsite *x = a, *y = b;
  if (x->live_bytes != y->live_bytes)
    return x->live_bytes < y->live_bytes ? 1 : -1;
  return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

void
hl_live_feed_read_callsites (HlLiveFeed *self)
{
  HlFormatError err;
  g_array_set_size (self->callsites, 0);
  if (hl_shm_reader_callsites (hl_live_segment_get_reader (self->segment), callsite_cb, self, &err) != 0)
    hl_live_feed_warn (self, err.message);
  g_array_sort (self->callsites, compare_callsites);
}

/* ---- The end of a poll ---------------------------------------------------- */

gboolean
hl_live_feed_end (HlLiveFeed  *self,
                  HlLiveState  state,
                  int          exit_status)
{
  if (!self->feeding)
    return FALSE;
  if (state == HL_LIVE_STATE_ENDED && !self->ended_fed)
    {
      self->ended_fed = TRUE;
      guint64 ended_ns = 0;
      hl_shm_reader_end_info (hl_live_segment_get_reader (self->segment), NULL, &ended_ns, NULL);
      hl_recording_append_end (self->recording, ended_ns, exit_status);
    }
  hl_recording_commit (self->recording);
  hl_live_feed_dispatch_workers (self);
  /* the appends that waited for a hold are in: the readers refused
   * meanwhile try again (after the program's end no other poll would
   * tell them) */
  return self->was_waiting;
}

/* ---- What it serves ------------------------------------------------------- */

HlRecording *
hl_live_feed_get_recording (HlLiveFeed *self)
{
  return self->recording;
}

const HlLiveSample *
hl_live_feed_get_samples (HlLiveFeed *self,
                          guint      *n_samples)
{
  *n_samples = self->samples->len;
  return (const HlLiveSample *) self->samples->data;
}

const HlLiveCallsite *
hl_live_feed_get_callsites (HlLiveFeed *self,
                            guint      *n_callsites)
{
  *n_callsites = self->callsites->len;
  return (const HlLiveCallsite *) self->callsites->data;
}

void
hl_live_feed_snapshot (HlLiveFeed     *self,
                       HlLiveSnapshot *snapshot)
{
  snapshot->samples = g_array_copy (self->samples);
  snapshot->callsites = g_array_copy (self->callsites);
  for (guint i = 0; i < snapshot->callsites->len; i++)
    {
      HlLiveCallsite *c = &g_array_index (snapshot->callsites, HlLiveCallsite, i);
      c->frames = g_memdup2 (c->frames, sizeof (guint64) * c->n_frames);
    }
}

HlCosts *
hl_live_feed_get_stack_costs (HlLiveFeed *self,
                              guint      *n_stacks)
{
  HlCosts *costs;

  *n_stacks = hl_recording_get_n_stacks (self->recording);
  costs = g_new0 (HlCosts, MAX (*n_stacks, 1));
  for (guint i = 0; i < self->callsites->len; i++)
    {
      const HlLiveCallsite *c = &g_array_index (self->callsites, HlLiveCallsite, i);
      HlStackId s = hl_recording_lookup_stack (self->recording, c->stack_id);

      if (s == 0 || s >= *n_stacks)
        continue;
      costs[s].allocations += c->calls;
      costs[s].bytes += c->bytes;
      costs[s].leaked_bytes += c->live_bytes;
      costs[s].leaked_blocks += c->live_count;
    }
  return costs;
}
