/* hl-flame-export.h — a flame graph to SVG, PNG or collapsed stacks, drawn
 * by the same code as the widget. */
#pragma once

#include <gio/gio.h>

#include "hl-flame-graph-draw.h"

G_BEGIN_DECLS

typedef enum
{
  HL_FLAME_EXPORT_SVG,
  HL_FLAME_EXPORT_PNG,
  HL_FLAME_EXPORT_COLLAPSED,
} HlFlameExportFormat;

/* Guess the format from FILE's extension (.svg, .png, anything else =
 * collapsed stacks). */
HlFlameExportFormat hl_flame_export_format_for_file (GFile *file);

/* Write DATA as seen through VIEWPORT (its width; the height is the whole
 * graph) with STYLE. */
gboolean hl_flame_export (const HlFlameData     *data,
                          const HlFlameViewport *viewport,
                          const HlFlameStyle    *style,
                          HlFlameExportFormat    format,
                          GFile                 *file,
                          GError               **error);

G_END_DECLS
