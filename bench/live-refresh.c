/* live-refresh — issue 8's refresh rate of the live view (≥ 5 per second),
 * measured in the application itself (needs a display: bench/live.sh runs
 * it under Xvfb):
 *   live-refresh PROGRAM [ARGS...]
 * records PROGRAM in a live window, as "Record a Program…" does, and while
 * its status says Running counts the window's refreshes (timeline,
 * counters, metadata, views) and the main thread's CPU time. Prints the
 * refreshes per second, the longest gap between two, and the main
 * thread's CPU time per refresh. */
#include "hl-config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "bench-cpu.h"
#include "hl-application.h"
#include "hl-live-window.h"
#include "hl-window.h"

int
main (int   argc,
      char *argv[])
{
  if (argc < 2)
    {
      g_printerr ("usage: live-refresh PROGRAM [ARGS...]\n");
      return 2;
    }
  g_autofree char *home = g_dir_make_tmp ("hl-live-refresh-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  if (!gtk_init_check ())
    {
      g_printerr ("live-refresh: no display (run it under xvfb-run)\n");
      return 1;
    }
  HlApplication *app = hl_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, NULL))
    return 1;
  g_application_hold (G_APPLICATION (app));

  g_autofree char *dir = g_dir_make_tmp ("hl-live-refresh-XXXXXX", NULL);
  HlLiveRecordOptions options = { .argv = argv + 1, .cwd = dir, .follow = TRUE };
  g_autoptr(GError) error = NULL;
  HlLivePanel *panel = hl_live_window_new_record (app, &options, &error);
  if (panel == NULL)
    {
      g_printerr ("live-refresh: %s\n", error->message);
      return 1;
    }
  g_object_ref (panel);
  gtk_window_set_default_size (GTK_WINDOW (hl_live_window_get_window (panel)), 1280, 860);
  gtk_window_present (GTK_WINDOW (hl_live_window_get_window (panel)));

  gboolean running = FALSE;
  guint first = 0, last = 0, seen = 0;
  gint64 since = 0, until = 0, seen_at = 0, longest_gap = 0;
  double cpu0 = 0, cpu1 = 0;
  gint64 deadline = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, TRUE);
      const char *status = hl_live_panel_get_status (panel);
      gboolean now_running = status != NULL && g_str_has_prefix (status, "Running");
      guint n = hl_live_panel_get_n_refreshes (panel);
      gint64 t = g_get_monotonic_time ();
      if (now_running && !running)
        {
          running = TRUE;
          first = seen = n;
          since = seen_at = t;
          cpu0 = bench_thread_cpu_ms ();
        }
      else if (running && now_running)
        {
          if (n != seen)
            {
              longest_gap = MAX (longest_gap, t - seen_at);
              seen = n;
              seen_at = t;
            }
          last = n;
          until = t;
          cpu1 = bench_thread_cpu_ms ();
        }
      else if (running && !now_running)
        break;
      if (hl_live_panel_get_trace_window (panel) != NULL)
        break;
    }
  guint refreshes = last - first;
  double seconds = (double) (until - since) / G_USEC_PER_SEC;
  if (!running || seconds <= 0)
    {
      g_printerr ("live-refresh: the program was never seen running\n");
      return 1;
    }
  printf ("live view: %u refreshes in %.2f s of running: %.1f per second  [target >= 5]\n", refreshes, seconds,
          refreshes / seconds);
  printf ("  longest gap between two refreshes: %.0f ms; main thread CPU %.1f ms per refresh (%.0f %% of the time)\n",
          longest_gap / 1000.0, refreshes > 0 ? (cpu1 - cpu0) / refreshes : 0.0,
          (cpu1 - cpu0) / 10.0 / seconds);

  /* the program's end and its trace, then away */
  while (hl_live_panel_get_trace_window (panel) == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  for (const char *name; d != NULL && (name = g_dir_read_name (d)) != NULL;)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
  g_rmdir (home);
  g_object_unref (panel);
  return 0;
}
