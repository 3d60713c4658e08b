/* hl-proc-maps.h — the module map of a running process from
 * /proc/PID/maps, for symbolizing a live session (the shared-memory session
 * carries no module map; see docs/live.md).
 *
 * Only file-backed mappings with an absolute path are kept; each module is
 * reported once, at the address where its file offset 0 is (or would be)
 * mapped, which is what hl_symbolizer_add_module() takes.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char    *path;
  guint64  start;   /* where file offset 0 is mapped */
  guint64  end;     /* end of its last mapping */
} HlProcModule;

/* A GArray of HlProcModule (cleared with its paths), sorted by start; NULL
 * with ERROR when /proc/PID/maps cannot be read (process gone, another
 * user's process). */
GArray  *hl_proc_maps_read  (guint32   pid,
                             GError  **error);
/* The same from the text of a maps file (tests). */
GArray  *hl_proc_maps_parse (const char *text);

G_END_DECLS
