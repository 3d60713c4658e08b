/* hl-report-json.c — the report of an analysis as JSON: built with
 * json-glib's JsonBuilder, written by hl_json_write(). */
#define _GNU_SOURCE
#include "hl-config.h"

#include <signal.h>

#include "hl-report-json-private.h"

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
hl_report_json_add_costs (JsonBuilder   *b,
                          const char    *name,
                          const HlCosts *c)
{
  if (name != NULL)
    json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  hl_json_add_uint (b, "allocations", c->allocations);
  hl_json_add_uint (b, "bytes", c->bytes);
  hl_json_add_uint (b, "temporary", c->temporary);
  hl_json_add_uint (b, "peak_bytes", c->peak_bytes);
  hl_json_add_uint (b, "leaked_bytes", c->leaked_bytes);
  hl_json_add_uint (b, "leaked_blocks", c->leaked_blocks);
  hl_json_add_uint (b, "live_bytes", c->live_bytes);
  hl_json_add_uint (b, "long_lived_bytes", c->long_lived_bytes);
  hl_json_add_uint (b, "mmap_bytes", c->mmap_bytes);
  json_builder_end_object (b);
}

void
hl_report_json_add_frame (JsonBuilder   *b,
                          const HlFrame *f)
{
  json_builder_begin_object (b);
  hl_json_add_string (b, "function", f->function);
  hl_json_add_string (b, "module", f->module);
  if (f->file != NULL)
    hl_json_add_string (b, "file", f->file);
  else
    hl_json_add_null (b, "file");
  hl_json_add_uint (b, "line", f->line);
  hl_json_add_boolean (b, "inline", f->is_inline);
  hl_json_add_uint (b, "address", f->address);
  json_builder_end_object (b);
}

/* A number the recording's info holds under KEY (record writes them after
 * a death), or null when it has none, or one that is not a number
 * ("unknown"). */
static void
add_info_uint (JsonBuilder *b,
               HlRecording *rec,
               const char  *member,
               const char  *key)
{
  const char *text = hl_recording_get_info (rec, key);
  guint64 v;

  if (text != NULL && g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &v, NULL))
    hl_json_add_uint (b, member, v);
  else
    hl_json_add_null (b, member);
}

/* How the program ended when a signal ended it (record notes it in the
 * trace; the member is left out otherwise): the signal, and after a death
 * without END (SIGKILL, the OOM killer) the events record salvaged from
 * the session and a bound on those lost (null when the preload wrote END,
 * or when unknown). */
static void
add_ended_by_signal (JsonBuilder *b,
                     HlRecording *rec)
{
  const char *sig_text = hl_recording_get_info (rec, "ended_by_signal");
  guint64 sig;

  if (sig_text == NULL || !g_ascii_string_to_unsigned (sig_text, 10, 1, 127, &sig, NULL))
    return;
  json_builder_set_member_name (b, "ended_by_signal");
  const char *abbrev = sigabbrev_np ((int) sig);
  g_autofree char *name = abbrev != NULL ? g_strconcat ("SIG", abbrev, NULL) : NULL;
  json_builder_begin_object (b);
  hl_json_add_uint (b, "signal", sig);
  if (name != NULL)
    hl_json_add_string (b, "name", name);
  else
    hl_json_add_null (b, "name");
  add_info_uint (b, rec, "salvaged_events", "salvaged_events");
  add_info_uint (b, rec, "lost_events_at_most", "lost_events");
  json_builder_end_object (b);
}

/* A process that ended without END and without a launcher to see how
 * (a bare LD_PRELOAD killed), whose session `sessions --prune` salvaged:
 * the events salvaged and a bound on those lost; left out otherwise. */
static void
add_ended_unseen (JsonBuilder *b,
                  HlRecording *rec)
{
  if (hl_recording_get_info (rec, "ended_by_signal") != NULL || hl_recording_get_info (rec, "ended_unseen") == NULL)
    return;
  json_builder_set_member_name (b, "ended_unseen");
  json_builder_begin_object (b);
  add_info_uint (b, rec, "salvaged_events", "salvaged_events");
  add_info_uint (b, rec, "lost_events_at_most", "lost_events");
  json_builder_end_object (b);
}

/* A trace cut by a full disk (the preload's or record's record of it):
 * when, the errno name, and the whole run's totals from the session's
 * counters (null when record could not write them down); left out when
 * the trace was not cut (as ended_by_signal). */
static void
add_trace_cut (JsonBuilder *b,
               HlRecording *rec)
{
  const char *at = hl_recording_get_info (rec, "trace_cut_ns");
  const char *reason = hl_recording_get_info (rec, "trace_cut_reason");
  guint64 at_ns;

  if (at == NULL || !g_ascii_string_to_unsigned (at, 10, 0, G_MAXUINT64, &at_ns, NULL))
    return;
  json_builder_set_member_name (b, "trace_cut");
  json_builder_begin_object (b);
  hl_json_add_uint (b, "at_ns", at_ns);
  if (reason != NULL)
    hl_json_add_string (b, "reason", reason);
  else
    hl_json_add_null (b, "reason");
  if (hl_recording_get_info (rec, "session_allocations") == NULL)
    hl_json_add_null (b, "session");
  else
    {
      json_builder_set_member_name (b, "session");
      json_builder_begin_object (b);
      add_info_uint (b, rec, "allocations", "session_allocations");
      add_info_uint (b, rec, "frees", "session_frees");
      add_info_uint (b, rec, "bytes_allocated", "session_bytes_allocated");
      add_info_uint (b, rec, "not_freed_bytes", "session_not_freed_bytes");
      add_info_uint (b, rec, "not_freed_blocks", "session_not_freed_blocks");
      add_info_uint (b, rec, "dropped_events", "session_dropped_events");
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

/* A recording made by `heaplens-cli attach` (its INFO has attached=1):
 * attach { heap_bytes, rss_bytes (at the attach), frees_before,
 * frees_before_bytes (frees of blocks allocated before it), detached_ns
 * (null when the process exited while attached) }; left out otherwise. */
static gboolean
add_attach (JsonBuilder *b,
            HlRecording *rec)
{
  if (g_strcmp0 (hl_recording_get_info (rec, "attached"), "1") != 0)
    return FALSE;
  json_builder_set_member_name (b, "attach");
  json_builder_begin_object (b);
  add_info_uint (b, rec, "heap_bytes", "attach_heap_bytes");
  add_info_uint (b, rec, "rss_bytes", "attach_rss_bytes");
  add_info_uint (b, rec, "frees_before", "attach_frees_before");
  add_info_uint (b, rec, "frees_before_bytes", "attach_frees_before_bytes");
  add_info_uint (b, rec, "detached_ns", "detached_ns");
  json_builder_end_object (b);
  return hl_recording_get_info (rec, "detached_ns") != NULL;
}

/* An image that exec'd another (the preload notes it after its END):
 * replaced_by_exec { program, time_ns, then_exit_status, then_signal },
 * the last two how the process ended when the rest of its chain ran
 * unrecorded (record notes it; null otherwise). Left out for any other
 * trace; TRUE when added (its exit status is then null, not -1). */
static gboolean
add_replaced_by_exec (JsonBuilder *b,
                      HlRecording *rec)
{
  const char *program = hl_recording_get_info (rec, "replaced_by_exec");

  if (program == NULL || program[0] == '\0')
    return FALSE;
  json_builder_set_member_name (b, "replaced_by_exec");
  json_builder_begin_object (b);
  hl_json_add_string (b, "program", program);
  add_info_uint (b, rec, "time_ns", "replaced_by_exec_ns");
  add_info_uint (b, rec, "then_exit_status", "exec_chain_exit_status");
  add_info_uint (b, rec, "then_signal", "exec_chain_signal");
  json_builder_end_object (b);
  return TRUE;
}

static void
add_summary (JsonBuilder *b,
             HlRecording *rec)
{
  HlSummary s;

  hl_recording_get_summary (rec, &s);
  json_builder_set_member_name (b, "summary");
  json_builder_begin_object (b);
  hl_json_add_uint (b, "duration_ns", s.duration_ns);
  hl_json_add_uint (b, "allocations", s.n_allocations);
  hl_json_add_uint (b, "frees", s.n_frees);
  hl_json_add_uint (b, "bytes_allocated", s.bytes_allocated);
  hl_json_add_uint (b, "temporary", s.temporary);
  hl_json_add_uint (b, "peak_heap_bytes", s.peak_heap_bytes);
  hl_json_add_uint (b, "peak_time_ns", s.peak_time_ns);
  hl_json_add_uint (b, "peak_rss_bytes", s.peak_rss_bytes);
  hl_json_add_uint (b, "leaked_bytes", s.leaked_bytes);
  hl_json_add_uint (b, "leaked_blocks", s.leaked_blocks);
  hl_json_add_uint (b, "dropped_events", s.dropped_events);
  hl_json_add_uint (b, "frees_unknown", s.frees_unknown);
  /* events lost to damaged and cut compressed frames: "_bound", at most
   * (docs/cli.md); only when nonzero */
  if (s.lost_events_damaged_bound > 0)
    hl_json_add_uint (b, "lost_events_damaged_bound", s.lost_events_damaged_bound);
  if (s.lost_events_cut_bound > 0)
    hl_json_add_uint (b, "lost_events_cut_bound", s.lost_events_cut_bound);
  if (s.lost_regions_unknown > 0)
    hl_json_add_uint (b, "lost_regions_unknown", s.lost_regions_unknown);
  hl_json_add_uint (b, "threads", s.n_threads);
  /* a sampled trace: its costs are estimates (hl-sample-weight.h) */
  if (hl_recording_get_sample_bytes (rec) != 0)
    {
      hl_json_add_uint (b, "sample_bytes", hl_recording_get_sample_bytes (rec));
      json_builder_set_member_name (b, "estimated");
      json_builder_add_boolean_value (b, TRUE);
    }
  gboolean detached = add_attach (b, rec);
  if (add_replaced_by_exec (b, rec) || !s.has_exit_status || detached)
    hl_json_add_null (b, "exit_status");
  else
    hl_json_add_int (b, "exit_status", s.exit_status);
  add_ended_by_signal (b, rec);
  add_ended_unseen (b, rec);
  add_trace_cut (b, rec);
  json_builder_end_object (b);
}

static void
add_marks_and_metadata (JsonBuilder *b,
                        HlRecording *rec)
{
  guint n_marks, n_meta;
  const HlMark *marks = hl_recording_get_marks (rec, &n_marks);
  const HlMetaInterval *meta = hl_recording_get_metadata_intervals (rec, &n_meta);

  json_builder_set_member_name (b, "marks");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_marks; i++)
    {
      json_builder_begin_object (b);
      hl_json_add_uint (b, "time_ns", marks[i].time_ns);
      hl_json_add_uint (b, "thread", marks[i].tid);
      hl_json_add_string (b, "text", marks[i].text);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "metadata");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_meta; i++)
    {
      json_builder_begin_object (b);
      hl_json_add_string (b, "key", meta[i].key);
      hl_json_add_string (b, "value", meta[i].value);
      hl_json_add_uint (b, "start_ns", meta[i].start_ns);
      hl_json_add_uint (b, "end_ns", meta[i].end_ns);
      hl_json_add_uint (b, "thread", meta[i].tid);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_top (JsonBuilder      *b,
         HlAnalysis       *analysis,
         const HlCostKind *costs,
         guint             n_costs,
         guint             top)
{
  HlRecording *rec = hl_analysis_get_recording (analysis);

  json_builder_set_member_name (b, "top");
  json_builder_begin_object (b);
  for (guint k = 0; k < n_costs; k++)
    {
      g_autoptr (GArray) stacks = hl_analysis_get_top_stacks (analysis, costs[k], top);

      json_builder_set_member_name (b, hl_cost_kind_to_string (costs[k]));
      json_builder_begin_array (b);
      for (guint i = 0; i < stacks->len; i++)
        {
          const HlStackCosts *sc = &g_array_index (stacks, HlStackCosts, i);

          json_builder_begin_object (b);
          hl_report_json_add_costs (b, "costs", &sc->costs);
          hl_report_json_add_stack (b, rec, sc->stack);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
}

/* memory: the RSS at its highest allocator sample, split (null without
 * one); mmap: the program's own anonymous mappings and their top sites
 * (docs/cli.md). */
static void
add_memory (JsonBuilder *b,
            HlRecording *rec,
            guint        top)
{
  HlMemorySplit m;
  HlMmapTotals t;
  guint n_samples;
  g_autoptr (GArray) sites = hl_recording_get_mmap_sites (rec, top);

  (void) hl_recording_get_allocator_samples (rec, &n_samples);
  if (hl_recording_get_memory_split (rec, &m))
    {
      json_builder_set_member_name (b, "memory");
      json_builder_begin_object (b);
      hl_json_add_uint (b, "time_ns", m.time_ns);
      hl_json_add_uint (b, "rss_bytes", m.rss_bytes);
      hl_json_add_uint (b, "heap_bytes", m.heap_bytes);
      hl_json_add_uint (b, "allocator_overhead_bytes", m.overhead_bytes);
      hl_json_add_uint (b, "allocator_free_bytes", m.free_bytes);
      hl_json_add_uint (b, "mmap_bytes", m.mmap_bytes);
      hl_json_add_uint (b, "other_bytes", m.other_bytes);
      hl_json_add_uint (b, "arena_bytes", m.arena_bytes);
      hl_json_add_uint (b, "samples", n_samples);
      hl_json_add_boolean (b, "estimated", m.estimated);
      hl_json_add_uint (b, "estimated_samples", m.estimated_samples);
      json_builder_end_object (b);
    }
  else
    hl_json_add_null (b, "memory");

  hl_recording_get_mmap_totals (rec, &t);
  json_builder_set_member_name (b, "mmap");
  json_builder_begin_object (b);
  hl_json_add_uint (b, "calls", t.calls);
  hl_json_add_uint (b, "bytes", t.bytes);
  hl_json_add_uint (b, "live_bytes", t.live_bytes);
  hl_json_add_uint (b, "peak_bytes", t.peak_bytes);
  hl_json_add_uint (b, "peak_time_ns", t.peak_time_ns);
  hl_json_add_uint (b, "regions", t.regions);
  json_builder_set_member_name (b, "sites");
  json_builder_begin_array (b);
  for (guint i = 0; i < sites->len; i++)
    {
      const HlMmapSite *ms = &g_array_index (sites, HlMmapSite, i);

      json_builder_begin_object (b);
      hl_json_add_uint (b, "calls", ms->calls);
      hl_json_add_uint (b, "bytes", ms->bytes);
      hl_json_add_uint (b, "live_bytes", ms->live_bytes);
      hl_json_add_uint (b, "peak_bytes", ms->peak_bytes);
      hl_report_json_add_stack (b, rec, ms->stack);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_modules_and_warnings (JsonBuilder *b,
                          HlRecording *rec)
{
  g_autoptr (GPtrArray) nodebug = hl_recording_get_modules_without_debug_info (rec);
  const char * const *warnings = hl_recording_get_warnings (rec);

  json_builder_set_member_name (b, "modules_without_debug_info");
  json_builder_begin_array (b);
  for (guint i = 0; i < nodebug->len; i++)
    {
      const HlModuleInfo *m = nodebug->pdata[i];

      json_builder_begin_object (b);
      hl_json_add_string (b, "path", m->path);
      hl_json_add_string (b, "build_id", m->build_id);
      hl_json_add_string (b, "hint", m->hint);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; warnings[i] != NULL; i++)
    hl_json_add_string (b, NULL, warnings[i]);
  json_builder_end_array (b);
}

/* The report as a document, its keys in the order docs/cli.md gives. */
static JsonNode *
build_report (const char            *path,
              HlAnalysis            *analysis,
              const HlCostKind      *costs,
              guint                  n_costs,
              guint                  top,
              const HlReportOptions *options)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  /* the whole run's parts from OPTIONS->whole when the analysis' recording
   * holds a range only; the selection's from the analysis */
  HlRecording *rec = options != NULL && options->whole != NULL ? options->whole : hl_analysis_get_recording (analysis);
  const char *exe = hl_recording_get_info (rec, "exe");
  HlCosts t;

  if (costs == NULL || n_costs == 0)
    costs = hl_report_default_costs (&n_costs);
  hl_analysis_get_totals (analysis, &t);

  json_builder_begin_object (b);
  hl_json_add_string (b, "file", path);
  if (exe != NULL)
    hl_json_add_string (b, "program", exe);
  else
    hl_json_add_null (b, "program");
  add_summary (b, rec);
  hl_report_json_add_reachability (b, analysis, rec, top);
  add_marks_and_metadata (b, rec);
  hl_report_json_add_costs (b, "selection", &t);
  hl_json_add_uint (b, "lived_at_least_ns", hl_filter_get_lived_at_least (hl_analysis_get_filter (analysis)));
  add_top (b, analysis, costs, n_costs, top);
  hl_report_json_add_threads (b, analysis, options != NULL ? options->whole : NULL);
  if (options != NULL && options->function != NULL)
    hl_report_json_add_function (b, analysis, options->function);
  if (options != NULL && options->lifetimes)
    {
      g_autoptr (HlLifetimes) lt = hl_analysis_get_lifetimes (analysis, NULL);
      hl_report_json_add_lifetimes (b, analysis, lt, top);
    }
  add_memory (b, rec, top);
  add_modules_and_warnings (b, rec);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* The report's layout: a member of the root a line, a mark, metadata
 * interval, cost and call site a line; all else on one line. */
static const HlJsonLayout report_layout[] = {
  { "",         "\n  ",      "\n  ",      "\n" },
  { "marks",    "\n    ",    "\n    ",    "\n  " },
  { "metadata", "\n    ",    "\n    ",    "\n  " },
  { "reachability", "\n    ", "\n    ",   "\n  " },
  { "reachability/stacks", "\n      ", "\n      ", "\n    " },
  { "reachability/stacks/*", "\n        ", "\n        ", "\n      " },
  { "top",      "\n    ",    "\n    ",    "\n  " },
  { "top/*",    "\n      ",  "\n      ",  "\n    " },
  { "threads",  "\n    ",    "\n    ",    "\n  " },
  { "function", "\n    ",    "\n    ",    "\n  " },
  { "function/matches", "\n      ", "\n      ", "\n    " },
  { "function/matches/*", "\n        ", "\n        ", "\n      " },
  { "function/matches/*/callers", "\n          ", "\n          ", "\n        " },
  { "function/matches/*/callees", "\n          ", "\n          ", "\n        " },
  { "mmap",     "\n    ",    "\n    ",    "\n  " },
  { "mmap/sites", "\n      ", "\n      ", "\n    " },
  { "lifetimes", "\n    ",   "\n    ",    "\n  " },
  { "lifetimes/sites", "\n      ", "\n      ", "\n    " },
  { "lifetimes/short_lived", "\n      ", "\n      ", "\n    " },
  { "lifetimes/growing", "\n      ", "\n      ", "\n    " },
};

char *
hl_report_to_json (const char       *path,
                   HlAnalysis       *analysis,
                   const HlCostKind *costs,
                   guint             n_costs,
                   guint             top)
{
  return hl_report_to_json_with (path, analysis, costs, n_costs, top, NULL);
}

char *
hl_report_to_json_with (const char            *path,
                        HlAnalysis            *analysis,
                        const HlCostKind      *costs,
                        guint                  n_costs,
                        guint                  top,
                        const HlReportOptions *options)
{
  g_autoptr (JsonNode) root = NULL;
  GString *out;

  g_return_val_if_fail (HL_IS_ANALYSIS (analysis), NULL);

  root = build_report (path, analysis, costs, n_costs, top, options);
  out = g_string_new (NULL);
  hl_json_write (out, root, report_layout, G_N_ELEMENTS (report_layout));
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}
