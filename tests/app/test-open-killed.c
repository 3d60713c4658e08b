/* test-open-killed.c — a trace whose program was run with a bare
 * LD_PRELOAD and killed by SIGKILL, opened in a window with its session
 * still in /dev/shm (issue 26 point 1): the document salvages what the
 * threads were still building into the trace before it loads it (as
 * every heaplens-cli reader does), so the window shows every allocation
 * the program's own log shows made, and the Duration card says it ended
 * without an exit and what was salvaged. A second window finds nothing
 * more to salvage. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "hl-app-test.h"
#include "hl-summary-view.h"

#define IDLE 40  /* t-killed's idle thread's allocations (T_KILLED_IDLE) */

static HlApplication *app;

/* The allocations t-killed's log LOG shows made: per thread its last
 * count, one less for a busy thread (the line is written just before the
 * call, which the kill may have stopped), all of the idle thread's (4). */
static guint64
logged (const char *log)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  guint64 last[5] = { 0 };
  for (char *line = text, *next; line != NULL && *line != '\0'; line = next)
    {
      next = strchr (line, '\n');
      if (next == NULL)
        break; /* a line cut by the kill */
      *next++ = '\0';
      char *end;
      guint64 k = g_ascii_strtoull (line, &end, 10);
      guint64 n = g_ascii_strtoull (end, NULL, 10);
      if (k < 5)
        last[k] = MAX (last[k], n);
    }
  guint64 sum = last[4];
  for (int k = 0; k < 4; k++)
    sum += last[k] > 0 ? last[k] - 1 : 0;
  return sum;
}

typedef struct
{
  HlSummaryView *summary;
} Shows;

static gboolean
duration_says_salvaged (gpointer data)
{
  Shows *s = data;
  const char *detail = hl_summary_view_get_stat_detail (s->summary, "duration");
  return detail != NULL && strstr (detail, "salvaged") != NULL;
}

/* A window that opened PATH and shows its views; its Duration card's
 * detail in *DETAIL. */
static HlWindow *
open_shown (const char  *path,
            char       **detail)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  HlWindow *window = hl_app_test_new_window (app, 1000, 700);
  hl_window_open (window, file);
  hl_app_test_wait_for_page (window, "views");
  Shows shows = { HL_SUMMARY_VIEW (hl_app_test_find_widget (GTK_WIDGET (window), HL_TYPE_SUMMARY_VIEW)) };
  g_assert_nonnull (shows.summary);
  hl_app_test_spin_until (duration_says_salvaged, &shows);
  *detail = g_strdup (hl_summary_view_get_stat_detail (shows.summary, "duration"));
  return window;
}

static gboolean
has_segment (GPid pid)
{
  g_autoptr(GPtrArray) list = hl_live_session_list_pid ((guint32) pid, NULL);
  return list != NULL && list->len > 0;
}

static void
test_killed (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-test-killed-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "k.hltrace", NULL);
  g_autofree char *log = g_build_filename (dir, "k.log", NULL);
  g_autofree char *prog = hl_app_test_build_path ("tests/capture", "t-killed");
  g_autofree char *preload = hl_app_test_build_path ("src/capture", "libheaplens-preload.so");
  char *argv[] = { prog, NULL };
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  GPid pid;
  int status;

  /* the program's environment, as a person's shell gives it */
  env = g_environ_unsetenv (env, "MALLOC_CHECK_");
  env = g_environ_unsetenv (env, "G_DEBUG");
  env = g_environ_unsetenv (env, "HEAPLENS_LAUNCHER");
  env = g_environ_unsetenv (env, "HEAPLENS_KEEP_SESSION");
  env = g_environ_setenv (env, "LD_PRELOAD", preload, TRUE);
  env = g_environ_setenv (env, "HEAPLENS_OUTPUT", path, TRUE);
  env = g_environ_setenv (env, "T_KILLED_LOG", log, TRUE);
  env = g_environ_setenv (env, "T_KILLED_IDLE", G_STRINGIFY (IDLE), TRUE);
  g_assert_true (g_spawn_async (dir, argv, env, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  g_usleep (400 * 1000);
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  g_assert_true (has_segment (pid));
  guint64 want = logged (log);
  g_assert_cmpuint (want, >, 1000);

  g_autofree char *detail = NULL;
  HlWindow *window = open_shown (path, &detail);
  HlRecording *rec = hl_window_get_recording (window);
  HlSummary sum;
  hl_recording_get_summary (rec, &sum);
  g_test_message ("%" G_GUINT64_FORMAT " allocations shown, %" G_GUINT64_FORMAT " logged; duration: %s",
                  sum.n_allocations, want, detail);
  g_assert_cmpuint (sum.n_allocations, >=, want);
  /* a few of the preload's start besides (thread creation): no packet twice */
  g_assert_cmpuint (sum.n_allocations, <=, want + 64);
  g_assert_nonnull (hl_recording_get_info (rec, "ended_unseen"));
  const char *salvaged = hl_recording_get_info (rec, "salvaged_events");
  g_assert_nonnull (salvaged);
  g_assert_true (g_str_has_prefix (detail, "ended without an exit (killed?); "));
  g_assert_nonnull (strstr (detail, " events salvaged, at most "));
  hl_app_test_save_window_png (GTK_WINDOW (window), "killed-open-summary.png");
  /* the segment stays for `sessions --prune` */
  g_assert_true (has_segment (pid));
  struct stat st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  goffset size = st.st_size;
  g_autofree char *salvaged_first = g_strdup (salvaged);
  gtk_window_destroy (GTK_WINDOW (window));

  /* opened again: nothing more salvaged, the same counts */
  g_autofree char *detail2 = NULL;
  window = open_shown (path, &detail2);
  HlSummary sum2;
  hl_recording_get_summary (hl_window_get_recording (window), &sum2);
  g_assert_cmpuint (sum2.n_allocations, ==, sum.n_allocations);
  g_assert_cmpstr (detail2, ==, detail);
  g_assert_cmpstr (hl_recording_get_info (hl_window_get_recording (window), "salvaged_events"), ==, salvaged_first);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, size);
  gtk_window_destroy (GTK_WINDOW (window));

  /* what `sessions --prune` would remove */
  g_autoptr(GPtrArray) list = hl_live_session_list_pid ((guint32) pid, NULL);
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      g_autofree char *seg = g_strconcat ("/dev/shm/", ((HlLiveSessionInfo *) g_ptr_array_index (list, i))->name, NULL);
      g_unlink (seg);
    }
  g_spawn_close_pid (pid);
  g_unlink (path);
  g_unlink (log);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = g_dir_make_tmp ("hl-test-open-killed-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  app = hl_app_test_init (&argc, &argv, "/open-killed");
  if (app == NULL)
    return g_test_run ();
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/open-killed/salvaged", test_killed);
  int ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  return ret;
}
