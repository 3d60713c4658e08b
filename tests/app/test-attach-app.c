/* test-attach-app.c — the Attach dialog (issue 28 point 4), under Xvfb:
 *
 * /attach-app/process: t-attach (8 threads allocating, not started under
 * the preload) is found in the dialog's list (by the search field too),
 * attached to from it (its progress lines shown), watched live while it
 * makes a round of 5000 blocks of 777 bytes, and stopped: the detach
 * leaves it running, and its output and exit status are those of a run
 * without us; the saved trace holds that round exactly (heaplens-cli
 * report --filter size=777) and the detach.
 *
 * /attach-app/refused: t-attach built with AddressSanitizer, chosen in
 * the dialog, is refused there with the reason and the remedy, and left
 * running.
 *
 * With HL_TEST_SCREENSHOT_DIR: the dialog listing t-attach (light, dark,
 * 800×600), attaching to it (its progress line), then listing its
 * session, and showing the refusal. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hl-app-test.h"
#include "hl-application.h"
#include "hl-attach-dialog.h"
#include "hl-live-panel.h"
#include "hl-live-window.h"

static HlApplication *app;

/* ---- The target --------------------------------------------------------------- */

typedef struct
{
  GPid     pid;
  char    *dir;
  gboolean exited;
  int      status;
} Target;

static void
target_exited (GPid     pid,
               int      status,
               gpointer data)
{
  Target *t = data;
  t->exited = TRUE;
  t->status = status;
  g_spawn_close_pid (pid);
}

/* PROGRAM DIR ROUNDS, its stdout in DIR/out (exec'd by sh: the child is
 * the program itself). */
static void
target_start (Target     *t,
              const char *program,
              const char *rounds)
{
  g_autoptr(GError) error = NULL;
  t->dir = g_dir_make_tmp ("hl-attach-app-XXXXXX", &error);
  g_assert_no_error (error);
  char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) "exec \"$0\" \"$1\" \"$2\" > \"$1/out\"",
                   (char *) program, t->dir, (char *) rounds, NULL };
  g_auto(GStrv) env = g_environ_setenv (g_get_environ (), "ASAN_OPTIONS", "detect_leaks=0", TRUE);
  env = g_environ_unsetenv (env, "LD_PRELOAD");
  g_assert_true (g_spawn_async (NULL, argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &t->pid, &error));
  g_assert_no_error (error);
  g_child_watch_add (t->pid, target_exited, t);
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Waits for DIR/ready-ROUND. */
static void
target_wait_ready (Target *t,
                   int     round)
{
  g_autofree char *path = g_strdup_printf ("%s/ready-%d", t->dir, round);
  hl_app_test_spin_until (file_exists, path);
}

static void
target_go (Target *t,
           int     round)
{
  g_autofree char *path = g_strdup_printf ("%s/go-%d", t->dir, round);
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
}

static gboolean
target_done (gpointer data)
{
  return ((Target *) data)->exited;
}

static char *
target_output (Target *t)
{
  g_autofree char *path = g_build_filename (t->dir, "out", NULL);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
target_remove (Target *t)
{
  g_autoptr(GDir) d = g_dir_open (t->dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (t->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (t->dir);
  g_clear_pointer (&t->dir, g_free);
}

/* Alive and running: not a zombie, not left in a tracing stop. */
static gboolean
running (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  const char *p = strrchr (text, ')');
  return p != NULL && p[1] == ' ' && strchr ("RSD", p[2]) != NULL;
}

/* ---- The dialog --------------------------------------------------------------- */

/* The row of PID in DIALOG's list, or NULL. */
static GtkWidget *
find_row (GtkWindow *dialog,
          GPid       pid)
{
  GtkWidget *list = hl_app_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_LIST_BOX);
  g_assert_nonnull (list);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    if (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "hl-pid")) == (guint) pid)
      return row;
  return NULL;
}

typedef struct
{
  GtkWindow *dialog;
  GPid       pid;
} RowWait;

static gboolean
row_listed (gpointer data)
{
  RowWait *w = data;
  return find_row (w->dialog, w->pid) != NULL;
}

static void
set_search (GtkWindow  *dialog,
            const char *text)
{
  GtkWidget *entry = hl_app_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_SEARCH_ENTRY);
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  /* search-changed comes after a delay: the filter applied at once */
  g_signal_emit_by_name (entry, "search-changed");
  hl_app_test_spin_a_little ();
}

/* A live panel watching PID, in a window of the application, or NULL. */
static HlLivePanel *
find_panel (GPid pid)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    {
      GtkWidget *p = hl_app_test_find_widget (GTK_WIDGET (l->data), HL_TYPE_LIVE_PANEL);
      if (p != NULL && hl_live_panel_get_session (HL_LIVE_PANEL (p)) != NULL
          && hl_live_session_get_pid (hl_live_panel_get_session (HL_LIVE_PANEL (p))) == (guint32) pid)
        return HL_LIVE_PANEL (p);
    }
  return NULL;
}

static gboolean
panel_opened (gpointer data)
{
  return find_panel (*(GPid *) data) != NULL;
}

static gboolean
dialog_idle (gpointer dialog)
{
  return !hl_attach_dialog_is_busy (dialog);
}

static gboolean
has_step (gpointer dialog)
{
  g_auto(GStrv) steps = hl_attach_dialog_get_steps (dialog);
  return steps[0] != NULL;
}

static GtkWindow *
dialog_listing (Target *t)
{
  GtkWindow *dialog = hl_attach_dialog_new (app, NULL);
  g_object_ref (dialog);
  gtk_window_present (dialog);
  /* listed at once, or at a refresh (every 2 s) */
  RowWait w = { dialog, t->pid };
  hl_app_test_spin_until (row_listed, &w);
  return dialog;
}

typedef struct
{
  HlLiveSession *session;
  guint64        allocs;
} AllocWait;

static gboolean
session_counts (gpointer data)
{
  AllocWait *w = data;
  HlLiveTotals totals;
  hl_live_session_get_totals (w->session, &totals);
  return totals.n_allocs >= w->allocs;
}

static gboolean
session_ended (gpointer session)
{
  return hl_live_session_get_state (session) == HL_LIVE_STATE_ENDED;
}

static gboolean
shows_trace (gpointer panel)
{
  return hl_live_panel_get_trace_window (panel) != NULL;
}

/* selection.allocations (those of 777 bytes) and summary.attach.detached_ns
 * of `report --filter size=777 --json TRACE`. */
static void
report_777 (const char *trace,
            gint64     *allocations,
            gboolean   *detached)
{
  g_autofree char *json = hl_app_test_run_cli ("report", "--filter", "size=777", "--json", trace, NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonObject *summary = json_object_get_object_member (root, "summary");
  JsonObject *selection = json_object_get_object_member (root, "selection");
  g_assert_nonnull (summary);
  g_assert_nonnull (selection);
  *allocations = json_object_get_int_member (selection, "allocations");
  JsonObject *attach = json_object_has_member (summary, "attach")
                         ? json_object_get_object_member (summary, "attach") : NULL;
  *detached = attach != NULL && json_object_has_member (attach, "detached_ns")
              && !json_object_get_null_member (attach, "detached_ns");
}

static void
test_process (void)
{
  g_autofree char *program = hl_app_test_build_path ("tests/capture", "t-attach");

  /* the program alone, for its output */
  Target plain = { 0 };
  target_start (&plain, program, "2");
  for (int r = 1; r <= 2; r++)
    {
      target_wait_ready (&plain, r);
      target_go (&plain, r);
    }
  hl_app_test_spin_until (target_done, &plain);
  g_autofree char *plain_out = target_output (&plain);
  g_assert_true (WIFEXITED (plain.status));

  Target t = { 0 };
  target_start (&t, program, "2");
  target_wait_ready (&t, 1);
  GtkWindow *dialog = dialog_listing (&t);
  g_auto(GStrv) rows = hl_attach_dialog_get_rows (dialog);
  g_autofree char *title = g_strdup_printf ("t-attach — pid %d: RSS ", (int) t.pid);
  gboolean listed = FALSE;
  for (char **r = rows; *r != NULL; r++)
    listed |= g_str_has_prefix (*r, title) && (strstr (*r, " KiB · ") != NULL || strstr (*r, " MiB · ") != NULL)
              && strstr (*r, t.dir) != NULL;
  g_assert_true (listed);

  /* the search: by name, by pid, by command line; another hides it */
  GtkWidget *row = find_row (dialog, t.pid);
  g_autofree char *pid_text = g_strdup_printf ("%d", (int) t.pid);
  const char *shown[] = { "T-ATTACH", pid_text, t.dir };
  for (guint i = 0; i < G_N_ELEMENTS (shown); i++)
    {
      set_search (dialog, shown[i]);
      g_assert_true (gtk_widget_get_child_visible (row));
    }
  set_search (dialog, "no-such-process-here");
  g_assert_false (gtk_widget_get_child_visible (row));
  set_search (dialog, "t-attach");
  hl_app_test_save_window_pngs (dialog, "attach-dialog");
  gtk_window_set_default_size (dialog, 800, 600);
  hl_app_test_spin_ms (300);
  hl_app_test_save_window_png (dialog, "attach-dialog-800x600.png");

  /* attached from the dialog: its steps shown, then its live window. For
   * the screenshot of the progress line, the threads stay stopped 3 s
   * (set before the attach's thread starts, which reads it) */
  gboolean shots = g_getenv ("HL_TEST_SCREENSHOT_DIR") != NULL;
  if (shots)
    g_setenv ("HEAPLENS_ATTACH_TEST_PAUSE_MS", "3000", TRUE);
  gtk_widget_activate (row);
  g_assert_true (hl_attach_dialog_is_busy (dialog));
  if (shots)
    {
      hl_app_test_spin_until (has_step, dialog);
      hl_app_test_save_window_png (dialog, "attach-dialog-progress.png");
    }
  hl_app_test_spin_until (panel_opened, &t.pid);
  g_auto(GStrv) steps = hl_attach_dialog_get_steps (dialog);
  g_autofree char *all_steps = g_strjoinv (" | ", steps);
  g_test_message ("steps: %s", all_steps);
  g_assert_cmpuint (g_strv_length (steps), ==, 4);
  g_assert_cmpstr (steps[0], ==, "Stopping threads…");
  g_assert_cmpstr (steps[1], ==, "Loading the preload…");
  g_assert_cmpstr (steps[2], ==, "Patching the allocator's slots…");
  g_assert_true (g_str_has_prefix (steps[3], "Recording: "));
  g_assert_cmpuint (g_ascii_strtoull (steps[3] + strlen ("Recording: "), NULL, 10), >, 0);
  g_object_unref (dialog);

  HlLivePanel *panel = find_panel (t.pid);
  HlLiveSession *session = hl_live_panel_get_session (panel);
  g_assert_true (hl_live_session_get_attached (session));
  /* a new dialog lists it as a Heaplens session now, once */
  GtkWindow *again = hl_attach_dialog_new (app, NULL);
  gtk_window_present (again);
  GtkWidget *session_row = find_row (again, t.pid);
  g_assert_nonnull (session_row);
  g_assert_nonnull (g_object_get_data (G_OBJECT (session_row), "hl-session"));
  g_assert_nonnull (hl_app_test_find_text (session_row, "Heaplens session"));
  g_auto(GStrv) again_rows = hl_attach_dialog_get_rows (again);
  g_autofree char *session_title = g_strdup_printf ("t-attach — pid %d: ", (int) t.pid);
  guint n_rows = 0;
  for (char **r = again_rows; *r != NULL; r++)
    if (g_str_has_prefix (*r, session_title))
      {
        n_rows++;
        g_assert_nonnull (strstr (*r, " · running"));
      }
  g_assert_cmpuint (n_rows, ==, 1);
  set_search (again, "t-attach");
  hl_app_test_save_window_pngs (again, "attach-dialog-session");
  gtk_window_destroy (again);

  /* the round of 5000 blocks, seen live */
  target_go (&t, 1);
  target_wait_ready (&t, 2);
  AllocWait w = { session, 5000 };
  hl_app_test_spin_until (session_counts, &w);

  /* Stop: the detach; the process goes on */
  g_autofree char *trace = g_strdup (hl_live_session_get_trace_path (session));
  g_assert_true (trace[0] == '/');
  hl_live_panel_stop (panel);
  hl_app_test_spin_until (session_ended, session);
  g_assert_cmpint (hl_live_session_get_exit_status (session), ==, -1);
  g_test_message ("status: %s", hl_live_panel_get_status (panel));
  g_assert_nonnull (strstr (hl_live_panel_get_status (panel), "Detached"));
  hl_app_test_spin_until (shows_trace, panel);
  g_assert_true (running (t.pid));
  g_assert_false (t.exited);
  /* its session was ours to remove */
  g_autofree char *name = g_strdup (hl_live_session_get_name (session));
  g_autofree char *segment = g_strdup_printf ("/dev/shm/%s", name);
  g_assert_false (g_file_test (segment, G_FILE_TEST_EXISTS));

  target_go (&t, 2);
  hl_app_test_spin_until (target_done, &t);
  g_autofree char *out = target_output (&t);
  g_assert_cmpstr (out, ==, plain_out);
  g_assert_cmpint (t.status, ==, plain.status);

  gint64 allocations = 0;
  gboolean detached = FALSE;
  report_777 (trace, &allocations, &detached);
  g_assert_cmpint (allocations, ==, 5000);
  g_assert_true (detached);

  gtk_window_destroy (GTK_WINDOW (hl_live_window_get_window (panel)));
  hl_app_test_spin_a_little ();
  g_unlink (trace);
  g_autofree char *folder = g_path_get_dirname (trace);
  g_autofree char *parent = g_path_get_dirname (folder);
  g_rmdir (folder);
  g_rmdir (parent);
  target_remove (&plain);
  target_remove (&t);
}

static void
test_refused (void)
{
  g_autofree char *program = hl_app_test_build_path ("tests/capture", "t-attach-asan");
  Target t = { 0 };
  target_start (&t, program, "1");
  target_wait_ready (&t, 1);
  GtkWindow *dialog = dialog_listing (&t);
  gtk_widget_activate (find_row (dialog, t.pid));
  hl_app_test_spin_until (dialog_idle, dialog);
  const char *message = hl_attach_dialog_get_message (dialog);
  g_test_message ("refusal: %s", message);
  g_assert_nonnull (message);
  /* the reason and the remedy */
  g_assert_nonnull (strstr (message, "built with AddressSanitizer"));
  g_assert_nonnull (strstr (message, "build it without -fsanitize"));
  GtkWidget *label = hl_app_test_find_text (GTK_WIDGET (dialog), message);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_visible (label));
  g_assert_null (find_panel (t.pid));
  hl_app_test_save_window_pngs (dialog, "attach-dialog-refused");
  g_assert_true (running (t.pid));
  gtk_window_destroy (dialog);
  g_object_unref (dialog);

  target_go (&t, 1);
  hl_app_test_spin_until (target_done, &t);
  g_assert_true (WIFEXITED (t.status));
  target_remove (&t);
}

int
main (int   argc,
      char *argv[])
{
  /* the traces of the attach go in a folder of XDG_STATE_HOME/heaplens */
  g_autofree char *home = g_dir_make_tmp ("hl-test-attach-app-XXXXXX", NULL);
  g_setenv ("XDG_STATE_HOME", home, TRUE);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_unsetenv ("MALLOC_CHECK_");
  g_unsetenv ("G_DEBUG");
  app = hl_app_test_init (&argc, &argv, "/attach-app");
  if (app == NULL)
    return g_test_run ();
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/attach-app/process", test_process);
  g_test_add_func ("/attach-app/refused", test_refused);
  int ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  g_rmdir (home);
  return ret;
}
