/* hl-attach-dialog.h — the Attach dialog (app.attach): every process of
 * the user (name, pid, RSS, command line) and the Heaplens sessions in
 * /dev/shm, marked as such, filtered by a search on name, pid or command
 * line, refreshed every 2 s while open. A session opens live
 * (hl_live_window_new_attach); another process is attached to
 * (hl_attach_async) with its progress shown in the dialog, then opens
 * live (hl_live_window_new_injected); a refusal shows its reason and its
 * remedy in the dialog. docs/app.md, "The Attach dialog". */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* The application, by its name only (hl-application.h is above this). */
typedef struct _HlApplication HlApplication;

GtkWindow  *hl_attach_dialog_new         (HlApplication *app,
                                          GtkWindow     *parent);
/* The rows listed, one line each: "TITLE: SUBTITLE" ("heaplens-demo —
 * pid 42: … · running", "pid 7: Refused: reason", "t-attach — pid 43: RSS
 * 1.2 MiB · …"). Rows carry "hl-pid" (and "hl-session" for a session):
 * activating one attaches. */
GStrv       hl_attach_dialog_get_rows    (GtkWindow *dialog);
/* The line shown above the list: the attach's progress or its refusal;
 * NULL when none. */
const char *hl_attach_dialog_get_message (GtkWindow *dialog);
/* Every progress line of the last attach, in order. */
GStrv       hl_attach_dialog_get_steps   (GtkWindow *dialog);
gboolean    hl_attach_dialog_is_busy     (GtkWindow *dialog);
/* Lists again now (on a worker; the rows change when it is done). */
void        hl_attach_dialog_refresh     (GtkWindow *dialog);

G_END_DECLS
