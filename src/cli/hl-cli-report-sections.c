/* hl-cli-report-sections.c — `report`'s threads, --function and
 * --lifetimes text (docs/cli.md). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <stdio.h>

#include "hl-cli-model-util.h"
#include "hl-cli-report-sections.h"

/* ---- Threads ------------------------------------------------------------ */

void
hl_cli_report_print_threads (HlAnalysis  *analysis,
                             HlRecording *threads_of)
{
  g_autoptr (GArray) threads = threads_of != NULL ? hl_analysis_get_thread_costs_for (analysis, threads_of)
                                                  : hl_analysis_get_all_thread_costs (analysis);

  if (threads->len == 0)
    return;
  printf (_("\nthreads (the selection's allocations by the thread that made them):\n"));
  /* Translators: column titles of the threads table; "at peak" is a
   * thread's live bytes at the heap peak */
  printf ("  %8s  %10s  %12s  %12s  %12s  %s\n", _("tid"), _("calls"), _("allocated"), _("at peak"),
          _("leaked"), _("name"));
  for (guint t = 0; t < threads->len; t++)
    {
      const HlThreadCosts *tc = &g_array_index (threads, HlThreadCosts, t);
      g_autofree char *name = hl_cli_printable (tc->name[0] != '\0' ? tc->name : "-");
      g_autofree char *bytes = hl_cli_format_size (tc->costs.bytes);
      g_autofree char *peak = hl_cli_format_size (tc->costs.peak_bytes);
      g_autofree char *leaked = hl_cli_format_size (tc->costs.leaked_bytes);
      printf ("  %8u  %10" PRIu64 "  %12s  %12s  %12s  %s\n", tc->tid, (uint64_t) tc->costs.allocations, bytes,
              peak, leaked, name);
    }
}

/* ---- Callers and callees ------------------------------------------------ */

static void
print_cost_row (const char    *what,
                const HlCosts *c,
                const HlFrame *frame)
{
  g_autofree char *bytes = hl_cli_format_size (c->bytes);
  g_autofree char *peak = hl_cli_format_size (c->peak_bytes);
  g_autofree char *leaked = hl_cli_format_size (c->leaked_bytes);
  g_autofree char *text = frame != NULL ? hl_cli_format_frame (frame) : g_strdup ("");

  printf ("  %-8s %10" PRIu64 "  %12s  %10" PRIu64 "  %12s  %12s  %s\n", what, (uint64_t) c->allocations, bytes,
          (uint64_t) c->temporary, peak, leaked, text);
}

static void
print_neighbours (const char *title,
                  GArray     *list)
{
  if (list->len == 0)
    {
      /* Translators: a function without callers (the stacks' outermost) or callees (the allocating one) */
      printf ("  %-8s %s\n", title, _("(none)"));
      return;
    }
  for (guint i = 0; i < list->len; i++)
    {
      const HlStackCosts *sc = &g_array_index (list, HlStackCosts, i);
      print_cost_row (i == 0 ? title : "", &sc->costs, sc->frame);
    }
}

gboolean
hl_cli_report_print_function (HlAnalysis *analysis,
                              const char *name)
{
  g_autoptr (GPtrArray) found = hl_analysis_find_functions (analysis, name);
  g_autofree char *shown = hl_cli_printable (name);

  if (found->len == 0)
    {
      printf (_("\nfunction %s: not in the selection's stacks\n"), shown);
      return FALSE;
    }
  for (guint i = 0; i < found->len; i++)
    {
      const HlFrame *f = found->pdata[i];
      HlCosts c;
      g_autoptr (GArray) callers = hl_analysis_get_callers (analysis, f, HL_COST_KIND_BYTES);
      g_autoptr (GArray) callees = hl_analysis_get_callees (analysis, f, HL_COST_KIND_BYTES);
      g_autofree char *text = hl_cli_format_frame (f);

      hl_analysis_get_function_costs (analysis, f, &c);
      printf (_("\nfunction %s: callers and callees (the costs of the stacks through each edge):\n"), text);
      /* Translators: column titles of the callers/callees table, as the
       * application's (Allocations, Bytes Allocated, Temporary, Peak, Leaked) */
      printf ("  %-8s %10s  %12s  %10s  %12s  %12s  %s\n", "", _("calls"), _("allocated"), _("temporary"),
              _("at peak"), _("leaked"), _("function"));
      /* Translators: the row of the function itself in the callers/callees table (at most 8 characters) */
      print_cost_row (_("total"), &c, NULL);
      /* Translators: the first row of the callers (callees), at most 8 characters */
      print_neighbours (_("callers"), callers);
      print_neighbours (_("callees"), callees);
    }
  return TRUE;
}

/* ---- Lifetimes ---------------------------------------------------------- */

#define BAR_WIDTH 30

static void
print_histogram (const guint64 *blocks,
                 const guint64 *bytes,
                 const char    *indent)
{
  guint64 most = 0;

  for (guint b = 0; b < HL_LIFETIME_N_BUCKETS; b++)
    most = MAX (most, blocks[b]);
  for (guint b = 0; b < HL_LIFETIME_N_BUCKETS; b++)
    {
      g_autofree char *size = NULL;
      int bar;

      if (blocks[b] == 0)
        continue;
      size = hl_cli_format_size (bytes[b]);
      bar = most > 0 ? (int) ((blocks[b] * BAR_WIDTH + most - 1) / most) : 0;
      const char *label = hl_lifetime_bucket_label (b);
      glong pad = 14 - g_utf8_strlen (label, -1);
      printf ("%s%s%*s %10" PRIu64 "  %12s  ", indent, label, (int) MAX (pad, 0), "", (uint64_t) blocks[b], size);
      for (int i = 0; i < bar; i++)
        fputs ("#", stdout);
      fputs ("\n", stdout);
    }
}

static void
print_site_head (HlRecording           *rec,
                 const HlSiteLifetimes *s)
{
  g_autofree char *size = hl_cli_format_size (s->n_bytes);
  guint n;
  const HlFrame * const *frames = hl_recording_get_stack_frames (rec, s->stack, &n);

  printf (_("  %" PRIu64 " blocks, %s, median lifetime %s%s%s\n"), (uint64_t) s->n_blocks, size,
          hl_lifetime_bucket_label (s->median_bucket), s->short_lived ? _(", short-lived") : "",
          s->growing ? _(", long-lived and growing") : "");
  if (n == 0)
    printf (_("      (stack not recorded)\n"));
  for (guint f = 0; f < n; f++)
    {
      g_autofree char *text = hl_cli_format_frame (frames[f]);
      printf ("      %s %s\n", f == 0 ? C_("stack", "at") : "  ", text);
    }
}

void
hl_cli_report_print_lifetimes (HlAnalysis *analysis,
                               guint       top)
{
  HlRecording *rec = hl_analysis_get_recording (analysis);
  g_autoptr (HlLifetimes) lt = hl_analysis_get_lifetimes (analysis, NULL);
  g_autoptr (GPtrArray) short_lived = NULL, growing = NULL;

  if (lt == NULL)
    {
      printf (_("\nlifetimes: not known (the recording was loaded with its costs only)\n"));
      return;
    }
  const char *clock = hl_recording_get_info (rec, "clock");
  g_autofree char *clock_text = hl_cli_printable (clock != NULL ? clock : "?");
  /* Translators: %s is the trace's clock, e.g. "monotonic-coarse" */
  printf (_("\nlifetimes of the selection's blocks (free time minus allocation time, in the trace's clock: %s):\n"),
          clock_text);
  /* Translators: column titles of a lifetime histogram */
  printf ("    %-14s %10s  %12s\n", _("lifetime"), _("blocks"), _("bytes"));
  print_histogram (lt->blocks, lt->bytes, "    ");

  printf (_("\nlifetimes by call site (most blocks first):\n"));
  if (lt->sites->len == 0)
    printf (_("  (none)\n"));
  for (guint i = 0; i < lt->sites->len && (top == 0 || i < top); i++)
    {
      const HlSiteLifetimes *s = &g_array_index (lt->sites, HlSiteLifetimes, i);
      print_site_head (rec, s);
      print_histogram (s->blocks, s->bytes, "        ");
    }

  short_lived = hl_lifetimes_pick (lt, FALSE, top);
  printf (_("\nshort-lived call sites (half their blocks or more freed within 1 ms: a stack buffer or a pool?):\n"));
  if (short_lived->len == 0)
    printf (_("  (none)\n"));
  for (guint i = 0; i < short_lived->len; i++)
    print_site_head (rec, short_lived->pdata[i]);

  growing = hl_lifetimes_pick (lt, TRUE, top);
  printf (_("\nlong-lived call sites that keep growing (half their blocks alive at the end, live bytes up every quarter):\n"));
  if (growing->len == 0)
    printf (_("  (none)\n"));
  for (guint i = 0; i < growing->len; i++)
    {
      const HlSiteLifetimes *s = growing->pdata[i];
      print_site_head (rec, s);
      printf (_("      live by quarter:"));
      for (guint q = 0; q < HL_LIFETIME_N_QUARTERS; q++)
        {
          g_autofree char *size = hl_cli_format_size (s->live_bytes[q]);
          printf (" %s", size);
        }
      printf ("\n");
    }
}

/* ---- The leak scan at exit ------------------------------------------------- */

static const char *
reach_title (HlReachabilityKind kind)
{
  switch (kind)
    {
    case HL_REACHABILITY_DEFINITELY_LOST: return _("definitely lost");
    case HL_REACHABILITY_INDIRECTLY_LOST: return _("indirectly lost");
    case HL_REACHABILITY_POSSIBLY_LOST:   return _("possibly lost");
    default:                              return _("still reachable");
    }
}

static const HlReachabilityKind reach_order[HL_REACHABILITY_KINDS] = {
  HL_REACHABILITY_DEFINITELY_LOST, HL_REACHABILITY_INDIRECTLY_LOST,
  HL_REACHABILITY_POSSIBLY_LOST, HL_REACHABILITY_STILL_REACHABLE,
};

void
hl_cli_report_print_reachability_summary (HlRecording *rec)
{
  HlReachability r;
  const char *why = hl_recording_get_info (rec, "leak_scan");

  if (!hl_recording_get_reachability (rec, &r))
    {
      if (why != NULL)
        printf (_("    leak scan:       %s\n"), why);
      return;
    }
  for (guint k = 0; k < HL_REACHABILITY_KINDS; k++)
    {
      HlReachabilityKind kind = reach_order[k];
      g_autofree char *size = hl_cli_format_size (r.bytes[kind]);
      g_autofree char *label = g_strdup_printf ("%s:", reach_title (kind));

      printf (_("    %-17s%s in %" PRIu64 " blocks\n"), label, size, (uint64_t) r.blocks[kind]);
    }
  {
    g_autofree char *roots = hl_cli_format_size (r.roots_bytes);

    if (r.on_demand)
      /* Translators: the last leak scan was one asked for while the program ran (top --leak-scan, the
       * app's Scan for Leaks), and the program did not exit cleanly after it */
      printf (_("    leak scan:       %.3f ms, on demand at %.3f s (no scan at a clean exit came after it), %s of "
                "roots and %" PRIu64 " blocks read%s\n"),
              r.scan_ns / 1e6, r.time_ns / 1e9, roots, (uint64_t) r.blocks_scanned,
              r.complete ? "" : _(" (incomplete: blocks unknown to it or memory it could not read)"));
    else
      printf (_("    leak scan:       %.3f ms at exit, %s of roots and %" PRIu64 " blocks read%s\n"), r.scan_ns / 1e6,
              roots, (uint64_t) r.blocks_scanned,
              r.complete ? "" : _(" (incomplete: blocks unknown to it or memory it could not read)"));
  }
}

void
hl_cli_report_print_reachability (HlAnalysis *analysis,
                                  guint       top)
{
  HlRecording *rec = hl_analysis_get_recording (analysis);
  HlReachability r;

  if (!hl_recording_get_reachability (rec, &r))
    return;
  for (guint k = 0; k < HL_REACHABILITY_KINDS; k++)
    {
      HlReachabilityKind kind = reach_order[k];
      g_autoptr (GArray) stacks = hl_analysis_get_reachability_stacks (analysis, kind, top);
      g_autofree char *size = hl_cli_format_size (r.bytes[kind]);

      if (r.on_demand)
        /* Translators: "definitely lost: 104 B in 3 blocks (the leak scan on demand at 2.500 s)" */
        printf (_("\n%s: %s in %" PRIu64 " blocks (the leak scan on demand at %.3f s):\n"), reach_title (kind), size,
                (uint64_t) r.blocks[kind], r.time_ns / 1e9);
      else
        /* Translators: "definitely lost: 104 B in 3 blocks (the leak scan at exit)" */
        printf (_("\n%s: %s in %" PRIu64 " blocks (the leak scan at exit):\n"), reach_title (kind), size,
                (uint64_t) r.blocks[kind]);
      if (stacks->len == 0)
        printf (_("  (none)\n"));
      for (guint i = 0; i < stacks->len; i++)
        {
          const HlReachabilityStack *e = &g_array_index (stacks, HlReachabilityStack, i);
          g_autofree char *bytes = hl_cli_format_size (e->bytes);
          guint n;
          const HlFrame * const *frames = hl_recording_get_stack_frames (rec, e->stack, &n);

          printf (_("  %12s  in %" PRIu64 " blocks\n"), bytes, (uint64_t) e->blocks);
          if (n == 0)
            printf (_("      (stack not recorded)\n"));
          for (guint f = 0; f < n; f++)
            {
              g_autofree char *text = hl_cli_format_frame (frames[f]);
              printf ("      %s %s\n", f == 0 ? C_("stack", "at") : "  ", text);
            }
        }
    }
}

/* ---- Memory beside the heap --------------------------------------------- */

void
hl_cli_report_print_memory_line (HlRecording *rec)
{
  HlMemorySplit m;
  HlMmapTotals t;

  if (hl_recording_get_memory_split (rec, &m))
    {
      g_autofree char *rss = hl_cli_format_size (m.rss_bytes);
      g_autofree char *heap = hl_cli_format_size (m.heap_bytes);
      g_autofree char *over = hl_cli_format_size (m.overhead_bytes);
      g_autofree char *free_b = hl_cli_format_size (m.free_bytes);
      g_autofree char *mmap_b = hl_cli_format_size (m.mmap_bytes);
      g_autofree char *other = hl_cli_format_size (m.other_bytes);
      /* Translators: where the memory the system sees goes, at the
       * highest RSS the allocator was sampled at */
      printf (_("  memory:           RSS %s at %.3f s: heap %s, malloc's overhead %s, free inside malloc's arenas %s "
                "(fragmentation), mmap %s, other %s\n"), rss, m.time_ns / 1e9, heap, over, free_b, mmap_b, other);
      if (m.estimated_samples > 0)
        /* Translators: under the memory line; %.3f s, then %u samples */
        printf (g_dngettext (HL_GETTEXT_PACKAGE,
                             "                    malloc's figures are estimates from %.3f s on (%u sample%s): "
                             "mallinfo2() had become too slow to call while the program ran\n",
                             "                    malloc's figures are estimates from %.3f s on (%u samples%s): "
                             "mallinfo2() had become too slow to call while the program ran\n",
                             m.estimated_samples),
                m.estimated_since_ns / 1e9, m.estimated_samples, m.estimated ? _(", this line's among them") : "");
    }
  hl_recording_get_mmap_totals (rec, &t);
  if (t.calls > 0)
    {
      g_autofree char *live = hl_cli_format_size (t.live_bytes);
      g_autofree char *peak = hl_cli_format_size (t.peak_bytes);
      printf (g_dngettext (HL_GETTEXT_PACKAGE,
                           "  mmap:             %s mapped at the end in %" PRIu64 " region, peak %s at %.3f s, %" PRIu64 " calls\n",
                           "  mmap:             %s mapped at the end in %" PRIu64 " regions, peak %s at %.3f s, %" PRIu64 " calls\n",
                           t.regions),
              live, (uint64_t) t.regions, peak, t.peak_time_ns / 1e9, (uint64_t) t.calls);
    }
}

void
hl_cli_report_print_mmap_sites (HlRecording *rec,
                                guint        top)
{
  g_autoptr (GArray) sites = hl_recording_get_mmap_sites (rec, top);

  if (sites->len == 0)
    return;
  printf (_("\nmmap (the program's own anonymous mappings: mapped at the end, the most at once):\n"));
  for (guint i = 0; i < sites->len; i++)
    {
      const HlMmapSite *ms = &g_array_index (sites, HlMmapSite, i);
      g_autofree char *live = hl_cli_format_size (ms->live_bytes);
      g_autofree char *peak = hl_cli_format_size (ms->peak_bytes);
      guint n;
      const HlFrame * const *frames = hl_recording_get_stack_frames (rec, ms->stack, &n);

      printf (_("  %12s  peak %12s  %" PRIu64 " calls\n"), live, peak, (uint64_t) ms->calls);
      if (n == 0)
        printf (_("      (stack not recorded)\n"));
      for (guint f = 0; f < n; f++)
        {
          g_autofree char *text = hl_cli_format_frame (frames[f]);
          printf ("      %s %s\n", f == 0 ? C_("stack", "at") : "  ", text);
        }
    }
}
