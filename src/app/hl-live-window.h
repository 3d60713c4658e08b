/* hl-live-window.h — watching a process live: the timeline and flame graph
 * widgets fed from an HlLiveSession (refreshed 5 times per second), a
 * status line, the current metadata and its history, a Snapshot toggle that
 * freezes the views while recording goes on, and, for a program started by
 * the Record dialog, its console and Stop / Detach. When the target ends,
 * the complete trace is opened in a trace window that takes this one's
 * place. */
#pragma once

#include <adwaita.h>

#include "hl-application.h"
#include "hl-live-session.h"

G_BEGIN_DECLS

#define HL_TYPE_LIVE_WINDOW (hl_live_window_get_type ())
G_DECLARE_FINAL_TYPE (HlLiveWindow, hl_live_window, HL, LIVE_WINDOW, AdwApplicationWindow)

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
HlLiveWindow *hl_live_window_new_record (HlApplication             *app,
                                         const HlLiveRecordOptions *options,
                                         GError                   **error);
/* Watches SESSION (already opened). */
HlLiveWindow *hl_live_window_new_attach (HlApplication *app,
                                         HlLiveSession *session);

HlLiveSession *hl_live_window_get_session (HlLiveWindow *self);
/* SIGINT, then SIGTERM after 2 s, then SIGKILL after 2 more (recorded
 * programs only). */
void           hl_live_window_stop        (HlLiveWindow *self);
/* Stops watching, leaves the program running, closes the window. */
void           hl_live_window_detach      (HlLiveWindow *self);
void           hl_live_window_set_frozen  (HlLiveWindow *self,
                                           gboolean      frozen);
/* Text of the status line, of the console, and the number of view refreshes
 * (tests). */
const char    *hl_live_window_get_status  (HlLiveWindow *self);
char          *hl_live_window_get_console (HlLiveWindow *self);
char          *hl_live_window_get_metadata_text (HlLiveWindow *self);
guint          hl_live_window_get_n_refreshes (HlLiveWindow *self);
/* Child processes listed so far (each opens in its own live window). */
guint          hl_live_window_get_n_children (HlLiveWindow *self);
/* The trace window opened when the target ended, or NULL. */
GtkWindow     *hl_live_window_get_trace_window (HlLiveWindow *self);

G_END_DECLS
