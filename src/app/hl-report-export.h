/* hl-report-export.h — the report of an analysis saved as JSON, the same
 * document as `heaplens-cli report --json` (hl-report-json.h). */
#pragma once

#include <gio/gio.h>

#include "hl-model.h"

G_BEGIN_DECLS

/* SOURCE names the trace in the report's "file" key (NULL: "").
 * The default costs and 10 call sites per cost, as the CLI. */
gboolean hl_report_export (HlAnalysis *analysis,
                           GFile      *source,
                           GFile      *file,
                           GError    **error);

G_END_DECLS
