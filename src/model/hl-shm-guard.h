/* hl-shm-guard.h — survive SIGBUS while reading a session segment.
 *
 * The owner of a segment (same uid) can shrink it with ftruncate while we
 * have it mapped; a read past the new end raises SIGBUS (see
 * hl-shm-reader.h). hl_shm_guard_run() runs FUNC with a per-thread SIGBUS
 * handler armed: a SIGBUS inside it returns FALSE instead of killing the
 * process (whatever FUNC was doing is abandoned: it must hold no lock and
 * leave nothing half-done that matters). A SIGBUS outside a guard goes to
 * the previous handler or the default action, as before. Nestable.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*HlShmGuardFunc) (gpointer user_data);

/* TRUE when FUNC returned normally, FALSE when a SIGBUS cut it short. */
gboolean hl_shm_guard_run (HlShmGuardFunc func,
                           gpointer       user_data);

G_END_DECLS
