/* hl-export-speedscope.c — an analysis as speedscope's file format, built
 * with json-glib. */
#include "hl-config.h"

#include "hl-export-speedscope.h"
#include "hl-json-writer.h"

/* The profiles, in the file's order; LEAKED is the bytes leaked. */
static const HlCostKind profile_kinds[] = {
  HL_COST_KIND_BYTES, HL_COST_KIND_ALLOCATIONS, HL_COST_KIND_TEMPORARY,
  HL_COST_KIND_PEAK, HL_COST_KIND_LIVE, HL_COST_KIND_LEAKED, HL_COST_KIND_LONG_LIVED, HL_COST_KIND_MMAP,
};

/* Index of frame F in the shared table, added on first use. */
static guint
frame_index (GHashTable    *ids,
             GPtrArray     *frames,
             const HlFrame *f)
{
  gpointer id;

  if (g_hash_table_lookup_extended (ids, f, NULL, &id))
    return GPOINTER_TO_UINT (id);
  g_ptr_array_add (frames, (gpointer) f);
  g_hash_table_insert (ids, (gpointer) f, GUINT_TO_POINTER (frames->len - 1));
  return frames->len - 1;
}

static void
add_frames (JsonBuilder *b,
            GPtrArray   *frames)
{
  json_builder_set_member_name (b, "shared");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "frames");
  json_builder_begin_array (b);
  for (guint i = 0; i < frames->len; i++)
    {
      const HlFrame *f = frames->pdata[i];
      g_autofree char *name = f->is_inline ? g_strconcat (f->function, " [inline]", NULL) : g_strdup (f->function);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, name);
      if (f->file != NULL)
        {
          json_builder_set_member_name (b, "file");
          json_builder_add_string_value (b, f->file);
          hl_json_add_uint (b, "line", f->line);
        }
      else if (f->module != NULL && f->module[0] != '\0')
        {
          json_builder_set_member_name (b, "file");
          json_builder_add_string_value (b, f->module);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

char *
hl_export_speedscope (HlAnalysis *analysis,
                      const char *name,
                      HlCostKind  active)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GHashTable) ids = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) frames = g_ptr_array_new ();
  g_autoptr (GPtrArray) stacks = NULL;   /* per stack: GArray of frame indices */
  g_autofree HlCosts *costs = NULL;
  HlRecording *rec;
  guint n_stacks, active_index = 0;
  GString *out;

  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), NULL);

  rec = hl_analysis_get_recording (analysis);
  n_stacks = hl_recording_get_n_stacks (rec);
  costs = g_new0 (HlCosts, MAX (n_stacks, 1));
  stacks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  /* the stacks, outermost frame first, as speedscope's samples are */
  for (HlStackId s = 0; s < n_stacks; s++)
    {
      guint n;
      const HlFrame * const *f;
      GArray *idx = g_array_new (FALSE, FALSE, sizeof (guint));

      hl_analysis_get_stack_costs (analysis, s, &costs[s]);
      f = hl_recording_get_stack_frames (rec, s, &n);
      for (guint i = n; i-- > 0;)
        {
          guint k = frame_index (ids, frames, f[i]);
          g_array_append_val (idx, k);
        }
      g_ptr_array_add (stacks, idx);
    }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "$schema");
  json_builder_add_string_value (b, "https://www.speedscope.app/file-format-schema.json");
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name != NULL ? name : "heaplens");
  json_builder_set_member_name (b, "exporter");
  json_builder_add_string_value (b, "heaplens " HL_VERSION);
  add_frames (b, frames);
  json_builder_set_member_name (b, "profiles");
  json_builder_begin_array (b);
  for (guint p = 0; p < G_N_ELEMENTS (profile_kinds); p++)
    {
      HlCostKind kind = profile_kinds[p];
      guint64 total = 0;

      if (kind == active)
        active_index = p;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "sampled");
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, hl_cost_kind_to_string (kind));
      json_builder_set_member_name (b, "unit");
      json_builder_add_string_value (b, hl_cost_kind_is_bytes (kind) ? "bytes" : "none");
      hl_json_add_uint (b, "startValue", 0);
      json_builder_set_member_name (b, "samples");
      json_builder_begin_array (b);
      for (guint s = 0; s < n_stacks; s++)
        {
          GArray *idx = stacks->pdata[s];

          if (hl_costs_value (&costs[s], kind) == 0)
            continue;
          json_builder_begin_array (b);
          for (guint i = 0; i < idx->len; i++)
            hl_json_add_uint (b, NULL, g_array_index (idx, guint, i));
          json_builder_end_array (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "weights");
      json_builder_begin_array (b);
      for (guint s = 0; s < n_stacks; s++)
        {
          guint64 v = hl_costs_value (&costs[s], kind);

          if (v == 0)
            continue;
          hl_json_add_uint (b, NULL, v);
          total += v;
        }
      json_builder_end_array (b);
      hl_json_add_uint (b, "endValue", total);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  hl_json_add_uint (b, "activeProfileIndex", active_index);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  out = g_string_new (NULL);
  hl_json_write (out, root, NULL, 0);
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}
