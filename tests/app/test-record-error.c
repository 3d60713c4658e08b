/* test-record-error.c — a recording that cannot start (a program that does
 * not exist, one without the execute permission): the user is told why.
 * At start-up (`heaplens --record PROG`, no window yet) a start window
 * opens with a dialog over it, so the application neither quits nor
 * says nothing; over a trace window, the error stays a toast. */
#include "hl-config.h"

#include <glib/gstdio.h>

#include "hl-app-test.h"

static HlApplication *app;

static void
destroy_windows (void)
{
  GList *l;

  while ((l = gtk_application_get_windows (GTK_APPLICATION (app))) != NULL)
    gtk_window_destroy (GTK_WINDOW (l->data));
  hl_app_test_spin_a_little ();
}

/* The message dialog shown, or NULL. */
static AdwMessageDialog *
find_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);
      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return ADW_MESSAGE_DIALOG (w);
    }
  return NULL;
}

static gboolean
dialog_mapped (gpointer data)
{
  AdwMessageDialog *dialog = find_dialog ();

  return dialog != NULL && gtk_widget_get_mapped (GTK_WIDGET (dialog));
}

/* app.record-command, as `heaplens --record -- PROGRAM` sends it. */
static void
record (const char *program)
{
  const char *argv[] = { program, "--flag", NULL };
  const char *env[] = { NULL };
  g_autofree char *cwd = g_get_current_dir ();

  g_action_group_activate_action (G_ACTION_GROUP (app), "record-command",
                                  g_variant_new ("(s^as^as)", cwd, argv, env));
}

/* What the user sees after RECORD failed at start-up: a visible start
 * window (the application goes on), and over it a dialog with the
 * program and the reason. */
static void
check_start_up_error (const char *program,
                      const char *reason)
{
  g_autofree char *heading = g_strdup_printf ("Cannot record %s", program);
  HlWindow *window = NULL;
  AdwMessageDialog *dialog;

  destroy_windows ();
  record (program);
  hl_app_test_spin_until (dialog_mapped, NULL);
  dialog = find_dialog ();
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, heading);
  g_assert_cmpstr (adw_message_dialog_get_body (dialog), ==, reason);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (HL_IS_WINDOW (l->data) && gtk_widget_get_visible (l->data))
      window = l->data;
  g_assert_nonnull (window);
  g_assert_true (hl_window_is_empty (window));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  gtk_window_destroy (GTK_WINDOW (dialog));
  destroy_windows ();
}

static void
test_missing (void)
{
  check_start_up_error ("/nonexistent/heaplens-test-program", "there is no such file");
}

static void
test_not_in_path (void)
{
  check_start_up_error ("heaplens-test-no-such-program", "no program of that name in PATH");
}

static void
test_not_executable (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-record-error-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "script", NULL);

  g_assert_true (g_file_set_contents (path, "#!/bin/sh\nexit 0\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  check_start_up_error (path, "it is not executable (it lacks the execute permission)");
  check_start_up_error (dir, "it is a folder, not a program");
  g_unlink (path);
  g_rmdir (dir);
}

/* With a trace window open, the error is a toast on it: no dialog, no new
 * window. */
static void
test_over_window (void)
{
  HlWindow *window;

  destroy_windows ();
  window = hl_app_test_new_window (app, 800, 600);
  record ("/nonexistent/heaplens-test-program");
  hl_app_test_spin_ms (300);
  g_assert_null (find_dialog ());
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 1);
  g_assert_true (gtk_application_get_windows (GTK_APPLICATION (app))->data == window);
  destroy_windows ();
}

int
main (int   argc,
      char *argv[])
{
  app = hl_app_test_init (&argc, &argv, "/record-error");
  if (app == NULL)
    return g_test_run ();
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/record-error/missing", test_missing);
  g_test_add_func ("/record-error/not-in-path", test_not_in_path);
  g_test_add_func ("/record-error/not-executable", test_not_executable);
  g_test_add_func ("/record-error/over-window", test_over_window);
  int ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  return ret;
}
