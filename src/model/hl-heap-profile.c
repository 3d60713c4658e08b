/* hl-heap-profile.c — a continuous heap profile as pprof
 * (hl-heap-profile.h); the tables and the packing are hl-pprof-builder's. */
#include "hl-config.h"

#include "hl-heap-profile.h"
#include "hl-pprof-builder.h"
#include "hl-recording-private.h"

/* The labels of the metadata keys set at the end of REC so far: its
 * intervals still open (meta_open: key -> interval index + 1), by key. */
static void
add_metadata (HlPprofBuilder *b,
              HlRecording    *rec)
{
  g_autoptr (GList) keys = NULL;

  hl_recording_sort_metadata (rec);
  keys = g_list_sort (g_hash_table_get_keys (rec->meta_open), (GCompareFunc) g_strcmp0);
  for (const GList *k = keys; k != NULL; k = k->next)
    {
      guint i = GPOINTER_TO_UINT (g_hash_table_lookup (rec->meta_open, k->data));
      const HlMetaInterval *iv;

      if (i == 0 || i > rec->meta->len)
        continue;
      iv = &g_array_index (rec->meta, HlMetaInterval, i - 1);
      /* the program's own labels win over a key of the same name */
      if (iv->key == NULL || iv->value == NULL || g_str_equal (iv->key, "program") || g_str_equal (iv->key, "pid")
          || g_str_equal (iv->key, "host"))
        continue;
      hl_pprof_builder_add_label (b, iv->key, iv->value, 0);
      hl_pprof_builder_take_comment (b, g_strdup_printf ("metadata %s=%s", iv->key, iv->value));
    }
}

static void
add_comments (HlPprofBuilder *b,
              HlRecording    *rec,
              HlHeapProfileKind kind)
{
  static const char *keys[] = { "exe", "cmdline", "pid", "host" };

  hl_pprof_builder_take_comment (b, g_strdup_printf ("heaplens %s continuous profile: %s", HL_VERSION,
                                                     kind == HL_HEAP_PROFILE_INUSE ? "the live heap"
                                                                                   : "allocated in the interval"));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *v = hl_recording_get_info (rec, keys[i]);

      if (v != NULL)
        hl_pprof_builder_take_comment (b, g_strdup_printf ("%s=%s", keys[i], v));
    }
  if (hl_recording_get_sample_bytes (rec) != 0)
    hl_pprof_builder_take_comment (b, g_strdup_printf ("estimated, sampled every %" G_GUINT64_FORMAT " bytes",
                                                       hl_recording_get_sample_bytes (rec)));
}

GBytes *
hl_heap_profile_build (HlRecording       *rec,
                       HlHeapProfileKind  kind,
                       guint              n_stacks,
                       const guint64     *objects,
                       const guint64     *bytes,
                       guint64            time_ns,
                       guint64            duration_ns,
                       GError           **error)
{
  HlPprofBuilder b;
  HlPProfile p;
  HlPValueType types[2], *type_ptrs[2], period_type;
  gboolean inuse = kind == HL_HEAP_PROFILE_INUSE;
  GBytes *result;

  g_return_val_if_fail (HL_IS_RECORDING (rec), NULL);

  hl_pprof_builder_init (&b);
  perftools__profiles__profile__init (&p);
  for (guint t = 0; t < 2; t++)
    {
      perftools__profiles__value_type__init (&types[t]);
      type_ptrs[t] = &types[t];
    }
  types[0].type = hl_pprof_builder_intern (&b, inuse ? "inuse_objects" : "alloc_objects");
  types[0].unit = hl_pprof_builder_intern (&b, "count");
  types[1].type = hl_pprof_builder_intern (&b, inuse ? "inuse_space" : "alloc_space");
  types[1].unit = hl_pprof_builder_intern (&b, "bytes");
  p.n_sample_type = 2;
  p.sample_type = type_ptrs;
  p.default_sample_type = types[1].type;
  perftools__profiles__value_type__init (&period_type);
  period_type.type = hl_pprof_builder_intern (&b, "space");
  period_type.unit = hl_pprof_builder_intern (&b, "bytes");
  p.period_type = &period_type;
  p.period = hl_recording_get_sample_bytes (rec) != 0 ? (gint64) hl_recording_get_sample_bytes (rec) : 1;
  p.time_nanos = hl_pprof_clamp64 (time_ns);
  p.duration_nanos = hl_pprof_clamp64 (duration_ns);

  hl_pprof_builder_add_mappings (&b, rec);
  hl_pprof_builder_add_common_labels (&b, rec);
  add_metadata (&b, rec);
  n_stacks = MIN (n_stacks, hl_recording_get_n_stacks (rec));
  for (HlStackId s = 0; s < n_stacks; s++)
    if (objects[s] != 0 || bytes[s] != 0)
      {
        gint64 values[2] = { hl_pprof_clamp64 (objects[s]), hl_pprof_clamp64 (bytes[s]) };
        hl_pprof_builder_add_sample (&b, rec, s, values, 2);
      }
  add_comments (&b, rec, kind);
  result = hl_pprof_builder_pack (&b, &p, error);
  hl_pprof_builder_clear (&b);
  return result;
}
