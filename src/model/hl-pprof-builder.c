/* hl-pprof-builder.c — a pprof Profile's tables interned while stacks are
 * walked, packed by protobuf-c (profile.pb-c.c, generated from
 * proto/profile.proto at build time), gzip'd with GIO's GZlibCompressor
 * (hl-pprof-builder.h). */
#include "hl-config.h"

#include <string.h>

#include "hl-pprof-builder.h"

typedef Perftools__Profiles__Sample    PSample;
typedef Perftools__Profiles__Mapping   PMapping;
typedef Perftools__Profiles__Location  PLocation;
typedef Perftools__Profiles__Line      PLine;
typedef Perftools__Profiles__Function  PFunction;

gint64
hl_pprof_builder_intern (HlPprofBuilder *b,
                         const char     *s)
{
  gpointer id;

  if (s == NULL)
    s = "";
  if (g_hash_table_lookup_extended (b->string_ids, s, NULL, &id))
    return GPOINTER_TO_INT (id);
  char *copy = g_strdup (s);
  g_ptr_array_add (b->strings, copy);
  g_hash_table_insert (b->string_ids, copy, GINT_TO_POINTER (b->strings->len - 1));
  return b->strings->len - 1;
}

void
hl_pprof_builder_add_mappings (HlPprofBuilder *b,
                               HlRecording    *rec)
{
  guint n;
  const HlModuleInfo *m = hl_recording_get_modules (rec, &n);

  for (guint i = 0; i < n; i++)
    {
      PMapping *pm;

      if (m[i].path == NULL || g_hash_table_contains (b->mapping_ids, m[i].path))
        continue;
      pm = g_new (PMapping, 1);
      perftools__profiles__mapping__init (pm);
      pm->id = b->mappings->len + 1;
      pm->memory_start = m[i].start;
      pm->memory_limit = m[i].start + m[i].size;
      pm->filename = hl_pprof_builder_intern (b, m[i].path);
      pm->build_id = hl_pprof_builder_intern (b, m[i].build_id);
      pm->has_functions = m[i].has_symbols;
      pm->has_filenames = m[i].has_debug_info;
      pm->has_line_numbers = m[i].has_debug_info;
      pm->has_inline_frames = m[i].has_debug_info;
      g_ptr_array_add (b->mappings, pm);
      g_hash_table_insert (b->mapping_ids, (gpointer) m[i].path, GUINT_TO_POINTER (pm->id));
    }
}

static guint64
function_id (HlPprofBuilder *b,
             const HlFrame  *f)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%s\x1f%s", f->function, f->file != NULL ? f->file : "",
                                          f->module_name != NULL ? f->module_name : "");
  gpointer id = g_hash_table_lookup (b->function_ids, key);
  PFunction *pf;

  if (id != NULL)
    return GPOINTER_TO_UINT (id);
  pf = g_new (PFunction, 1);
  perftools__profiles__function__init (pf);
  pf->id = b->functions->len + 1;
  pf->name = hl_pprof_builder_intern (b, f->function);
  pf->system_name = pf->name;
  pf->filename = hl_pprof_builder_intern (b, f->file);
  g_ptr_array_add (b->functions, pf);
  g_hash_table_insert (b->function_ids, g_steal_pointer (&key), GUINT_TO_POINTER (pf->id));
  return pf->id;
}

/* The location of FRAMES[0..N): one address, its inline frames first and
 * the function they were inlined into last. */
static guint64
location_id (HlPprofBuilder       *b,
             const HlFrame * const *frames,
             guint                 n)
{
  g_autoptr (GBytes) key = g_bytes_new (frames, n * sizeof (frames[0]));
  gpointer id = g_hash_table_lookup (b->location_ids, key);
  const HlFrame *outer = frames[n - 1];
  PLocation *pl;

  if (id != NULL)
    return GPOINTER_TO_UINT (id);
  pl = g_new (PLocation, 1);
  perftools__profiles__location__init (pl);
  pl->id = b->locations->len + 1;
  pl->address = outer->address;
  if (outer->module != NULL && outer->module[0] != '\0')
    pl->mapping_id = GPOINTER_TO_UINT (g_hash_table_lookup (b->mapping_ids, outer->module));
  pl->n_line = n;
  pl->line = g_new (PLine *, n);
  for (guint i = 0; i < n; i++)
    {
      pl->line[i] = g_new (PLine, 1);
      perftools__profiles__line__init (pl->line[i]);
      pl->line[i]->function_id = function_id (b, frames[i]);
      pl->line[i]->line = frames[i]->line;
    }
  g_ptr_array_add (b->locations, pl);
  g_hash_table_insert (b->location_ids, g_steal_pointer (&key), GUINT_TO_POINTER (pl->id));
  return pl->id;
}

void
hl_pprof_builder_add_label (HlPprofBuilder *b,
                            const char     *key,
                            const char     *str,
                            gint64          num)
{
  HlPLabel *l = g_new (HlPLabel, 1);

  perftools__profiles__label__init (l);
  l->key = hl_pprof_builder_intern (b, key);
  if (str != NULL)
    l->str = hl_pprof_builder_intern (b, str);
  else
    l->num = num;
  g_ptr_array_add (b->labels, l);
}

void
hl_pprof_builder_add_common_labels (HlPprofBuilder *b,
                                    HlRecording    *rec)
{
  const char *exe = hl_recording_get_info (rec, "exe");
  const char *pid = hl_recording_get_info (rec, "pid");
  const char *host = hl_recording_get_info (rec, "host");
  guint64 pid_num;

  if (exe != NULL)
    hl_pprof_builder_add_label (b, "program", exe, 0);
  if (pid != NULL && g_ascii_string_to_unsigned (pid, 10, 0, G_MAXINT64, &pid_num, NULL))
    hl_pprof_builder_add_label (b, "pid", NULL, (gint64) pid_num);
  if (host != NULL)
    hl_pprof_builder_add_label (b, "host", host, 0);
}

void
hl_pprof_builder_add_sample (HlPprofBuilder *b,
                             HlRecording    *rec,
                             HlStackId       stack,
                             const gint64   *values,
                             guint           n_values)
{
  guint n;
  const HlFrame * const *frames = hl_recording_get_stack_frames (rec, stack, &n);
  PSample *ps = g_new (PSample, 1);
  guint n_loc = 0;

  perftools__profiles__sample__init (ps);
  ps->location_id = g_new (uint64_t, MAX (n, 1));
  for (guint i = 0; i < n;)
    {
      guint j = i;

      /* an inline chain ends at the first frame that is not inline */
      while (j + 1 < n && frames[j]->is_inline)
        j++;
      ps->location_id[n_loc++] = location_id (b, frames + i, j + 1 - i);
      i = j + 1;
    }
  ps->n_location_id = n_loc;
  ps->n_value = n_values;
  ps->value = g_memdup2 (values, MAX (n_values, 1) * sizeof (int64_t));
  /* the labels are shared: hl_pprof_builder_clear() frees them once */
  ps->n_label = b->labels->len;
  ps->label = (HlPLabel **) b->labels->pdata;
  g_ptr_array_add (b->samples, ps);
}

void
hl_pprof_builder_take_comment (HlPprofBuilder *b,
                               char           *text)
{
  g_ptr_array_add (b->comments, text);
}

static void
free_location (gpointer data)
{
  PLocation *pl = data;

  for (size_t i = 0; i < pl->n_line; i++)
    g_free (pl->line[i]);
  g_free (pl->line);
  g_free (pl);
}

static void
free_sample (gpointer data)
{
  PSample *ps = data;

  g_free (ps->location_id);
  g_free (ps->value);
  g_free (ps);
}

void
hl_pprof_builder_init (HlPprofBuilder *b)
{
  b->strings = g_ptr_array_new_with_free_func (g_free);
  b->string_ids = g_hash_table_new (g_str_hash, g_str_equal);
  b->functions = g_ptr_array_new_with_free_func (g_free);
  b->function_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b->locations = g_ptr_array_new_with_free_func (free_location);
  b->location_ids = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  b->mappings = g_ptr_array_new_with_free_func (g_free);
  b->mapping_ids = g_hash_table_new (g_str_hash, g_str_equal);
  b->samples = g_ptr_array_new_with_free_func (free_sample);
  b->comments = g_ptr_array_new_with_free_func (g_free);
  b->labels = g_ptr_array_new_with_free_func (g_free);
  hl_pprof_builder_intern (b, "");
}

void
hl_pprof_builder_clear (HlPprofBuilder *b)
{
  g_clear_pointer (&b->samples, g_ptr_array_unref);
  g_clear_pointer (&b->labels, g_ptr_array_unref);
  g_clear_pointer (&b->location_ids, g_hash_table_unref);
  g_clear_pointer (&b->locations, g_ptr_array_unref);
  g_clear_pointer (&b->function_ids, g_hash_table_unref);
  g_clear_pointer (&b->functions, g_ptr_array_unref);
  g_clear_pointer (&b->mapping_ids, g_hash_table_unref);
  g_clear_pointer (&b->mappings, g_ptr_array_unref);
  g_clear_pointer (&b->string_ids, g_hash_table_unref);
  g_clear_pointer (&b->strings, g_ptr_array_unref);
  g_clear_pointer (&b->comments, g_ptr_array_unref);
}

static GBytes *
gzip (const guint8 *data,
      gsize         len,
      GError      **error)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) out = g_converter_output_stream_new (mem, G_CONVERTER (z));

  if (!g_output_stream_write_all (out, data, len, NULL, NULL, error)
      || !g_output_stream_close (out, NULL, error))
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}

GBytes *
hl_pprof_builder_pack (HlPprofBuilder *b,
                       HlPProfile     *p,
                       GError        **error)
{
  g_autofree int64_t *comments = g_new (int64_t, MAX (b->comments->len, 1));
  g_autofree guint8 *packed = NULL;
  gsize len;

  for (guint i = 0; i < b->comments->len; i++)
    comments[i] = hl_pprof_builder_intern (b, b->comments->pdata[i]);
  p->n_comment = b->comments->len;
  p->comment = comments;
  p->n_sample = b->samples->len;
  p->sample = (PSample **) b->samples->pdata;
  p->n_mapping = b->mappings->len;
  p->mapping = (PMapping **) b->mappings->pdata;
  p->n_location = b->locations->len;
  p->location = (PLocation **) b->locations->pdata;
  p->n_function = b->functions->len;
  p->function = (PFunction **) b->functions->pdata;
  p->n_string_table = b->strings->len;
  p->string_table = (char **) b->strings->pdata;

  len = perftools__profiles__profile__get_packed_size (p);
  packed = g_malloc (MAX (len, 1));
  perftools__profiles__profile__pack (p, packed);
  /* nothing of the tables is borrowed past here */
  p->comment = NULL;
  p->n_comment = 0;
  return gzip (packed, len, error);
}
