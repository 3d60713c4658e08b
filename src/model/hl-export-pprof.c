/* hl-export-pprof.c — an analysis as a gzip'd pprof Profile: one sample
 * per stack with a value per Heaplens cost; the tables, the packing and
 * the gzip are hl-pprof-builder's. */
#include "hl-config.h"

#include <string.h>

#include "hl-export-pprof.h"
#include "hl-pprof-builder.h"

static const HlPprofSampleType sample_types[] = {
  { "alloc_objects",    "count", HL_COST_KIND_ALLOCATIONS, FALSE },
  { "alloc_space",      "bytes", HL_COST_KIND_BYTES,       FALSE },
  { "temp_objects",     "count", HL_COST_KIND_TEMPORARY,   FALSE },
  { "peak_inuse_space", "bytes", HL_COST_KIND_PEAK,        FALSE },
  { "inuse_space",      "bytes", HL_COST_KIND_LIVE,        FALSE },
  { "leaked_objects",   "count", HL_COST_KIND_LEAKED,      TRUE },
  { "leaked_space",     "bytes", HL_COST_KIND_LEAKED,      FALSE },
  { "long_lived_space", "bytes", HL_COST_KIND_LONG_LIVED,  FALSE },
  { "mmap_space",       "bytes", HL_COST_KIND_MMAP,        FALSE },
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

static void
add_sample (HlPprofBuilder *b,
            HlRecording    *rec,
            HlStackId       stack,
            const HlCosts  *c)
{
  gint64 values[N_TYPES];

  for (guint t = 0; t < N_TYPES; t++)
    values[t] = hl_pprof_clamp64 (sample_types[t].blocks ? c->leaked_blocks : hl_costs_value (c, sample_types[t].kind));
  hl_pprof_builder_add_sample (b, rec, stack, values, N_TYPES);
}

static void
add_comments (HlPprofBuilder *b,
              HlAnalysis     *analysis,
              const char     *source)
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

GBytes *
hl_export_pprof (HlAnalysis  *analysis,
                 const char  *source,
                 HlCostKind   default_kind,
                 GError     **error)
{
  HlRecording *rec;
  HlPprofBuilder b;
  HlPProfile p;
  HlPValueType types[N_TYPES], *type_ptrs[N_TYPES], period_type;
  HlSummary summary;
  guint n_stacks;
  GBytes *result;

  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), NULL);

  rec = hl_analysis_get_recording (analysis);
  hl_pprof_builder_init (&b);
  perftools__profiles__profile__init (&p);
  for (guint t = 0; t < N_TYPES; t++)
    {
      perftools__profiles__value_type__init (&types[t]);
      types[t].type = hl_pprof_builder_intern (&b, sample_types[t].type);
      types[t].unit = hl_pprof_builder_intern (&b, sample_types[t].unit);
      type_ptrs[t] = &types[t];
    }
  p.n_sample_type = N_TYPES;
  p.sample_type = type_ptrs;
  /* a full recording: a period of one byte; a sampled one: the mean bytes
   * between samples (its values are already the weighted estimates) */
  perftools__profiles__value_type__init (&period_type);
  period_type.type = hl_pprof_builder_intern (&b, "space");
  period_type.unit = hl_pprof_builder_intern (&b, "bytes");
  p.period_type = &period_type;
  p.period = hl_recording_get_sample_bytes (rec) != 0 ? (gint64) hl_recording_get_sample_bytes (rec) : 1;
  p.default_sample_type = types[sample_type_index (default_kind)].type;

  hl_pprof_builder_add_mappings (&b, rec);
  hl_pprof_builder_add_common_labels (&b, rec);
  n_stacks = hl_recording_get_n_stacks (rec);
  for (HlStackId s = 0; s < n_stacks; s++)
    {
      HlCosts c;
      static const HlCosts zero;

      hl_analysis_get_stack_costs (analysis, s, &c);
      if (memcmp (&c, &zero, sizeof c) != 0)
        add_sample (&b, rec, s, &c);
    }
  add_comments (&b, analysis, source);
  hl_recording_get_summary (rec, &summary);
  p.duration_nanos = hl_pprof_clamp64 (summary.duration_ns);

  result = hl_pprof_builder_pack (&b, &p, error);
  hl_pprof_builder_clear (&b);
  return result;
}
