/* hl-symbolize-job.c — see hl-symbolize-job.h. */
#include "hl-symbolize-job.h"

#include "hl-recording-tables.h"
#include "hl-recording-builder.h"

#define MAX_FRAMES 64

typedef struct
{
  char    *path;
  guint64  start;
  char    *build_id;
} ModuleCopy;

typedef struct
{
  guint64 address;
  guint   first;     /* into frames */
  guint   n;
} Resolved;

struct _HlSymbolizeJob
{
  GArray       *addresses;   /* guint64 */
  GArray       *modules;     /* ModuleCopy */
  HlSymbolizer *symbolizer;  /* borrowed from the recording, or made by run() */
  gboolean      own_symbolizer;
  GArray       *resolved;    /* Resolved */
  GArray       *frames;      /* HlSymbol, strings owned by the symbolizer */
  guint         n_done;      /* addresses run() went through */
};

static void
module_copy_clear (gpointer p)
{
  ModuleCopy *m = p;
  g_free (m->path);
  g_free (m->build_id);
}

HlSymbolizeJob *
hl_symbolize_job_begin (HlRecording *recording)
{
  g_return_val_if_fail (HL_IS_RECORDING (recording), NULL);

  /* every stack's addresses known, then take the new ones */
  hl_recording_get_trie (recording, FALSE);
  hl_frame_table_adopt_orphans (hl_recording_get_frame_table (recording));
  GArray *addresses = hl_frame_table_take_unresolved (hl_recording_get_frame_table (recording));
  if (addresses->len == 0)
    {
      g_array_unref (addresses);
      return NULL;
    }
  HlSymbolizeJob *job = g_new0 (HlSymbolizeJob, 1);
  job->addresses = addresses;
  guint n_modules;
  HlModuleInfo *modules = hl_recording_get_modules_mutable (recording, &n_modules);
  job->modules = g_array_sized_new (FALSE, FALSE, sizeof (ModuleCopy), n_modules);
  g_array_set_clear_func (job->modules, module_copy_clear);
  for (guint i = 0; i < n_modules; i++)
    {
      ModuleCopy m = { g_strdup (modules[i].path), modules[i].start, g_strdup (modules[i].build_id) };
      g_array_append_val (job->modules, m);
    }
  /* the recording keeps its symbolizer while the module map stays */
  job->symbolizer = hl_frame_table_get_symbolizer (hl_recording_get_frame_table (recording), n_modules);
  job->resolved = g_array_new (FALSE, FALSE, sizeof (Resolved));
  job->frames = g_array_new (FALSE, FALSE, sizeof (HlSymbol));
  return job;
}

void
hl_symbolize_job_run (HlSymbolizeJob *job,
                      GCancellable   *cancellable)
{
  g_return_if_fail (job != NULL);
  if (job->symbolizer == NULL)
    {
      job->symbolizer = hl_symbolizer_new ();
      job->own_symbolizer = TRUE;
      for (guint i = 0; i < job->modules->len; i++)
        {
          const ModuleCopy *m = &g_array_index (job->modules, ModuleCopy, i);
          hl_symbolizer_add_module (job->symbolizer, m->path, m->start, m->build_id);
        }
      hl_symbolizer_end_modules (job->symbolizer);
    }
  HlSymbol frames[MAX_FRAMES];
  for (guint i = 0; i < job->addresses->len; i++)
    {
      if ((i & 1023) == 0 && g_cancellable_is_cancelled (cancellable))
        break;
      guint64 address = g_array_index (job->addresses, guint64, i);
      guint n = hl_symbolizer_resolve (job->symbolizer, address, TRUE, frames, MAX_FRAMES);
      job->n_done = i + 1;
      if (n == 0)
        continue;
      Resolved r = { address, job->frames->len, n };
      g_array_append_vals (job->frames, frames, n);
      g_array_append_val (job->resolved, r);
    }
}

void
hl_symbolize_job_finish (HlSymbolizeJob *job,
                         HlRecording    *recording)
{
  g_return_if_fail (job != NULL);
  g_return_if_fail (HL_IS_RECORDING (recording));

  HlFrameTable *table = hl_recording_get_frame_table (recording);
  guint n_modules;
  HlModuleInfo *modules = hl_recording_get_modules_mutable (recording, &n_modules);
  if (job->own_symbolizer)
    {
      /* the modules of the copy are the first ones of the map (modules are
       * only ever appended) */
      for (guint i = 0; i < job->modules->len && i < n_modules; i++)
        {
          gboolean has_symbols = FALSE, has_debug = FALSE;
          const char *debug_file = NULL, *hint = NULL;
          hl_symbolizer_get_module_status (job->symbolizer, modules[i].path, &has_symbols, &has_debug,
                                           &debug_file, &hint);
          modules[i].has_symbols = has_symbols;
          modules[i].has_debug_info = has_debug;
          modules[i].debug_file = hl_recording_intern (recording, debug_file);
          modules[i].hint = hl_recording_intern (recording, hint);
        }
    }
  HlResolvedFrame resolved[MAX_FRAMES];
  for (guint i = 0; i < job->resolved->len; i++)
    {
      const Resolved *r = &g_array_index (job->resolved, Resolved, i);
      for (guint j = 0; j < r->n; j++)
        {
          const HlSymbol *f = &g_array_index (job->frames, HlSymbol, r->first + j);
          resolved[j].function = f->function;
          resolved[j].file = f->file;
          resolved[j].line = f->line;
          resolved[j].is_inline = f->is_inline;
        }
      hl_frame_table_set_address_frames (table, r->address, hl_frame_table_find_module (table, r->address),
                                         resolved, r->n);
    }
  if (job->n_done < job->addresses->len)
    hl_frame_table_put_back_unresolved (table, &g_array_index (job->addresses, guint64, job->n_done),
                                        job->addresses->len - job->n_done);
  if (job->own_symbolizer)
    {
      /* the recording keeps it for the next jobs (its strings are
       * interned by set_address_frames, so nothing points into it) */
      hl_frame_table_set_symbolizer (table, job->symbolizer, (guint) job->modules->len);
      job->own_symbolizer = FALSE;
    }
  job->symbolizer = NULL;
  hl_recording_symbols_changed (recording);
}

guint
hl_symbolize_job_get_n_addresses (HlSymbolizeJob *job)
{
  return job->addresses->len;
}

void
hl_symbolize_job_free (HlSymbolizeJob *job)
{
  if (job == NULL)
    return;
  if (job->own_symbolizer)
    hl_symbolizer_free (job->symbolizer);
  g_array_unref (job->addresses);
  g_array_unref (job->modules);
  g_array_unref (job->resolved);
  g_array_unref (job->frames);
  g_free (job);
}
