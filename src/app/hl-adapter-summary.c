/* hl-adapter-summary.c — the summary page's numbers, chart and top call
 * sites. */
#include "hl-config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "hl-adapter-stack.h"
#include "hl-adapter-summary.h"
#include "hl-cost.h"
#include "hl-units.h"

#define SUMMARY_TOP 5

typedef struct
{
  const char *function;  /* borrowed from the recording */
  char       *subtitle;
  guint64     value;
} TopRow;

static void
top_row_clear (TopRow *row)
{
  g_free (row->subtitle);
}

static int
compare_top_rows (gconstpointer a,
                  gconstpointer b)
{
  guint64 va = ((const TopRow *) a)->value, vb = ((const TopRow *) b)->value;

  return va > vb ? -1 : va < vb ? 1 : 0;
}

/* "module · from caller" for a top call site. */
static char *
describe_caller (HlRecording        *recording,
                 const HlStackCosts *sc)
{
  const char *caller;

  if (sc->frame == NULL)
    return g_strdup ("");
  caller = hl_adapter_caller (recording, sc->stack, sc->frame);
  if (caller != NULL)
    /* Translators: a call site's module and its caller, e.g. "libfoo.so · from parse_file" */
    return g_strdup_printf (_("%s · from %s"), sc->frame->module_name, caller);
  return g_strdup (sc->frame->module_name);
}

/* The costs the call-site table of a live session counts exactly. */
static gboolean
exact_live_kind (HlCostKind kind)
{
  return kind == HL_COST_KIND_BYTES || kind == HL_COST_KIND_ALLOCATIONS || kind == HL_COST_KIND_LEAKED;
}

void
hl_adapter_fill_summary (HlSummaryView       *view,
                         HlRecording         *recording,
                         HlAnalysis          *analysis,
                         const HlAdapterLive *live)
{
  static const HlCostKind top_kinds[] = {
    HL_COST_KIND_BYTES, HL_COST_KIND_PEAK, HL_COST_KIND_ALLOCATIONS,
    HL_COST_KIND_TEMPORARY, HL_COST_KIND_LEAKED,
  };
  HlSummary s;
  HlCosts t;
  gboolean filtered = !hl_filter_is_empty (hl_analysis_get_filter (analysis));
  gboolean running = live != NULL
                     && (live->state == HL_LIVE_STATE_RUNNING || live->state == HL_LIVE_STATE_STARTING);
  gboolean exact_live;
  const char *duration_detail;
  const char *not_freed_title = _("Leaked"), *most_not_freed_title = NULL;
  guint64 n_calls, n_bytes, peak_bytes, peak_ns, open_bytes, open_blocks, peak_rss, n_dropped;
  g_autofree char *duration = NULL, *calls = NULL, *frees = NULL, *peak = NULL, *peak_at = NULL;
  g_autofree char *peak_time = NULL, *rss = NULL, *leaked = NULL, *blocks = NULL, *temporary = NULL;
  g_autofree char *temp_pct = NULL, *temp_detail = NULL, *dropped = NULL, *bytes = NULL;
  g_autofree char *leaked_detail = NULL, *range_title = NULL, *range_most_title = NULL;

  hl_recording_get_summary (recording, &s);
  hl_analysis_get_totals (analysis, &t);

  /* A live program's totals are the preload's own counters, exact. The
   * recording a live session grows holds the allocations that lived
   * through one of its polls (hl-live-session.c): its sums and its peak
   * are a sample, right for the shares of a selection, not for totals. */
  exact_live = live != NULL && !filtered;
  n_calls = exact_live ? live->totals.n_allocs : t.allocations;
  n_bytes = exact_live ? live->totals.bytes_allocated : t.bytes;
  peak_bytes = exact_live ? live->totals.peak_heap_bytes : t.peak_bytes;
  peak_ns = exact_live ? live->totals.peak_heap_time_ns : hl_analysis_get_peak_time_ns (analysis);
  open_bytes = exact_live ? live->totals.heap_bytes : t.leaked_bytes;
  open_blocks = exact_live ? (live->totals.n_allocs > live->totals.n_frees
                              ? live->totals.n_allocs - live->totals.n_frees : 0)
                           : t.leaked_blocks;
  peak_rss = live != NULL ? MAX (live->totals.peak_rss_bytes, s.peak_rss_bytes) : s.peak_rss_bytes;

  duration = hl_format_duration (s.duration_ns);
  /* A program still running has not exited yet, normally or not; what
   * it has not freed yet is not a leak yet. A live session whose trace
   * could not be opened keeps what was read until its program ended. */
  if (running)
    duration_detail = _("still running");
  else if (live != NULL && live->state == HL_LIVE_STATE_ENDED)
    duration_detail = NULL;
  else if (live != NULL)
    duration_detail = _("the program vanished (killed?)");
  else
    duration_detail = s.has_exit_status ? NULL : _("did not exit normally");
  hl_summary_view_set_stat (view, "duration", _("Duration"), duration, duration_detail);
  /* a leak is what a program that exited did not free */
  if (running)
    {
      not_freed_title = _("Not Freed Yet");
      most_not_freed_title = _("Most Not Freed Yet");
    }
  else if (live != NULL && live->state != HL_LIVE_STATE_ENDED)
    {
      not_freed_title = _("Not Freed");
      most_not_freed_title = _("Most Not Freed");
    }
  else if (hl_filter_has_time_range (hl_analysis_get_filter (analysis)))
    {
      /* a range that ends before the recording: what its allocations had
       * not freed by its end, not what leaked */
      guint64 t0, t1;
      hl_filter_get_time_range (hl_analysis_get_filter (analysis), &t0, &t1);
      if (t1 < s.duration_ns)
        {
          g_autofree char *end = hl_format_time (t1);
          /* Translators: a summary card's title, e.g. "Not Freed by 4.6 s" */
          range_title = g_strdup_printf (_("Not Freed by %s"), end);
          /* Translators: the title of a list of call sites, e.g. "Most Not Freed by 4.6 s" */
          range_most_title = g_strdup_printf (_("Most Not Freed by %s"), end);
          not_freed_title = range_title;
          most_not_freed_title = range_most_title;
        }
    }

  calls = hl_format_count (n_calls);
  bytes = hl_format_size (n_bytes);
  frees = g_strdup_printf (filtered ? _("%s allocated in the selection") : _("%s allocated"), bytes);
  hl_summary_view_set_stat (view, "calls", _("Allocations"), calls, frees);

  peak = hl_format_size (peak_bytes);
  peak_time = hl_format_time (peak_ns);
  /* Translators: when the heap peak happened, e.g. "at 1.5 s"; with a
   * selection, the peak of the selected allocations */
  peak_at = g_strdup_printf (filtered ? _("at %s, of the selected allocations") : _("at %s"), peak_time);
  hl_summary_view_set_stat (view, "peak", _("Peak Heap"), peak, peak_at);

  rss = peak_rss > 0 ? hl_format_size (peak_rss) : g_strdup (_("not sampled"));
  hl_summary_view_set_stat (view, "rss", _("Peak RSS"), rss, NULL);

  leaked = hl_format_size (open_bytes);
  blocks = hl_format_count (open_blocks);
  /* Translators: number of leaked blocks, e.g. "in 57 blocks" */
  leaked_detail = g_strdup_printf (_("in %s blocks"), blocks);
  hl_summary_view_set_stat (view, "leaked", not_freed_title, leaked, leaked_detail);

  /* Live, an allocation freed between two polls is never seen: temporary
   * allocations are counted from the trace once the program ends. */
  if (live != NULL)
    hl_summary_view_set_stat (view, "temporary", _("Temporary"), "—",
                              running ? _("counted when the program ends") : _("counted from the trace only"));
  else
    {
      temporary = hl_format_count (t.temporary);
      temp_pct = hl_format_percentage (t.temporary, t.allocations);
      /* Translators: share of allocations that were temporary, e.g. "12.5 % of allocations" */
      temp_detail = g_strdup_printf (_("%s of allocations"), temp_pct);
      hl_summary_view_set_stat (view, "temporary", _("Temporary"), temporary, temp_detail);
    }

  n_dropped = live != NULL ? MAX (live->totals.dropped, s.dropped_events) : s.dropped_events;
  dropped = hl_format_count (n_dropped);
  hl_summary_view_set_stat (view, "dropped", _("Dropped Events"), dropped,
                            n_dropped > 0 ? _("the counts are lower bounds") : NULL);

  for (guint k = 0; k < G_N_ELEMENTS (top_kinds); k++)
    {
      /* Stacks that look the same to a person (same function, same caller,
       * different addresses deeper down) are one row: take more stacks
       * than shown and merge them. */
      g_autoptr(GArray) top = NULL;
      g_autoptr(GArray) rows = g_array_new (FALSE, TRUE, sizeof (TopRow));
      g_autoptr(GPtrArray) functions = g_ptr_array_new ();
      g_autoptr(GPtrArray) subtitles = g_ptr_array_new ();
      g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);

      /* Live, the call-site table counts every call, bytes and what is
       * not freed yet per stack; the recording has a sample of them. The
       * peak's share and temporaries are not in the table. */
      if (exact_live && live->stack_costs != NULL && exact_live_kind (top_kinds[k]))
        top = hl_analysis_get_top_stacks_by (analysis, live->stack_costs, live->n_stacks, top_kinds[k],
                                             SUMMARY_TOP * 5);
      else
        top = hl_analysis_get_top_stacks (analysis, top_kinds[k], SUMMARY_TOP * 5);
      g_array_set_clear_func (rows, (GDestroyNotify) top_row_clear);
      for (guint i = 0; top != NULL && i < top->len; i++)
        {
          const HlStackCosts *sc = &g_array_index (top, HlStackCosts, i);
          const char *function = sc->frame ? sc->frame->function : _("(no stack)");
          g_autofree char *subtitle = describe_caller (recording, sc);
          guint64 value = hl_costs_get (&sc->costs, top_kinds[k]);
          guint r;

          for (r = 0; r < rows->len; r++)
            {
              TopRow *row = &g_array_index (rows, TopRow, r);
              if (g_str_equal (row->function, function) && g_str_equal (row->subtitle, subtitle))
                {
                  row->value += value;
                  break;
                }
            }
          if (r == rows->len)
            {
              TopRow row = { function, g_steal_pointer (&subtitle), value };
              g_array_append_val (rows, row);
            }
        }
      g_array_sort (rows, compare_top_rows);
      for (guint i = 0; i < rows->len && i < SUMMARY_TOP; i++)
        {
          TopRow *row = &g_array_index (rows, TopRow, i);
          g_ptr_array_add (functions, (gpointer) row->function);
          g_ptr_array_add (subtitles, row->subtitle);
          g_ptr_array_add (values, hl_cost_format (top_kinds[k], row->value));
        }
      hl_summary_view_set_top (view, top_kinds[k],
                               top_kinds[k] == HL_COST_KIND_LEAKED && most_not_freed_title != NULL
                               ? most_not_freed_title : hl_cost_get_top_title (top_kinds[k]),
                               functions->len,
                               (const char * const *) functions->pdata,
                               (const char * const *) subtitles->pdata,
                               (const char * const *) values->pdata);
    }
}
