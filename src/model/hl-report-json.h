/* hl-report-json.h — the report of an analysis as JSON: the summary of the
 * recording, the selection's totals and the top call sites per cost (keys
 * in docs/cli.md). One serializer for `heaplens-cli report --json` and the
 * application's "Export Report". */
#pragma once

#include "hl-analysis.h"
#include "hl-json-writer.h"

G_BEGIN_DECLS

/* The costs a report lists when none are chosen (N_KINDS 0). */
const HlCostKind *hl_report_default_costs (guint *n_kinds);

/* A new string ending in "\n". PATH is the "file" shown; KINDS NULL (or
 * N_KINDS 0) means hl_report_default_costs(); TOP call sites per cost.
 * Valid JSON (UTF-8) whatever the names and values of the recording hold:
 * see hl_json_write(). */
char *hl_report_to_json (const char       *path,
                         HlAnalysis       *analysis,
                         const HlCostKind *kinds,
                         guint             n_kinds,
                         guint             top);

/* What a report holds beyond the default members. */
typedef struct
{
  const char *function;   /* "function": callers and callees of it; NULL: none */
  gboolean    lifetimes;  /* "lifetimes": per call site (needs every
                           * allocation loaded; null for a costs-only load) */
  /* The recording of the whole run ("summary", "marks", "metadata",
   * "threads", "modules_without_debug_info", "warnings") when the
   * analysis' recording was loaded for its time range only
   * (hl_recording_load_range()); NULL: the analysis' recording. */
  HlRecording *whole;
} HlReportOptions;

/* hl_report_to_json () with OPTIONS (NULL: none). */
char *hl_report_to_json_with (const char            *path,
                              HlAnalysis            *analysis,
                              const HlCostKind      *kinds,
                              guint                  n_kinds,
                              guint                  top,
                              const HlReportOptions *options);

G_END_DECLS
