/* hl-export-pprof.c — an analysis as a gzip'd pprof Profile: tables of
 * strings, functions, locations and mappings interned while the stacks
 * are walked, the message packed by protobuf-c (profile.pb-c.c, generated
 * from proto/profile.proto at build time), gzip'd with GIO's
 * GZlibCompressor. */
#include "hl-config.h"

#include <string.h>

#include "hl-export-pprof.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile   PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample    PSample;
typedef Perftools__Profiles__Label     PLabel;
typedef Perftools__Profiles__Mapping   PMapping;
typedef Perftools__Profiles__Location  PLocation;
typedef Perftools__Profiles__Line      PLine;
typedef Perftools__Profiles__Function  PFunction;

static const HlPprofSampleType sample_types[] = {
  { "alloc_objects",    "count", HL_COST_KIND_ALLOCATIONS, FALSE },
  { "alloc_space",      "bytes", HL_COST_KIND_BYTES,       FALSE },
  { "temp_objects",     "count", HL_COST_KIND_TEMPORARY,   FALSE },
  { "peak_inuse_space", "bytes", HL_COST_KIND_PEAK,        FALSE },
  { "inuse_space",      "bytes", HL_COST_KIND_LIVE,        FALSE },
  { "leaked_objects",   "count", HL_COST_KIND_LEAKED,      TRUE },
  { "leaked_space",     "bytes", HL_COST_KIND_LEAKED,      FALSE },
};
#define N_TYPES G_N_ELEMENTS (sample_types)

const HlPprofSampleType *
hl_pprof_sample_types (guint *n_types)
{
  *n_types = N_TYPES;
  return sample_types;
}

const char *
hl_pprof_sample_type_for (HlCostKind kind)
{
  for (guint i = 0; i < N_TYPES; i++)
    if (sample_types[i].kind == kind && !sample_types[i].blocks)
      return sample_types[i].type;
  return NULL;
}

static guint
sample_type_index (HlCostKind kind)
{
  for (guint i = 0; i < N_TYPES; i++)
    if (sample_types[i].kind == kind && !sample_types[i].blocks)
      return i;
  return 1;
}

typedef struct
{
  /* Owned: the tables, their messages freed by builder_clear() */
  GPtrArray  *strings;     /* char*, [0] = "" */
  GHashTable *string_ids;  /* borrowed char* -> index */
  GPtrArray  *functions;   /* PFunction* */
  GHashTable *function_ids;/* owned key text -> id */
  GPtrArray  *locations;   /* PLocation* */
  GHashTable *location_ids;/* GBytes of the frame pointers -> id */
  GPtrArray  *mappings;    /* PMapping* */
  GHashTable *mapping_ids; /* borrowed module path -> id */
  GPtrArray  *samples;     /* PSample* */
  GPtrArray  *comments;    /* char*, owned */
} Builder;

static gint64
intern (Builder    *b,
        const char *s)
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

static gint64
clamp64 (guint64 v)
{
  return v > G_MAXINT64 ? G_MAXINT64 : (gint64) v;
}

static void
add_mappings (Builder     *b,
              HlRecording *rec)
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
      pm->filename = intern (b, m[i].path);
      pm->build_id = intern (b, m[i].build_id);
      pm->has_functions = m[i].has_symbols;
      pm->has_filenames = m[i].has_debug_info;
      pm->has_line_numbers = m[i].has_debug_info;
      pm->has_inline_frames = m[i].has_debug_info;
      g_ptr_array_add (b->mappings, pm);
      g_hash_table_insert (b->mapping_ids, (gpointer) m[i].path, GUINT_TO_POINTER (pm->id));
    }
}

static guint64
function_id (Builder       *b,
             const HlFrame *f)
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
  pf->name = intern (b, f->function);
  pf->system_name = pf->name;
  pf->filename = intern (b, f->file);
  g_ptr_array_add (b->functions, pf);
  g_hash_table_insert (b->function_ids, g_steal_pointer (&key), GUINT_TO_POINTER (pf->id));
  return pf->id;
}

/* The location of FRAMES[0..N): one address, its inline frames first and
 * the function they were inlined into last. */
static guint64
location_id (Builder              *b,
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

static PLabel *
new_label (Builder    *b,
           const char *key,
           const char *str,
           gint64      num)
{
  PLabel *l = g_new (PLabel, 1);

  perftools__profiles__label__init (l);
  l->key = intern (b, key);
  if (str != NULL)
    l->str = intern (b, str);
  else
    l->num = num;
  return l;
}

/* Labels every sample carries: the program, its pid and host. */
static GPtrArray *
common_labels (Builder     *b,
               HlRecording *rec)
{
  GPtrArray *labels = g_ptr_array_new ();
  const char *exe = hl_recording_get_info (rec, "exe");
  const char *pid = hl_recording_get_info (rec, "pid");
  const char *host = hl_recording_get_info (rec, "host");
  guint64 pid_num;

  if (exe != NULL)
    g_ptr_array_add (labels, new_label (b, "program", exe, 0));
  if (pid != NULL && g_ascii_string_to_unsigned (pid, 10, 0, G_MAXINT64, &pid_num, NULL))
    g_ptr_array_add (labels, new_label (b, "pid", NULL, (gint64) pid_num));
  if (host != NULL)
    g_ptr_array_add (labels, new_label (b, "host", host, 0));
  return labels;
}

static void
add_sample (Builder       *b,
            HlRecording   *rec,
            HlStackId      stack,
            const HlCosts *c,
            GPtrArray     *labels)
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
  ps->n_value = N_TYPES;
  ps->value = g_new (int64_t, N_TYPES);
  for (guint t = 0; t < N_TYPES; t++)
    ps->value[t] = clamp64 (sample_types[t].blocks ? c->leaked_blocks : hl_costs_value (c, sample_types[t].kind));
  /* the labels are shared: builder_clear() frees them once */
  ps->n_label = labels->len;
  ps->label = (PLabel **) labels->pdata;
  g_ptr_array_add (b->samples, ps);
}

static void
add_comments (Builder     *b,
              HlAnalysis  *analysis,
              const char  *source)
{
  HlRecording *rec = hl_analysis_get_recording (analysis);
  g_autofree char *filter = hl_filter_describe (hl_analysis_get_filter (analysis));
  const char *keys[] = { "exe", "cmdline", "pid", "host" };
  guint n_meta;
  const HlMetaInterval *meta = hl_recording_get_metadata_intervals (rec, &n_meta);

  g_ptr_array_add (b->comments, g_strdup_printf ("heaplens %s export%s%s", HL_VERSION,
                                                 source != NULL ? " of " : "", source != NULL ? source : ""));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *v = hl_recording_get_info (rec, keys[i]);

      if (v != NULL)
        g_ptr_array_add (b->comments, g_strdup_printf ("%s=%s", keys[i], v));
    }
  if (filter != NULL && filter[0] != '\0')
    g_ptr_array_add (b->comments, g_strdup_printf ("filter: %s", filter));
  for (guint i = 0; i < n_meta; i++)
    g_ptr_array_add (b->comments, g_strdup_printf ("metadata %s=%s thread %u from %" G_GUINT64_FORMAT
                                                   " ns to %" G_GUINT64_FORMAT " ns",
                                                   meta[i].key, meta[i].value, meta[i].tid,
                                                   meta[i].start_ns, meta[i].end_ns));
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

static void
builder_init (Builder *b)
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
  intern (b, "");
}

static void
builder_clear (Builder *b)
{
  g_ptr_array_unref (b->samples);
  g_hash_table_unref (b->location_ids);
  g_ptr_array_unref (b->locations);
  g_hash_table_unref (b->function_ids);
  g_ptr_array_unref (b->functions);
  g_hash_table_unref (b->mapping_ids);
  g_ptr_array_unref (b->mappings);
  g_hash_table_unref (b->string_ids);
  g_ptr_array_unref (b->strings);
  g_ptr_array_unref (b->comments);
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
hl_export_pprof (HlAnalysis  *analysis,
                 const char  *source,
                 HlCostKind   default_kind,
                 GError     **error)
{
  HlRecording *rec;
  Builder b;
  PProfile p;
  PValueType types[N_TYPES], *type_ptrs[N_TYPES], period_type;
  g_autoptr (GPtrArray) labels = NULL;
  g_autofree int64_t *comments = NULL;
  g_autofree guint8 *packed = NULL;
  HlSummary summary;
  gsize len;
  guint n_stacks;
  GBytes *result;

  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), NULL);

  rec = hl_analysis_get_recording (analysis);
  builder_init (&b);
  perftools__profiles__profile__init (&p);
  for (guint t = 0; t < N_TYPES; t++)
    {
      perftools__profiles__value_type__init (&types[t]);
      types[t].type = intern (&b, sample_types[t].type);
      types[t].unit = intern (&b, sample_types[t].unit);
      type_ptrs[t] = &types[t];
    }
  p.n_sample_type = N_TYPES;
  p.sample_type = type_ptrs;
  /* a full recording: a period of one byte; a sampled one: the mean bytes
   * between samples (its values are already the weighted estimates) */
  perftools__profiles__value_type__init (&period_type);
  period_type.type = intern (&b, "space");
  period_type.unit = intern (&b, "bytes");
  p.period_type = &period_type;
  p.period = hl_recording_get_sample_bytes (rec) != 0 ? (gint64) hl_recording_get_sample_bytes (rec) : 1;
  p.default_sample_type = types[sample_type_index (default_kind)].type;

  add_mappings (&b, rec);
  labels = common_labels (&b, rec);
  g_ptr_array_set_free_func (labels, g_free);
  n_stacks = hl_recording_get_n_stacks (rec);
  for (HlStackId s = 0; s < n_stacks; s++)
    {
      HlCosts c;
      static const HlCosts zero;

      hl_analysis_get_stack_costs (analysis, s, &c);
      if (memcmp (&c, &zero, sizeof c) != 0)
        add_sample (&b, rec, s, &c, labels);
    }
  add_comments (&b, analysis, source);
  comments = g_new (int64_t, MAX (b.comments->len, 1));
  for (guint i = 0; i < b.comments->len; i++)
    comments[i] = intern (&b, b.comments->pdata[i]);
  p.n_comment = b.comments->len;
  p.comment = comments;
  hl_recording_get_summary (rec, &summary);
  p.duration_nanos = clamp64 (summary.duration_ns);

  p.n_sample = b.samples->len;
  p.sample = (PSample **) b.samples->pdata;
  p.n_mapping = b.mappings->len;
  p.mapping = (PMapping **) b.mappings->pdata;
  p.n_location = b.locations->len;
  p.location = (PLocation **) b.locations->pdata;
  p.n_function = b.functions->len;
  p.function = (PFunction **) b.functions->pdata;
  p.n_string_table = b.strings->len;
  p.string_table = (char **) b.strings->pdata;

  len = perftools__profiles__profile__get_packed_size (&p);
  packed = g_malloc (MAX (len, 1));
  perftools__profiles__profile__pack (&p, packed);
  builder_clear (&b);
  result = gzip (packed, len, error);
  return result;
}
