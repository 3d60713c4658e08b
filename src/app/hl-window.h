/* hl-window.h — one window per recording. */
#pragma once

#include <adwaita.h>

#include "hl-diff-window.h"
#include "hl-document.h"
#include "hl-model.h"
#include "hl-view-state.h"

G_BEGIN_DECLS

/* The application, by its name only: the window uses it as the
 * GtkApplication it is (hl-application.h is above the window). */
typedef struct _HlApplication HlApplication;

#define HL_TYPE_WINDOW (hl_window_get_type ())
G_DECLARE_FINAL_TYPE (HlWindow, hl_window, HL, WINDOW, AdwApplicationWindow)

HlWindow   *hl_window_new         (HlApplication *app);
/* The file shown and its load (the application adds each file opened to
 * the recent files from its "file"). */
HlDocument *hl_window_get_document (HlWindow     *self);
/* The choices the window keeps in SETTINGS (the application's): the
 * call trees' columns (tree-columns). */
void        hl_window_bind_settings (HlWindow    *self,
                                     GSettings   *settings);
/* Start loading FILE; the window shows progress, then the views or an error. */
void        hl_window_open        (HlWindow      *self,
                                   GFile         *file);
/* Show RECORDING (already loaded, or growing: the live view). The views
 * appear once the first analysis is ready. */
void         hl_window_set_recording (HlWindow    *self,
                                      HlRecording *recording);
HlRecording *hl_window_get_recording (HlWindow    *self);
/* Live mode: the views show SESSION's growing recording (the flame graph
 * starts on live bytes); PANEL (status, metadata, console) goes on the
 * right. Analyses and flame data are built on workers while the session
 * holds its appends back (hl_live_session_hold). */
void         hl_window_set_live      (HlWindow      *self,
                                      HlLiveSession *session,
                                      GtkWidget     *panel);
/* Before the session exists (a program being started): PANEL on the
 * right, MESSAGE on the loading page. */
void         hl_window_set_live_waiting (HlWindow   *self,
                                         GtkWidget  *panel,
                                         const char *message);
gboolean     hl_window_is_live       (HlWindow      *self);
/* The session has grown: refresh the timeline, then the analysis and the
 * flame graph (one at a time; the next starts when the last is done). */
void         hl_window_live_update   (HlWindow      *self);
/* Live mode's Mark (win.live-mark): the first call marks the recording's
 * time now ("Mark 1" on the timeline); the second selects the time from
 * the first mark to now with the Leaked cost, which in a time range is
 * what was allocated in it and is still live at its end: what the program
 * allocated between the marks and kept (issue 30 point 4). The next call
 * starts again. */
void         hl_window_live_mark     (HlWindow      *self);
/* Live: asks the program for a leak scan now (its outcome is shown when
 * a poll reads it: a toast, and the Leaked card). */
void         hl_window_live_scan_leaks (HlWindow    *self);
/* Loads FILE into this window in place: the views keep showing the
 * current recording until FILE's replaces it, keeping the visible view,
 * the time range, the filters and the flame graph's zoomed and selected
 * frames (found again by their function+module path). Leaves live mode. */
void         hl_window_switch_to_file (HlWindow     *self,
                                       GFile        *file);
/* The analysis the views show (NULL until the first one is ready). */
HlAnalysis  *hl_window_get_analysis  (HlWindow    *self);
/* TRUE while the window shows its start page (nothing loaded or loading). */
gboolean    hl_window_is_empty    (HlWindow      *self);
void        hl_window_show_toast  (HlWindow      *self,
                                   const char    *message);
HlViewState  *hl_window_get_view_state (HlWindow      *self);
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
/* Export Profile… FILE: the selection (filters included) as a pprof
 * profile (FILE ending in .pb.gz, .pprof or .pb) or a speedscope file
 * (any other name), as `heaplens-cli export`; the flame graph's cost is
 * the profile's default. */
gboolean    hl_window_export_profile (HlWindow  *self,
                                      GFile     *file,
                                      GError   **error);
/* The message of the error page (for tests). */
const char *hl_window_get_error   (HlWindow      *self);
/* The banner's text, NULL while it is hidden (for tests). */
const char *hl_window_get_banner_text (HlWindow  *self);
/* TRUE while the views show the costs saved in a large trace and its
 * events still load (filters by time wait for them). */
gboolean    hl_window_shows_saved_costs (HlWindow    *self);
/* For tests: while HOLD, the events' recording, when loaded, waits (the
 * saved costs stay shown); FALSE lets it in. */
void        hl_window_hold_events     (HlWindow      *self,
                                       gboolean       hold);
/* "start", "loading", "error" or "views" (for tests). */
const char *hl_window_get_page    (HlWindow      *self);

G_END_DECLS
