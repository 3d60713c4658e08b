/* hl-recording-builder.c — the recording's event sink: modules, threads,
 * stacks, allocations, frees, marks and counters (metadata is
 * hl-recording-metadata.c's), and the
 * builder that holds the state only appending needs. */
#include "hl-recording-builder-private.h"

#include "hl-model-i18n.h"
#include "hl-sample-weight.h"

#include <string.h>

/* ---- The builder ---------------------------------------------------------- */

HlRecordingBuilder *
hl_recording_builder_new (void)
{
  HlRecordingBuilder *self = g_new0 (HlRecordingBuilder, 1);

  self->tid_to_thread = g_hash_table_new (NULL, NULL);
  self->thread_last = g_array_new (FALSE, TRUE, sizeof (guint64));
  return self;
}

void
hl_recording_builder_free (HlRecordingBuilder *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->tid_to_thread, g_hash_table_unref);
  g_clear_pointer (&self->thread_last, g_array_unref);
  g_clear_pointer (&self->addr_to_id, hl_address_map_free);
  g_clear_pointer (&self->pending_frees, g_hash_table_unref);
  g_free (self);
}

guint
hl_recording_builder_n_pending (const HlRecordingBuilder *self)
{
  return self->pending_frees != NULL ? g_hash_table_size (self->pending_frees) : 0;
}

void
hl_recording_builder_add_thread (HlRecordingBuilder *self,
                                 guint32             tid,
                                 guint               thread)
{
  guint64 none = HL_ALLOC_ID_NONE;

  g_assert (thread == self->thread_last->len);
  g_array_append_val (self->thread_last, none);
  g_hash_table_insert (self->tid_to_thread, GUINT_TO_POINTER (tid), GUINT_TO_POINTER (thread + 1));
}

gboolean
hl_recording_builder_has_tid (const HlRecordingBuilder *self,
                              guint32                   tid)
{
  return g_hash_table_contains (self->tid_to_thread, GUINT_TO_POINTER (tid));
}

/* A builder for SELF's tables as they are: its threads by tid, each
 * one's last allocation the one of its highest sequence number (costs
 * only: none known). The frees that were waiting are counted unknown. */
static HlRecordingBuilder *
builder_restore (HlRecording *self)
{
  HlRecordingBuilder *b = hl_recording_builder_new ();
  guint32 *last_seq;

  for (guint i = 0; i < self->threads->len; i++)
    {
      guint32 tid = g_array_index (self->threads, HlThreadInfo, i).tid;
      if (!hl_recording_builder_has_tid (b, tid))
        hl_recording_builder_add_thread (b, tid, i);
      else
        {
          guint64 none = HL_ALLOC_ID_NONE;
          g_array_append_val (b->thread_last, none);
        }
    }
  last_seq = g_new0 (guint32, self->threads->len + 1);
  for (guint64 i = 0; i < self->allocs->len; i++)
    {
      const HlAllocRec *a = &g_array_index (self->allocs, HlAllocRec, i);
      guint64 *last;

      if ((a->flags & HL_ALLOC_PRESENT) == 0 || a->thread >= b->thread_last->len)
        continue;
      last = &g_array_index (b->thread_last, guint64, a->thread);
      if (*last == HL_ALLOC_ID_NONE || a->seq >= last_seq[a->thread])
        {
          *last = i;
          last_seq[a->thread] = a->seq;
        }
    }
  g_free (last_seq);
  return b;
}

gboolean
hl_recording_last_allocs_open (HlRecording *self,
                               guint64      t0_ns,
                               guint64      t1_ns)
{
  HlRecordingBuilder *b = self->builder;

  g_return_val_if_fail (self->aggregate == NULL, FALSE);
  if (b == NULL)
    return FALSE;
  for (guint t = 0; t < b->thread_last->len; t++)
    {
      guint64 id = g_array_index (b->thread_last, guint64, t);
      const HlAllocRec *a;

      if (id == HL_ALLOC_ID_NONE || id >= self->allocs->len)
        continue;
      a = &g_array_index (self->allocs, HlAllocRec, id);
      if ((a->flags & HL_ALLOC_PRESENT) != 0 && (a->flags & HL_ALLOC_FREED) == 0 && a->time_ns >= t0_ns &&
          a->time_ns <= t1_ns)
        return TRUE;
    }
  return FALSE;
}

/* Out of the appends' way: they only test for the builder. */
static G_GNUC_NO_INLINE HlRecordingBuilder *
builder_remake (HlRecording *self)
{
  self->builder = builder_restore (self);
  return self->builder;
}

HlRecordingBuilder *
hl_recording_get_builder (HlRecording *self)
{
  return G_LIKELY (self->builder != NULL) ? self->builder : builder_remake (self);
}

static inline HlRecordingBuilder *
builder_of (HlRecording *self)
{
  return G_LIKELY (self->builder != NULL) ? self->builder : builder_remake (self);
}

void
hl_recording_end_filling (HlRecording *self)
{
  g_return_if_fail (HL_IS_RECORDING (self));

  if (self->builder == NULL)
    return;
  /* what hl_recording_get_summary() counted them as */
  self->frees_unknown += hl_recording_builder_n_pending (self->builder);
  g_clear_pointer (&self->builder, hl_recording_builder_free);
}

/* ---- Modules, threads, stacks ------------------------------------------- */

void
hl_recording_append_info (HlRecording *self,
                          const char  *key,
                          const char  *value)
{
  g_return_if_fail (HL_IS_RECORDING (self));
  g_return_if_fail (key != NULL && value != NULL);

  if (!g_hash_table_contains (self->info, key))
    {
      g_ptr_array_remove_index (self->info_keys, self->info_keys->len - 1);
      g_ptr_array_add (self->info_keys, (char *) hl_recording_intern (self, key));
      g_ptr_array_add (self->info_keys, NULL);
    }
  g_hash_table_insert (self->info, (char *) hl_recording_intern (self, key), (char *) hl_recording_intern (self, value));
  /* A sampled trace (HEAPLENS_SAMPLE_BYTES, docs/capture.md) holds only
   * the sampled blocks: each is weighed by how many blocks it stands for
   * (hl-sample-weight.h), so every cost is an estimate, which the report
   * and the application say. INFO comes first in a trace: before any
   * allocation is weighed. */
  if (strcmp (key, "sample_bytes") == 0)
    {
      guint64 n = 0;
      if (g_ascii_string_to_unsigned (value, 10, 1, G_GUINT64_CONSTANT (1) << 40, &n, NULL))
        {
          g_autofree char *w = NULL;
          self->sample_bytes = n;
          w = g_strdup_printf (_("Estimated, sampled every %s bytes allocated on average: allocation counts, bytes, "
                                 "peak, leaks and temporary allocations are estimates of the whole program's, "
                                 "each sampled block weighed by how many blocks it stands for"),
                               value);
          hl_recording_append_warning (self, w);
        }
    }
}

void
hl_recording_append_warning (HlRecording *self,
                             const char  *warning)
{
  g_return_if_fail (HL_IS_RECORDING (self));

  for (guint i = 0; i + 1 < self->warnings->len; i++)
    if (g_strcmp0 (self->warnings->pdata[i], warning) == 0)
      return;
  self->warnings->pdata[self->warnings->len - 1] = g_strdup (warning);
  g_ptr_array_add (self->warnings, NULL);
}

void
hl_recording_append_module (HlRecording  *self,
                            const char   *path,
                            guint64       start,
                            guint64       size,
                            guint64       file_offset,
                            const guint8 *build_id,
                            gsize         build_id_len)
{
  guint64 base = start >= file_offset ? start - file_offset : start;
  guint64 end = start + size;

  g_return_if_fail (HL_IS_RECORDING (self));
  g_return_if_fail (path != NULL);

  for (guint i = 0; i < self->modules->len; i++)
    {
      HlModuleInfo *m = &g_array_index (self->modules, HlModuleInfo, i);
      guint64 m_end = m->start + m->size;

      /* Another mapping of the same file next to the first one. */
      if (strcmp (m->path, path) == 0 && start < m_end + (64u << 20) && end + (64u << 20) > m->start)
        {
          if (base < m->start)
            m->start = base;
          if (end > m_end)
            m_end = end;
          m->size = m_end - m->start;
          if (build_id_len > 0 && m->build_id[0] == '\0')
            {
              g_autofree char *hex = g_malloc (build_id_len * 2 + 1);
              for (gsize j = 0; j < build_id_len; j++)
                g_snprintf (hex + 2 * j, 3, "%02x", build_id[j]);
              m->build_id = hl_recording_intern (self, hex);
            }
          return;
        }
    }

  {
    HlModuleInfo m = { 0 };
    g_autofree char *hex = g_malloc (build_id_len * 2 + 1);
    g_autofree char *name = g_path_get_basename (path);

    hex[0] = '\0';
    for (gsize j = 0; j < build_id_len; j++)
      g_snprintf (hex + 2 * j, 3, "%02x", build_id[j]);
    m.path = hl_recording_intern (self, path);
    m.name = hl_recording_intern (self, name);
    m.build_id = hl_recording_intern (self, hex);
    m.start = base;
    m.size = end - base;
    g_array_append_val (self->modules, m);
  }
}

/* thread_index() of another thread than the last one. */
static G_GNUC_NO_INLINE guint32
thread_index_lookup (HlRecording        *self,
                     HlRecordingBuilder *b,
                     guint32             tid,
                     guint64             time_ns)
{
  gpointer v;
  HlThreadInfo *t;

  v = g_hash_table_lookup (b->tid_to_thread, GUINT_TO_POINTER (tid));

  if (v == NULL)
    {
      HlThreadInfo info = { .tid = tid, .name = "", .start_ns = time_ns, .end_ns = time_ns };
      guint64 none = HL_ALLOC_ID_NONE;

      g_array_append_val (self->threads, info);
      g_array_append_val (b->thread_last, none);
      v = GUINT_TO_POINTER (self->threads->len);
      g_hash_table_insert (b->tid_to_thread, GUINT_TO_POINTER (tid), v);
    }
  t = &g_array_index (self->threads, HlThreadInfo, GPOINTER_TO_UINT (v) - 1);
  if (time_ns > t->end_ns)
    t->end_ns = time_ns;
  if (time_ns < t->start_ns)
    t->start_ns = time_ns;
  b->last_tid = tid;
  b->last_thread = GPOINTER_TO_UINT (v) - 1;
  return b->last_thread;
}

/* The index of thread TID, made when new; its time span takes in TIME_NS. */
static inline guint32
thread_index (HlRecording        *self,
              HlRecordingBuilder *b,
              guint32             tid,
              guint64             time_ns)
{
  HlThreadInfo *t;

  if (G_LIKELY (self->threads->len > 0 && tid == b->last_tid))
    {
      t = &g_array_index (self->threads, HlThreadInfo, b->last_thread);
      if (time_ns > t->end_ns)
        t->end_ns = time_ns;
      if (time_ns < t->start_ns)
        t->start_ns = time_ns;
      return b->last_thread;
    }
  return thread_index_lookup (self, b, tid, time_ns);
}

void
hl_recording_append_thread (HlRecording *self,
                            guint64      time_ns,
                            guint32      tid,
                            const char  *name,
                            gboolean     exited)
{
  guint32 t;

  g_return_if_fail (HL_IS_RECORDING (self));

  t = thread_index (self, builder_of (self), tid, time_ns);
  if (name != NULL && name[0] != '\0')
    g_array_index (self->threads, HlThreadInfo, t).name = hl_recording_intern (self, name);
  (void) exited;
}

static inline guint32
lookup_stack (HlRecording *self,
              guint32      trace_stack_id)
{
  return trace_stack_id < self->stack_ids->len ? g_array_index (self->stack_ids, guint32, trace_stack_id) : 0;
}

static guint32
new_stack (HlRecording *self,
           guint32      trace_stack_id)
{
  guint32 index = self->stack_spans->len;

  g_array_set_size (self->stack_spans, index + 1);
  if (trace_stack_id >= self->stack_ids->len)
    g_array_set_size (self->stack_ids, MAX ((guint) trace_stack_id + 1, self->stack_ids->len * 2));
  g_array_index (self->stack_ids, guint32, trace_stack_id) = index + 1;
  return index;
}

void
hl_recording_append_stack (HlRecording   *self,
                           guint32        trace_stack_id,
                           const guint64 *frames,
                           guint          n_frames)
{
  guint32 found;
  guint32 index;
  StackSpan *span;

  g_return_if_fail (HL_IS_RECORDING (self));

  if (trace_stack_id == 0)
    return;
  found = lookup_stack (self, trace_stack_id);
  if (found != 0)
    {
      index = found - 1;
      if (g_array_index (self->stack_spans, StackSpan, index).defined)
        return;
      /* Used before its definition (another thread's packet came first). */
      if (index < hl_frame_table_get_n_stacks (self->frame_table))
        self->frames_dirty = TRUE;
    }
  else
    index = new_stack (self, trace_stack_id);
  span = &g_array_index (self->stack_spans, StackSpan, index);
  span->begin = self->stack_addrs->len;
  span->n = n_frames;
  span->defined = TRUE;
  g_array_append_vals (self->stack_addrs, frames, n_frames);
}

static guint32 stack_index (HlRecording *self, guint32 trace_stack_id);

guint32
hl_recording_builder_stack_index (HlRecording *self,
                                  guint32      trace_stack_id)
{
  return stack_index (self, trace_stack_id);
}

static guint32
stack_index (HlRecording *self,
             guint32      trace_stack_id)
{
  guint32 found;

  if (trace_stack_id == 0)
    return 0;
  found = lookup_stack (self, trace_stack_id);
  if (found != 0)
    return found - 1;
  return new_stack (self, trace_stack_id);
}

/* ---- Allocations --------------------------------------------------------- */

static HlAllocRec *
alloc_slot (HlRecording *self,
            guint64      id)
{
  HlRecordingBuilder *b = self->builder;

  if (id >= self->allocs->len)
    {
      guint64 want = MAX (id + 1, (guint64) self->allocs->len * 3 / 2);
      if (want > G_MAXUINT32)
        want = id + 1;
      /* Within the loader's reservation, never past it: growing by half
       * would zero (and fault in) up to half the table again. */
      if (id < b->allocs_reserved)
        want = MIN (want, b->allocs_reserved);
      g_array_set_size (self->allocs, want);
    }
  return &g_array_index (self->allocs, HlAllocRec, id);
}

/* A free of ID read before its allocation is applied now. */
static void
apply_pending_free (HlRecording *self,
                    guint64      id)
{
  HlRecordingBuilder *b = self->builder;
  PendingFree *pf;
  PendingFree copy;

  if (b->pending_frees == NULL || (pf = g_hash_table_lookup (b->pending_frees, &id)) == NULL)
    return;
  copy = *pf;
  g_hash_table_remove (b->pending_frees, &id);
  /* Its thread's next allocations have not been read yet: whether it was
   * temporary is unknown, so it is not counted as such. */
  b->applying_pending = TRUE;
  hl_recording_append_free (self, id, 0, copy.time_ns, copy.tid);
  b->applying_pending = FALSE;
}

/* The weights of a sampled recording (hl-recording-private.h) cover every
 * slot of the allocation table; slots filled before the first sampled
 * allocation (none in a well-formed trace) weigh 1. */
static void
set_weight (HlRecording *self,
            guint64      id,
            guint64      weight)
{
  if (self->weights == NULL)
    {
      self->weights = g_array_sized_new (FALSE, FALSE, sizeof (guint64), self->allocs->len);
      for (guint i = 0; i < self->allocs->len; i++)
        {
          guint64 one = 1;
          g_array_append_val (self->weights, one);
        }
    }
  if (self->weights->len < self->allocs->len)
    g_array_set_size (self->weights, self->allocs->len);
  g_array_index (self->weights, guint64, id) = weight;
}

void
hl_recording_append_alloc (HlRecording *self,
                           guint64      id,
                           guint64      time_ns,
                           guint32      tid,
                           guint64      size,
                           guint64      address,
                           guint32      trace_stack_id)
{
  HlRecordingBuilder *b;
  HlAllocRec *a;
  guint32 t;
  guint64 weight;
  HlHeapPoint p;

  g_return_if_fail (HL_IS_RECORDING (self));

  b = builder_of (self);
  /* Ids are dense: one far beyond what was seen is damage, not a reason to
   * allocate gigabytes for the table. */
  if (id >= G_MAXINT32 || (id >= self->allocs->len && id > 16 * (self->n_allocs + (1u << 20))))
    {
      self->ids_out_of_range++;
      return;
    }
  if (self->aggregate != NULL)
    {
      if (hl_aggregate_seen (self->aggregate, id))
        return; /* a duplicate id: ignore */
      t = MIN (thread_index (self, b, tid, time_ns), HL_MAX_THREADS - 1);
      weight = hl_sample_weight (self->sample_bytes, size, id);
      size = hl_sample_weigh (size, weight);
      hl_aggregate_alloc (self->aggregate, id, time_ns, self->seq++, t,
                          stack_index (self, trace_stack_id), size, address, weight);
      g_array_index (b->thread_last, guint64, t) = id;
      self->n_allocs += weight;
      self->bytes_allocated += size;
      if (time_ns > self->end_ns)
        self->end_ns = time_ns;
      apply_pending_free (self, id);
      return;
    }
  a = alloc_slot (self, id);
  if (a->flags & HL_ALLOC_PRESENT)
    return; /* a duplicate id: ignore */
  /* Beyond HL_MAX_THREADS threads (a hostile trace) the last one takes
   * the rest's allocations. */
  t = MIN (thread_index (self, b, tid, time_ns), HL_MAX_THREADS - 1);
  weight = hl_sample_weight (self->sample_bytes, size, id);
  if (self->sample_bytes != 0)
    set_weight (self, id, weight);
  size = hl_sample_weigh (size, weight);
  a->time_ns = time_ns;
  a->size = size;
  a->address = address;
  a->free_time_ns = HL_TIME_NONE;
  a->seq = self->seq++;
  a->stack = stack_index (self, trace_stack_id);
  a->thread = t;
  a->flags = HL_ALLOC_PRESENT;
  g_array_index (b->thread_last, guint64, t) = id;

  self->n_allocs += weight;
  self->bytes_allocated += size;
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
  if (b->addr_to_id != NULL)
    hl_address_map_set (b->addr_to_id, address, id + 1);

  p.alloc_free = (guint32) id << 1;
  g_array_append_val (self->curve, p);
  self->curve_dirty = TRUE;

  apply_pending_free (self, id);
}

static guint64
lookup_address (HlRecording *self,
                guint64      address)
{
  HlRecordingBuilder *b = self->builder;

  if (b->addr_to_id == NULL)
    {
      b->addr_to_id = hl_address_map_new ();
      for (guint64 i = 0; i < self->allocs->len; i++)
        {
          const HlAllocRec *a = &g_array_index (self->allocs, HlAllocRec, i);
          if ((a->flags & (HL_ALLOC_PRESENT | HL_ALLOC_FREED)) == HL_ALLOC_PRESENT)
            hl_address_map_set (b->addr_to_id, a->address, i + 1);
        }
    }
  return hl_address_map_get (b->addr_to_id, address);
}

static void
add_pending_free (HlRecording *self,
                  guint64      id,
                  guint64      time_ns,
                  guint32      tid)
{
  HlRecordingBuilder *b = self->builder;
  PendingFree *pf = g_new (PendingFree, 1);
  guint64 *key = g_new (guint64, 1);

  if (b->pending_frees == NULL)
    b->pending_frees = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  *key = id;
  pf->time_ns = time_ns;
  pf->tid = tid;
  g_hash_table_replace (b->pending_frees, key, pf);
}

/* hl_recording_append_free() of an aggregate recording: the same rules
 * and sequence numbers, on the aggregate's live table. */
static void
append_free_aggregate (HlRecording *self,
                       guint64      id,
                       guint64      address,
                       guint64      time_ns,
                       guint32      tid)
{
  HlRecordingBuilder *b = self->builder;
  gboolean temporary;
  guint64 weight;

  if (id == HL_ALLOC_ID_NONE)
    {
      guint64 found = hl_aggregate_lookup_address (self->aggregate, address);
      if (found == 0)
        {
          self->frees_unknown++;
          return;
        }
      id = found - 1;
    }
  if (!hl_aggregate_seen (self->aggregate, id))
    {
      add_pending_free (self, id, time_ns, tid);
      return;
    }
  if (!hl_aggregate_free_id (self->aggregate, id, time_ns, self->seq, (const guint64 *) b->thread_last->data,
                             b->applying_pending, &temporary, &weight))
    {
      self->frees_unknown++;
      return;
    }
  self->seq++;
  if (temporary)
    self->temporary += weight;
  self->n_frees += weight;
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
}

void
hl_recording_append_free (HlRecording *self,
                          guint64      id,
                          guint64      address,
                          guint64      time_ns,
                          guint32      tid)
{
  HlRecordingBuilder *b;
  HlAllocRec *a;
  HlHeapPoint p;
  guint64 weight;

  g_return_if_fail (HL_IS_RECORDING (self));

  b = builder_of (self);
  if (self->aggregate != NULL)
    {
      append_free_aggregate (self, id, address, time_ns, tid);
      return;
    }
  if (id == HL_ALLOC_ID_NONE)
    {
      guint64 found = lookup_address (self, address);
      if (found == 0)
        {
          self->frees_unknown++;
          return;
        }
      id = found - 1;
    }
  a = id < self->allocs->len ? &g_array_index (self->allocs, HlAllocRec, id) : NULL;
  if (a == NULL || (a->flags & HL_ALLOC_PRESENT) == 0)
    {
      add_pending_free (self, id, time_ns, tid);
      return;
    }
  if ((a->flags & HL_ALLOC_FREED) != 0)
    {
      self->frees_unknown++;
      return;
    }
  a->flags |= HL_ALLOC_FREED;
  a->free_time_ns = MAX (time_ns, a->time_ns);
  a->free_seq = self->seq++;
  weight = hl_alloc_weight (hl_recording_get_alloc_weights (self), id);
  if (!b->applying_pending && g_array_index (b->thread_last, guint64, a->thread) == id)
    {
      a->flags |= HL_ALLOC_TEMPORARY;
      self->temporary += weight;
    }
  self->n_frees += weight;
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
  if (b->addr_to_id != NULL)
    hl_address_map_remove (b->addr_to_id, a->address);
  (void) tid;

  p.alloc_free = (guint32) id << 1 | 1;
  g_array_append_val (self->curve, p);
  self->curve_dirty = TRUE;
}

/* ---- Metadata, marks, counters ----------------------------------------- */

void
hl_recording_append_mark (HlRecording *self,
                          guint64      time_ns,
                          guint32      tid,
                          const char  *text)
{
  HlMark m = { .time_ns = time_ns, .tid = tid };

  g_return_if_fail (HL_IS_RECORDING (self));
  m.text = hl_recording_intern (self, text != NULL ? text : "");
  hl_recording_insert_mark (self, &m);
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
}

void
hl_recording_insert_mark (HlRecording  *self,
                          const HlMark *m)
{
  guint n = self->marks->len;
  if (n > 0 && g_array_index (self->marks, HlMark, n - 1).time_ns > m->time_ns)
    self->marks_unsorted = TRUE;
  g_array_append_val (self->marks, *m);
}

void
hl_recording_append_counters (HlRecording *self,
                              guint64      time_ns,
                              guint64      heap_bytes,
                              guint64      rss_bytes)
{
  HlCounterSample s = { time_ns, heap_bytes, rss_bytes };

  g_return_if_fail (HL_IS_RECORDING (self));
  g_array_append_val (self->counters, s);
  self->peak_rss = MAX (self->peak_rss, rss_bytes);
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
}

void
hl_recording_append_dropped (HlRecording *self,
                             guint64      time_ns,
                             guint64      count)
{
  HlDropSample s = { time_ns, count };

  g_return_if_fail (HL_IS_RECORDING (self));
  g_array_append_val (self->drops, s);
  self->dropped += count;
}

void
hl_recording_append_end (HlRecording *self,
                         guint64      time_ns,
                         int          exit_status)
{
  g_return_if_fail (HL_IS_RECORDING (self));
  self->has_exit = TRUE;
  self->exit_status = exit_status;
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
}

void
hl_recording_set_truncated (HlRecording *self,
                            gboolean     truncated)
{
  self->truncated = truncated;
}

void
hl_recording_set_lost_events (HlRecording *self,
                              guint64      damaged_bound,
                              guint64      cut_bound,
                              guint64      regions_unknown)
{
  g_return_if_fail (HL_IS_RECORDING (self));
  self->lost_events_damaged = damaged_bound;
  self->lost_events_cut = cut_bound;
  self->lost_regions_unknown = regions_unknown;
}

void
hl_recording_reserve (HlRecording *self,
                      guint64      n_allocs)
{
  HlRecordingBuilder *b;

  g_return_if_fail (HL_IS_RECORDING (self));

  b = builder_of (self);
  if (n_allocs > self->allocs->len && n_allocs < G_MAXINT32)
    {
      guint64 old = self->allocs->len;

      if (old == 0)
        {
          /* Room without zeroing it: alloc_slot() zeroes the slots as the
           * table grows into it (growing here zeroed the whole table, and
           * faulted it in, twice with alloc_slot()). */
          g_array_unref (self->allocs);
          self->allocs = g_array_sized_new (FALSE, TRUE, sizeof (HlAllocRec), (guint) n_allocs);
        }
      else
        {
          g_array_set_size (self->allocs, n_allocs);
          g_array_set_size (self->allocs, old);
        }
      b->allocs_reserved = n_allocs;
    }
  if (2 * n_allocs > self->curve->len && n_allocs < G_MAXINT32)
    {
      guint64 old = self->curve->len;
      g_array_set_size (self->curve, 2 * n_allocs);
      g_array_set_size (self->curve, old);
    }
}

void
hl_recording_get_reserved (HlRecording *self,
                           gpointer     start[2],
                           gsize        len[2])
{
  HlRecordingBuilder *b;

  g_return_if_fail (HL_IS_RECORDING (self));

  b = builder_of (self);
  start[0] = self->allocs->data;
  len[0] = b->allocs_reserved * sizeof (HlAllocRec);
  start[1] = self->curve->data;
  len[1] = 2 * b->allocs_reserved * sizeof (HlHeapPoint);
}

/* ---- Aggregate recordings ------------------------------------------------ */

void
hl_recording_begin_aggregate (HlRecording        *self,
                              const HlTraceIndex *index)
{
  g_return_if_fail (HL_IS_RECORDING (self));
  g_return_if_fail (self->aggregate == NULL && self->n_allocs == 0);

  self->aggregate = hl_aggregate_new (index);
}

void
hl_recording_aggregate_packets_done (HlRecording *self,
                                     guint64      offset)
{
  if (self->aggregate != NULL)
    hl_aggregate_packets_done (self->aggregate, offset);
}

gboolean
hl_recording_end_aggregate (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self) && self->aggregate != NULL, FALSE);

  hl_aggregate_finish (self->aggregate);
  hl_aggregate_get_peak (self->aggregate, &self->peak_heap, &self->peak_time_ns);
  hl_aggregate_get_leaks (self->aggregate, &self->leaked_bytes, &self->leaked_blocks);
  return !hl_aggregate_order_broken (self->aggregate);
}

const HlAggregate *
hl_recording_get_aggregate (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  return self->aggregate;
}

/* A decoded trace event into the recording: what the loader, its decode
 * workers' batches and the costs stream apply. */
void
hl_recording_load_apply_event (HlRecording   *rec,
                               const HlEvent *ev)
{
  char num[32];

  switch (ev->type)
    {
    case HL_EVENT_ALLOC:
    case HL_EVENT_ALLOC_ALIGNED:
      hl_recording_append_alloc (rec, ev->u.alloc.id, ev->time_ns, ev->tid, ev->u.alloc.size,
                                 ev->u.alloc.address, ev->u.alloc.stack_id);
      break;
    case HL_EVENT_FREE:
    case HL_EVENT_FREE_ADDR:
      hl_recording_append_free (rec, ev->u.free.id == HL_ID_NONE ? HL_ALLOC_ID_NONE : ev->u.free.id,
                                ev->u.free.address, ev->time_ns, ev->tid);
      break;
    case HL_EVENT_REALLOC:
    case HL_EVENT_REALLOC_ADDR:
      if (ev->u.realloc.old_id != HL_ID_NONE || ev->u.realloc.old_address != 0)
        hl_recording_append_free (rec, ev->u.realloc.old_id == HL_ID_NONE ? HL_ALLOC_ID_NONE : ev->u.realloc.old_id,
                                  ev->u.realloc.old_address, ev->time_ns, ev->tid);
      hl_recording_append_alloc (rec, ev->u.realloc.id, ev->time_ns, ev->tid, ev->u.realloc.size,
                                 ev->u.realloc.address, ev->u.realloc.stack_id);
      break;
    case HL_EVENT_STACK:
      hl_recording_append_stack (rec, ev->u.stack.id, ev->u.stack.frames, ev->u.stack.n_frames);
      break;
    case HL_EVENT_MODULE:
      if ((ev->u.module.flags & HL_MODULE_FLAG_UNLOADED) == 0 && ev->u.module.path != NULL)
        hl_recording_append_module (rec, ev->u.module.path, ev->u.module.start, ev->u.module.size,
                                    ev->u.module.file_offset, ev->u.module.build_id,
                                    ev->u.module.build_id_len);
      break;
    case HL_EVENT_THREAD:
      hl_recording_append_thread (rec, ev->time_ns, ev->u.thread.tid, ev->u.thread.name,
                                  (ev->u.thread.flags & HL_THREAD_FLAG_EXIT) != 0);
      break;
    case HL_EVENT_META_INT:
    case HL_EVENT_META_STRING:
      if (ev->u.meta.is_string)
        hl_recording_append_metadata (rec, ev->time_ns, ev->tid, ev->u.meta.key, ev->u.meta.string_value);
      else
        {
          g_snprintf (num, sizeof num, "%" G_GINT64_FORMAT, (gint64) ev->u.meta.int_value);
          hl_recording_append_metadata (rec, ev->time_ns, ev->tid, ev->u.meta.key, num);
        }
      break;
    case HL_EVENT_META_REMOVE:
      hl_recording_append_metadata (rec, ev->time_ns, ev->tid, ev->u.meta.key, NULL);
      break;
    case HL_EVENT_MARK:
      hl_recording_append_mark (rec, ev->time_ns, ev->tid, ev->u.mark.text);
      break;
    case HL_EVENT_COUNTERS:
      hl_recording_append_counters (rec, ev->time_ns, ev->u.counters.heap_bytes, ev->u.counters.rss_bytes);
      break;
    case HL_EVENT_DROPPED:
      hl_recording_append_dropped (rec, ev->time_ns, ev->u.dropped.count);
      break;
    case HL_EVENT_MMAP:
      hl_recording_append_mmap (rec, ev->time_ns, ev->tid, ev->u.mmap.address, ev->u.mmap.size, ev->u.mmap.stack_id);
      break;
    case HL_EVENT_MUNMAP:
      hl_recording_append_munmap (rec, ev->time_ns, ev->u.munmap.address, ev->u.munmap.size);
      break;
    case HL_EVENT_MREMAP:
      hl_recording_append_mremap (rec, ev->time_ns, ev->tid, ev->u.mremap.old_address, ev->u.mremap.old_size,
                                  ev->u.mremap.address, ev->u.mremap.size, ev->u.mremap.stack_id);
      break;
    case HL_EVENT_ALLOCATOR:
      hl_recording_append_allocator (rec, ev->time_ns, ev->u.allocator);
      break;
    case HL_EVENT_INFO:
      for (guint32 i = 0; i < ev->u.info.n; i++)
        hl_recording_append_info (rec, ev->u.info.keys[i], ev->u.info.values[i]);
      break;
    case HL_EVENT_END:
      hl_recording_append_end (rec, ev->time_ns, ev->u.end.exit_status);
      break;
    case HL_EVENT_REACHABILITY:
      hl_recording_append_reachability (rec, ev->time_ns, ev->u.reach.data, ev->u.reach.size);
      break;
    default:
      break;
    }
}

void
hl_recording_load_warn_dropped (HlRecording *rec)
{
  HlSummary s;

  hl_recording_get_summary (rec, &s);
  if (s.dropped_events > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, s.dropped_events);
      g_autofree char *w = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                         "%s event was dropped while recording: the numbers are lower bounds",
                                                         "%s events were dropped while recording: the numbers are lower bounds",
                                                         s.dropped_events), n);
      hl_recording_append_warning (rec, w);
    }
}
