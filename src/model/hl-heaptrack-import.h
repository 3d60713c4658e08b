/* hl-heaptrack-import.h — heaptrack recordings (heaptrack.*.zst / .gz,
 * heaptrack's text format, file versions 2 and 3) read into an
 * HlRecording: one thread, stacks from heaptrack's trace tree, frames
 * from its `i` lines (no libdw symbolization). docs/cli.md, "heaptrack
 * recordings". Plain files, no main loop: any thread. */
#pragma once

#include <gio/gio.h>

#include "hl-recording.h"

G_BEGIN_DECLS

/* TRUE when PATH's content (decompressed) starts like a heaptrack file. */
gboolean      hl_heaptrack_sniff  (const char    *path);
/* The recording of the heaptrack file at PATH, or NULL with ERROR
 * (HL_MODEL_ERROR_CORRUPT for a damaged or cut file, _IO, _VERSION). */
HlRecording  *hl_heaptrack_import (const char    *path,
                                   GCancellable  *cancellable,
                                   GError       **error);

G_END_DECLS
