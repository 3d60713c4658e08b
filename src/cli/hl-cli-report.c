/* hl-cli-report.c — `heaplens-cli report FILE`: the summary of a recording
 * and its top call sites per cost, as text or JSON (keys in docs/cli.md). */
#define _GNU_SOURCE
#include "hl-config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"
#include "hl-cli-report-sections.h"
#include "hl-cli-trace-cut.h"

static const char *
cost_title (HlCostKind kind)
{
  switch (kind)
    {
    case HL_COST_KIND_ALLOCATIONS: return _("most calls to allocation functions");
    case HL_COST_KIND_BYTES:       return _("most bytes allocated");
    case HL_COST_KIND_TEMPORARY:   return _("most temporary allocations");
    case HL_COST_KIND_PEAK:        return _("largest contributions to the heap peak");
    case HL_COST_KIND_LEAKED:      return _("most memory leaked");
    case HL_COST_KIND_LIVE:        return _("most memory live at the end of the range");
    case HL_COST_KIND_MMAP:        return _("most memory the program's own mappings still hold");
    case HL_N_COST_KINDS:
    default:                       return "";
    }
}

/* A duration in its unit: "10 ms", "1.5 s", "250 µs", "0 ns". */
static char *
format_duration (guint64 ns)
{
  static const struct { guint64 scale; const char *unit; } units[] = {
    { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "µs" }, { 1, "ns" },
  };
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  guint u = 0;

  while (u + 1 < G_N_ELEMENTS (units) && ns < units[u].scale)
    u++;
  /* the C locale's decimal point, as every number of the report */
  g_ascii_formatd (num, sizeof num, "%g", (double) ns / (double) units[u].scale);
  return g_strdup_printf ("%s %s", num, units[u].unit);
}

/* The end of FILTER's time range when it ends before the recording (its
 * allocations' "leaked" is then what they had not freed by that time);
 * G_MAXUINT64 otherwise. */
static guint64
range_end_before_exit (const HlFilter *filter,
                       const HlSummary *s)
{
  guint64 t0, t1;

  if (!hl_filter_has_time_range (filter))
    return G_MAXUINT64;
  hl_filter_get_time_range (filter, &t0, &t1);
  return t1 < s->duration_ns ? t1 : G_MAXUINT64;
}

static void
print_costs_line (const HlCosts *c,
                  guint64        not_freed_by)
{
  g_autofree char *bytes = hl_cli_format_size (c->bytes);
  g_autofree char *peak = hl_cli_format_size (c->peak_bytes);
  g_autofree char *leaked = hl_cli_format_size (c->leaked_bytes);

  if (not_freed_by != G_MAXUINT64)
    printf (_("%" PRIu64 " calls, %s allocated, %" PRIu64 " temporary, %s at peak, %s not freed by %.3f s\n"),
            (uint64_t) c->allocations, bytes, (uint64_t) c->temporary, peak, leaked, not_freed_by / 1e9);
  else
    printf (_("%" PRIu64 " calls, %s allocated, %" PRIu64 " temporary, %s at peak, %s leaked\n"),
            (uint64_t) c->allocations, bytes, (uint64_t) c->temporary, peak, leaked);
}

/* The marks the program set (heaplens_mark, and the preload's own: an
 * exec, a program started without the preload), as reference points for
 * --from/--to; the first MAX_MARKS, the text made printable. */
#define MAX_MARKS 20

/* The summary's label column: LABEL padded to LABEL_WIDTH characters (not
 * bytes: a translated label may hold multibyte letters). */
#define LABEL_WIDTH 18

static void
print_label (const char *label)
{
  glong n = g_utf8_strlen (label, -1);
  printf ("  %s%*s", label, (int) MAX (LABEL_WIDTH - n, 0), "");
}

static void
print_marks (HlRecording *rec)
{
  guint n;
  const HlMark *marks = hl_recording_get_marks (rec, &n);
  guint shown = MIN (n, MAX_MARKS);
  int width = 0;
  for (guint i = 0; i < shown; i++)
    width = MAX (width, g_snprintf (NULL, 0, "%.3f", marks[i].time_ns / 1e9));
  for (guint i = 0; i < shown; i++)
    {
      g_autofree char *text = hl_cli_printable (marks[i].text);
      /* Translators: the label of the list of marks, in the column of
       * the labels above it ("threads:") */
      print_label (i == 0 ? _("marks:") : "");
      printf ("%*.3f s  %s\n", width, marks[i].time_ns / 1e9, text);
    }
  if (n > shown)
    printf (ngettext ("                    and %u more mark (heaplens-cli dump lists them all)\n",
                      "                    and %u more marks (heaplens-cli dump lists them all)\n", n - shown),
            n - shown);
}

/* The metadata the program set (heaplens_metadata_set_*), a line a key:
 * its first MAX_VALUES distinct values in the order they were set, and how
 * many there were; the values --where KEY=VALUE takes. */
#define MAX_VALUES 5

/* A metadata key's distinct values: how many, and the first ones. */
typedef struct
{
  GHashTable *seen;                 /* value -> itself */
  const char *first[MAX_VALUES];
} KeyValues;

static void
key_values_free (KeyValues *kv)
{
  g_hash_table_unref (kv->seen);
  g_free (kv);
}

static void
print_metadata (HlRecording *rec)
{
  guint n;
  const HlMetaInterval *iv = hl_recording_get_metadata_intervals (rec, &n);
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  g_autoptr (GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                         (GDestroyNotify) key_values_free);

  /* keys in the order they were first set; each key's distinct values */
  for (guint i = 0; i < n; i++)
    {
      KeyValues *kv = g_hash_table_lookup (values, iv[i].key);
      if (kv == NULL)
        {
          kv = g_new0 (KeyValues, 1);
          kv->seen = g_hash_table_new (g_str_hash, g_str_equal);
          g_hash_table_insert (values, (gpointer) iv[i].key, kv);
          g_ptr_array_add (keys, (gpointer) iv[i].key);
        }
      guint count = g_hash_table_size (kv->seen);
      if (g_hash_table_add (kv->seen, (gpointer) iv[i].value) && count < MAX_VALUES)
        kv->first[count] = iv[i].value;
    }
  for (guint k = 0; k < keys->len; k++)
    {
      const KeyValues *kv = g_hash_table_lookup (values, keys->pdata[k]);
      guint count = g_hash_table_size (kv->seen);
      g_autoptr (GString) line = g_string_new (NULL);
      g_autofree char *key = hl_cli_printable (keys->pdata[k]);
      for (guint v = 0; v < count && v < MAX_VALUES; v++)
        {
          g_autofree char *value = hl_cli_printable (kv->first[v]);
          g_string_append_printf (line, "%s%s", v ? ", " : "", value);
        }
      if (count > MAX_VALUES)
        /* Translators: after the first values of a metadata key, e.g. "0, 1, 2, 3, 4, … (240 values)" */
        g_string_append_printf (line, _(", … (%u values)"), count);
      /* Translators: the label of the metadata lines, in the column of
       * the labels above it ("threads:") */
      print_label (k == 0 ? _("metadata:") : "");
      printf ("%s: %s\n", key, line->str);
    }
}

/* A program that ended by a signal: which (record writes it down), and
 * after a death without END (SIGKILL, the OOM killer) how many of the
 * events it left buffered record salvaged, and how many were lost (a
 * bound). */
static void
print_death (HlRecording *rec)
{
  const char *sig_text = hl_recording_get_info (rec, "ended_by_signal");
  const char *salvaged = hl_recording_get_info (rec, "salvaged_events");
  const char *lost = hl_recording_get_info (rec, "lost_events");
  if (sig_text == NULL && hl_recording_get_info (rec, "ended_unseen") != NULL)
    {
      /* a bare LD_PRELOAD killed: salvaged by `sessions --prune` later */
      printf (_("  ended by:         unknown: no exit was recorded (SIGKILL or the OOM killer, most likely)"));
      if (salvaged != NULL && lost != NULL)
        printf (_("; %s events salvaged, %s lost"), salvaged, lost);
      printf ("\n");
      return;
    }
  if (sig_text == NULL)
    return;
  int sig = atoi (sig_text);
  const char *abbrev = sig > 0 ? sigabbrev_np (sig) : NULL;
  printf (_("  ended by:         SIG%s (signal %d)"), abbrev != NULL ? abbrev : "?", sig);
  if (salvaged != NULL && lost != NULL)
    printf (_("; %s events salvaged, %s lost"), salvaged, lost);
  printf ("\n");
}

/* The time of the trace's cut (a full disk: the preload's or record's
 * record of it, docs/capture.md), G_MAXUINT64 when it was not cut. */
static guint64
trace_cut_ns (HlRecording *rec)
{
  const char *text = hl_recording_get_info (rec, "trace_cut_ns");
  guint64 t;

  if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64 - 1, &t, NULL))
    return G_MAXUINT64;
  return t;
}

/* A trace cut by a full disk: when and why, and the whole run's totals
 * from the session's counters when record could write them down. */
static void
print_cut (HlRecording *rec,
           guint64      cut_ns)
{
  const char *reason = hl_recording_get_info (rec, "trace_cut_reason");
  const char *keys[] = { "session_allocations", "session_frees", "session_bytes_allocated",
                         "session_not_freed_bytes", "session_not_freed_blocks", "session_dropped_events" };
  guint64 v[G_N_ELEMENTS (keys)];

  if (cut_ns == G_MAXUINT64)
    return;
  printf (_("  trace cut:        at %.3f s by %s (%s): numbers up to %.3f s\n"), cut_ns / 1e9,
          hl_cli_trace_cut_cause (reason), reason != NULL ? reason : "?", cut_ns / 1e9);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const char *text = hl_recording_get_info (rec, keys[i]);
      if (text == NULL || !g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &v[i], NULL))
        return;
    }
  g_autofree char *bytes = hl_cli_format_size (v[2]);
  g_autofree char *not_freed = hl_cli_format_size (v[3]);
  printf (_("  whole run:        %" PRIu64 " allocations, %" PRIu64 " frees, %s allocated, %s in %" PRIu64
            " blocks not freed at exit, %" PRIu64 " dropped events (the session's counters)\n"),
          (uint64_t) v[0], (uint64_t) v[1], bytes, not_freed, (uint64_t) v[4], (uint64_t) v[5]);
}

/* An image that exec'd another (the preload notes it after its END, whose
 * status is -1): what replaced it and when, instead of an exit status;
 * and when the rest of the chain ran unrecorded, how the process ended
 * (record knows it from waitpid). False for any other trace. */
static gboolean
print_exec (HlRecording *rec)
{
  const char *program = hl_recording_get_info (rec, "replaced_by_exec");
  const char *when = hl_recording_get_info (rec, "replaced_by_exec_ns");
  const char *then_status = hl_recording_get_info (rec, "exec_chain_exit_status");
  const char *then_signal = hl_recording_get_info (rec, "exec_chain_signal");
  if (program == NULL || program[0] == '\0')
    return FALSE;
  g_autofree char *name = hl_cli_printable (program);
  printf (_("  ended:            replaced by exec of %s at %.3f s"), name,
          when != NULL ? g_ascii_strtoull (when, NULL, 10) / 1e9 : 0.0);
  int sig = then_signal != NULL ? atoi (then_signal) : 0;
  const char *abbrev = sig > 0 ? sigabbrev_np (sig) : NULL;
  if (sig > 0)
    printf (_("; the process, no longer recorded, ended by SIG%s (signal %d)"), abbrev != NULL ? abbrev : "?",
            sig);
  else if (then_status != NULL)
    printf (_("; the process, no longer recorded, exited with status %s"), then_status);
  printf ("\n");
  return TRUE;
}

static const char *
info_or_zero (HlRecording *rec,
              const char  *key)
{
  const char *v = hl_recording_get_info (rec, key);
  return v != NULL ? v : "0";
}

/* A recording made by `heaplens-cli attach`: the heap when it began, the
 * frees of blocks allocated before it, and the detach (instead of an exit
 * status, when the process went on). TRUE when it detached. */
static gboolean
print_attach (HlRecording *rec)
{
  if (g_strcmp0 (hl_recording_get_info (rec, "attached"), "1") != 0)
    return FALSE;
  guint64 heap = g_ascii_strtoull (info_or_zero (rec, "attach_heap_bytes"), NULL, 10);
  guint64 rss = g_ascii_strtoull (info_or_zero (rec, "attach_rss_bytes"), NULL, 10);
  guint64 n = g_ascii_strtoull (info_or_zero (rec, "attach_frees_before"), NULL, 10);
  guint64 bytes = g_ascii_strtoull (info_or_zero (rec, "attach_frees_before_bytes"), NULL, 10);
  const char *detached = hl_recording_get_info (rec, "detached_ns");
  g_autofree char *heap_text = hl_cli_format_size (heap);
  g_autofree char *rss_text = hl_cli_format_size (rss);
  g_autofree char *bytes_text = hl_cli_format_size (bytes);
  printf (_("  attached:         to the running process; then %s of heap in use (mallinfo2), RSS %s\n"), heap_text,
          rss_text);
  printf (_("  freed, allocated before the attach: %" PRIu64 " blocks, %s\n"), (uint64_t) n, bytes_text);
  if (detached != NULL)
    printf (_("  ended:            detached at %.3f s (the process went on)\n"),
            g_ascii_strtoull (detached, NULL, 10) / 1e9);
  return detached != NULL;
}

/* A live table that stopped growing on a full /dev/shm (record notes it
 * in the trace): the live view missed blocks, the trace did not. */
static void
print_shm_full (HlRecording *rec)
{
  const char *untracked = hl_recording_get_info (rec, "shm_full_untracked");
  if (untracked != NULL)
    printf (_("  live table stopped growing: /dev/shm is full (%s allocations not tracked live; the trace is "
              "complete)\n"), untracked);
}

static void
print_text (const char  *path,
            HlRecording *rec,
            HlAnalysis  *analysis,
            const HlCostKind *costs,
            guint        n_costs,
            guint        top,
            const HlReportOptions *options)
{
  HlSummary s;
  HlCosts t;
  guint64 not_freed_by, cut_ns;
  const char *exe = hl_recording_get_info (rec, "exe");
  const char * const *warnings = hl_recording_get_warnings (rec);
  g_autoptr (GPtrArray) nodebug = hl_recording_get_modules_without_debug_info (rec);
  g_autofree char *bytes = NULL, *peak = NULL, *rss = NULL, *leaked = NULL;
  g_autofree char *filter_text = hl_filter_describe (hl_analysis_get_filter (analysis));

  hl_recording_get_summary (rec, &s);
  hl_analysis_get_totals (analysis, &t);
  not_freed_by = range_end_before_exit (hl_analysis_get_filter (analysis), &s);
  cut_ns = trace_cut_ns (rec);
  bytes = hl_cli_format_size (s.bytes_allocated);
  peak = hl_cli_format_size (s.peak_heap_bytes);
  rss = hl_cli_format_size (s.peak_rss_bytes);
  leaked = hl_cli_format_size (s.leaked_bytes);

  printf (_("Heaplens report for %s\n"), path);
  if (exe != NULL)
    printf (_("  program:          %s\n"), exe);
  if (!print_attach (rec) && !print_exec (rec) && s.has_exit_status)
    printf (_("  exit status:      %d\n"), s.exit_status);
  print_death (rec);
  print_cut (rec, cut_ns);
  printf (_("  duration:         %.3f s\n"), s.duration_ns / 1e9);
  if (hl_recording_get_sample_bytes (rec) != 0)
    printf (_("  sampled:          every %" PRIu64 " bytes allocated on average: every number below is estimated\n"),
            (uint64_t) hl_recording_get_sample_bytes (rec));
  printf (_("  calls:            %" PRIu64 " allocations, %" PRIu64 " frees\n"),
          (uint64_t) s.n_allocations, (uint64_t) s.n_frees);
  printf (_("  allocated:        %s\n"), bytes);
  printf (_("  temporary:        %" PRIu64 " (%.1f %% of calls)\n"), (uint64_t) s.temporary,
          s.n_allocations ? 100.0 * s.temporary / s.n_allocations : 0.0);
  printf (_("  peak heap:        %s at %.3f s\n"), peak, s.peak_time_ns / 1e9);
  if (s.peak_rss_bytes > 0)
    printf (_("  peak RSS:         %s\n"), rss);
  hl_cli_report_print_memory_line (rec);
  HlRecordingEnd end = hl_recording_get_end (rec);
  if (cut_ns != G_MAXUINT64)
    printf (_("  not freed:        %s in %" PRIu64 " blocks by %.3f s (the trace was cut)\n"), leaked,
            (uint64_t) s.leaked_blocks, cut_ns / 1e9);
  else if (end == HL_RECORDING_END_DIED)
    /* killed: what it held then was in use, not leaked */
    printf (_("  not freed:        %s in %" PRIu64 " blocks when it died (in use then, not leaks)\n"), leaked,
            (uint64_t) s.leaked_blocks);
  else if (end == HL_RECORDING_END_UNRECORDED)
    printf (_("  not freed:        %s in %" PRIu64 " blocks at the trace's end (no exit recorded: killed, or "
              "still running)\n"), leaked, (uint64_t) s.leaked_blocks);
  else
    printf (_("  leaked:           %s in %" PRIu64 " blocks\n"), leaked, (uint64_t) s.leaked_blocks);
  hl_cli_report_print_reachability_summary (rec);
  printf (_("  dropped events:   %" PRIu64 "\n"), (uint64_t) s.dropped_events);
  print_shm_full (rec);
  /* bounds, not counts: the damaged or cut frames' headers say so many */
  if (s.lost_events_damaged_bound > 0 || s.lost_regions_unknown > 0)
    {
      if (s.lost_regions_unknown > 0)
        printf (_("  damaged frames:   at least %" PRIu64 " events lost, and %" PRIu64 " damaged regions held an unknown number\n"),
                (uint64_t) s.lost_events_damaged_bound, (uint64_t) s.lost_regions_unknown);
      else
        printf (_("  damaged frames:   at most %" PRIu64 " events lost\n"), (uint64_t) s.lost_events_damaged_bound);
    }
  if (s.lost_events_cut_bound > 0)
    printf (_("  cut frame:        at most %" PRIu64 " events lost\n"), (uint64_t) s.lost_events_cut_bound);
  printf (_("  threads:          %u\n"), s.n_threads);
  print_marks (rec);
  print_metadata (rec);
  if (filter_text[0] != '\0')
    {
      printf (_("  selection:        %s\n                    "), filter_text);
      print_costs_line (&t, MIN (not_freed_by, cut_ns));
    }

  for (guint k = 0; k < n_costs; k++)
    {
      g_autoptr (GArray) stacks = hl_analysis_get_top_stacks (analysis, costs[k], top);
      guint64 total = hl_costs_get (&t, costs[k]);

      if (costs[k] == HL_COST_KIND_LEAKED && not_freed_by != G_MAXUINT64)
        printf (_("\nmost memory not freed by %.3f s, the end of the range (%s):\n"), not_freed_by / 1e9,
                hl_cost_kind_to_string (costs[k]));
      else if (costs[k] == HL_COST_KIND_LEAKED && cut_ns != G_MAXUINT64)
        printf (_("\nmost memory not freed by %.3f s (the trace was cut) (%s):\n"), cut_ns / 1e9,
                hl_cost_kind_to_string (costs[k]));
      else if (costs[k] == HL_COST_KIND_LEAKED && end == HL_RECORDING_END_DIED)
        printf (_("\nmost memory not freed when it died (%s):\n"), hl_cost_kind_to_string (costs[k]));
      else if (costs[k] == HL_COST_KIND_LEAKED && end == HL_RECORDING_END_UNRECORDED)
        printf (_("\nmost memory not freed at the trace's end, no exit recorded (%s):\n"),
                hl_cost_kind_to_string (costs[k]));
      else if (costs[k] == HL_COST_KIND_LONG_LIVED)
        {
          g_autofree char *t_text = format_duration (hl_filter_get_lived_at_least (hl_analysis_get_filter (analysis)));
          printf (_("\nmost bytes in blocks that lived at least %s (%s):\n"), t_text, hl_cost_kind_to_string (costs[k]));
        }
      else
        printf ("\n%s (%s):\n", cost_title (costs[k]), hl_cost_kind_to_string (costs[k]));
      if (stacks->len == 0)
        printf (_("  (none)\n"));
      for (guint i = 0; i < stacks->len; i++)
        {
          const HlStackCosts *sc = &g_array_index (stacks, HlStackCosts, i);
          guint64 v = hl_costs_get (&sc->costs, costs[k]);
          g_autofree char *value = hl_cli_format_cost (costs[k], v);
          guint n;
          const HlFrame * const *frames = hl_recording_get_stack_frames (hl_analysis_get_recording (analysis),
                                                                         sc->stack, &n);

          if (costs[k] == HL_COST_KIND_MMAP)   /* mappings, not allocation calls */
            printf ("  %12s  %5.1f %%\n", value, total ? 100.0 * v / total : 0.0);
          else
            printf (_("  %12s  %5.1f %%  %" PRIu64 " calls\n"), value,
                    total ? 100.0 * v / total : 0.0, (uint64_t) sc->costs.allocations);
          if (n == 0)
            printf (_("      (stack not recorded)\n"));
          for (guint f = 0; f < n; f++)
            {
              g_autofree char *text = hl_cli_format_frame (frames[f]);
              /* Translators: "at" before the innermost frame of a stack;
               * the frames below line up with the text after it. */
              printf ("      %s %s\n", f == 0 ? C_("stack", "at") : "  ", text);
            }
        }
    }

  for (guint k = 0; k < n_costs; k++)
    if (costs[k] == HL_COST_KIND_LEAKED && not_freed_by == G_MAXUINT64)
      hl_cli_report_print_reachability (analysis, top);
  hl_cli_report_print_mmap_sites (rec, top);
  hl_cli_report_print_threads (analysis, options->whole);
  if (options->function != NULL)
    hl_cli_report_print_function (analysis, options->function);
  if (options->lifetimes)
    hl_cli_report_print_lifetimes (analysis, top);

  if (nodebug->len > 0)
    {
      printf (_("\nModules without debug info (no file:line, no inline frames):\n"));
      for (guint i = 0; i < nodebug->len; i++)
        {
          const HlModuleInfo *m = nodebug->pdata[i];
          printf ("  %s\n", m->hint != NULL ? m->hint : m->path);
        }
    }
  if (warnings[0] != NULL)
    {
      printf (_("\nWarnings:\n"));
      for (guint i = 0; warnings[i] != NULL; i++)
        printf ("  %s\n", warnings[i]);
    }
}

int
hl_cli_report (int    argc,
               char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE");
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = NULL;
  g_autoptr (HlRecording) whole = NULL;   /* the whole run's, when REC holds a range */
  g_autoptr (HlFilter) filter = NULL;
  g_autoptr (HlAnalysis) analysis = NULL;
  HlCliFilterOptions fopts = { 0 };
  g_autofree char *cost = NULL, *function = NULL;
  gboolean json = FALSE, lifetimes = FALSE;
  HlReportOptions options = { 0 };
  int top = 10, status;
  HlCostKind kinds[HL_N_COST_KINDS];
  guint n_kinds = 0;
  const GOptionEntry entries[] = {
    { "cost", 0, 0, G_OPTION_ARG_STRING, &cost, N_("Only this cost: allocations, bytes, temporary, peak, leaked, live, long-lived (with --lived-at-least), mmap"), "COST" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, N_("Call sites per cost (default 10)"), "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("JSON output (keys in docs/cli.md)"), NULL },
    { "function", 0, 0, G_OPTION_ARG_STRING, &function, N_("The callers and callees of the function NAME, with every cost"), "NAME" },
    { "lifetimes", 0, 0, G_OPTION_ARG_NONE, &lifetimes, N_("How long each call site's blocks lived (loads every allocation)"), NULL },
    { NULL }
  };

  g_option_context_set_summary (ctx, _("Summary of a recording and its top call sites per cost."));
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
  hl_cli_filter_add_entries (ctx, &fopts);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli report: %s\n"), error->message);
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (argc != 2 || top < 0)
    {
      fprintf (stderr, _("heaplens-cli report: expected one trace FILE (see 'heaplens-cli report --help')\n"));
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (cost != NULL)
    {
      if (!hl_cost_kind_from_string (cost, &kinds[0]))
        {
          fprintf (stderr, _("heaplens-cli report: unknown cost '%s' (allocations, bytes, temporary, peak, leaked, live, long-lived, mmap)\n"), cost);
          hl_cli_filter_clear (&fopts);
          return 2;
        }
      n_kinds = 1;
    }
  else
    {
      const HlCostKind *defaults = hl_report_default_costs (&n_kinds);
      memcpy (kinds, defaults, n_kinds * sizeof *defaults);
    }
  options.function = function;
  options.lifetimes = lifetimes;
  /* A time range (without metadata, lifetimes or HEAPLENS_REPORT_FULL=1)
   * is read with the trailing index: the range's packets, and the whole
   * run's summary from its costs (docs/cli.md). */
  if (!lifetimes && fopts.where == NULL && (fopts.from != NULL || fopts.to != NULL)
      && g_getenv ("HEAPLENS_REPORT_FULL") == NULL)
    rec = hl_cli_load_range ("report", argv[1], &fopts, &filter, &whole, &status);
  else if (lifetimes || (n_kinds == 1 && hl_cli_cost_needs_events (&fopts, kinds[0])))
    rec = hl_cli_load_filtered_full ("report", argv[1], &fopts, &filter, &status);
  else
    rec = hl_cli_load_filtered ("report", argv[1], &fopts, &filter, &status);
  hl_cli_filter_clear (&fopts);
  if (rec == NULL)
    return status;
  analysis = hl_analysis_new (rec, filter);
  options.whole = whole;
  if (json)
    {
      g_autofree char *text = hl_report_to_json_with (argv[1], analysis, kinds, n_kinds, (guint) top, &options);
      fputs (text, stdout);
    }
  else
    print_text (argv[1], whole != NULL ? whole : rec, analysis, kinds, n_kinds, (guint) top, &options);
  {
    /* Damage left nothing at all (no program, no event): "nothing
     * usable", exit 1 (docs/cli.md), not an all-zero report that looks
     * like a program that allocated nothing. */
    HlSummary sum;
    HlRecording *run = whole != NULL ? whole : rec;
    const char * const *warnings = hl_recording_get_warnings (run);
    hl_recording_get_summary (run, &sum);
    if (sum.n_allocations == 0 && sum.n_frees == 0 && hl_recording_get_info (run, "exe") == NULL
        && warnings != NULL && warnings[0] != NULL)
      {
        fprintf (stderr, _("heaplens-cli report: nothing usable in %s: %s\n"), argv[1], warnings[0]);
        return 1;
      }
  }
  return 0;
}
