/* hl-report-json-sections.c — the report's per-thread, per-function and
 * lifetime members (keys in docs/cli.md). */
#include "hl-report-json-private.h"

void
hl_report_json_add_threads (JsonBuilder *b,
                            HlAnalysis  *analysis,
                            HlRecording *threads_of)
{
  g_autoptr (GArray) costs = threads_of != NULL ? hl_analysis_get_thread_costs_for (analysis, threads_of)
                                                : hl_analysis_get_all_thread_costs (analysis);

  json_builder_set_member_name (b, "threads");
  json_builder_begin_array (b);
  for (guint t = 0; t < costs->len; t++)
    {
      const HlThreadCosts *tc = &g_array_index (costs, HlThreadCosts, t);

      json_builder_begin_object (b);
      hl_json_add_uint (b, "tid", tc->tid);
      hl_json_add_string (b, "name", tc->name);
      hl_json_add_uint (b, "start_ns", tc->start_ns);
      hl_json_add_uint (b, "end_ns", tc->end_ns);
      hl_report_json_add_costs (b, "costs", &tc->costs);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_neighbours (JsonBuilder *b,
                const char  *member,
                GArray      *list)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    {
      const HlStackCosts *sc = &g_array_index (list, HlStackCosts, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "frame");
      hl_report_json_add_frame (b, sc->frame);
      hl_report_json_add_costs (b, "costs", &sc->costs);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

void
hl_report_json_add_function (JsonBuilder *b,
                             HlAnalysis  *analysis,
                             const char  *name)
{
  g_autoptr (GPtrArray) found = hl_analysis_find_functions (analysis, name);

  json_builder_set_member_name (b, "function");
  json_builder_begin_object (b);
  hl_json_add_string (b, "name", name);
  json_builder_set_member_name (b, "matches");
  json_builder_begin_array (b);
  for (guint i = 0; i < found->len; i++)
    {
      const HlFrame *f = found->pdata[i];
      HlCosts c;
      g_autoptr (GArray) callers = hl_analysis_get_callers (analysis, f, HL_COST_KIND_BYTES);
      g_autoptr (GArray) callees = hl_analysis_get_callees (analysis, f, HL_COST_KIND_BYTES);

      hl_analysis_get_function_costs (analysis, f, &c);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "frame");
      hl_report_json_add_frame (b, f);
      hl_report_json_add_costs (b, "costs", &c);
      add_neighbours (b, "callers", callers);
      add_neighbours (b, "callees", callees);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_buckets (JsonBuilder   *b,
             const char    *member,
             const guint64 *v)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  for (guint k = 0; k < HL_LIFETIME_N_BUCKETS; k++)
    hl_json_add_uint (b, hl_lifetime_bucket_key (k), v[k]);
  json_builder_end_object (b);
}

static void
add_site (JsonBuilder           *b,
          HlRecording           *rec,
          const HlSiteLifetimes *s)
{

  json_builder_begin_object (b);
  hl_json_add_uint (b, "n_blocks", s->n_blocks);
  hl_json_add_uint (b, "n_bytes", s->n_bytes);
  add_buckets (b, "blocks", s->blocks);
  add_buckets (b, "bytes", s->bytes);
  hl_json_add_string (b, "median", hl_lifetime_bucket_key (s->median_bucket));
  json_builder_set_member_name (b, "live_bytes_by_quarter");
  json_builder_begin_array (b);
  for (guint q = 0; q < HL_LIFETIME_N_QUARTERS; q++)
    hl_json_add_uint (b, NULL, s->live_bytes[q]);
  json_builder_end_array (b);
  hl_json_add_boolean (b, "short_lived", s->short_lived);
  hl_json_add_boolean (b, "growing", s->growing);
  hl_report_json_add_stack (b, rec, s->stack);
  json_builder_end_object (b);
}

void
hl_report_json_add_lifetimes (JsonBuilder       *b,
                              HlAnalysis        *analysis,
                              const HlLifetimes *lt,
                              guint              top)
{
  HlRecording *rec = hl_analysis_get_recording (analysis);

  if (lt == NULL)
    {
      hl_json_add_null (b, "lifetimes");
      return;
    }
  json_builder_set_member_name (b, "lifetimes");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "bucket_start_ns");
  json_builder_begin_object (b);
  for (guint k = 0; k < HL_LIFETIME_BUCKET_ALIVE; k++)
    hl_json_add_uint (b, hl_lifetime_bucket_key (k), hl_lifetime_bucket_start_ns (k));
  hl_json_add_null (b, hl_lifetime_bucket_key (HL_LIFETIME_BUCKET_ALIVE));
  json_builder_end_object (b);
  hl_json_add_uint (b, "start_ns", lt->t0_ns);
  hl_json_add_uint (b, "end_ns", lt->t1_ns);
  add_buckets (b, "blocks", lt->blocks);
  add_buckets (b, "bytes", lt->bytes);
  hl_json_add_uint (b, "n_sites", lt->sites->len);
  json_builder_set_member_name (b, "sites");
  json_builder_begin_array (b);
  for (guint i = 0; i < lt->sites->len && (top == 0 || i < top); i++)
    add_site (b, rec, &g_array_index (lt->sites, HlSiteLifetimes, i));
  json_builder_end_array (b);
  for (int g = 0; g < 2; g++)
    {
      g_autoptr (GPtrArray) picked = hl_lifetimes_pick (lt, g == 1, top);
      json_builder_set_member_name (b, g == 1 ? "growing" : "short_lived");
      json_builder_begin_array (b);
      for (guint i = 0; i < picked->len; i++)
        add_site (b, rec, picked->pdata[i]);
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
}

/* ---- The leak scan at exit --------------------------------------------- */

void
hl_report_json_add_reachability (JsonBuilder *b,
                                 HlAnalysis  *analysis,
                                 HlRecording *rec,
                                 guint        top)
{
  HlReachability r;
  const char *why = hl_recording_get_info (rec, "leak_scan");

  if (!hl_recording_get_reachability (rec, &r))
    {
      if (why == NULL)
        return;
      json_builder_set_member_name (b, "reachability");
      json_builder_begin_object (b);
      hl_json_add_string (b, "skipped", why);
      json_builder_end_object (b);
      return;
    }
  json_builder_set_member_name (b, "reachability");
  json_builder_begin_object (b);
  for (guint k = HL_REACHABILITY_KINDS; k-- > 0;)
    {
      const char *name = hl_recording_get_reachability_kind_name (k);
      g_autofree char *bytes = g_strconcat (name, "_bytes", NULL);
      g_autofree char *blocks = g_strconcat (name, "_blocks", NULL);

      hl_json_add_uint (b, bytes, r.bytes[k]);
      hl_json_add_uint (b, blocks, r.blocks[k]);
    }
  hl_json_add_uint (b, "scan_ns", r.scan_ns);
  hl_json_add_uint (b, "roots_bytes", r.roots_bytes);
  hl_json_add_uint (b, "blocks_scanned", r.blocks_scanned);
  json_builder_set_member_name (b, "complete");
  json_builder_add_boolean_value (b, r.complete);
  /* the last scan was one on demand (no clean exit after it) */
  json_builder_set_member_name (b, "on_demand");
  json_builder_add_boolean_value (b, r.on_demand);
  if (r.on_demand)
    hl_json_add_uint (b, "time_ns", r.time_ns);
  /* the stacks are the whole run's at exit: not for a time range, whose
   * "leaked" is what the range had not freed by its end (and whose
   * recording may be a range load without the scan's events) */
  if (hl_filter_selects_by_time (hl_analysis_get_filter (analysis)))
    {
      json_builder_end_object (b);
      return;
    }
  json_builder_set_member_name (b, "stacks");
  json_builder_begin_object (b);
  for (guint k = HL_REACHABILITY_KINDS; k-- > 0;)
    {
      g_autoptr (GArray) stacks = hl_analysis_get_reachability_stacks (analysis, k, top);

      json_builder_set_member_name (b, hl_recording_get_reachability_kind_name (k));
      json_builder_begin_array (b);
      for (guint i = 0; i < stacks->len; i++)
        {
          const HlReachabilityStack *e = &g_array_index (stacks, HlReachabilityStack, i);

          json_builder_begin_object (b);
          hl_json_add_uint (b, "bytes", e->bytes);
          hl_json_add_uint (b, "blocks", e->blocks);
          hl_report_json_add_stack (b, rec, e->stack);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
}

void
hl_report_json_add_stack (JsonBuilder *b,
                          HlRecording *rec,
                          HlStackId    stack)
{
  guint n;
  const HlFrame * const *frames = hl_recording_get_stack_frames (rec, stack, &n);

  json_builder_set_member_name (b, "stack");
  json_builder_begin_array (b);
  for (guint f = 0; f < n; f++)
    hl_report_json_add_frame (b, frames[f]);
  json_builder_end_array (b);
}
