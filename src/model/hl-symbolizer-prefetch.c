/* hl-symbolizer-prefetch.c — the symbolizer made on its own thread while
 * the events load; see hl-symbolizer-prefetch.h. */
#include "hl-symbolizer-prefetch.h"
#include "hl-recording-builder.h"
#include "hl-symbolizer.h"

#include <string.h>

struct _HlSymbolizerPrefetch
{
  HlRecording  *modules;   /* scratch: the module map, nothing else */
  HlSymbolizer *sym;       /* made by the thread */
  GThread      *thread;
};

static gpointer
prefetch_thread (gpointer data)
{
  HlSymbolizerPrefetch *self = data;
  guint n;
  const HlModuleInfo *m = hl_recording_get_modules (self->modules, &n);

  self->sym = hl_symbolizer_new ();
  for (guint i = 0; i < n; i++)
    hl_symbolizer_add_module (self->sym, m[i].path, m[i].start, m[i].build_id);
  hl_symbolizer_end_modules (self->sym);
  return NULL;
}

HlSymbolizerPrefetch *
hl_symbolizer_prefetch_start (const HlTraceReader *reader,
                              const HlTraceIndex  *index)
{
  g_autoptr (HlRecording) modules = NULL;
  HlEventCursor *cursor;
  HlSymbolizerPrefetch *self;
  guint n_modules;

  g_return_val_if_fail (reader != NULL, NULL);
  if (index == NULL)
    return NULL;

  modules = hl_recording_new ();
  cursor = g_new0 (HlEventCursor, 1);
  for (gsize i = 0; i < index->n_entries; i++)
    {
      HlPacketView pkt;
      HlFormatError err;
      HlEvent ev;

      if ((index->entries[i].flags & HL_PACKET_FLAG_HAS_MODULES) == 0)
        continue;
      if (hl_trace_reader_packet_at (reader, index->entries[i].offset, &pkt, &err) != 0)
        break; /* the load will stop there too, or find another map */
      hl_event_cursor_init (cursor, &pkt);
      /* The loader's rule (hl_recording_load_apply_event): loaded modules with a path. */
      while (hl_event_cursor_next (cursor, &ev, &err) > 0)
        if (ev.type == HL_EVENT_MODULE && (ev.u.module.flags & HL_MODULE_FLAG_UNLOADED) == 0 &&
            ev.u.module.path != NULL)
          hl_recording_append_module (modules, ev.u.module.path, ev.u.module.start, ev.u.module.size,
                                      ev.u.module.file_offset, ev.u.module.build_id,
                                      ev.u.module.build_id_len);
    }
  g_free (cursor);
  hl_recording_get_modules (modules, &n_modules);
  if (n_modules == 0)
    return NULL;

  self = g_new0 (HlSymbolizerPrefetch, 1);
  self->modules = g_steal_pointer (&modules);
  self->thread = g_thread_new ("hl-symbols", prefetch_thread, self);
  return self;
}

static gboolean
same_map (HlRecording *a,
          HlRecording *b)
{
  guint na, nb;
  const HlModuleInfo *ma = hl_recording_get_modules (a, &na);
  const HlModuleInfo *mb = hl_recording_get_modules (b, &nb);

  if (na != nb)
    return FALSE;
  for (guint i = 0; i < na; i++)
    if (ma[i].start != mb[i].start || g_strcmp0 (ma[i].path, mb[i].path) != 0 ||
        g_strcmp0 (ma[i].build_id, mb[i].build_id) != 0)
      return FALSE;
  return TRUE;
}

void
hl_symbolizer_prefetch_finish (HlSymbolizerPrefetch *self,
                               HlRecording          *rec)
{
  if (self == NULL)
    return;
  g_thread_join (self->thread);
  if (rec != NULL && same_map (self->modules, rec))
    {
      guint n;
      HlModuleInfo *m = hl_recording_get_modules_mutable (rec, &n);

      /* What hl_recording_symbolize() does with a new symbolizer. */
      for (guint i = 0; i < n; i++)
        {
          gboolean has_symbols = FALSE, has_debug = FALSE;
          const char *debug_file = NULL, *hint = NULL;

          hl_symbolizer_get_module_status (self->sym, m[i].path, &has_symbols, &has_debug, &debug_file, &hint);
          m[i].has_symbols = has_symbols;
          m[i].has_debug_info = has_debug;
          m[i].debug_file = hl_recording_intern (rec, debug_file);
          m[i].hint = hl_recording_intern (rec, hint);
        }
      hl_frame_table_set_symbolizer (hl_recording_get_frame_table (rec), g_steal_pointer (&self->sym), n);
    }
  g_clear_pointer (&self->sym, hl_symbolizer_free);
  g_object_unref (self->modules);
  g_free (self);
}

void
hl_symbolizer_prefetch_drop (HlSymbolizerPrefetch *self)
{
  hl_symbolizer_prefetch_finish (self, NULL);
}
