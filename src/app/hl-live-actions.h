/* hl-live-actions.h — the live part of the application: the app.record
 * and app.attach actions (Record and Attach dialogs) and the command-line
 * forms `heaplens --record -- PROG ARGS...` and `heaplens --attach PID`. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* The application, by its name only (hl-application.h is above this). */
typedef struct _HlApplication HlApplication;

/* GActionEntry callbacks for app.record and app.attach (USER_DATA: the
 * HlApplication). */
void        hl_live_action_record (GSimpleAction *action,
                                   GVariant      *param,
                                   gpointer       user_data);
void        hl_live_action_attach (GSimpleAction *action,
                                   GVariant      *param,
                                   gpointer       user_data);

/* app.record-command ((sasas): working directory, argv, environment) and
 * app.attach-pid (u), installed at startup. */
void        hl_live_install_actions (HlApplication *app);

/* Before g_application_run: documents --record and --attach in --help and
 * takes them (and, for --record, everything after it) out of ARGV. In
 * g_application_run, when another instance runs, they are sent to it (as
 * app.record-command with this process's working directory and
 * environment, or app.attach-pid) and this one exits with status 0;
 * otherwise they run when this instance activates. */
void        hl_live_command_line  (HlApplication *app,
                                   int           *argc,
                                   char         **argv);

/* The Record dialog, for tests (the Attach dialog: hl-attach-dialog.h). */
GtkWindow  *hl_record_dialog_new  (HlApplication *app,
                                   GtkWindow     *parent);

G_END_DECLS
