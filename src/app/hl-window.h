/* hl-window.h — one window per recording. */
#pragma once

#include <adwaita.h>

#include "hl-application.h"
#include "hl-diff-window.h"
#include "hl-model.h"
#include "hl-session.h"

G_BEGIN_DECLS

#define HL_TYPE_WINDOW (hl_window_get_type ())
G_DECLARE_FINAL_TYPE (HlWindow, hl_window, HL, WINDOW, AdwApplicationWindow)

HlWindow   *hl_window_new         (HlApplication *app);
/* Start loading FILE; the window shows progress, then the views or an error. */
void        hl_window_open        (HlWindow      *self,
                                   GFile         *file);
/* Show RECORDING (already loaded, or growing: the live view). The views
 * appear once the first analysis is ready. */
void         hl_window_set_recording (HlWindow    *self,
                                      HlRecording *recording);
HlRecording *hl_window_get_recording (HlWindow    *self);
/* The analysis the views show (NULL until the first one is ready). */
HlAnalysis  *hl_window_get_analysis  (HlWindow    *self);
/* TRUE while the window shows its start page (nothing loaded or loading). */
gboolean    hl_window_is_empty    (HlWindow      *self);
void        hl_window_show_toast  (HlWindow      *self,
                                   const char    *message);
HlSession  *hl_window_get_session (HlWindow      *self);
/* Export the flame graph as shown (format from the file's extension). */
gboolean    hl_window_export_flame_graph (HlWindow  *self,
                                          GFile     *file,
                                          GError   **error);
/* Save the report of the shown analysis as JSON (as `heaplens-cli report
 * --json`). */
/* Compare With… FILE: a diff window with this recording as A, FILE as B,
 * and this window's filters and cost (borrowed; the application holds it). */
HlDiffWindow *hl_window_compare_with (HlWindow *self,
                                      GFile    *file);
gboolean    hl_window_export_report (HlWindow  *self,
                                     GFile     *file,
                                     GError   **error);
/* The message of the error page (for tests). */
const char *hl_window_get_error   (HlWindow      *self);
/* "start", "loading", "error" or "views" (for tests). */
const char *hl_window_get_page    (HlWindow      *self);

G_END_DECLS
