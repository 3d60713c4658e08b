/* hl-application.c — the Heaplens application. */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-application.h"
#include "hl-diff-window.h"
#include "hl-live-actions.h"
#include "hl-window.h"

#define HL_TRACE_MIME_TYPE "application/x-heaplens-trace"

struct _HlApplication
{
  AdwApplication parent_instance;

  /* Owned */
  GSettings *settings;
};

G_DEFINE_FINAL_TYPE (HlApplication, hl_application, ADW_TYPE_APPLICATION)

HlApplication *
hl_application_new (void)
{
  return g_object_new (HL_TYPE_APPLICATION,
                       "application-id", HL_APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/org/heaplens/Heaplens",
                       NULL);
}

GSettings *
hl_application_get_settings (HlApplication *self)
{
  g_return_val_if_fail (HL_IS_APPLICATION (self), NULL);
  return self->settings;
}

static HlWindow *
find_empty_window (HlApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    if (HL_IS_WINDOW (l->data) && hl_window_is_empty (HL_WINDOW (l->data)))
      return HL_WINDOW (l->data);
  return NULL;
}

void
hl_application_open_file (HlApplication *self,
                          GFile         *file)
{
  HlWindow *window;

  g_return_if_fail (HL_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (file));

  window = find_empty_window (self);
  if (window == NULL)
    window = hl_window_new (self);
  hl_window_open (window, file);
  gtk_window_present (GTK_WINDOW (window));
}

void
hl_application_open_diff (HlApplication *self,
                          GFile         *a,
                          HlRecording   *a_recording,
                          GFile         *b)
{
  HlDiffWindow *window;

  g_return_if_fail (HL_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (b));

  window = hl_diff_window_new (GTK_APPLICATION (self));
  hl_diff_window_compare (window, a, a_recording, b, NULL);
  gtk_window_present (GTK_WINDOW (window));
}

void
hl_application_show_error (HlApplication *self,
                           const char    *message)
{
  GtkWindow *window;
  GtkWidget *dialog;
  const char *colon;
  g_autofree char *heading = NULL;

  g_return_if_fail (HL_IS_APPLICATION (self));
  g_return_if_fail (message != NULL);

  window = gtk_application_get_active_window (GTK_APPLICATION (self));
  if (window != NULL && gtk_widget_activate_action (GTK_WIDGET (window), "win.show-toast", "s", message))
    return;
  g_printerr ("heaplens: %s\n", message);
  if (window == NULL)
    {
      window = GTK_WINDOW (hl_window_new (self));
      gtk_window_present (window);
    }
  /* "Cannot record PROG: why": the heading, then the reason */
  colon = strstr (message, ": ");
  if (colon != NULL)
    heading = g_strndup (message, (gsize) (colon - message));
  dialog = adw_message_dialog_new (window, heading, colon != NULL ? colon + 2 : message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

void
hl_application_add_recent (HlApplication *self,
                           GFile         *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  GtkRecentData data = {
    .display_name = NULL,
    .description = NULL,
    .mime_type = (char *) HL_TRACE_MIME_TYPE,
    .app_name = (char *) g_get_application_name (),
    .app_exec = (char *) "heaplens %f",
    .groups = NULL,
    .is_private = FALSE,
  };

  g_return_if_fail (HL_IS_APPLICATION (self));
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

/* ---- Colour scheme ---------------------------------------------------- */

static void
apply_color_scheme (HlApplication *self)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  AdwColorScheme scheme = ADW_COLOR_SCHEME_DEFAULT;
  g_autofree char *nick = NULL;

  if (self->settings != NULL)
    nick = g_settings_get_string (self->settings, "color-scheme");
  if (g_strcmp0 (nick, "light") == 0)
    scheme = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_strcmp0 (nick, "dark") == 0)
    scheme = ADW_COLOR_SCHEME_FORCE_DARK;
  adw_style_manager_set_color_scheme (style, scheme);
}

static void
on_color_scheme_changed (GSettings     *settings,
                         const char    *key,
                         HlApplication *self)
{
  apply_color_scheme (self);
}

/* ---- Actions ---------------------------------------------------------- */

static void
on_open_response (GtkNativeDialog *dialog,
                  int              response,
                  HlApplication   *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);
          hl_application_open_file (self, file);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_application_release (G_APPLICATION (self));
}

static void
action_open (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  HlApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) traces = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (_("Open a Trace"), parent,
                                        GTK_FILE_CHOOSER_ACTION_OPEN,
                                        _("_Open"), _("_Cancel"));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);
  /* Over its window, which waits for the answer (HIG: file choosers are modal). */
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), parent != NULL);

  gtk_file_filter_set_name (traces, _("Heaplens traces"));
  gtk_file_filter_add_mime_type (traces, HL_TRACE_MIME_TYPE);
  gtk_file_filter_add_suffix (traces, "hltrace");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), traces);
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), all);

  g_application_hold (G_APPLICATION (self));
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
action_open_uri (GSimpleAction *action,
                 GVariant      *param,
                 gpointer       user_data)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  hl_application_open_file (HL_APPLICATION (user_data), file);
}

static void
action_new_window (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  gtk_window_present (GTK_WINDOW (hl_window_new (HL_APPLICATION (user_data))));
}

static void
action_about (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  HlApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  static const char *developers[] = { "The Heaplens developers", NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", parent,
                        "modal", TRUE,
                        "application-name", _("Heaplens"),
                        "application-icon", HL_APP_ID,
                        "developer-name", _("The Heaplens developers"),
                        "version", HL_VERSION,
                        "comments", _("A heap profiler for native Linux programs: "
                                      "where does the memory go, and when?"),
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "developers", developers,
                        /* Translators: put your names here, one per line. */
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
action_quit (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  HlApplication *self = user_data;
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));

  /* Close each window so that it saves its state, then quit. */
  for (GList *l = windows; l; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
  g_list_free (windows);
  g_application_quit (G_APPLICATION (self));
}

static void
action_color_scheme (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  HlApplication *self = user_data;

  g_simple_action_set_state (action, param);
  if (self->settings != NULL)
    g_settings_set_string (self->settings, "color-scheme", g_variant_get_string (param, NULL));
  else
    {
      const char *nick = g_variant_get_string (param, NULL);
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                          g_str_equal (nick, "dark") ? ADW_COLOR_SCHEME_FORCE_DARK :
                                          g_str_equal (nick, "light") ? ADW_COLOR_SCHEME_FORCE_LIGHT :
                                          ADW_COLOR_SCHEME_DEFAULT);
    }
}

/* app.show-error (s): hl_application_show_error, for the parts of the
 * application below it (the live actions). */
static void
action_show_error (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  hl_application_show_error (HL_APPLICATION (user_data), g_variant_get_string (param, NULL));
}

static const GActionEntry app_actions[] = {
  { "open", action_open, NULL, NULL, NULL },
  { "open-uri", action_open_uri, "s", NULL, NULL },
  { "new-window", action_new_window, NULL, NULL, NULL },
  { "about", action_about, NULL, NULL, NULL },
  { "quit", action_quit, NULL, NULL, NULL },
  { "color-scheme", NULL, "s", "'default'", action_color_scheme },
  { "record", hl_live_action_record, NULL, NULL, NULL },
  { "attach", hl_live_action_attach, NULL, NULL, NULL },
  { "show-error", action_show_error, "s", NULL, NULL },
};

/* ---- Its trace windows ------------------------------------------------ */

/* Every file a window opens goes to the recent files once it has loaded
 * (its saved costs or its events): a file that fails to open is not a
 * recent trace, and one that was listed and no longer opens leaves the
 * list (a cancelled load is not a failure). */
static void
on_window_loaded (HlDocument    *document,
                  HlRecording   *recording,
                  HlApplication *self)
{
  GFile *file = hl_document_get_file (document);

  if (file != NULL)
    hl_application_add_recent (self, file);
}

/* gtk_recent_manager_has_item is critical while no list exists yet */
static gboolean
is_recent (const char *uri)
{
  GtkRecentInfo *info = gtk_recent_manager_lookup_item (gtk_recent_manager_get_default (), uri, NULL);
  if (info == NULL)
    return FALSE;
  gtk_recent_info_unref (info);
  return TRUE;
}

static void
on_window_failed (HlDocument    *document,
                  const GError  *error,
                  HlApplication *self)
{
  GFile *file = hl_document_get_file (document);
  g_autofree char *uri = NULL;

  if (file == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  uri = g_file_get_uri (file);
  if (is_recent (uri))
    gtk_recent_manager_remove_item (gtk_recent_manager_get_default (), uri, NULL);
}

static gboolean
on_window_close_request (GtkWindow     *window,
                         HlApplication *self)
{
  int width, height;

  if (self->settings == NULL)
    return FALSE;
  gtk_window_get_default_size (window, &width, &height);
  g_settings_delay (self->settings);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  if (!gtk_window_is_maximized (window))
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_apply (self->settings);
  return FALSE;
}

/* A trace window gets the size saved from the last one closed, and its
 * files go to the recent files. */
static void
hl_application_window_added (GtkApplication *app,
                             GtkWindow      *window)
{
  HlApplication *self = HL_APPLICATION (app);

  GTK_APPLICATION_CLASS (hl_application_parent_class)->window_added (app, window);
  if (!HL_IS_WINDOW (window))
    return;
  g_signal_connect_object (hl_window_get_document (HL_WINDOW (window)), "saved-costs-loaded",
                           G_CALLBACK (on_window_loaded), self, 0);
  g_signal_connect_object (hl_window_get_document (HL_WINDOW (window)), "loaded",
                           G_CALLBACK (on_window_loaded), self, 0);
  g_signal_connect_object (hl_window_get_document (HL_WINDOW (window)), "failed",
                           G_CALLBACK (on_window_failed), self, 0);
  g_signal_connect_object (window, "close-request", G_CALLBACK (on_window_close_request), self, 0);
  if (self->settings == NULL)
    return;
  hl_window_bind_settings (HL_WINDOW (window), self->settings);
  gtk_window_set_default_size (window,
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (window);
}

/* ---- GApplication ----------------------------------------------------- */

static void
hl_application_startup (GApplication *app)
{
  HlApplication *self = HL_APPLICATION (app);
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  static const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.open", { "<Control>o", NULL } },
    { "app.new-window", { "<Control>n", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "window.close", { "<Control>w", NULL } },
    { "win.find", { "<Control>f", NULL } },
    { "win.compare", { "<Control>d", NULL } },
    { "win.show-view('summary')", { "<Control>1", NULL } },
    { "win.show-view('flamegraph')", { "<Control>2", NULL } },
    { "win.show-view('calltree')", { "<Control>3", NULL } },
    { "win.show-view('allocations')", { "<Control>4", NULL } },
  };

  G_APPLICATION_CLASS (hl_application_parent_class)->startup (app);

  g_set_application_name (_("Heaplens"));
  gtk_window_set_default_icon_name (HL_APP_ID);

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, HL_APP_ID, TRUE);
  if (schema != NULL)
    {
      self->settings = g_settings_new (HL_APP_ID);
      g_signal_connect (self->settings, "changed::color-scheme",
                        G_CALLBACK (on_color_scheme_changed), self);
    }
  else
    g_message ("GSettings schema %s not found: window state will not be saved", HL_APP_ID);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  hl_live_install_actions (self);

  if (self->settings != NULL)
    {
      g_autofree char *nick = g_settings_get_string (self->settings, "color-scheme");
      g_action_group_change_action_state (G_ACTION_GROUP (self), "color-scheme",
                                          g_variant_new_string (nick));
    }
  apply_color_scheme (self);

  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);
}

static void
hl_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (hl_window_new (HL_APPLICATION (app)));
  gtk_window_present (window);
}

static void
hl_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  if (g_strcmp0 (hint, "diff") == 0 && n_files == 2)
    {
      hl_application_open_diff (HL_APPLICATION (app), files[0], NULL, files[1]);
      return;
    }
  for (int i = 0; i < n_files; i++)
    hl_application_open_file (HL_APPLICATION (app), files[i]);
}

/* `heaplens --diff A B`: GOption cannot give one option two values, so the
 * three arguments are taken out here and sent as an open with the hint
 * "diff" (to the running instance, if there is one); the rest goes on as
 * usual. */
static gboolean
hl_application_local_command_line (GApplication   *app,
                                   char         ***arguments,
                                   int            *exit_status)
{
  char **argv = *arguments;

  for (guint i = 1; argv[i] != NULL && strcmp (argv[i], "--") != 0; i++)
    {
      g_autoptr(GError) error = NULL;
      GFile *files[2];
      guint n;

      if (strcmp (argv[i], "--diff") != 0)
        continue;
      if (argv[i + 1] == NULL || argv[i + 2] == NULL)
        {
          g_printerr (_("heaplens: --diff needs two trace files: --diff A.hltrace B.hltrace\n"));
          *exit_status = 2;
          return TRUE;
        }
      if (!g_application_register (app, NULL, &error))
        {
          g_printerr ("heaplens: %s\n", error->message);
          *exit_status = 1;
          return TRUE;
        }
      files[0] = g_file_new_for_commandline_arg (argv[i + 1]);
      files[1] = g_file_new_for_commandline_arg (argv[i + 2]);
      g_application_open (app, files, 2, "diff");
      g_object_unref (files[0]);
      g_object_unref (files[1]);
      g_free (argv[i]);
      g_free (argv[i + 1]);
      g_free (argv[i + 2]);
      n = g_strv_length (argv);
      memmove (&argv[i], &argv[i + 3], (n - i - 2) * sizeof (char *));
      break;
    }
  return G_APPLICATION_CLASS (hl_application_parent_class)->local_command_line (app, arguments, exit_status);
}

static void
hl_application_dispose (GObject *object)
{
  HlApplication *self = HL_APPLICATION (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (hl_application_parent_class)->dispose (object);
}

static void
hl_application_class_init (HlApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = hl_application_dispose;
  app_class->startup = hl_application_startup;
  GTK_APPLICATION_CLASS (klass)->window_added = hl_application_window_added;
  app_class->activate = hl_application_activate;
  app_class->open = hl_application_open;
  app_class->local_command_line = hl_application_local_command_line;
}

static void
hl_application_init (HlApplication *self)
{
  /* Handled by local_command_line(); listed here for --help. */
  g_application_add_main_option (G_APPLICATION (self), "diff", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_NONE,
                                 _("Compare two recordings: --diff A.hltrace B.hltrace"), NULL);
}
