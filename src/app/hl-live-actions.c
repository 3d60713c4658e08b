/* hl-live-actions.c — see hl-live-actions.h. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hl-attach-dialog.h"
#include "hl-live-actions.h"
#include "hl-model.h"
#include "hl-live-window.h"

static void
show_error (HlApplication *app,
            const char    *message)
{
  /* app.show-error: a toast on a trace window, a dialog when there is
   * none (start-up) */
  g_action_group_activate_action (G_ACTION_GROUP (app), "show-error", g_variant_new_string (message));
}

static HlLivePanel *
start_record (HlApplication             *app,
              const HlLiveRecordOptions *options)
{
  g_autoptr(GError) error = NULL;
  HlLivePanel *window = hl_live_window_new_record (app, options, &error);
  if (window == NULL)
    {
      g_autofree char *msg = g_strdup_printf (_("Cannot record %s: %s"), options->argv[0], error->message);
      show_error (app, msg);
      return NULL;
    }
  gtk_window_present (GTK_WINDOW (hl_live_window_get_window (window)));
  return window;
}

static HlLivePanel *
start_attach (HlApplication *app,
              guint32        pid,
              const char    *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(HlLiveSession) session = name != NULL ? hl_live_session_open_name (name, &error)
                                                  : hl_live_session_open_pid (pid, &error);
  if (session == NULL)
    {
      g_autofree char *msg = g_strdup_printf (_("Cannot attach: %s"), error->message);
      show_error (app, msg);
      return NULL;
    }
  HlLivePanel *window = hl_live_window_new_attach (app, session);
  gtk_window_present (GTK_WINDOW (hl_live_window_get_window (window)));
  return window;
}

/* ---- Record dialog ------------------------------------------------------------ */

typedef struct
{
  HlApplication *app;
  GtkWindow     *dialog;
  AdwEntryRow   *command;
  AdwEntryRow   *cwd;
  AdwEntryRow   *env;
  AdwComboRow   *unwind;
  GtkSwitch     *follow;
  GtkLabel      *error;
} RecordDialog;

static void
record_dialog_free (gpointer data)
{
  g_free (data);
}

static void
on_record_clicked (GtkButton    *button,
                   RecordDialog *d)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  const char *command = gtk_editable_get_text (GTK_EDITABLE (d->command));
  if (!g_shell_parse_argv (command, NULL, &argv, &error))
    {
      gtk_label_set_text (d->error, _("Type the program to record and its arguments"));
      gtk_widget_set_visible (GTK_WIDGET (d->error), TRUE);
      return;
    }
  g_auto(GStrv) env = NULL;
  const char *env_text = gtk_editable_get_text (GTK_EDITABLE (d->env));
  if (env_text[0] != '\0' && !g_shell_parse_argv (env_text, NULL, &env, &error))
    {
      gtk_label_set_text (d->error, _("Environment: NAME=VALUE pairs separated by spaces"));
      gtk_widget_set_visible (GTK_WIDGET (d->error), TRUE);
      return;
    }
  HlLiveRecordOptions options = {
    .argv = argv,
    .cwd = (char *) gtk_editable_get_text (GTK_EDITABLE (d->cwd)),
    .extra_env = env,
    .unwind = adw_combo_row_get_selected (d->unwind) == 1 ? (char *) "fp" : (char *) "libunwind",
    .follow = gtk_switch_get_active (d->follow),
  };
  g_autoptr(GError) spawn_error = NULL;
  HlLivePanel *window = hl_live_window_new_record (d->app, &options, &spawn_error);
  if (window == NULL)
    {
      gtk_label_set_text (d->error, spawn_error->message);
      gtk_widget_set_visible (GTK_WIDGET (d->error), TRUE);
      return;
    }
  gtk_window_present (GTK_WINDOW (hl_live_window_get_window (window)));
  gtk_window_destroy (d->dialog);
}

static void
on_choose_response (GtkNativeDialog *chooser,
                    int              response,
                    RecordDialog    *d)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = g_file_get_path (file);
      g_autofree char *quoted = g_shell_quote (path);
      gtk_editable_set_text (GTK_EDITABLE (d->command), quoted);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

static void
on_choose_clicked (GtkButton    *button,
                   RecordDialog *d)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (_("Choose a Program"), d->dialog,
                                                               GTK_FILE_CHOOSER_ACTION_OPEN,
                                                               _("_Choose"), _("_Cancel"));
  g_signal_connect (chooser, "response", G_CALLBACK (on_choose_response), d);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* Escape closes a dialog. */
static void
close_on_escape (GtkWindow *dialog)
{
  GtkEventController *sc = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (sc),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("Escape"),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (GTK_WIDGET (dialog), sc);
}

GtkWindow *
hl_record_dialog_new (HlApplication *app,
                      GtkWindow     *parent)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/org/heaplens/Heaplens/ui/hl-record-dialog.ui");
  RecordDialog *d = g_new0 (RecordDialog, 1);
  d->app = app;
  d->dialog = GTK_WINDOW (gtk_builder_get_object (builder, "dialog"));
  d->command = ADW_ENTRY_ROW (gtk_builder_get_object (builder, "command_row"));
  d->cwd = ADW_ENTRY_ROW (gtk_builder_get_object (builder, "cwd_row"));
  d->env = ADW_ENTRY_ROW (gtk_builder_get_object (builder, "env_row"));
  d->unwind = ADW_COMBO_ROW (gtk_builder_get_object (builder, "unwind_row"));
  d->follow = GTK_SWITCH (gtk_builder_get_object (builder, "follow_switch"));
  d->error = GTK_LABEL (gtk_builder_get_object (builder, "error_label"));
  g_object_set_data_full (G_OBJECT (d->dialog), "hl-record-dialog", d, record_dialog_free);
  gtk_window_set_modal (d->dialog, parent != NULL);
  gtk_window_set_transient_for (d->dialog, parent);
  g_signal_connect_swapped (gtk_builder_get_object (builder, "cancel_button"), "clicked",
                            G_CALLBACK (gtk_window_destroy), d->dialog);
  g_signal_connect (gtk_builder_get_object (builder, "record_button"), "clicked", G_CALLBACK (on_record_clicked), d);
  g_signal_connect (gtk_builder_get_object (builder, "choose_button"), "clicked", G_CALLBACK (on_choose_clicked), d);
  g_autofree char *cwd = g_get_current_dir ();
  gtk_editable_set_text (GTK_EDITABLE (d->cwd), cwd);
  close_on_escape (d->dialog);
  return d->dialog;
}

void
hl_live_action_record (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  HlApplication *app = user_data;
  GtkWindow *dialog = hl_record_dialog_new (app, gtk_application_get_active_window (GTK_APPLICATION (app)));
  gtk_window_present (dialog);
}

void
hl_live_action_attach (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  HlApplication *app = user_data;
  GtkWindow *dialog = hl_attach_dialog_new (app, gtk_application_get_active_window (GTK_APPLICATION (app)));
  gtk_window_present (dialog);
}

/* ---- Command line ----------------------------------------------------------- */

/* app.record-command ((sasas): working directory, program and arguments,
 * environment) and app.attach-pid (u): what `heaplens --record -- PROG` and
 * `heaplens --attach PID` become, so that a second `heaplens` hands them to
 * the running instance (GApplication forwards action activations over
 * D-Bus) with its own working directory and environment. */
static void
action_record_command (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  HlApplication *app = user_data;
  const char *cwd;
  g_autofree const char **argv = NULL;
  g_autofree const char **env = NULL;
  g_variant_get (param, "(&s^a&s^a&s)", &cwd, &argv, &env);
  if (argv == NULL || argv[0] == NULL)
    return;
  HlLiveRecordOptions options = {
    .argv = (char **) argv,
    .cwd = cwd[0] != '\0' ? (char *) cwd : NULL,
    .extra_env = (char **) env,
    .follow = TRUE,
  };
  start_record (app, &options);
}

static void
action_attach_pid (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  start_attach ((HlApplication *) user_data, g_variant_get_uint32 (param), NULL);
}

void
hl_live_install_actions (HlApplication *app)
{
  static const GActionEntry entries[] = {
    { "record-command", action_record_command, "(sasas)", NULL, NULL },
    { "attach-pid", action_attach_pid, "u", NULL, NULL },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
}

typedef struct
{
  GVariant *param;   /* of app.record-command, or NULL */
  guint32   attach_pid;
  gboolean  done;
} Pending;

static void
pending_free (gpointer data)
{
  Pending *p = data;
  g_clear_pointer (&p->param, g_variant_unref);
  g_free (p);
}

static void
run_pending (GApplication *gapp,
             Pending      *p)
{
  if (p->done)
    return;
  p->done = TRUE;
  if (p->param != NULL)
    g_action_group_activate_action (G_ACTION_GROUP (gapp), "record-command", p->param);
  else if (p->attach_pid != 0)
    g_action_group_activate_action (G_ACTION_GROUP (gapp), "attach-pid", g_variant_new_uint32 (p->attach_pid));
}

static void
on_activate (GApplication *gapp,
             Pending      *p)
{
  run_pending (gapp, p);
}

/* Inside g_application_run, once the options are parsed: another instance
 * running gets the command and this one exits (0); otherwise it runs when
 * this one activates. */
static int
on_handle_local_options (GApplication *gapp,
                         GVariantDict *options,
                         Pending      *p)
{
  g_autoptr(GError) error = NULL;
  if (!g_application_register (gapp, NULL, &error))
    {
      g_printerr ("heaplens: %s\n", error->message);
      return 1;
    }
  if (!g_application_get_is_remote (gapp))
    return -1;
  run_pending (gapp, p);
  return 0;
}

static gboolean
parse_pid (const char *text,
           guint32    *pid)
{
  guint64 v;

  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT32, &v, NULL))
    return FALSE;
  *pid = (guint32) v;
  return TRUE;
}

void
hl_live_command_line (HlApplication *app,
                      int           *argc,
                      char         **argv)
{
  static const GOptionEntry entries[] = {
    { "record", 0, 0, G_OPTION_ARG_NONE, NULL,
      N_("Record a program and watch it live: heaplens --record -- PROGRAM [ARGS…]"), NULL },
    { "attach", 0, 0, G_OPTION_ARG_INT, NULL,
      N_("Watch the live session of a running process"), N_("PID") },
    { NULL },
  };
  g_application_add_main_option_entries (G_APPLICATION (app), entries);

  Pending *p = g_new0 (Pending, 1);
  char **record_argv = NULL;
  int out = 1;
  for (int i = 1; i < *argc; i++)
    {
      if (strcmp (argv[i], "--record") == 0)
        {
          int first = i + 1;
          if (first < *argc && strcmp (argv[first], "--") == 0)
            first++;
          if (first < *argc)
            record_argv = argv + first;
          break;
        }
      /* a value that is not a pid is left to GOption, which refuses it */
      if (strcmp (argv[i], "--attach") == 0 && i + 1 < *argc && parse_pid (argv[i + 1], &p->attach_pid))
        {
          i++;
          continue;
        }
      if (g_str_has_prefix (argv[i], "--attach=") && parse_pid (argv[i] + 9, &p->attach_pid))
        continue;
      argv[out++] = argv[i];
    }
  if (record_argv != NULL)
    {
      g_autofree char *cwd = g_get_current_dir ();
      g_auto(GStrv) env = g_get_environ ();
      p->param = g_variant_ref_sink (g_variant_new ("(s^as^as)", cwd, record_argv, env));
    }
  argv[out] = NULL;
  *argc = out;
  if (p->param == NULL && p->attach_pid == 0)
    {
      pending_free (p);
      return;
    }
  g_object_set_data_full (G_OBJECT (app), "hl-live-pending", p, pending_free);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (on_handle_local_options), p);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), p);
}
