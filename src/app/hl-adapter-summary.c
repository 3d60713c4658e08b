/* hl-adapter-summary.c — the summary page's numbers, chart and top call
 * sites. */
#define _GNU_SOURCE
#include "hl-config.h"

#include <stdlib.h>
#include <string.h>
#include <glib/gi18n.h>

#include "hl-adapter-not-freed.h"
#include "hl-adapter-stack.h"
#include "hl-adapter-summary.h"
#include "hl-cost.h"
#include "hl-site-name.h"
#include "hl-units.h"

#define SUMMARY_TOP 5
/* the threads shown, costliest first; the rest are counted on one line */
#define SUMMARY_THREADS 10

typedef struct
{
  char    *function;
  char    *subtitle;
  guint64  value;
} TopRow;

static void
top_row_clear (TopRow *row)
{
  g_free (row->function);
  g_free (row->subtitle);
}

static int
compare_top_rows (gconstpointer a,
                  gconstpointer b)
{
  guint64 va = ((const TopRow *) a)->value, vb = ((const TopRow *) b)->value;

  return va > vb ? -1 : va < vb ? 1 : 0;
}

/* A top call site's name (hl-site-name.h) in *FUNCTION, and "module ·
 * from caller (file:line)" as its subtitle. */
static char *
describe_site (HlRecording        *recording,
               const HlStackCosts *sc,
               char              **function)
{
  g_autofree char *caller = NULL;

  *function = sc->frame != NULL ? hl_site_name_get (recording, sc->stack, 0, &caller) : NULL;
  if (*function == NULL)
    {
      *function = g_strdup (_("(no stack)"));
      return g_strdup ("");
    }
  if (caller != NULL)
    /* Translators: a call site's module and its caller, e.g. "libfoo.so · from parse_file (reader.c:42)" */
    return g_strdup_printf (_("%s · from %s"), sc->frame->module_name, caller);
  return g_strdup (sc->frame->module_name);
}

/* The costs the call-site table of a live session counts exactly. */
static gboolean
exact_live_kind (HlCostKind kind)
{
  return kind == HL_COST_KIND_BYTES || kind == HL_COST_KIND_ALLOCATIONS || kind == HL_COST_KIND_LEAKED;
}

/* What every card and list of the summary reads. */
typedef struct
{
  HlRecording         *recording;
  HlAnalysis          *analysis;
  const HlAdapterLive *live;
  HlSummary            s;
  HlCosts              t;
  gboolean             filtered;
  gboolean             running;     /* live, and the program still runs */
  /* A live program's totals are the preload's own counters, exact. The
   * recording a live session grows holds the allocations that lived
   * through one of its polls (hl-live-session.c): its sums and its peak
   * are a sample, right for the shares of a selection, not for totals. */
  gboolean             exact_live;
  /* The duration every card is of: a running program's is the moment its
   * counters were read, so that no number is from a later one (issue
   * 27.6); else the recording's. */
  guint64              duration_ns;
} Summary;

static void
summary_init (Summary             *sum,
              HlRecording         *recording,
              HlAnalysis          *analysis,
              const HlAdapterLive *live)
{
  sum->recording = recording;
  sum->analysis = analysis;
  sum->live = live;
  hl_recording_get_summary (recording, &sum->s);
  hl_analysis_get_totals (analysis, &sum->t);
  sum->filtered = !hl_filter_is_empty (hl_analysis_get_filter (analysis));
  sum->running = live != NULL && (live->state == HL_LIVE_STATE_RUNNING || live->state == HL_LIVE_STATE_STARTING);
  sum->exact_live = live != NULL && !sum->filtered;
  sum->duration_ns = sum->running ? MAX (live->time_ns, sum->s.duration_ns) : sum->s.duration_ns;
}

/* A program that ended by a signal, as its launcher wrote it down
 * (`report` says the same): "ended by SIGKILL (signal 9); 2,838 events
 * salvaged, 0 lost". NULL when it did not. */
static char *
death_detail (HlRecording *recording)
{
  const char *sig_text = hl_recording_get_info (recording, "ended_by_signal");
  const char *salvaged = hl_recording_get_info (recording, "salvaged_events");
  const char *lost = hl_recording_get_info (recording, "lost_events");
  guint64 sig, n_salvaged, n_lost;
  g_autofree char *by = NULL;
  if (sig_text == NULL && hl_recording_get_info (recording, "ended_unseen") != NULL)
    /* Translators: the Duration card's detail of a program killed with no launcher watching */
    by = g_strdup (_("ended without an exit (killed?)"));
  else if (sig_text == NULL || !g_ascii_string_to_unsigned (sig_text, 10, 1, 127, &sig, NULL))
    return NULL;
  else
    {
      const char *abbrev = sigabbrev_np ((int) sig);
      /* Translators: the Duration card's detail, e.g. "ended by SIGKILL (signal 9)" */
      by = g_strdup_printf (_("ended by SIG%s (signal %d)"), abbrev != NULL ? abbrev : "?", (int) sig);
    }
  if (salvaged == NULL || lost == NULL || !g_ascii_string_to_unsigned (salvaged, 10, 0, G_MAXUINT64, &n_salvaged, NULL))
    return g_steal_pointer (&by);
  g_autofree char *events = hl_format_count (n_salvaged);
  if (!g_ascii_string_to_unsigned (lost, 10, 0, G_MAXUINT64, &n_lost, NULL))
    /* Translators: after "ended by SIGKILL (signal 9)": the events its launcher saved, none known lost */
    return g_strdup_printf (_("%s; %s events salvaged, lost unknown"), by, events);
  g_autofree char *lost_text = hl_format_count (n_lost);
  /* Translators: after "ended by SIGKILL (signal 9)": the events its
   * launcher saved, and an upper bound of those lost */
  return g_strdup_printf (_("%s; %s events salvaged, at most %s lost"), by, events, lost_text);
}

/* A trace cut by a full disk (the preload's or record's record of it,
 * issue 26 point 12), as `report` says it: "trace cut at 1.2 s by a full
 * disk: numbers up to 1.2 s". NULL when it was not cut. */
static char *
trace_cut_detail (HlRecording *recording)
{
  const char *at = hl_recording_get_info (recording, "trace_cut_ns");
  const char *reason = hl_recording_get_info (recording, "trace_cut_reason");
  const char *cause;
  guint64 t;
  g_autofree char *when = NULL;

  if (at == NULL || !g_ascii_string_to_unsigned (at, 10, 0, G_MAXUINT64, &t, NULL))
    return NULL;
  /* Translators: what cut a trace short, in "trace cut at 1.2 s by a full disk" */
  if (g_strcmp0 (reason, "ENOSPC") == 0)
    cause = _("a full disk");
  else if (g_strcmp0 (reason, "EFBIG") == 0)
    cause = _("the file size limit");
  else if (g_strcmp0 (reason, "EDQUOT") == 0)
    cause = _("a disk quota");
  else
    cause = _("a write error");
  when = hl_format_time (t);
  /* Translators: the Duration card's detail of a trace cut short, e.g.
   * "trace cut at 1.2 s by a full disk: numbers up to 1.2 s" */
  return g_strdup_printf (_("trace cut at %s by %s: numbers up to %s"), when, cause, when);
}

static void
fill_duration (HlSummaryView *view,
               const Summary *sum)
{
  const HlFilter *filter = hl_analysis_get_filter (sum->analysis);
  g_autofree char *duration = hl_format_duration (sum->duration_ns);
  const char *detail;
  g_autofree char *death = NULL;
  g_autofree char *cut = NULL;

  /* a time range: its own length, of the whole */
  if (hl_filter_has_time_range (filter))
    {
      guint64 start, end;
      g_autofree char *range = NULL, *of = NULL;

      hl_filter_get_time_range (filter, &start, &end);
      end = MIN (end, sum->duration_ns);
      range = hl_format_duration (end > start ? end - start : 0);
      /* Translators: the Duration card's detail for a time range, e.g. "selected, of 12.5 s" */
      of = g_strdup_printf (_("selected, of %s"), duration);
      hl_summary_view_set_stat (view, "duration", _("Duration"), range, of);
      return;
    }

  /* A trace cut by a full disk: its numbers stop there */
  if (sum->live == NULL && (cut = trace_cut_detail (sum->recording)) != NULL)
    {
      hl_summary_view_set_stat (view, "duration", _("Duration"), duration, cut);
      return;
    }

  /* A program still running has not exited yet, normally or not; what
   * it has not freed yet is not a leak yet. A live session whose trace
   * could not be opened keeps what was read until its program ended. */
  if (sum->running)
    detail = _("still running");
  else if ((death = death_detail (sum->recording)) != NULL)
    detail = death;
  else if (sum->live != NULL && sum->live->state == HL_LIVE_STATE_ENDED)
    detail = NULL;
  else if (sum->live != NULL)
    detail = _("the program vanished (killed?)");
  else
    detail = sum->s.has_exit_status ? NULL : _("did not exit normally");
  hl_summary_view_set_stat (view, "duration", _("Duration"), duration, detail);
}

/* VALUE (taken) as the card shows it: "≈ VALUE" when the recording was
 * sampled and the number is an estimate (hl-sample-weight.h). */
static char *
estimated (const Summary *sum,
           char          *value)
{
  char *shown;

  if (sum->exact_live || sum->recording == NULL || hl_recording_get_sample_bytes (sum->recording) == 0)
    return value;
  /* Translators: an estimated number on a summary card, e.g. "≈ 1.2 MiB" */
  shown = g_strdup_printf (_("≈ %s"), value);
  g_free (value);
  return shown;
}

static void
fill_calls (HlSummaryView *view,
            const Summary *sum)
{
  guint64 n_calls = sum->exact_live ? sum->live->totals.n_allocs : sum->t.allocations;
  guint64 n_bytes = sum->exact_live ? sum->live->totals.bytes_allocated : sum->t.bytes;
  g_autofree char *calls = estimated (sum, hl_format_count (n_calls));
  g_autofree char *bytes = estimated (sum, hl_format_size (n_bytes));
  g_autofree char *frees = g_strdup_printf (sum->filtered ? _("%s allocated in the selection") : _("%s allocated"),
                                            bytes);

  hl_summary_view_set_stat (view, "calls", _("Allocations"), calls, frees);
}

static void
fill_peak (HlSummaryView *view,
           const Summary *sum)
{
  guint64 peak_bytes = sum->exact_live ? sum->live->totals.peak_heap_bytes : sum->t.peak_bytes;
  /* never after the duration shown beside it */
  guint64 peak_ns = MIN (sum->exact_live ? sum->live->totals.peak_heap_time_ns
                                         : hl_analysis_get_peak_time_ns (sum->analysis),
                         sum->duration_ns);
  guint64 peak_rss = sum->live != NULL ? MAX (sum->live->totals.peak_rss_bytes, sum->s.peak_rss_bytes)
                                       : sum->s.peak_rss_bytes;
  g_autofree char *peak = estimated (sum, hl_format_size (peak_bytes));
  g_autofree char *peak_time = hl_format_time (peak_ns);
  g_autofree char *peak_at = NULL;
  g_autofree char *rss = NULL;

  /* Translators: when the heap peak happened, e.g. "at 1.5 s"; with a
   * selection, the peak of the selected allocations */
  peak_at = g_strdup_printf (sum->filtered ? _("at %s, of the selected allocations") : _("at %s"), peak_time);
  hl_summary_view_set_stat (view, "peak", _("Peak Heap"), peak, peak_at);
  rss = peak_rss > 0 ? hl_format_size (peak_rss) : g_strdup (_("not sampled"));
  hl_summary_view_set_stat (view, "rss", _("Peak RSS"), rss, NULL);
}

/* Where the memory the system sees goes, at the highest RSS the
 * allocator was sampled at (hl_recording_get_memory_split): hidden for a
 * live session and a recording without allocator samples. */
static void
fill_memory (HlSummaryView *view,
             const Summary *sum)
{
  HlMemorySplit m;

  if (sum->live != NULL || !hl_recording_get_memory_split (sum->recording, &m))
    {
      hl_summary_view_set_memory (view, NULL);
      return;
    }
  g_autofree char *rss = hl_format_size (m.rss_bytes);
  g_autofree char *at = hl_format_time (m.time_ns);
  g_autofree char *heap = hl_format_size (m.heap_bytes);
  g_autofree char *over = hl_format_size (m.overhead_bytes);
  g_autofree char *free_b = hl_format_size (m.free_bytes);
  g_autofree char *mmap_b = hl_format_size (m.mmap_bytes);
  g_autofree char *other = hl_format_size (m.other_bytes);
  /* Translators: the RSS at its highest allocator sample split into its
   * parts, e.g. "RSS 412 MiB at 3.2 s: heap 300 MiB, malloc's overhead
   * 4 MiB, free inside malloc's arenas 80 MiB (fragmentation), mmap
   * 20 MiB, other 8 MiB" */
  g_autofree char *sentence = g_strdup_printf (_("RSS %s at %s: heap %s, malloc's overhead %s, free inside malloc's "
                                                 "arenas %s (fragmentation), mmap %s, other %s"),
                                               rss, at, heap, over, free_b, mmap_b, other);
  if (m.estimated)
    {
      /* Translators: after the RSS sentence when malloc's figures in it
       * are estimates (mallinfo2() was too slow to call on that heap) */
      g_autofree char *with = g_strdup_printf (_("%s (malloc's figures estimated: mallinfo2() had become too slow "
                                                 "to call)"), sentence);
      hl_summary_view_set_memory (view, with);
      return;
    }
  hl_summary_view_set_memory (view, sentence);
}

static void
fill_not_freed (HlSummaryView *view,
                const Summary *sum,
                const char    *title)
{
  const HlLiveTotals *lt = sum->exact_live ? &sum->live->totals : NULL;
  guint64 open_bytes = lt != NULL ? lt->heap_bytes : sum->t.leaked_bytes;
  guint64 open_blocks = lt != NULL ? (lt->n_allocs > lt->n_frees ? lt->n_allocs - lt->n_frees : 0)
                                   : sum->t.leaked_blocks;
  g_autofree char *leaked = estimated (sum, hl_format_size (open_bytes));
  g_autofree char *blocks = estimated (sum, hl_format_count (open_blocks));
  /* Translators: number of leaked blocks, e.g. "in 57 blocks" */
  g_autofree char *detail = g_strdup_printf (_("in %s blocks"), blocks);
  HlReachability r;

  /* the whole run's leaks split by the preload's leak scan at exit */
  if (lt == NULL && !sum->filtered && sum->recording != NULL && hl_recording_get_reachability (sum->recording, &r))
    {
      g_autofree char *lost = hl_format_size (r.bytes[HL_REACHABILITY_DEFINITELY_LOST]);
      g_autofree char *still = hl_format_size (r.bytes[HL_REACHABILITY_STILL_REACHABLE]);

      g_free (detail);
      /* Translators: the Leaked card's detail when the trace has the leak
       * scan at exit (Valgrind's kinds), e.g. "in 57 blocks: definitely
       * lost 1.2 KiB · still reachable 4.0 KiB" */
      detail = g_strdup_printf (_("in %s blocks: definitely lost %s · still reachable %s"), blocks, lost, still);
    }
  /* a running program's last leak scan on demand (Scan for Leaks) */
  else if (lt != NULL && sum->live->leak_scan.n_scans > 0 && sum->live->leak_scan.status == HL_LIVE_LEAK_SCAN_DONE)
    {
      const HlLiveLeakScan *l = &sum->live->leak_scan;
      g_autofree char *lost = hl_format_size (l->bytes[HL_REACHABILITY_DEFINITELY_LOST]);
      g_autofree char *still = hl_format_size (l->bytes[HL_REACHABILITY_STILL_REACHABLE]);
      g_autofree char *at = hl_format_time (l->time_ns);

      g_free (detail);
      /* Translators: the Leaked card's detail while the program runs, after a leak scan on demand at
       * a time, e.g. "in 57 blocks; at the scan at 2.5 s: definitely lost 1.2 KiB · still reachable 4.0 KiB" */
      detail = g_strdup_printf (_("in %s blocks; at the scan at %s: definitely lost %s · still reachable %s"), blocks,
                                at, lost, still);
    }
  hl_summary_view_set_stat (view, "leaked", title, leaked, detail);
}

static void
fill_temporary (HlSummaryView *view,
                const Summary *sum)
{
  g_autofree char *temporary = NULL, *pct = NULL, *detail = NULL;

  /* Live, an allocation freed between two polls is never seen: temporary
   * allocations are counted from the trace once the program ends. */
  if (sum->live != NULL)
    {
      hl_summary_view_set_stat (view, "temporary", _("Temporary"), "—",
                                sum->running ? _("counted when the program ends") : _("counted from the trace only"));
      return;
    }
  temporary = estimated (sum, hl_format_count (sum->t.temporary));
  pct = hl_format_percentage (sum->t.temporary, sum->t.allocations);
  /* Translators: share of allocations that were temporary, e.g. "12.5 % of allocations" */
  detail = g_strdup_printf (_("%s of allocations"), pct);
  hl_summary_view_set_stat (view, "temporary", _("Temporary"), temporary, detail);
}

static void
fill_dropped (HlSummaryView *view,
              const Summary *sum)
{
  guint64 n_dropped = sum->live != NULL ? MAX (sum->live->totals.dropped, sum->s.dropped_events)
                                        : sum->s.dropped_events;
  g_autofree char *dropped = hl_format_count (n_dropped);

  hl_summary_view_set_stat (view, "dropped", _("Dropped Events"), dropped,
                            n_dropped > 0 ? _("the counts are lower bounds") : NULL);
}

/* Stacks that look the same to a person (same function, same caller,
 * different addresses deeper down) are one row: TOP's stacks merged,
 * largest first. */
static GArray *
merge_top_rows (HlRecording *recording,
                GArray      *top,
                HlCostKind   kind)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (TopRow));

  g_array_set_clear_func (rows, (GDestroyNotify) top_row_clear);
  for (guint i = 0; top != NULL && i < top->len; i++)
    {
      const HlStackCosts *sc = &g_array_index (top, HlStackCosts, i);
      g_autofree char *function = NULL;
      g_autofree char *subtitle = describe_site (recording, sc, &function);
      guint64 value = hl_costs_get (&sc->costs, kind);
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
          TopRow row = { g_steal_pointer (&function), g_steal_pointer (&subtitle), value };
          g_array_append_val (rows, row);
        }
    }
  g_array_sort (rows, compare_top_rows);
  return rows;
}

/* The list of the call sites that cost the most KIND (TITLE: NULL for the
 * cost's own). */
static void
fill_top_list (HlSummaryView *view,
               const Summary *sum,
               HlCostKind     kind,
               const char    *title)
{
  const HlAdapterLive *live = sum->live;
  g_autoptr(GArray) top = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GPtrArray) functions = g_ptr_array_new ();
  g_autoptr(GPtrArray) subtitles = g_ptr_array_new ();
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);

  /* Live, the call-site table counts every call, bytes and what is not
   * freed yet per stack; the recording has a sample of them. The peak's
   * share and temporaries are not in the table. More stacks than shown
   * are taken: they merge into rows. */
  if (sum->exact_live && live->stack_costs != NULL && exact_live_kind (kind))
    top = hl_analysis_get_top_stacks_by (sum->analysis, live->stack_costs, live->n_stacks, kind, SUMMARY_TOP * 5);
  else
    top = hl_analysis_get_top_stacks (sum->analysis, kind, SUMMARY_TOP * 5);
  rows = merge_top_rows (sum->recording, top, kind);
  for (guint i = 0; i < rows->len && i < SUMMARY_TOP; i++)
    {
      TopRow *row = &g_array_index (rows, TopRow, i);
      g_ptr_array_add (functions, row->function);
      g_ptr_array_add (subtitles, row->subtitle);
      g_ptr_array_add (values, hl_cost_format (kind, row->value));
    }
  hl_summary_view_set_top (view, kind, title != NULL ? title : hl_cost_get_top_title (kind), functions->len,
                           (const char * const *) functions->pdata, (const char * const *) subtitles->pdata,
                           (const char * const *) values->pdata);
}

/* The selection's threads by the bytes they allocated (issue 30 point
 * 5). Not while live: the growing recording holds a sample of the calls
 * (see Summary), and only the totals are exact then. */
static void
fill_threads (HlSummaryView *view,
              const Summary *sum,
              const char    *not_freed_title)
{
  g_autoptr(GArray) threads = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GPtrArray) texts = NULL;
  g_autofree char *more = NULL;
  guint n;

  if (sum->live != NULL || sum->analysis == NULL)
    {
      hl_summary_view_set_threads (view, NULL, 0, NULL, NULL);
      return;
    }
  threads = hl_analysis_get_thread_costs (sum->analysis);
  n = MIN (threads->len, SUMMARY_THREADS);
  rows = g_array_sized_new (FALSE, TRUE, sizeof (HlSummaryThreadRow), n);
  texts = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      const HlThreadCosts *tc = &g_array_index (threads, HlThreadCosts, i);
      HlSummaryThreadRow row = { .tid = tc->tid };

      /* Translators: a thread in the summary's table, e.g. "worker (4243)" */
      row.thread = tc->name != NULL && tc->name[0] != '\0' ? g_strdup_printf (_("%s (%u)"), tc->name, tc->tid)
                                                            : g_strdup_printf (_("Thread %u"), tc->tid);
      row.calls = estimated (sum, hl_format_count (tc->costs.allocations));
      row.allocated = estimated (sum, hl_format_size (tc->costs.bytes));
      row.at_peak = estimated (sum, hl_format_size (tc->costs.peak_bytes));
      row.not_freed = estimated (sum, hl_format_size (tc->costs.leaked_bytes));
      g_ptr_array_add (texts, (char *) row.thread);
      g_ptr_array_add (texts, (char *) row.calls);
      g_ptr_array_add (texts, (char *) row.allocated);
      g_ptr_array_add (texts, (char *) row.at_peak);
      g_ptr_array_add (texts, (char *) row.not_freed);
      g_array_append_val (rows, row);
    }
  if (threads->len > n)
    {
      guint64 rest = 0;

      for (guint i = n; i < threads->len; i++)
        rest += g_array_index (threads, HlThreadCosts, i).costs.bytes;
      g_autofree char *bytes = estimated (sum, hl_format_size (rest));
      /* Translators: below the summary's table of threads; the filter
       * menu's Threads section lists every one */
      more = g_strdup_printf (ngettext ("%u more thread allocated %s (Filter → Threads)",
                                           "%u more threads allocated %s (Filter → Threads)", threads->len - n),
                              threads->len - n, bytes);
    }
  /* a single thread's row would repeat the cards */
  if (threads->len < 2)
    n = 0;
  hl_summary_view_set_threads (view, not_freed_title, n, (const HlSummaryThreadRow *) rows->data, more);
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
  HlNotFreedTitles titles;
  Summary sum;

  summary_init (&sum, recording, analysis, live);
  hl_adapter_not_freed_titles (analysis, sum.s.duration_ns, live != NULL ? &live->state : NULL, &titles);
  fill_duration (view, &sum);
  fill_calls (view, &sum);
  fill_peak (view, &sum);
  fill_memory (view, &sum);
  fill_not_freed (view, &sum, titles.card);
  fill_temporary (view, &sum);
  fill_dropped (view, &sum);
  for (guint k = 0; k < G_N_ELEMENTS (top_kinds); k++)
    fill_top_list (view, &sum, top_kinds[k],
                   top_kinds[k] == HL_COST_KIND_LEAKED ? titles.most : NULL);
  fill_threads (view, &sum, titles.column);
  hl_not_freed_titles_clear (&titles);
}
