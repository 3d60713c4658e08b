/* hl-cli-flame-svg.h — a flame layout as an SVG (flamegraph, export). */
#pragma once

#include "hl-model.h"

/* The SVG text of LAYOUT (costs of KIND) under TITLE; INVERTED draws the
 * roots at the top. */
char *hl_cli_flame_svg (HlFlameLayout *layout,
                        const char    *title,
                        HlCostKind     kind,
                        gboolean       inverted);
