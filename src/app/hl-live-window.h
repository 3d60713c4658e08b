/* hl-live-window.h — a trace window in live mode: an HlWindow with an
 * HlLivePanel on its right, the panel's signals connected to the window
 * ("live-started" shows the session's recording, "live-updated" refreshes
 * the views, "switch-to-file" loads the saved trace in place...). The
 * panel never calls the window; this file is where the two meet. */
#pragma once

#include <adwaita.h>

#include "hl-live-panel.h"

G_BEGIN_DECLS

/* The application and the window, by their names only (hl-application.h
 * is above this; hl-window.h is for the window's own files and those that
 * create windows). */
typedef struct _HlApplication HlApplication;
typedef struct _HlWindow HlWindow;

/* Starts OPTIONS->argv under the preload in a new live window (not yet
 * presented). NULL with ERROR when it cannot be started (no window then). */
HlLivePanel *hl_live_window_new_record (HlApplication             *app,
                                        const HlLiveRecordOptions *options,
                                        GError                   **error);
/* Watches SESSION (already opened) in a new live window (not yet
 * presented). */
HlLivePanel *hl_live_window_new_attach (HlApplication *app,
                                        HlLiveSession *session);
/* The same for the session of a process our attach injected
 * (hl_live_panel_set_injected: Stop detaches). */
HlLivePanel *hl_live_window_new_injected (HlApplication *app,
                                          HlLiveSession *session);
/* The window PANEL lives in (present it to show the live view), NULL once
 * it is gone. */
HlWindow    *hl_live_window_get_window (HlLivePanel *panel);

G_END_DECLS
