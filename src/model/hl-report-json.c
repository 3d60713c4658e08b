/* hl-report-json.c — the report of an analysis as JSON. */
#include "hl-config.h"

#include "hl-report-json.h"

static const HlCostKind default_costs[] = {
  HL_COST_KIND_ALLOCATIONS, HL_COST_KIND_TEMPORARY, HL_COST_KIND_PEAK, HL_COST_KIND_LEAKED,
};

const HlCostKind *
hl_report_default_costs (guint *n_kinds)
{
  *n_kinds = G_N_ELEMENTS (default_costs);
  return default_costs;
}

void
hl_json_append_string (GString    *out,
                       const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) (s != NULL ? s : ""); *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"':  g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\r': g_string_append (out, "\\r"); break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
}

static void
json_costs (GString       *out,
            const HlCosts *c)
{
  g_string_append_printf (out,
                          "{\"allocations\": %" G_GUINT64_FORMAT ", \"bytes\": %" G_GUINT64_FORMAT
                          ", \"temporary\": %" G_GUINT64_FORMAT ", \"peak_bytes\": %" G_GUINT64_FORMAT
                          ", \"leaked_bytes\": %" G_GUINT64_FORMAT ", \"leaked_blocks\": %" G_GUINT64_FORMAT
                          ", \"live_bytes\": %" G_GUINT64_FORMAT "}",
                          c->allocations, c->bytes, c->temporary, c->peak_bytes,
                          c->leaked_bytes, c->leaked_blocks, c->live_bytes);
}

static void
json_frame (GString       *out,
            const HlFrame *f)
{
  g_string_append (out, "{\"function\": ");
  hl_json_append_string (out, f->function);
  g_string_append (out, ", \"module\": ");
  hl_json_append_string (out, f->module);
  g_string_append (out, ", \"file\": ");
  if (f->file != NULL)
    hl_json_append_string (out, f->file);
  else
    g_string_append (out, "null");
  g_string_append_printf (out, ", \"line\": %u, \"inline\": %s, \"address\": %" G_GUINT64_FORMAT "}",
                          f->line, f->is_inline ? "true" : "false", f->address);
}

char *
hl_report_to_json (const char       *path,
                   HlAnalysis       *analysis,
                   const HlCostKind *costs,
                   guint             n_costs,
                   guint             top)
{
  HlRecording *rec = hl_analysis_get_recording (analysis);
  GString *out = g_string_new ("{\n  \"file\": ");
  HlSummary s;
  HlCosts t;
  const char * const *warnings = hl_recording_get_warnings (rec);
  g_autoptr (GPtrArray) nodebug = hl_recording_get_modules_without_debug_info (rec);
  const char *exe = hl_recording_get_info (rec, "exe");

  if (costs == NULL || n_costs == 0)
    costs = hl_report_default_costs (&n_costs);
  hl_recording_get_summary (rec, &s);
  hl_analysis_get_totals (analysis, &t);
  hl_json_append_string (out, path);
  g_string_append (out, ",\n  \"program\": ");
  if (exe != NULL)
    hl_json_append_string (out, exe);
  else
    g_string_append (out, "null");
  g_string_append_printf (out,
                          ",\n  \"summary\": {\"duration_ns\": %" G_GUINT64_FORMAT
                          ", \"allocations\": %" G_GUINT64_FORMAT ", \"frees\": %" G_GUINT64_FORMAT
                          ", \"bytes_allocated\": %" G_GUINT64_FORMAT ", \"temporary\": %" G_GUINT64_FORMAT
                          ", \"peak_heap_bytes\": %" G_GUINT64_FORMAT ", \"peak_time_ns\": %" G_GUINT64_FORMAT
                          ", \"peak_rss_bytes\": %" G_GUINT64_FORMAT ", \"leaked_bytes\": %" G_GUINT64_FORMAT
                          ", \"leaked_blocks\": %" G_GUINT64_FORMAT ", \"dropped_events\": %" G_GUINT64_FORMAT
                          ", \"frees_unknown\": %" G_GUINT64_FORMAT ", \"threads\": %u, \"exit_status\": ",
                          s.duration_ns, s.n_allocations, s.n_frees, s.bytes_allocated, s.temporary,
                          s.peak_heap_bytes, s.peak_time_ns, s.peak_rss_bytes, s.leaked_bytes,
                          s.leaked_blocks, s.dropped_events, s.frees_unknown, s.n_threads);
  if (s.has_exit_status)
    g_string_append_printf (out, "%d}", s.exit_status);
  else
    g_string_append (out, "null}");
  g_string_append (out, ",\n  \"marks\": [");
  guint n_marks;
  const HlMark *marks = hl_recording_get_marks (rec, &n_marks);
  for (guint i = 0; i < n_marks; i++)
    {
      g_string_append_printf (out, "%s\n    {\"time_ns\": %" G_GUINT64_FORMAT ", \"thread\": %u, \"text\": ",
                              i ? "," : "", marks[i].time_ns, marks[i].tid);
      hl_json_append_string (out, marks[i].text != NULL ? marks[i].text : "");
      g_string_append_c (out, '}');
    }
  g_string_append (out, n_marks ? "\n  ]" : "]");
  g_string_append (out, ",\n  \"metadata\": [");
  guint n_meta;
  const HlMetaInterval *meta = hl_recording_get_metadata_intervals (rec, &n_meta);
  for (guint i = 0; i < n_meta; i++)
    {
      g_string_append_printf (out, "%s\n    {\"key\": ", i ? "," : "");
      hl_json_append_string (out, meta[i].key);
      g_string_append (out, ", \"value\": ");
      hl_json_append_string (out, meta[i].value);
      g_string_append_printf (out, ", \"start_ns\": %" G_GUINT64_FORMAT ", \"end_ns\": %" G_GUINT64_FORMAT
                              ", \"thread\": %u}", meta[i].start_ns, meta[i].end_ns, meta[i].tid);
    }
  g_string_append (out, n_meta ? "\n  ]" : "]");
  g_string_append (out, ",\n  \"selection\": ");
  json_costs (out, &t);
  g_string_append (out, ",\n  \"top\": {");
  for (guint k = 0; k < n_costs; k++)
    {
      g_autoptr (GArray) stacks = hl_analysis_get_top_stacks (analysis, costs[k], top);

      g_string_append_printf (out, "%s\n    \"%s\": [", k ? "," : "", hl_cost_kind_to_string (costs[k]));
      for (guint i = 0; i < stacks->len; i++)
        {
          const HlStackCosts *sc = &g_array_index (stacks, HlStackCosts, i);
          guint n;
          const HlFrame * const *frames = hl_recording_get_stack_frames (rec, sc->stack, &n);

          g_string_append_printf (out, "%s\n      {\"costs\": ", i ? "," : "");
          json_costs (out, &sc->costs);
          g_string_append (out, ", \"stack\": [");
          for (guint f = 0; f < n; f++)
            {
              if (f > 0)
                g_string_append (out, ", ");
              json_frame (out, frames[f]);
            }
          g_string_append (out, "]}");
        }
      g_string_append (out, stacks->len ? "\n    ]" : "]");
    }
  g_string_append (out, "\n  },\n  \"modules_without_debug_info\": [");
  for (guint i = 0; i < nodebug->len; i++)
    {
      const HlModuleInfo *m = nodebug->pdata[i];
      g_string_append (out, i ? ", {\"path\": " : "{\"path\": ");
      hl_json_append_string (out, m->path);
      g_string_append (out, ", \"build_id\": ");
      hl_json_append_string (out, m->build_id);
      g_string_append (out, ", \"hint\": ");
      hl_json_append_string (out, m->hint);
      g_string_append (out, "}");
    }
  g_string_append (out, "],\n  \"warnings\": [");
  for (guint i = 0; warnings[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      hl_json_append_string (out, warnings[i]);
    }
  g_string_append (out, "]\n}\n");
  return g_string_free (out, FALSE);
}

