/* test-open-trace.c — the application opens trace files as a person does
 * (the path of `heaplens FILE` and of Open): a checked-in trace shows the
 * model's numbers in the summary, a file that is not a trace shows the
 * reader's message. Under Xvfb. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "hl-app-test.h"
#include "hl-application.h"
#include "hl-summary-view.h"
#include "hl-units.h"
#include "hl-window.h"

static HlApplication *app;

static HlWindow *
the_window (void)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (app));

  g_assert_nonnull (windows);
  return HL_WINDOW (windows->data);
}

static void
test_open_fixture (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("HL_SOURCE_ROOT"), "tests", "format", "data", "basic.hltrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HlRecording) expected = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  HlSummary s;
  HlWindow *window;
  HlSummaryView *summary;
  g_autofree char *calls = NULL, *leaked = NULL, *duration = NULL;

  g_assert_no_error (error);
  hl_recording_get_summary (expected, &s);
  g_assert_cmpuint (s.n_allocations, >, 0);

  hl_application_open_file (app, file);
  window = the_window ();
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "basic.hltrace");
  hl_app_test_wait_for_page (window, "views");

  summary = HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW));
  calls = hl_format_count (s.n_allocations);
  leaked = hl_format_size (s.leaked_bytes);
  duration = hl_format_duration (s.duration_ns);
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "calls"), ==, calls);
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "leaked"), ==, leaked);
  g_assert_cmpstr (hl_summary_view_get_stat (summary, "duration"), ==, duration);
  /* The fixture dropped events: the summary says so. */
  {
    g_autofree char *dropped = hl_format_count (s.dropped_events);
    g_assert_cmpstr (hl_summary_view_get_stat (summary, "dropped"), ==, dropped);
  }

  /* Opening another file opens a second window: this one is not empty. */
  g_assert_false (hl_window_is_empty (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_open_not_a_trace (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-open-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "notes.hltrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(HlRecording) none = NULL;
  HlWindow *window;

  g_assert_true (g_file_set_contents (path, "these are not the bytes you are looking for\n", -1, NULL));
  none = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  g_assert_null (none);
  g_assert_nonnull (error);

  hl_application_open_file (app, file);
  window = the_window ();
  hl_app_test_wait_for_page (window, "error");
  /* The reader's own message, word for word. */
  g_assert_cmpstr (hl_window_get_error (window), ==, error->message);
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = g_dir_make_tmp ("hl-test-open-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  app = hl_app_test_init (&argc, &argv, "/open-trace");
  if (app == NULL)
    return g_test_run ();
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/open-trace/fixture", test_open_fixture);
  g_test_add_func ("/open-trace/not-a-trace", test_open_not_a_trace);
  ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  return ret;
}
