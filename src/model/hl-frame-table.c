/* hl-frame-table.c — interned frames of a recording's addresses, its
 * expanded stacks, and the symbolization state. */
#include "hl-frame-table.h"

struct _HlFrameTable
{
  /* Borrowed */
  GArray       *modules;         /* HlModuleInfo, the owner's */

  /* Owned */
  GStringChunk *strings;         /* function names, files, keys */
  GHashTable   *frames;          /* key string → HlFrameEntry * (owned) */
  GHashTable   *function_ids;    /* "function\x1fmodule" → id + 1 */
  GHashTable   *addr_frames;     /* address → GPtrArray of HlFrameEntry * */
  GArray       *unresolved;      /* addresses met and not yet symbolized */
  GArray       *orphans;         /* guint64: placeholders made outside every module */
  guint         orphans_modules; /* modules known when the orphans were last placed */
  GArray       *stack_offsets;   /* guint per expanded stack + 1: into stack_frames */
  GPtrArray    *stack_frames;    /* HlFrameEntry *, the expanded stacks' frames */
  HlSymbolizer *symbolizer;      /* kept for live recordings */
  guint         symbolizer_modules;
};

HlFrameTable *
hl_frame_table_new (GArray *modules)
{
  HlFrameTable *self = g_new0 (HlFrameTable, 1);
  guint zero = 0;

  self->modules = modules;
  self->strings = g_string_chunk_new (64 * 1024);
  self->frames = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->function_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->addr_frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                             (GDestroyNotify) g_ptr_array_unref);
  self->unresolved = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->orphans = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->stack_offsets = g_array_new (FALSE, FALSE, sizeof (guint));
  self->stack_frames = g_ptr_array_new ();
  /* Stack 0: "not recorded", no frames. */
  g_array_append_val (self->stack_offsets, zero);
  g_array_append_val (self->stack_offsets, zero);
  return self;
}

void
hl_frame_table_free (HlFrameTable *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->symbolizer, hl_symbolizer_free);
  g_clear_pointer (&self->stack_frames, g_ptr_array_unref);
  g_clear_pointer (&self->stack_offsets, g_array_unref);
  g_clear_pointer (&self->unresolved, g_array_unref);
  g_clear_pointer (&self->orphans, g_array_unref);
  g_clear_pointer (&self->addr_frames, g_hash_table_unref);
  g_clear_pointer (&self->function_ids, g_hash_table_unref);
  g_clear_pointer (&self->frames, g_hash_table_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);
  g_free (self);
}

static const char *
intern (HlFrameTable *self,
        const char   *s)
{
  return s != NULL ? g_string_chunk_insert_const (self->strings, s) : NULL;
}

int
hl_frame_table_find_module (const HlFrameTable *self,
                            guint64             address)
{
  for (guint i = 0; i < self->modules->len; i++)
    {
      const HlModuleInfo *m = &g_array_index (self->modules, HlModuleInfo, i);
      if (address >= m->start && address - m->start < m->size)
        return (int) i;
    }
  return -1;
}

/* ---- Frames ------------------------------------------------------------- */

static guint32
function_id_for (HlFrameTable *self,
                 const char   *function,
                 const char   *module_name)
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
intern_frame (HlFrameTable *self,
              const char   *function,
              int           module,
              const char   *file,
              guint         line,
              gboolean      is_inline,
              gboolean      resolved,
              guint64       address)
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

/* Placeholder until the symbolizer runs. Named by module and offset when
 * the module is known: the same code then has the same name in every run
 * (diffs match it) whatever the load address. */
static GPtrArray *
placeholder_for_address (HlFrameTable *self,
                         guint64       address,
                         int           module)
{
  char name[300];
  GPtrArray *list = g_ptr_array_new ();
  guint64 *key = g_new (guint64, 1);

  if (module >= 0)
    {
      const HlModuleInfo *info = &g_array_index (self->modules, HlModuleInfo, module);
      g_snprintf (name, sizeof name, "%s+0x%" G_GINT64_MODIFIER "x", info->name,
                  address - info->start);
    }
  else
    g_snprintf (name, sizeof name, "0x%" G_GINT64_MODIFIER "x", address);
  g_ptr_array_add (list, intern_frame (self, name, module, NULL, 0, FALSE, FALSE, address));
  *key = address;
  g_hash_table_replace (self->addr_frames, key, list);
  g_array_append_val (self->unresolved, address);
  return list;
}

static GPtrArray *
frames_for_address (HlFrameTable *self,
                    guint64       address)
{
  GPtrArray *list = g_hash_table_lookup (self->addr_frames, &address);
  int module;

  if (list != NULL)
    return list;
  module = hl_frame_table_find_module (self, address);
  if (module < 0)
    g_array_append_val (self->orphans, address);
  return placeholder_for_address (self, address, module);
}

void
hl_frame_table_adopt_orphans (HlFrameTable *self)
{
  g_return_if_fail (self != NULL);
  if (self->modules->len == self->orphans_modules)
    return;
  self->orphans_modules = self->modules->len;

  guint kept = 0;
  for (guint i = 0; i < self->orphans->len; i++)
    {
      guint64 address = g_array_index (self->orphans, guint64, i);
      GPtrArray *list = g_hash_table_lookup (self->addr_frames, &address);
      const HlFrameEntry *first = list != NULL && list->len > 0 ? list->pdata[0] : NULL;
      if (first != NULL && first->pub.resolved)
        continue; /* a symbolizer that knew its module named it */
      int module = hl_frame_table_find_module (self, address);
      if (module < 0)
        {
          g_array_index (self->orphans, guint64, kept++) = address;
          continue;
        }
      /* its module is known now: a named placeholder, symbolized again
       * (a job that ran before the module map came found nothing) */
      placeholder_for_address (self, address, module);
    }
  g_array_set_size (self->orphans, kept);
}

void
hl_frame_table_set_address_frames (HlFrameTable          *self,
                                   guint64                address,
                                   int                    module,
                                   const HlResolvedFrame *frames,
                                   guint                  n_frames)
{
  GPtrArray *list;
  guint64 *key;

  g_return_if_fail (self != NULL);
  g_return_if_fail (n_frames > 0);

  list = g_ptr_array_new ();
  for (guint i = 0; i < n_frames; i++)
    g_ptr_array_add (list, intern_frame (self, frames[i].function, module, frames[i].file,
                                         frames[i].line, frames[i].is_inline, TRUE, address));
  key = g_new (guint64, 1);
  *key = address;
  g_hash_table_replace (self->addr_frames, key, list);
}

GPtrArray *
hl_frame_table_copy_address_frames (const HlFrameTable *self,
                                    guint64             address)
{
  GPtrArray *list = g_hash_table_lookup (self->addr_frames, &address);
  GPtrArray *copy = g_ptr_array_new ();

  for (guint i = 0; list != NULL && i < list->len; i++)
    g_ptr_array_add (copy, list->pdata[i]);
  return copy;
}

guint
hl_frame_table_get_n_function_ids (const HlFrameTable *self)
{
  return g_hash_table_size (self->function_ids);
}

/* ---- Expanded stacks ------------------------------------------------------ */

guint
hl_frame_table_get_n_stacks (const HlFrameTable *self)
{
  return self->stack_offsets->len - 1;
}

void
hl_frame_table_clear_stacks (HlFrameTable *self)
{
  g_ptr_array_set_size (self->stack_frames, 0);
  g_array_set_size (self->stack_offsets, 2);
}

void
hl_frame_table_add_stack (HlFrameTable  *self,
                          const guint64 *addresses,
                          guint          n_addresses)
{
  guint off;

  for (guint i = 0; i < n_addresses; i++)
    {
      GPtrArray *list = frames_for_address (self, addresses[i]);
      for (guint j = 0; j < list->len; j++)
        g_ptr_array_add (self->stack_frames, list->pdata[j]);
    }
  off = self->stack_frames->len;
  g_array_append_val (self->stack_offsets, off);
}

const HlFrameEntry * const *
hl_frame_table_get_stack (const HlFrameTable *self,
                          guint32             stack,
                          guint              *n_frames)
{
  guint begin, end;

  if (stack + 1 >= self->stack_offsets->len)
    {
      *n_frames = 0;
      return NULL;
    }
  begin = g_array_index (self->stack_offsets, guint, stack);
  end = g_array_index (self->stack_offsets, guint, stack + 1);
  *n_frames = end - begin;
  return (const HlFrameEntry * const *) self->stack_frames->pdata + begin;
}

void
hl_frame_table_mark_used_modules (const HlFrameTable *self,
                                  gboolean           *used)
{
  for (guint i = 0; i < self->stack_frames->len; i++)
    {
      const HlFrameEntry *e = self->stack_frames->pdata[i];
      if (e->module != G_MAXUINT32)
        used[e->module] = TRUE;
    }
}

/* ---- Symbolization state -------------------------------------------------- */

GArray *
hl_frame_table_take_unresolved (HlFrameTable *self)
{
  GArray *out = self->unresolved;

  self->unresolved = g_array_new (FALSE, FALSE, sizeof (guint64));
  return out;
}

void
hl_frame_table_put_back_unresolved (HlFrameTable  *self,
                                    const guint64 *addresses,
                                    guint          n)
{
  g_array_append_vals (self->unresolved, addresses, n);
}

HlSymbolizer *
hl_frame_table_get_symbolizer (HlFrameTable *self,
                               guint         n_modules)
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
hl_frame_table_set_symbolizer (HlFrameTable *self,
                               HlSymbolizer *sym,
                               guint         n_modules)
{
  g_clear_pointer (&self->symbolizer, hl_symbolizer_free);
  self->symbolizer = sym;
  self->symbolizer_modules = n_modules;
}
