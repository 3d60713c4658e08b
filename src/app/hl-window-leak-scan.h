/* hl-window-leak-scan.h — live mode's Scan for Leaks (the window's part). */
#pragma once

#include "hl-window.h"

G_BEGIN_DECLS

/* At each live update: a new scan's outcome in a toast when it was asked
 * for here, and the summary refreshed. */
void  hl_window_live_leak_scan_update (HlWindow *self);
/* Live mode begins (VISIBLE) or ends: the button shown or hidden, no
 * scan pending, the session's earlier scans taken as seen. */
void  hl_window_live_leak_scan_reset  (HlWindow *self,
                                       gboolean  visible);
/* The sentence of a scan's outcome ("Leak scan at 2.5 s: definitely lost
 * …"), new. */
char *hl_window_leak_scan_sentence    (const HlLiveLeakScan *scan);

G_END_DECLS
