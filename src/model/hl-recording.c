/* hl-recording.c — the recording object: life cycle, interning, ::changed
 * the readers of its tables and the expansion of its stacks into frames
 * (events: hl-recording-builder.c). */
#include "hl-recording-builder-private.h"

#include <string.h>

G_DEFINE_FINAL_TYPE (HlRecording, hl_recording, G_TYPE_OBJECT)

enum
{
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
hl_recording_finalize (GObject *object)
{
  HlRecording *self = HL_RECORDING (object);

  g_clear_pointer (&self->tries, hl_trie_cache_free);
  g_clear_pointer (&self->aggregate, hl_aggregate_free);
  g_clear_pointer (&self->info, g_hash_table_unref);
  g_clear_pointer (&self->info_keys, g_ptr_array_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->modules, g_array_unref);
  g_clear_pointer (&self->threads, g_array_unref);
  g_clear_pointer (&self->builder, hl_recording_builder_free);
  g_clear_pointer (&self->allocs, g_array_unref);
  g_clear_pointer (&self->weights, g_array_unref);
  g_clear_pointer (&self->curve, g_array_unref);
  g_clear_pointer (&self->checkpoints, g_array_unref);
  g_clear_pointer (&self->time_blocks, g_array_unref);
  g_clear_pointer (&self->counters, g_array_unref);
  g_clear_pointer (&self->sysmem, hl_sysmem_free);
  g_clear_pointer (&self->drops, g_array_unref);
  g_clear_pointer (&self->reach_blocks, g_array_unref);
  g_clear_pointer (&self->meta, g_array_unref);
  g_clear_pointer (&self->meta_open, g_hash_table_unref);
  g_clear_pointer (&self->meta_changes, g_array_unref);
  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->stack_ids, g_array_unref);
  g_clear_pointer (&self->stack_spans, g_array_unref);
  g_clear_pointer (&self->stack_addrs, g_array_unref);
  g_clear_pointer (&self->frame_table, hl_frame_table_free);
  g_clear_pointer (&self->strings, g_string_chunk_free);

  G_OBJECT_CLASS (hl_recording_parent_class)->finalize (object);
}

static void
hl_recording_class_init (HlRecordingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = hl_recording_finalize;

  /**
   * HlRecording::changed:
   * @n_new_allocations: allocations added since the previous emission
   *
   * Emitted by hl_recording_commit() after a batch of appends.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT64);
}

static void
hl_recording_init (HlRecording *self)
{
  self->strings = g_string_chunk_new (64 * 1024);
  self->info = g_hash_table_new (g_str_hash, g_str_equal);
  self->info_keys = g_ptr_array_new ();
  g_ptr_array_add (self->info_keys, NULL);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->modules = g_array_new (FALSE, TRUE, sizeof (HlModuleInfo));
  self->threads = g_array_new (FALSE, TRUE, sizeof (HlThreadInfo));
  self->builder = hl_recording_builder_new ();
  self->allocs = g_array_new (FALSE, TRUE, sizeof (HlAllocRec));
  self->curve = g_array_new (FALSE, FALSE, sizeof (HlHeapPoint));
  self->checkpoints = g_array_new (FALSE, FALSE, sizeof (HeapCheckpoint));
  self->time_blocks = g_array_new (FALSE, FALSE, sizeof (HlAllocTimeBlock));
  self->counters = g_array_new (FALSE, FALSE, sizeof (HlCounterSample));
  self->drops = g_array_new (FALSE, FALSE, sizeof (HlDropSample));
  self->reach_blocks = g_array_new (FALSE, FALSE, sizeof (HlReachabilityBlock));
  self->meta = g_array_new (FALSE, TRUE, sizeof (HlMetaInterval));
  self->meta_open = g_hash_table_new (g_str_hash, g_str_equal);
  self->meta_changes = g_array_new (FALSE, FALSE, sizeof (HlMetaChange));
  self->marks = g_array_new (FALSE, TRUE, sizeof (HlMark));
  self->stack_ids = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->stack_spans = g_array_new (FALSE, TRUE, sizeof (StackSpan));
  self->stack_addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->frame_table = hl_frame_table_new (self->modules);

  /* Stack 0: "not recorded", no frames. */
  g_array_set_size (self->stack_spans, 1);
  self->tries = hl_trie_cache_new ();
}

HlRecording *
hl_recording_new (void)
{
  return g_object_new (HL_TYPE_RECORDING, NULL);
}

const char *
hl_recording_intern (HlRecording *self,
                     const char  *s)
{
  return s != NULL ? g_string_chunk_insert_const (self->strings, s) : NULL;
}

void
hl_recording_emit_changed (HlRecording *self,
                           guint64      n_new)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, n_new);
}

/* ---- Reading ------------------------------------------------------------ */

void
hl_recording_get_summary (HlRecording *self,
                          HlSummary   *out)
{
  g_return_if_fail (HL_IS_RECORDING (self));
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  out->duration_ns = self->end_ns;
  out->n_allocations = self->n_allocs;
  out->n_frees = self->n_frees;
  out->bytes_allocated = self->bytes_allocated;
  out->temporary = self->temporary;
  out->peak_heap_bytes = self->peak_heap;
  out->peak_time_ns = self->peak_time_ns;
  out->peak_rss_bytes = self->peak_rss;
  out->leaked_bytes = self->leaked_bytes;
  out->leaked_blocks = self->leaked_blocks;
  out->dropped_events = self->dropped;
  out->frees_unknown = self->frees_unknown +
                       (self->builder != NULL ? hl_recording_builder_n_pending (self->builder) : 0);
  out->lost_events_damaged_bound = self->lost_events_damaged;
  out->lost_events_cut_bound = self->lost_events_cut;
  out->lost_regions_unknown = self->lost_regions_unknown;
  out->n_threads = self->threads->len;
  out->n_stacks = self->stack_spans->len;
  out->has_exit_status = self->has_exit;
  out->exit_status = self->exit_status;
}

const char *
hl_recording_get_info (HlRecording *self,
                       const char  *key)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  return g_hash_table_lookup (self->info, key);
}

HlRecordingEnd
hl_recording_get_end (HlRecording *self)
{
  HlSummary s;

  g_return_val_if_fail (HL_IS_RECORDING (self), HL_RECORDING_END_OTHER);
  if (hl_recording_get_info (self, "trace_cut_ns") != NULL || hl_recording_get_info (self, "detached_ns") != NULL
      || hl_recording_get_info (self, "replaced_by_exec") != NULL)
    return HL_RECORDING_END_OTHER;
  /* heaptrack's files hold no exit: heaptrack_print calls what they did
   * not free leaked, and so does the import */
  if (g_strcmp0 (hl_recording_get_info (self, "format"), "heaptrack") == 0)
    return HL_RECORDING_END_EXITED;
  /* salvaged after a death without END (record, the app, sessions --prune) */
  if (hl_recording_get_info (self, "salvaged_events") != NULL)
    return HL_RECORDING_END_DIED;
  hl_recording_get_summary (self, &s);
  return s.has_exit_status ? HL_RECORDING_END_EXITED : HL_RECORDING_END_UNRECORDED;
}

const char * const *
hl_recording_get_info_keys (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  return (const char * const *) self->info_keys->pdata;
}

const char * const *
hl_recording_get_warnings (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  return (const char * const *) self->warnings->pdata;
}

gboolean
hl_recording_is_truncated (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), FALSE);
  return self->truncated;
}

const HlModuleInfo *
hl_recording_get_modules (HlRecording *self,
                          guint       *n_modules)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  *n_modules = self->modules->len;
  return (const HlModuleInfo *) self->modules->data;
}

HlModuleInfo *
hl_recording_get_modules_mutable (HlRecording *self,
                                  guint       *n_modules)
{
  *n_modules = self->modules->len;
  return (HlModuleInfo *) self->modules->data;
}

GPtrArray *
hl_recording_get_modules_without_debug_info (HlRecording *self)
{
  GPtrArray *out = g_ptr_array_new ();
  g_autofree gboolean *used = NULL;

  g_return_val_if_fail (HL_IS_RECORDING (self), out);

  used = g_new0 (gboolean, self->modules->len + 1);
  hl_frame_table_mark_used_modules (self->frame_table, used);
  for (guint i = 0; i < self->modules->len; i++)
    {
      HlModuleInfo *m = &g_array_index (self->modules, HlModuleInfo, i);
      if (used[i] && !m->has_debug_info)
        g_ptr_array_add (out, m);
    }
  return out;
}

const HlThreadInfo *
hl_recording_get_threads (HlRecording *self,
                          guint       *n_threads)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  *n_threads = self->threads->len;
  return (const HlThreadInfo *) self->threads->data;
}

guint32
hl_recording_get_thread_tid (HlRecording *self,
                             guint32      thread)
{
  return g_array_index (self->threads, HlThreadInfo, thread).tid;
}

guint
hl_recording_get_n_threads_internal (HlRecording *self)
{
  return self->threads->len;
}

static int
compare_mark_times (gconstpointer a,
                    gconstpointer b)
{
  guint64 ta = ((const HlMark *) a)->time_ns, tb = ((const HlMark *) b)->time_ns;
  return ta < tb ? -1 : ta > tb;
}

const HlMark *
hl_recording_get_marks (HlRecording *self,
                        guint       *n_marks)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  if (self->marks_unsorted)
    {
      g_array_sort (self->marks, compare_mark_times); /* stable */
      self->marks_unsorted = FALSE;
    }
  *n_marks = self->marks->len;
  return (const HlMark *) self->marks->data;
}

guint
hl_recording_get_n_stacks (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), 0);
  return self->stack_spans->len;
}

HlStackId
hl_recording_lookup_stack (HlRecording *self,
                           guint32      trace_stack_id)
{
  guint32 found;

  g_return_val_if_fail (HL_IS_RECORDING (self), 0);
  found = trace_stack_id < self->stack_ids->len ? g_array_index (self->stack_ids, guint32, trace_stack_id) : 0;
  return found != 0 ? found - 1 : 0;
}

const HlFrameEntry * const *
hl_recording_get_stack_entries (HlRecording *self,
                                guint32      stack,
                                guint       *n_frames)
{
  return hl_frame_table_get_stack (self->frame_table, stack, n_frames);
}

const HlFrame * const *
hl_recording_get_stack_frames (HlRecording *self,
                               HlStackId    stack,
                               guint       *n_frames)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  return (const HlFrame * const *) hl_recording_get_stack_entries (self, stack, n_frames);
}

const HlAllocRec *
hl_recording_get_allocs (HlRecording *self,
                         guint64     *n_allocs)
{
  *n_allocs = self->allocs->len;
  return (const HlAllocRec *) self->allocs->data;
}

guint64
hl_recording_get_sample_bytes (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), 0);
  return self->sample_bytes;
}

const guint64 *
hl_recording_get_alloc_weights (HlRecording *self)
{
  return self->weights != NULL ? (const guint64 *) self->weights->data : NULL;
}

const HlAllocTimeBlock *
hl_recording_get_alloc_time_blocks (HlRecording *self,
                                    guint64     *n_blocks)
{
  if (self->curve_dirty)
    hl_recording_update_curve (self);
  *n_blocks = self->time_blocks->len;
  return (const HlAllocTimeBlock *) self->time_blocks->data;
}

const HlHeapPoint *
hl_recording_get_heap_curve (HlRecording *self,
                             guint64     *n_points)
{
  if (self->curve_dirty)
    hl_recording_update_curve (self);
  *n_points = self->curve->len;
  return (const HlHeapPoint *) self->curve->data;
}

/* ---- Frames and tries ---------------------------------------------------- */

HlFrameTable *
hl_recording_get_frame_table (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  return self->frame_table;
}

void
hl_recording_expand_stack_frames (HlRecording *self,
                                  gboolean     all)
{
  guint n_stacks = self->stack_spans->len;

  if (all)
    hl_frame_table_clear_stacks (self->frame_table);
  for (guint32 s = hl_frame_table_get_n_stacks (self->frame_table); s < n_stacks; s++)
    {
      const StackSpan *span = &g_array_index (self->stack_spans, StackSpan, s);
      const guint64 *addrs = (const guint64 *) self->stack_addrs->data + span->begin;

      hl_frame_table_add_stack (self->frame_table, addrs, span->n);
    }
}

void
hl_recording_symbols_changed (HlRecording *self)
{
  g_return_if_fail (HL_IS_RECORDING (self));

  hl_recording_expand_stack_frames (self, TRUE);
  hl_trie_cache_clear (self->tries);
}

/* Under the trie cache's lock: the stacks appended since are expanded
 * (all of them again when one was defined after its first use). */
static const HlFrameTable *
update_frames (gpointer user_data)
{
  HlRecording *self = user_data;

  if (self->frames_dirty)
    {
      hl_recording_expand_stack_frames (self, TRUE);
      self->frames_dirty = FALSE;
    }
  else
    hl_recording_expand_stack_frames (self, FALSE);
  return self->frame_table;
}

typedef struct
{
  HlRecording *self;
  guint64      address;
  GPtrArray   *frames;
} AddressLookup;

static const HlFrameTable *
lookup_address (gpointer user_data)
{
  AddressLookup *l = user_data;
  const HlFrameTable *table = update_frames (l->self);

  l->frames = hl_frame_table_copy_address_frames (table, l->address);
  return table;
}

GPtrArray *
hl_recording_get_address_frames (HlRecording *self,
                                 guint64      address)
{
  AddressLookup l = { self, address, NULL };

  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  /* under the tries' lock: an analysis on a worker may expand stacks */
  hl_trie_cache_update (self->tries, lookup_address, &l);
  return l.frames;
}

const HlTrie *
hl_recording_get_trie (HlRecording *self,
                       gboolean     bottom_up)
{
  return hl_trie_cache_get (self->tries, bottom_up, update_frames, self);
}

const HlCounterSample *
hl_recording_get_counter_samples (HlRecording *self,
                                  guint       *n)
{
  *n = self->counters->len;
  return (const HlCounterSample *) self->counters->data;
}

const HlDropSample *
hl_recording_get_drop_samples (HlRecording *self,
                               guint       *n)
{
  *n = self->drops->len;
  return (const HlDropSample *) self->drops->data;
}

guint64
hl_recording_get_end_ns (HlRecording *self)
{
  return self->end_ns;
}
