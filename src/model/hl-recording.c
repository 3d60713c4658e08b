/* hl-recording.c — the recording's tables and its event sink. */
#include "hl-recording-private.h"

#include <string.h>

typedef struct
{
  guint64 begin;
  guint32 n;
  guint32 defined;
} StackSpan;

/* A free whose allocation is in a packet not read yet (another thread's
 * packet reached the file later): applied when the allocation arrives. */
typedef struct
{
  guint64 time_ns;
  guint32 tid;
} PendingFree;

struct _HlRecording
{
  GObject parent_instance;

  /* Owned */
  GStringChunk *strings;
  GHashTable   *info;            /* key → value, interned */
  GPtrArray    *info_keys;       /* NULL-terminated */
  GPtrArray    *warnings;        /* NULL-terminated, owned strings */
  GArray       *modules;         /* HlModuleInfo */
  GArray       *threads;         /* HlThreadInfo */
  GHashTable   *tid_to_thread;   /* tid → index + 1 */
  GArray       *thread_last;     /* guint64: last allocation id per thread */
  GArray       *allocs;          /* HlAllocRec by id */
  GHashTable   *addr_to_id;      /* address → id + 1 of live blocks, once needed */
  GHashTable   *pending_frees;   /* id → PendingFree: freed before its allocation arrived */
  GArray       *curve;           /* HlHeapPoint */
  GArray       *counters;        /* HlCounterSample */
  GArray       *drops;           /* HlDropSample */
  GArray       *meta;            /* HlMetaInterval */
  GHashTable   *meta_open;       /* key → index + 1 of the open interval */
  GArray       *marks;           /* HlMark */

  /* Stacks: trace id → internal index; addresses per stack. */
  GArray       *stack_ids;       /* guint32 by trace stack id: index + 1, 0 = unseen */
  GArray       *stack_spans;     /* StackSpan per internal stack: into stack_addrs */
  GArray       *stack_addrs;     /* guint64 */
  GArray       *stack_frame_offsets; /* expanded: guint per stack + 1 */
  GPtrArray    *stack_frames;    /* HlFrameEntry *, expanded */
  guint         stacks_expanded; /* stacks with expanded frames */

  GHashTable   *addr_frames;     /* address → GPtrArray of HlFrameEntry * */
  GHashTable   *frames;          /* key string → HlFrameEntry * (owned) */
  GHashTable   *function_ids;    /* "function\x1fmodule" → id + 1 */
  GArray       *unresolved;      /* addresses met and not yet symbolized */

  guint32       last_tid;        /* cache of thread_index() */
  guint32       last_thread;
  HlTrie       *tries[2];
  HlSymbolizer *symbolizer;      /* kept for live recordings */
  guint         symbolizer_modules;
  GMutex        trie_lock;       /* analyses on worker threads build tries */

  guint32       seq;
  guint64       n_allocs;
  guint64       n_frees;
  guint64       bytes_allocated;
  guint64       temporary;
  guint64       frees_unknown;
  guint64       ids_out_of_range;
  guint64       dropped;
  guint64       end_ns;
  guint64       peak_heap;
  guint64       peak_time_ns;
  guint64       peak_rss;
  guint64       leaked_bytes;
  guint64       leaked_blocks;
  guint64       committed_allocs;
  guint64       curve_sorted;    /* points already in (time, seq) order */
  gboolean      curve_dirty;
  gboolean      frames_dirty;
  gboolean      applying_pending;
  gboolean      has_exit;
  int           exit_status;
  gboolean      truncated;
};

G_DEFINE_FINAL_TYPE (HlRecording, hl_recording, G_TYPE_OBJECT)

enum
{
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
free_trie (HlTrie *trie)
{
  hl_stack_trie_free (trie);
}

static void
hl_recording_finalize (GObject *object)
{
  HlRecording *self = HL_RECORDING (object);

  g_clear_pointer (&self->tries[0], free_trie);
  g_clear_pointer (&self->tries[1], free_trie);
  g_clear_pointer (&self->info, g_hash_table_unref);
  g_clear_pointer (&self->info_keys, g_ptr_array_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->modules, g_array_unref);
  g_clear_pointer (&self->threads, g_array_unref);
  g_clear_pointer (&self->tid_to_thread, g_hash_table_unref);
  g_clear_pointer (&self->thread_last, g_array_unref);
  g_clear_pointer (&self->allocs, g_array_unref);
  g_clear_pointer (&self->addr_to_id, g_hash_table_unref);
  g_clear_pointer (&self->pending_frees, g_hash_table_unref);
  g_clear_pointer (&self->curve, g_array_unref);
  g_clear_pointer (&self->counters, g_array_unref);
  g_clear_pointer (&self->drops, g_array_unref);
  g_clear_pointer (&self->meta, g_array_unref);
  g_clear_pointer (&self->meta_open, g_hash_table_unref);
  g_clear_pointer (&self->marks, g_array_unref);
  g_clear_pointer (&self->stack_ids, g_array_unref);
  g_clear_pointer (&self->stack_spans, g_array_unref);
  g_clear_pointer (&self->stack_addrs, g_array_unref);
  g_clear_pointer (&self->stack_frame_offsets, g_array_unref);
  g_clear_pointer (&self->stack_frames, g_ptr_array_unref);
  g_clear_pointer (&self->addr_frames, g_hash_table_unref);
  g_clear_pointer (&self->frames, g_hash_table_unref);
  g_clear_pointer (&self->function_ids, g_hash_table_unref);
  g_clear_pointer (&self->unresolved, g_array_unref);
  g_clear_pointer (&self->symbolizer, hl_symbolizer_free);
  g_clear_pointer (&self->strings, g_string_chunk_free);
  g_mutex_clear (&self->trie_lock);

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
  guint64 zero = 0;

  self->strings = g_string_chunk_new (64 * 1024);
  self->info = g_hash_table_new (g_str_hash, g_str_equal);
  self->info_keys = g_ptr_array_new ();
  g_ptr_array_add (self->info_keys, NULL);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->modules = g_array_new (FALSE, TRUE, sizeof (HlModuleInfo));
  self->threads = g_array_new (FALSE, TRUE, sizeof (HlThreadInfo));
  self->tid_to_thread = g_hash_table_new (NULL, NULL);
  self->thread_last = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->allocs = g_array_new (FALSE, TRUE, sizeof (HlAllocRec));
  self->curve = g_array_new (FALSE, FALSE, sizeof (HlHeapPoint));
  self->counters = g_array_new (FALSE, FALSE, sizeof (HlCounterSample));
  self->drops = g_array_new (FALSE, FALSE, sizeof (HlDropSample));
  self->meta = g_array_new (FALSE, TRUE, sizeof (HlMetaInterval));
  self->meta_open = g_hash_table_new (g_str_hash, g_str_equal);
  self->marks = g_array_new (FALSE, TRUE, sizeof (HlMark));
  self->stack_ids = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->stack_spans = g_array_new (FALSE, TRUE, sizeof (StackSpan));
  self->stack_addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->stack_frame_offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  self->stack_frames = g_ptr_array_new ();
  self->addr_frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                             (GDestroyNotify) g_ptr_array_unref);
  self->frames = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->function_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->unresolved = g_array_new (FALSE, FALSE, sizeof (guint64));

  /* Stack 0: "not recorded", no frames. */
  g_array_set_size (self->stack_spans, 1);
  (void) zero;
  {
    guint z = 0;
    g_array_append_val (self->stack_frame_offsets, z);
    g_array_append_val (self->stack_frame_offsets, z);
  }
  self->stacks_expanded = 1;
  g_mutex_init (&self->trie_lock);
}

HlRecording *
hl_recording_new (void)
{
  return g_object_new (HL_TYPE_RECORDING, NULL);
}

static const char *
intern (HlRecording *self,
        const char  *s)
{
  return s != NULL ? g_string_chunk_insert_const (self->strings, s) : NULL;
}

const char *
hl_recording_intern (HlRecording *self,
                     const char  *s)
{
  return intern (self, s);
}

/* ---- Frames ------------------------------------------------------------- */

static guint32
function_id_for (HlRecording *self,
                 const char  *function,
                 const char  *module_name)
{
  g_autofree char *key = g_strconcat (function, "\x1f", module_name, NULL);
  gpointer value = g_hash_table_lookup (self->function_ids, key);

  if (value == NULL)
    {
      value = GUINT_TO_POINTER (g_hash_table_size (self->function_ids) + 1);
      g_hash_table_insert (self->function_ids, (char *) intern (self, key), value);
    }
  return GPOINTER_TO_UINT (value) - 1;
}

static HlFrameEntry *
intern_frame (HlRecording *self,
              const char  *function,
              int          module,
              const char  *file,
              guint        line,
              gboolean     is_inline,
              gboolean     resolved,
              guint64      address)
{
  const HlModuleInfo *mod = module >= 0 ? &g_array_index (self->modules, HlModuleInfo, module) : NULL;
  const char *module_path = mod != NULL ? mod->path : "";
  g_autofree char *key = NULL;
  HlFrameEntry *entry;

  /* Unresolved frames stay distinct per address. */
  key = g_strdup_printf ("%s\x1f%s\x1f%s\x1f%u\x1f%d\x1f%" G_GINT64_MODIFIER "x",
                         function, module_path, file != NULL ? file : "", line,
                         is_inline, resolved ? (guint64) 0 : address);
  entry = g_hash_table_lookup (self->frames, key);
  if (entry != NULL)
    return entry;

  entry = g_new0 (HlFrameEntry, 1);
  entry->pub.function = intern (self, function);
  entry->pub.module = mod != NULL ? mod->path : "";
  entry->pub.module_name = mod != NULL ? mod->name : "";
  entry->pub.file = intern (self, file);
  entry->pub.line = line;
  entry->pub.address = address;
  entry->pub.is_inline = is_inline;
  entry->pub.resolved = resolved;
  entry->module = module >= 0 ? (guint32) module : G_MAXUINT32;
  entry->function_id = function_id_for (self, entry->pub.function, entry->pub.module_name);
  g_hash_table_insert (self->frames, g_steal_pointer (&key), entry);
  return entry;
}

gboolean
hl_frame_same_function (const HlFrame *a,
                        const HlFrame *b)
{
  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL)
    return FALSE;
  return g_strcmp0 (a->function, b->function) == 0 &&
         g_strcmp0 (a->module_name, b->module_name) == 0;
}

static GPtrArray *
frames_for_address (HlRecording *self,
                    guint64      address)
{
  GPtrArray *list = g_hash_table_lookup (self->addr_frames, &address);
  guint64 *key;
  char name[32];
  int module;

  if (list != NULL)
    return list;

  /* Placeholder until the symbolizer runs. */
  module = hl_recording_find_module (self, address);
  g_snprintf (name, sizeof name, "0x%" G_GINT64_MODIFIER "x", address);
  list = g_ptr_array_new ();
  g_ptr_array_add (list, intern_frame (self, name, module, NULL, 0, FALSE, FALSE, address));
  key = g_new (guint64, 1);
  *key = address;
  g_hash_table_insert (self->addr_frames, key, list);
  g_array_append_val (self->unresolved, address);
  return list;
}

void
hl_recording_set_address_frames (HlRecording           *self,
                                 guint64                address,
                                 int                    module,
                                 const HlResolvedFrame *frames,
                                 guint                  n_frames)
{
  GPtrArray *list = g_ptr_array_new ();
  guint64 *key = g_new (guint64, 1);

  g_return_if_fail (HL_IS_RECORDING (self));
  g_return_if_fail (n_frames > 0);

  for (guint i = 0; i < n_frames; i++)
    g_ptr_array_add (list, intern_frame (self, frames[i].function, module, frames[i].file,
                                         frames[i].line, frames[i].is_inline, TRUE, address));
  *key = address;
  g_hash_table_replace (self->addr_frames, key, list);
}

HlSymbolizer *
hl_recording_get_symbolizer (HlRecording *self,
                             guint        n_modules)
{
  if (self->symbolizer != NULL && self->symbolizer_modules != n_modules)
    {
      /* New modules: frames already resolved stay, new addresses use a
       * symbolizer that knows every module. */
      g_clear_pointer (&self->symbolizer, hl_symbolizer_free);
    }
  return self->symbolizer;
}

void
hl_recording_set_symbolizer (HlRecording  *self,
                             HlSymbolizer *sym,
                             guint         n_modules)
{
  g_clear_pointer (&self->symbolizer, hl_symbolizer_free);
  self->symbolizer = sym;
  self->symbolizer_modules = n_modules;
}

void
hl_recording_add_unresolved_addresses (HlRecording   *self,
                                       const guint64 *addresses,
                                       guint          n)
{
  g_array_append_vals (self->unresolved, addresses, n);
}

GArray *
hl_recording_take_unresolved_addresses (HlRecording *self)
{
  GArray *out = self->unresolved;

  self->unresolved = g_array_new (FALSE, FALSE, sizeof (guint64));
  return out;
}

static void
expand_stack_frames (HlRecording *self,
                     guint32      from)
{
  guint n_stacks = self->stack_spans->len;

  if (from == 1)
    {
      g_ptr_array_set_size (self->stack_frames, 0);
      g_array_set_size (self->stack_frame_offsets, 2);
    }
  for (guint32 s = from; s < n_stacks; s++)
    {
      const StackSpan *span = &g_array_index (self->stack_spans, StackSpan, s);
      guint64 begin = span->begin, end = span->begin + span->n;
      guint off;

      for (guint64 i = begin; i < end; i++)
        {
          GPtrArray *list = frames_for_address (self, g_array_index (self->stack_addrs, guint64, i));
          for (guint j = 0; j < list->len; j++)
            g_ptr_array_add (self->stack_frames, list->pdata[j]);
        }
      off = self->stack_frames->len;
      g_array_append_val (self->stack_frame_offsets, off);
    }
  self->stacks_expanded = n_stacks;
}

void
hl_recording_symbols_changed (HlRecording *self)
{
  g_return_if_fail (HL_IS_RECORDING (self));

  expand_stack_frames (self, 1);
  g_clear_pointer (&self->tries[0], free_trie);
  g_clear_pointer (&self->tries[1], free_trie);
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
      g_ptr_array_add (self->info_keys, (char *) intern (self, key));
      g_ptr_array_add (self->info_keys, NULL);
    }
  g_hash_table_insert (self->info, (char *) intern (self, key), (char *) intern (self, value));
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
              m->build_id = intern (self, hex);
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
    m.path = intern (self, path);
    m.name = intern (self, name);
    m.build_id = intern (self, hex);
    m.start = base;
    m.size = end - base;
    g_array_append_val (self->modules, m);
  }
}

int
hl_recording_find_module (HlRecording *self,
                          guint64      address)
{
  for (guint i = 0; i < self->modules->len; i++)
    {
      const HlModuleInfo *m = &g_array_index (self->modules, HlModuleInfo, i);
      if (address >= m->start && address - m->start < m->size)
        return (int) i;
    }
  return -1;
}

static guint32
thread_index (HlRecording *self,
              guint32      tid,
              guint64      time_ns)
{
  gpointer v;
  HlThreadInfo *t;

  if (self->threads->len > 0 && tid == self->last_tid)
    {
      t = &g_array_index (self->threads, HlThreadInfo, self->last_thread);
      if (time_ns > t->end_ns)
        t->end_ns = time_ns;
      if (time_ns < t->start_ns)
        t->start_ns = time_ns;
      return self->last_thread;
    }
  v = g_hash_table_lookup (self->tid_to_thread, GUINT_TO_POINTER (tid));

  if (v == NULL)
    {
      HlThreadInfo info = { .tid = tid, .name = "", .start_ns = time_ns, .end_ns = time_ns };
      guint64 none = HL_ALLOC_ID_NONE;

      g_array_append_val (self->threads, info);
      g_array_append_val (self->thread_last, none);
      v = GUINT_TO_POINTER (self->threads->len);
      g_hash_table_insert (self->tid_to_thread, GUINT_TO_POINTER (tid), v);
    }
  t = &g_array_index (self->threads, HlThreadInfo, GPOINTER_TO_UINT (v) - 1);
  if (time_ns > t->end_ns)
    t->end_ns = time_ns;
  if (time_ns < t->start_ns)
    t->start_ns = time_ns;
  self->last_tid = tid;
  self->last_thread = GPOINTER_TO_UINT (v) - 1;
  return self->last_thread;
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

  t = thread_index (self, tid, time_ns);
  if (name != NULL && name[0] != '\0')
    g_array_index (self->threads, HlThreadInfo, t).name = intern (self, name);
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
      if (index < self->stacks_expanded)
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
  if (id >= self->allocs->len)
    {
      guint64 want = MAX (id + 1, (guint64) self->allocs->len * 3 / 2);
      if (want > G_MAXUINT32)
        want = id + 1;
      g_array_set_size (self->allocs, want);
    }
  return &g_array_index (self->allocs, HlAllocRec, id);
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
  HlAllocRec *a;
  guint32 t;
  HlHeapPoint p;

  g_return_if_fail (HL_IS_RECORDING (self));

  /* Ids are dense: one far beyond what was seen is damage, not a reason to
   * allocate gigabytes for the table. */
  if (id >= G_MAXINT32 || (id >= self->allocs->len && id > 16 * (self->n_allocs + (1u << 20))))
    {
      self->ids_out_of_range++;
      return;
    }
  a = alloc_slot (self, id);
  if (a->flags & HL_ALLOC_PRESENT)
    return; /* a duplicate id: ignore */
  t = thread_index (self, tid, time_ns);
  a->time_ns = time_ns;
  a->size = size;
  a->address = address;
  a->free_time_ns = HL_TIME_NONE;
  a->seq = self->seq++;
  a->stack = stack_index (self, trace_stack_id);
  a->thread = t;
  a->flags = HL_ALLOC_PRESENT;
  g_array_index (self->thread_last, guint64, t) = id;

  self->n_allocs++;
  self->bytes_allocated += size;
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
  if (self->addr_to_id != NULL)
    g_hash_table_insert (self->addr_to_id, GSIZE_TO_POINTER (address), GSIZE_TO_POINTER (id + 1));

  p.time_ns = time_ns;
  p.heap = 0;
  p.seq = a->seq;
  p.alloc_free = (guint32) id << 1;
  g_array_append_val (self->curve, p);
  self->curve_dirty = TRUE;

  if (self->pending_frees != NULL)
    {
      PendingFree *pf = g_hash_table_lookup (self->pending_frees, &id);
      if (pf != NULL)
        {
          PendingFree copy = *pf;
          g_hash_table_remove (self->pending_frees, &id);
          /* Its thread's next allocations have not been read yet: whether
           * it was temporary is unknown, so it is not counted as such. */
          self->applying_pending = TRUE;
          hl_recording_append_free (self, id, 0, copy.time_ns, copy.tid);
          self->applying_pending = FALSE;
        }
    }
}

static guint64
lookup_address (HlRecording *self,
                guint64      address)
{
  if (self->addr_to_id == NULL)
    {
      self->addr_to_id = g_hash_table_new (NULL, NULL);
      for (guint64 i = 0; i < self->allocs->len; i++)
        {
          const HlAllocRec *a = &g_array_index (self->allocs, HlAllocRec, i);
          if ((a->flags & (HL_ALLOC_PRESENT | HL_ALLOC_FREED)) == HL_ALLOC_PRESENT)
            g_hash_table_insert (self->addr_to_id, GSIZE_TO_POINTER (a->address), GSIZE_TO_POINTER (i + 1));
        }
    }
  return GPOINTER_TO_SIZE (g_hash_table_lookup (self->addr_to_id, GSIZE_TO_POINTER (address)));
}

void
hl_recording_append_free (HlRecording *self,
                          guint64      id,
                          guint64      address,
                          guint64      time_ns,
                          guint32      tid)
{
  HlAllocRec *a;
  HlHeapPoint p;

  g_return_if_fail (HL_IS_RECORDING (self));

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
      PendingFree *pf = g_new (PendingFree, 1);
      guint64 *key = g_new (guint64, 1);

      if (self->pending_frees == NULL)
        self->pending_frees = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      *key = id;
      pf->time_ns = time_ns;
      pf->tid = tid;
      g_hash_table_replace (self->pending_frees, key, pf);
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
  if (!self->applying_pending && g_array_index (self->thread_last, guint64, a->thread) == id)
    {
      a->flags |= HL_ALLOC_TEMPORARY;
      self->temporary++;
    }
  self->n_frees++;
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
  if (self->addr_to_id != NULL)
    g_hash_table_remove (self->addr_to_id, GSIZE_TO_POINTER (a->address));
  (void) tid;

  p.time_ns = a->free_time_ns;
  p.heap = 0;
  p.seq = a->free_seq;
  p.alloc_free = (guint32) id << 1 | 1;
  g_array_append_val (self->curve, p);
  self->curve_dirty = TRUE;
}

/* ---- Metadata, marks, counters ----------------------------------------- */

void
hl_recording_append_metadata (HlRecording *self,
                              guint64      time_ns,
                              guint32      tid,
                              const char  *key,
                              const char  *value)
{
  gpointer open;

  g_return_if_fail (HL_IS_RECORDING (self));
  g_return_if_fail (key != NULL);

  open = g_hash_table_lookup (self->meta_open, key);
  if (open != NULL)
    {
      HlMetaInterval *iv = &g_array_index (self->meta, HlMetaInterval, GPOINTER_TO_UINT (open) - 1);
      iv->end_ns = time_ns;
      g_hash_table_remove (self->meta_open, key);
    }
  if (value != NULL)
    {
      HlMetaInterval iv = {
        .key = intern (self, key), .value = intern (self, value),
        .start_ns = time_ns, .end_ns = HL_TIME_NONE, .tid = tid,
      };
      g_array_append_val (self->meta, iv);
      g_hash_table_insert (self->meta_open, (char *) iv.key, GUINT_TO_POINTER (self->meta->len));
    }
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
}

void
hl_recording_append_mark (HlRecording *self,
                          guint64      time_ns,
                          guint32      tid,
                          const char  *text)
{
  HlMark m = { .time_ns = time_ns, .tid = tid };

  g_return_if_fail (HL_IS_RECORDING (self));
  m.text = intern (self, text != NULL ? text : "");
  g_array_append_val (self->marks, m);
  if (time_ns > self->end_ns)
    self->end_ns = time_ns;
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
hl_recording_reserve (HlRecording *self,
                      guint64      n_allocs)
{
  g_return_if_fail (HL_IS_RECORDING (self));

  if (n_allocs > self->allocs->len && n_allocs < G_MAXINT32)
    {
      guint64 old = self->allocs->len;
      g_array_set_size (self->allocs, n_allocs);
      g_array_set_size (self->allocs, old);
    }
  if (2 * n_allocs > self->curve->len && n_allocs < G_MAXINT32)
    {
      guint64 old = self->curve->len;
      g_array_set_size (self->curve, 2 * n_allocs);
      g_array_set_size (self->curve, old);
    }
}

/* ---- Commit ------------------------------------------------------------- */

static int
compare_points (gconstpointer a,
                gconstpointer b)
{
  const HlHeapPoint *pa = a, *pb = b;

  if (pa->time_ns != pb->time_ns)
    return pa->time_ns < pb->time_ns ? -1 : 1;
  return pa->seq < pb->seq ? -1 : pa->seq > pb->seq;
}

static gint
compare_points_data (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  return compare_points (a, b);
}

/* Sorts the points appended since the last update and merges them into
 * the sorted prefix; the heap is recomputed from the first point that
 * moved, so a live recording's commit costs O(new log new + n). */
static guint64
merge_new_points (HlRecording *self)
{
  HlHeapPoint *pts = (HlHeapPoint *) self->curve->data;
  guint64 n = self->curve->len, old = self->curve_sorted;
  guint64 lo, hi, first_changed;
  HlHeapPoint *merged;
  guint64 a, b, k;

  if (old >= n)
    return n;
  /* Often already in order (one thread, or a live batch). */
  {
    gboolean sorted = TRUE;
    for (guint64 i = old + 1; sorted && i < n; i++)
      sorted = compare_points (&pts[i - 1], &pts[i]) <= 0;
    if (!sorted)
      g_qsort_with_data (pts + old, (gint) (n - old), sizeof (HlHeapPoint),
                         compare_points_data, NULL);
  }
  if (old == 0)
    return 0;
  if (compare_points (&pts[old - 1], &pts[old]) <= 0)
    return old;

  /* Where the first new point goes in the prefix. */
  lo = 0;
  hi = old;
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (compare_points (&pts[mid], &pts[old]) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  first_changed = lo;
  merged = g_new (HlHeapPoint, n - first_changed);
  for (a = first_changed, b = old, k = 0; a < old || b < n; k++)
    {
      if (b >= n || (a < old && compare_points (&pts[a], &pts[b]) <= 0))
        merged[k] = pts[a++];
      else
        merged[k] = pts[b++];
    }
  memcpy (pts + first_changed, merged, (n - first_changed) * sizeof (HlHeapPoint));
  g_free (merged);
  return first_changed;
}

static void
update_curve (HlRecording *self)
{
  HlHeapPoint *pts;
  guint64 n = self->curve->len;
  guint64 heap, peak = 0, peak_i = G_MAXUINT64;
  guint64 from;
  HlAllocRec *allocs = (HlAllocRec *) self->allocs->data;

  from = merge_new_points (self);
  pts = (HlHeapPoint *) self->curve->data;
  heap = from > 0 ? pts[from - 1].heap : 0;
  for (guint64 i = from; i < n; i++)
    {
      const HlAllocRec *a = &allocs[HL_HEAP_POINT_ALLOC (&pts[i])];
      if (!HL_HEAP_POINT_IS_FREE (&pts[i]))
        heap += a->size;
      else
        heap -= a->size;
      pts[i].heap = heap;
    }
  self->curve_sorted = n;
  for (guint64 i = 0; i < n; i++)
    if (pts[i].heap > peak)
      {
        peak = pts[i].heap;
        peak_i = i;
      }

  self->peak_heap = peak;
  self->peak_time_ns = peak_i != G_MAXUINT64 ? pts[peak_i].time_ns : 0;
  self->leaked_bytes = 0;
  self->leaked_blocks = 0;
  for (guint64 i = 0; i < self->allocs->len; i++)
    {
      HlAllocRec *a = &allocs[i];
      gboolean live_at_peak;

      if ((a->flags & HL_ALLOC_PRESENT) == 0)
        continue;
      if ((a->flags & HL_ALLOC_FREED) == 0)
        {
          self->leaked_bytes += a->size;
          self->leaked_blocks++;
        }
      live_at_peak = peak_i != G_MAXUINT64 &&
        (a->time_ns < pts[peak_i].time_ns ||
         (a->time_ns == pts[peak_i].time_ns && a->seq <= pts[peak_i].seq)) &&
        ((a->flags & HL_ALLOC_FREED) == 0 ||
         a->free_time_ns > pts[peak_i].time_ns ||
         (a->free_time_ns == pts[peak_i].time_ns && a->free_seq > pts[peak_i].seq));
      if (live_at_peak)
        a->flags |= HL_ALLOC_LIVE_AT_PEAK;
      else
        a->flags &= ~HL_ALLOC_LIVE_AT_PEAK;
    }
  self->curve_dirty = FALSE;
}

void
hl_recording_commit (HlRecording *self)
{
  guint64 n_new;

  g_return_if_fail (HL_IS_RECORDING (self));

  if (self->curve_dirty)
    update_curve (self);
  if (self->frames_dirty)
    {
      hl_recording_symbols_changed (self);
      self->frames_dirty = FALSE;
    }
  else if (self->stacks_expanded < self->stack_spans->len)
    {
      expand_stack_frames (self, self->stacks_expanded);
      g_clear_pointer (&self->tries[0], free_trie);
      g_clear_pointer (&self->tries[1], free_trie);
    }
  if (self->ids_out_of_range > 0)
    {
      hl_recording_append_warning (self, "Allocations with impossible ids were ignored (a damaged trace)");
    }
  n_new = self->n_allocs - self->committed_allocs;
  self->committed_allocs = self->n_allocs;
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
                       (self->pending_frees != NULL ? g_hash_table_size (self->pending_frees) : 0);
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
  for (guint i = 0; i < self->stack_frames->len; i++)
    {
      const HlFrameEntry *e = self->stack_frames->pdata[i];
      if (e->module != G_MAXUINT32)
        used[e->module] = TRUE;
    }
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

const HlMark *
hl_recording_get_marks (HlRecording *self,
                        guint       *n_marks)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  *n_marks = self->marks->len;
  return (const HlMark *) self->marks->data;
}

guint
hl_recording_get_n_stacks (HlRecording *self)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), 0);
  return self->stack_spans->len;
}

const guint64 *
hl_recording_get_stack_addresses (HlRecording *self,
                                  guint32      stack,
                                  guint       *n_frames)
{
  const StackSpan *span = &g_array_index (self->stack_spans, StackSpan, stack);

  *n_frames = span->n;
  return &g_array_index (self->stack_addrs, guint64, span->begin);
}

const HlFrameEntry * const *
hl_recording_get_stack_entries (HlRecording *self,
                                guint32      stack,
                                guint       *n_frames)
{
  guint begin, end;

  if (stack >= self->stacks_expanded)
    {
      *n_frames = 0;
      return NULL;
    }
  begin = g_array_index (self->stack_frame_offsets, guint, stack);
  end = g_array_index (self->stack_frame_offsets, guint, stack + 1);
  *n_frames = end - begin;
  return (const HlFrameEntry * const *) self->stack_frames->pdata + begin;
}

const HlFrame * const *
hl_recording_get_stack_frames (HlRecording *self,
                               HlStackId    stack,
                               guint       *n_frames)
{
  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  return (const HlFrame * const *) hl_recording_get_stack_entries (self, stack, n_frames);
}

guint
hl_recording_get_n_function_ids (HlRecording *self)
{
  return g_hash_table_size (self->function_ids);
}

const HlAllocRec *
hl_recording_get_allocs (HlRecording *self,
                         guint64     *n_allocs)
{
  *n_allocs = self->allocs->len;
  return (const HlAllocRec *) self->allocs->data;
}

const HlHeapPoint *
hl_recording_get_heap_curve (HlRecording *self,
                             guint64     *n_points)
{
  if (self->curve_dirty)
    update_curve (self);
  *n_points = self->curve->len;
  return (const HlHeapPoint *) self->curve->data;
}

/* ---- Tries (built in hl-stack-trie.c, cached here) ---------------------- */

const HlTrie *
hl_recording_get_trie (HlRecording *self,
                       gboolean     bottom_up)
{
  HlTrie *trie;

  g_mutex_lock (&self->trie_lock);
  if (self->frames_dirty)
    {
      expand_stack_frames (self, 1);
      self->frames_dirty = FALSE;
    }
  else if (self->stacks_expanded < self->stack_spans->len)
    expand_stack_frames (self, self->stacks_expanded);
  trie = self->tries[bottom_up ? 1 : 0];
  if (trie == NULL)
    trie = self->tries[bottom_up ? 1 : 0] = hl_stack_trie_build (self, bottom_up);
  g_mutex_unlock (&self->trie_lock);
  return trie;
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
