/* hl-export-speedscope.h — an analysis as a speedscope file
 * (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per cost (docs/cli.md), each stack of the selection a sample
 * whose weight is its cost, the frames shared by every profile. The
 * weights are the analysis' costs, so each profile's sum is the
 * "selection" of `report --json`. */
#pragma once

#include "hl-analysis.h"

G_BEGIN_DECLS

/* The file as JSON text; NAME names it (the trace's file name), ACTIVE is
 * the profile speedscope opens first. */
char *hl_export_speedscope (HlAnalysis *analysis,
                            const char *name,
                            HlCostKind  active);

G_END_DECLS
