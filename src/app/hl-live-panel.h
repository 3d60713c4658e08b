/* hl-live-panel.h — watching a process live. The panel sits on the right
 * of a trace window (HlWindow) in live mode, whose own views (timeline,
 * summary, flame graph of live bytes, call tree...) show the session's
 * growing recording, refreshed 5 times per second. The panel holds the
 * status line, the current metadata and its history, a Snapshot toggle
 * that freezes the views while recording goes on, and, for a program
 * started by the Record dialog, its console and Stop / Detach. When the
 * target ends, the same window switches to the complete trace in place,
 * keeping its view, time range, filters and flame graph zoom.
 *
 * The panel does not know that window: it tells through its signals
 * (hl-live-window.c connects them to the window) and a "title" property
 * (the window's title: the command, then "EXE — pid N"):
 *  - "waiting" (const char *message): started, its session not there yet.
 *  - "live-started" (HlLiveSession *session): watching SESSION (again after
 *    an exec): the views show its growing recording.
 *  - "live-updated": the session grew; the views refresh (not while the
 *    views are frozen on a snapshot).
 *  - "switch-to-file" (GFile *trace): the target ended and left TRACE,
 *    which takes the live view's place.
 *  - "open-session" (HlLiveSession *session): the user chose a child
 *    process: watch SESSION in a live window of its own.
 *  - "detached": the user stopped watching; the window closes. */
#pragma once

#include <adwaita.h>

#include "hl-live-launch.h"
#include "hl-model.h"

G_BEGIN_DECLS

#define HL_TYPE_LIVE_PANEL (hl_live_panel_get_type ())
G_DECLARE_FINAL_TYPE (HlLivePanel, hl_live_panel, HL, LIVE_PANEL, GtkBox)

/* A panel watching nothing yet: connect its signals, then
 * hl_live_panel_start, then record or attach. */
HlLivePanel *hl_live_panel_new        (void);
/* Emits "waiting" (its window shows the panel and that message). */
void         hl_live_panel_start      (HlLivePanel *self);
/* Starts ARGV under the preload (hl-launch-env.h) and watches it. FALSE
 * with ERROR when it cannot be started. */
gboolean     hl_live_panel_record     (HlLivePanel               *self,
                                       const HlLiveRecordOptions *options,
                                       GError                   **error);
/* Watches SESSION (already opened): emits "live-started". */
void         hl_live_panel_attach     (HlLivePanel   *self,
                                       HlLiveSession *session);

/* SESSION was made by our own attach (hl_attach_async): Stop ends the
 * recording by the detach (the control word), leaving the process
 * running, as closing the window does; the ended session is ours to
 * remove. */
void         hl_live_panel_set_injected (HlLivePanel *self);

HlLiveSession *hl_live_panel_get_session (HlLivePanel *self);
/* SIGINT, then SIGTERM after 2 s, then SIGKILL after 2 more (recorded
 * programs); the detach for an attach of ours. */
void           hl_live_panel_stop        (HlLivePanel *self);
/* Stops watching, leaves the program running, closes the window. */
void           hl_live_panel_detach      (HlLivePanel *self);
void           hl_live_panel_set_frozen  (HlLivePanel *self,
                                           gboolean      frozen);
/* Text of the status line, of the console, and the number of view refreshes
 * (tests). */
const char    *hl_live_panel_get_status  (HlLivePanel *self);
char          *hl_live_panel_get_console (HlLivePanel *self);
char          *hl_live_panel_get_metadata_text (HlLivePanel *self);
guint          hl_live_panel_get_n_refreshes (HlLivePanel *self);
/* Child processes listed so far (each opens in its own live window). */
guint          hl_live_panel_get_n_children (HlLivePanel *self);
/* The window the panel lives in (weak: NULL once it is gone). */
GtkWindow     *hl_live_panel_get_window (HlLivePanel *self);
/* That same window once it switched to the saved trace, else NULL. */
GtkWindow     *hl_live_panel_get_trace_window (HlLivePanel *self);

G_END_DECLS
