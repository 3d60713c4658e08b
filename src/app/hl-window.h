/* hl-window.h — one window per recording. */
#pragma once

#include <adwaita.h>

#include "hl-application.h"
#include "hl-session.h"

G_BEGIN_DECLS

#define HL_TYPE_WINDOW (hl_window_get_type ())
G_DECLARE_FINAL_TYPE (HlWindow, hl_window, HL, WINDOW, AdwApplicationWindow)

HlWindow   *hl_window_new         (HlApplication *app);
/* Start loading FILE; the window shows progress, then the views or an error. */
void        hl_window_open        (HlWindow      *self,
                                   GFile         *file);
/* TRUE while the window shows its start page (nothing loaded or loading). */
gboolean    hl_window_is_empty    (HlWindow      *self);
void        hl_window_show_toast  (HlWindow      *self,
                                   const char    *message);
HlSession  *hl_window_get_session (HlWindow      *self);
/* Export the flame graph as shown (format from the file's extension). */
gboolean    hl_window_export_flame_graph (HlWindow  *self,
                                          GFile     *file,
                                          GError   **error);
/* "start", "loading", "error" or "views" (for tests). */
const char *hl_window_get_page    (HlWindow      *self);

G_END_DECLS
