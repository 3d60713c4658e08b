/* hl-export-pprof.h — an analysis as a pprof profile (the gzip'd protobuf
 * Profile message that `go tool pprof`, Pyroscope, Parca and Cloud
 * Profiler read).
 *
 * One sample per selected stack, with one value per sample type (the
 * table below, docs/cli.md); the values are the analysis' costs, those
 * `report --json` prints, so their sums are its "selection". Locations
 * carry the stack's inline chains (Line[], innermost first) and their
 * module's mapping (path, range, build-id); the trace's program, pid and
 * host are labels of every sample and, with the metadata intervals and
 * the filter, comments of the profile.
 */
#pragma once

#include <gio/gio.h>

#include "hl-analysis.h"

G_BEGIN_DECLS

/* The pprof sample types Heaplens writes, in the order of the profile. */
typedef struct
{
  const char *type;      /* "alloc_space", ... */
  const char *unit;      /* "bytes" or "count" */
  HlCostKind  kind;      /* the cost it holds (LEAKED twice: space and objects) */
  gboolean    blocks;    /* LEAKED as a count of blocks (leaked_blocks) */
} HlPprofSampleType;

const HlPprofSampleType *hl_pprof_sample_types (guint *n_types);
/* The sample type go tool pprof shows first for KIND ("alloc_space" for
 * BYTES, ...). */
const char              *hl_pprof_sample_type_for (HlCostKind kind);

/* The profile of ANALYSIS, gzip'd; SOURCE (the trace's path, or NULL) goes
 * to a comment. DEFAULT_KIND chooses default_sample_type. NULL with ERROR
 * only if compression fails. */
GBytes *hl_export_pprof (HlAnalysis  *analysis,
                         const char  *source,
                         HlCostKind   default_kind,
                         GError     **error);

G_END_DECLS
