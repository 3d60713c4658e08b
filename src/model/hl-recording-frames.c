/* hl-recording-frames.c — frames of the recording's addresses: interning,
 * symbolization results and the expanded stacks. */
#include "hl-recording-struct.h"

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
      g_hash_table_insert (self->function_ids, (char *) hl_recording_intern (self, key), value);
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
  entry->pub.function = hl_recording_intern (self, function);
  entry->pub.module = mod != NULL ? mod->path : "";
  entry->pub.module_name = mod != NULL ? mod->name : "";
  entry->pub.file = hl_recording_intern (self, file);
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
  char name[300];
  int module;

  if (list != NULL)
    return list;

  /* Placeholder until the symbolizer runs. */
  /* Named by module and offset when the module is known: the same code
   * then has the same name in every run (diffs match it) whatever the
   * load address. */
  module = hl_recording_find_module (self, address);
  if (module >= 0)
    {
      const HlModuleInfo *info = &g_array_index (self->modules, HlModuleInfo, module);
      g_snprintf (name, sizeof name, "%s+0x%" G_GINT64_MODIFIER "x", info->name,
                  address - info->start);
    }
  else
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

void
hl_recording_expand_stack_frames (HlRecording *self,
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

  hl_recording_expand_stack_frames (self, 1);
  g_clear_pointer (&self->tries[0], hl_stack_trie_free);
  g_clear_pointer (&self->tries[1], hl_stack_trie_free);
}
