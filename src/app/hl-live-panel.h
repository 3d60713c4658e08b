/* hl-live-panel.h — watching a process live. The panel sits on the right
 * of a trace window (HlWindow) in live mode, whose own views (timeline,
 * summary, flame graph of live bytes, call tree...) show the session's
 * growing recording, refreshed 5 times per second. The panel holds the
 * status line, the current metadata and its history, a Snapshot toggle
 * that freezes the views while recording goes on, and, for a program
 * started by the Record dialog, its console and Stop / Detach. When the
 * target ends, the same window switches to the complete trace in place,
 * keeping its view, time range, filters and flame graph zoom. */
#pragma once

#include <adwaita.h>

#include "hl-live-session.h"
#include "hl-window.h"

G_BEGIN_DECLS

#define HL_TYPE_LIVE_PANEL (hl_live_panel_get_type ())
G_DECLARE_FINAL_TYPE (HlLivePanel, hl_live_panel, HL, LIVE_PANEL, GtkBox)

typedef struct
{
  char        **argv;          /* program and arguments */
  char         *cwd;           /* NULL: the application's */
  char        **extra_env;     /* "NAME=VALUE", or NULL */
  char         *unwind;        /* "fp", "libunwind" or NULL */
  gboolean      follow;
} HlLiveRecordOptions;

/* Starts ARGV under the preload (hl-record-env.h) and watches it. NULL with
 * ERROR when it cannot be started. */
HlLivePanel *hl_live_panel_new_record (HlApplication             *app,
                                         const HlLiveRecordOptions *options,
                                         GError                   **error);
/* Watches SESSION (already opened). */
HlLivePanel *hl_live_panel_new_attach (HlApplication *app,
                                         HlLiveSession *session);

HlLiveSession *hl_live_panel_get_session (HlLivePanel *self);
/* SIGINT, then SIGTERM after 2 s, then SIGKILL after 2 more (recorded
 * programs only). */
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
/* The window the panel lives in (present it to show the live view). */
HlWindow      *hl_live_panel_get_window (HlLivePanel *self);
/* That same window once it switched to the saved trace, else NULL. */
GtkWindow     *hl_live_panel_get_trace_window (HlLivePanel *self);

G_END_DECLS
