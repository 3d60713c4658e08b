/* hl-recording-symbolize.c — hl_recording_symbolize(): every address of
 * the recording's stacks not resolved yet, through the symbolizer its
 * frame table keeps (on the calling thread; the loading thread for a
 * trace, see hl-symbolize-job.h for a live recording). */
#include "hl-recording-tables.h"
#include "hl-recording-builder.h"

void
hl_recording_symbolize (HlRecording  *self,
                        GCancellable *cancellable)
{
  HlFrameTable *table;
  HlSymbolizer *sym;
  g_autoptr (GArray) addresses = NULL;
  HlModuleInfo *modules;
  guint n_modules;
  HlSymbol frames[64];
  HlResolvedFrame resolved[64];

  g_return_if_fail (HL_IS_RECORDING (self));

  /* Make sure every stack's addresses are known, then resolve those. */
  hl_recording_get_trie (self, FALSE);
  table = hl_recording_get_frame_table (self);
  hl_frame_table_adopt_orphans (table);
  addresses = hl_frame_table_take_unresolved (table);
  if (addresses->len == 0)
    return;

  /* A live recording symbolizes again and again: the symbolizer (and its
   * per-module tables) is kept until the module map changes. */
  modules = hl_recording_get_modules_mutable (self, &n_modules);
  sym = hl_frame_table_get_symbolizer (table, n_modules);
  if (sym == NULL)
    {
      sym = hl_symbolizer_new ();
      for (guint i = 0; i < n_modules; i++)
        hl_symbolizer_add_module (sym, modules[i].path, modules[i].start, modules[i].build_id);
      hl_symbolizer_end_modules (sym);
      for (guint i = 0; i < n_modules; i++)
        {
          gboolean has_symbols = FALSE, has_debug = FALSE;
          const char *debug_file = NULL, *hint = NULL;

          hl_symbolizer_get_module_status (sym, modules[i].path, &has_symbols, &has_debug, &debug_file, &hint);
          modules[i].has_symbols = has_symbols;
          modules[i].has_debug_info = has_debug;
          modules[i].debug_file = hl_recording_intern (self, debug_file);
          modules[i].hint = hl_recording_intern (self, hint);
        }
      hl_frame_table_set_symbolizer (table, sym, n_modules);
    }

  for (guint i = 0; i < addresses->len; i++)
    {
      guint64 address = g_array_index (addresses, guint64, i);
      guint n;

      if ((i & 1023) == 0 && g_cancellable_is_cancelled (cancellable))
        {
          /* Keep the rest for the next call. */
          hl_frame_table_put_back_unresolved (table, &g_array_index (addresses, guint64, i),
                                              addresses->len - i);
          break;
        }
      n = hl_symbolizer_resolve (sym, address, TRUE, frames, G_N_ELEMENTS (frames));
      if (n == 0)
        continue;
      for (guint j = 0; j < n; j++)
        {
          resolved[j].function = frames[j].function;
          resolved[j].file = frames[j].file;
          resolved[j].line = frames[j].line;
          resolved[j].is_inline = frames[j].is_inline;
        }
      hl_frame_table_set_address_frames (table, address, hl_frame_table_find_module (table, address),
                                         resolved, n);
    }
  hl_recording_symbols_changed (self);
}
