/* test-window.c — the application shell under Xvfb: start page, actions,
 * colour scheme, window state in GSettings, about and shortcuts windows. */
#include "hl-config.h"

#include <adwaita.h>

#include "hl-app-test.h"
#include "hl-application.h"
#include "hl-start-page.h"
#include "hl-window.h"

/* gtk_recent_manager_has_item is critical while no list exists yet */
static gboolean
hl_test_is_recent (const char *uri)
{
  GtkRecentInfo *info = gtk_recent_manager_lookup_item (gtk_recent_manager_get_default (), uri, NULL);
  if (info == NULL)
    return FALSE;
  gtk_recent_info_unref (info);
  return TRUE;
}

static HlApplication *app;

static void
test_start_page (void)
{
  HlWindow *window = hl_app_test_new_window (app, 0, 0);
  GActionGroup *group = G_ACTION_GROUP (app);

  g_assert_cmpstr (hl_window_get_page (window), ==, "start");
  g_assert_true (hl_window_is_empty (window));
  /* Record and attach (the live part, issue 8) are available. */
  g_assert_true (g_action_group_has_action (group, "record"));
  g_assert_true (g_action_group_get_action_enabled (group, "record"));
  g_assert_true (g_action_group_get_action_enabled (group, "attach"));
  g_assert_true (g_action_group_get_action_enabled (group, "open"));
  {
    g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.show-view('flamegraph')");
    g_assert_cmpstr (accels[0], ==, "<Control>2");
  }
  {
    g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.find");
    g_assert_cmpstr (accels[0], ==, "<Control>f");
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_color_scheme (void)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  GSettings *settings = hl_application_get_settings (app);

  g_assert_nonnull (settings);
  g_action_group_activate_action (G_ACTION_GROUP (app), "color-scheme", g_variant_new_string ("dark"));
  g_assert_cmpint (adw_style_manager_get_color_scheme (style), ==, ADW_COLOR_SCHEME_FORCE_DARK);
  g_assert_true (adw_style_manager_get_dark (style));
  {
    g_autofree char *nick = g_settings_get_string (settings, "color-scheme");
    g_assert_cmpstr (nick, ==, "dark");
  }
  g_action_group_activate_action (G_ACTION_GROUP (app), "color-scheme", g_variant_new_string ("light"));
  g_assert_cmpint (adw_style_manager_get_color_scheme (style), ==, ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_assert_false (adw_style_manager_get_dark (style));
  g_action_group_activate_action (G_ACTION_GROUP (app), "color-scheme", g_variant_new_string ("default"));
}

static void
test_window_state (void)
{
  GSettings *settings = hl_application_get_settings (app);
  HlWindow *window;
  int w, h;

  g_settings_set_int (settings, "window-width", 900);
  g_settings_set_int (settings, "window-height", 650);
  window = hl_app_test_new_window (app, 0, 0);
  gtk_window_get_default_size (GTK_WINDOW (window), &w, &h);
  g_assert_cmpint (w, ==, 900);
  g_assert_cmpint (h, ==, 650);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_close (GTK_WINDOW (window));
  hl_app_test_spin_ms (50);
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1000);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 700);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));
}

static void
test_about_and_shortcuts (void)
{
  HlWindow *window = hl_app_test_new_window (app, 0, 0);
  GList *before = gtk_window_list_toplevels ();
  guint n_before = g_list_length (before);
  GList *after;
  gboolean found_about = FALSE;

  g_list_free (before);
  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  hl_app_test_spin_ms (50);
  after = gtk_window_list_toplevels ();
  g_assert_cmpuint (g_list_length (after), ==, n_before + 1);
  for (GList *l = after; l; l = l->next)
    if (ADW_IS_ABOUT_WINDOW (l->data))
      {
        found_about = TRUE;
        g_assert_cmpstr (adw_about_window_get_version (l->data), ==, HL_VERSION);
        gtk_window_destroy (l->data);
      }
  g_list_free (after);
  g_assert_true (found_about);

  /* GtkApplication loads gtk/help-overlay.ui from our resources. */
  g_assert_nonnull (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window)));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_open_missing_file (void)
{
  HlWindow *window = hl_app_test_new_window (app, 0, 0);
  g_autoptr(GFile) file = g_file_new_for_path ("/nonexistent/trace.hltrace");
  gint64 deadline = g_get_monotonic_time () + 90 * G_USEC_PER_SEC; /* ASan on a loaded machine */

  hl_window_open (window, file);
  g_assert_false (hl_window_is_empty (window));
  while (g_strcmp0 (hl_window_get_page (window), "error") != 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpstr (hl_window_get_page (window), ==, "error");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "trace.hltrace");
  /* a file that fails to open is not a recent trace */
  {
    g_autofree char *uri = g_file_get_uri (file);
    g_assert_false (hl_test_is_recent (uri));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static HlStartPage *
find_start_page (GtkWidget *widget)
{
  if (HL_IS_START_PAGE (widget))
    return HL_START_PAGE (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      HlStartPage *page = find_start_page (c);
      if (page != NULL)
        return page;
    }
  return NULL;
}

static void
test_recent (void)
{
  HlWindow *window = hl_app_test_new_window (app, 0, 0);
  HlStartPage *page = find_start_page (GTK_WIDGET (window));
  g_autofree char *dir = g_dir_make_tmp ("hl-recent-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "recent.hltrace", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) other_file = g_file_new_for_path (other);
  gint64 deadline = g_get_monotonic_time () + 90 * G_USEC_PER_SEC; /* ASan on a loaded machine */

  g_assert_nonnull (page);
  g_assert_cmpuint (hl_start_page_get_n_recent (page), ==, 0);
  g_assert_true (g_file_set_contents (path, "HLTRACE", 8, NULL));
  g_assert_true (g_file_set_contents (other, "text", 4, NULL));
  hl_application_add_recent (app, file);
  /* Another application's recent file is not a trace: not listed. */
  {
    g_autofree char *uri = g_file_get_uri (other_file);
    gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
  }
  while (hl_start_page_get_n_recent (page) == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  hl_app_test_spin_ms (100);
  g_assert_cmpuint (hl_start_page_get_n_recent (page), ==, 1);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* The recent-files list lives under XDG_DATA_HOME: keep it private. */
  home = g_dir_make_tmp ("hl-test-window-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  app = hl_app_test_init (&argc, &argv, "/window");
  if (app == NULL)
    return g_test_run ();
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/window/start-page", test_start_page);
  g_test_add_func ("/window/color-scheme", test_color_scheme);
  g_test_add_func ("/window/window-state", test_window_state);
  g_test_add_func ("/window/about-and-shortcuts", test_about_and_shortcuts);
  g_test_add_func ("/window/open-missing-file", test_open_missing_file);
  g_test_add_func ("/window/recent", test_recent);
  ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  return ret;
}
