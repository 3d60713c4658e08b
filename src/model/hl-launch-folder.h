/* hl-launch-folder.h — where a recording is saved when no file is named:
 * one folder per recording, $XDG_STATE_HOME/heaplens/PROG-DATE-TIME
 * (~/.local/state/heaplens/... without it) or inside a directory given,
 * holding the traces of the program, of its exec'ed images and of its
 * children. Shared by `heaplens-cli record` and the application's Record
 * dialog (issue 27, point 7: a launch through a shell script or a shim
 * left dozens of traces in the current directory). No GTK. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The folder of a new recording of PROGRAM (a path or a name: its
 * basename is used) started now, created (mode 0700, its parents too) in
 * PARENT, or in hl_launch_folder_default_parent() when PARENT is NULL. A
 * name taken already gets "-2", "-3"... Newly allocated, absolute; NULL
 * with ERROR set when it cannot be created. */
char *hl_launch_folder_create         (const char *parent,
                                       const char *program,
                                       GError    **error);

/* $XDG_STATE_HOME/heaplens (GLib's user state directory). */
char *hl_launch_folder_default_parent (void);

/* The trace template inside FOLDER that the preload expands:
 * FOLDER/%e.%p.hltrace, a '%' of FOLDER written "%%". */
char *hl_launch_folder_trace_template (const char *folder);

G_END_DECLS
