/* hl-live-status.h — the live panel's status line: state, time since the
 * start, heap, peak, RSS, allocation rate, calls, dropped events. */
#pragma once

#include "hl-model.h"

G_BEGIN_DECLS

/* The line for SESSION (NULL: not there yet); FROZEN: the views show a
 * snapshot. */
char *hl_live_status_line (HlLiveSession *session,
                           gboolean       frozen);

G_END_DECLS
