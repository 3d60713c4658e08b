/* test-translation.c — the German translation (po/de.po) at work:
 * heaplens-cli with LANGUAGE=de prints German labels with numbers as in the
 * C locale, and the application's widgets (under Xvfb) show German text
 * from the templates and the code. Uses the uninstalled .mo files of the
 * build (HEAPLENS_LOCALEDIR / bindtextdomain on $HL_BUILD_ROOT/po). */
#include "hl-config.h"

#include <locale.h>
#include <stdarg.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "hl-app-test.h"
#include "hl-adapter-summary.h"
#include "hl-recording-builder.h"
#include "hl-allocations-view.h"
#include "hl-summary-view.h"
#include "hl-application.h"
#include "hl-cost.h"
#include "hl-units.h"
#include "hl-window.h"

static char *
localedir (void)
{
  return g_build_filename (g_getenv ("HL_BUILD_ROOT"), "po", NULL);
}

static void
test_cli (void)
{
  g_autofree char *cli = g_build_filename (g_getenv ("HL_BUILD_ROOT"), "src", "cli", "heaplens-cli", NULL);
  g_autofree char *trace = g_build_filename (g_getenv ("HL_SOURCE_ROOT"), "tests", "format", "data",
                                             "basic.hltrace", NULL);
  g_autofree char *dir = localedir ();
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GRegex) number = g_regex_new ("Dauer: +[0-9]+\\.[0-9]{3} s\\n", 0, 0, NULL);
  const char *argv[] = { cli, "report", trace, "--top", "1", NULL };
  const char *usage_argv[] = { cli, "--help", NULL };
  int status = -1;

  env = g_environ_setenv (env, "LANG", "C.UTF-8", TRUE);
  env = g_environ_setenv (env, "LC_ALL", "C.UTF-8", TRUE);
  env = g_environ_setenv (env, "LANGUAGE", "de", TRUE);
  env = g_environ_setenv (env, "HEAPLENS_LOCALEDIR", dir, TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, 0, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("%s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_str_has_prefix (out, "Heaplens-Bericht für "));
  g_assert_nonnull (strstr (out, "\n  Aufrufe:          "));
  g_assert_nonnull (strstr (out, " Allokationen, "));
  g_assert_nonnull (strstr (out, "\n  Heap-Spitze:      "));
  g_assert_null (strstr (out, "duration:"));
  /* Numbers as in C: a decimal point, sizes in KiB/MiB/GiB. */
  g_assert_true (g_regex_match (number, out, 0, NULL));
  g_assert_true (strstr (out, " KiB") != NULL || strstr (out, " MiB") != NULL || strstr (out, " GiB") != NULL);

  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_true (g_spawn_sync (NULL, (char **) usage_argv, env, 0, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "Aufruf: heaplens-cli BEFEHL"));

  /* And without LANGUAGE the same program speaks English. */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  env = g_environ_unsetenv (env, "LANGUAGE");
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, 0, NULL, NULL, &out, &err, &status, &error));
  g_assert_true (g_str_has_prefix (out, "Heaplens report for "));
}

/* The model's strings (errors, filter descriptions) come from the
 * "heaplens" domain whatever domain the program set. */
static void
test_model (void)
{
  g_autoptr(HlFilter) empty = hl_filter_new ();
  g_autoptr(HlFilter) from = NULL;
  g_autoptr(HlFilter) module = NULL;
  g_autoptr(HlFilter) bad = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HlRecording) none = NULL;
  g_autofree char *text = NULL;
  g_autofree char *dir = g_dir_make_tmp ("hl-translation-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "not-a-trace.hltrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *previous = g_strdup (textdomain (NULL));

  textdomain ("another-program");
  bad = hl_filter_parse (empty, "thread=x", &error);
  g_assert_null (bad);
  g_assert_cmpstr (error->message, ==, "„x“ ist keine Thread-ID");
  g_clear_error (&error);

  from = hl_filter_parse (empty, "from=1500ms", &error);
  g_assert_no_error (error);
  module = hl_filter_with_module (from, "libc");
  text = hl_filter_describe (module);
  /* Numbers as in C, words in German. */
  g_assert_cmpstr (text, ==, "1.500 s – Ende, Modul libc");

  g_assert_true (g_file_set_contents (path, "hello", -1, NULL));
  none = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, " ist kein Heaplens-Trace: "));
  textdomain (previous);
  g_unlink (path);
  g_rmdir (dir);
}

static GtkStack *
find_stack_with (GtkWidget  *widget,
                 const char *page)
{
  if (GTK_IS_STACK (widget) && gtk_stack_get_child_by_name (GTK_STACK (widget), page) != NULL)
    return GTK_STACK (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkStack *s = find_stack_with (c, page);
      if (s != NULL)
        return s;
    }
  return NULL;
}

static gboolean
shows_lifetimes (gpointer data)
{
  return hl_app_test_find_text (GTK_WIDGET (data), "Median-Lebensdauer") != NULL;
}

static void
test_app (void)
{
  HlApplication *app = hl_application_new ();
  g_autofree char *path = g_build_filename (g_getenv ("HL_SOURCE_ROOT"), "tests", "format", "data",
                                            "basic.hltrace", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *size = NULL;
  HlWindow *window;

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  window = hl_window_new (app);
  gtk_window_present (GTK_WINDOW (window));

  /* From the template (start page, translated through the .ui's domain)
   * and from the code. */
  g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (window), "Trace _öffnen…"));
  g_assert_cmpstr (hl_cost_get_label (HL_COST_KIND_BYTES), ==, "Allozierte Bytes");
  g_assert_cmpstr (g_dngettext (HL_GETTEXT_PACKAGE, "%u module has no debug information: its frames have no source lines",
                                "%u modules have no debug information: their frames have no source lines", 2),
                   ==, "%u Module haben keine Debug-Informationen: ihre Frames haben keine Quelltextzeilen");
  /* Numbers stay in the C locale. */
  size = hl_format_size (1536 * 1024);
  g_assert_cmpstr (size, ==, "1.50 MiB");

  hl_window_open (window, file);
  hl_app_test_wait_for_page (window, "views");
  g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (window), "Heap-Spitze"));
  g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (window), "Wählen Sie eine Zeile, um ihren vollständigen Stack zu sehen."));
  /* the call tree's column chooser (issue 27 point 6) */
  g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (window), "Spalten"));
  g_assert_cmpstr (g_dpgettext2 (HL_GETTEXT_PACKAGE, "column chooser", "%s Self"), ==, "%s (selbst)");

  /* Issue 27's strings: the Lifetimes tab of Allocations. */
  adw_view_stack_set_visible_child_name (ADW_VIEW_STACK (hl_app_test_find_widget (GTK_WIDGET (window),
                                                                                ADW_TYPE_VIEW_STACK)),
                                         "allocations");
  gtk_stack_set_visible_child_name (find_stack_with (hl_app_test_find_widget (GTK_WIDGET (window),
                                                                              HL_TYPE_ALLOCATIONS_VIEW),
                                                     "lifetimes"),
                                    "lifetimes");
  hl_app_test_spin_until (shows_lifetimes, window);
  g_assert_nonnull (hl_app_test_find_text (GTK_WIDGET (window), "Lebensdauern"));
  hl_app_test_spin_ms (500);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "translation-lifetimes");
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  hl_app_test_spin_ms (500);
  hl_app_test_save_window_pngs (GTK_WINDOW (window), "translation-lifetimes-800x600");
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
}

/* A recording of three blocks at 10, 20, 30 ns, with INFO (key, value,
 * …, NULL). */
static HlRecording *
recording_with (const char *first,
                ...)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 f1[] = { 0x1000 };
  va_list ap;

  hl_recording_append_stack (rec, 1, f1, 1);
  hl_recording_append_alloc (rec, 0, 10, 1, 9000, 0xa0, 1);
  hl_recording_append_alloc (rec, 1, 20, 1, 500, 0xb0, 1);
  va_start (ap, first);
  for (const char *k = first; k != NULL; k = va_arg (ap, const char *))
    hl_recording_append_info (rec, k, va_arg (ap, const char *));
  va_end (ap);
  hl_recording_commit (rec);
  return rec;
}

/* Issue 26 point 7's and 12's words for bounds, in German: a trace cut
 * by a full disk, a salvage's lost events at most. */
static void
test_bounds (void)
{
  HlSummaryView *view = g_object_ref_sink (g_object_new (HL_TYPE_SUMMARY_VIEW, NULL));
  g_autoptr(HlRecording) cut = recording_with ("trace_cut_ns", "20", "trace_cut_reason", "ENOSPC", NULL);
  g_autoptr(HlRecording) died = recording_with ("ended_by_signal", "9", "salvaged_events", "1200",
                                                "lost_events", "3", NULL);
  g_autoptr(HlAnalysis) a_cut = hl_analysis_new (cut, NULL);
  g_autoptr(HlAnalysis) a_died = hl_analysis_new (died, NULL);
  g_autofree char *at = hl_format_time (20);
  g_autofree char *detail = g_strdup_printf ("Trace bei %s durch eine volle Festplatte gekürzt: Zahlen bis %s", at, at);
  g_autofree char *card = g_strdup_printf ("Bis %s nicht freigegeben", at);

  hl_adapter_fill_summary (view, cut, a_cut, NULL);
  g_assert_cmpstr (hl_summary_view_get_stat_detail (view, "duration"), ==, detail);
  g_assert_cmpstr (hl_summary_view_get_stat_caption (view, "leaked"), ==, card);
  hl_adapter_fill_summary (view, died, a_died, NULL);
  g_assert_true (g_str_has_suffix (hl_summary_view_get_stat_detail (view, "duration"),
                                   "; 1,200 Ereignisse gerettet, höchstens 3 verloren"));
  g_object_unref (view);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = NULL;

  /* As main.c does, with the build's translations and German. */
  g_setenv ("LANGUAGE", "de", TRUE);
  g_setenv ("LANG", "C.UTF-8", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  dir = localedir ();
  bindtextdomain (HL_GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (HL_GETTEXT_PACKAGE, "UTF-8");
  textdomain (HL_GETTEXT_PACKAGE);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/translation/cli", test_cli);
  g_test_add_func ("/translation/model", test_model);
  if (gtk_init_check ())
    {
      g_test_add_func ("/translation/app", test_app);
      g_test_add_func ("/translation/bounds", test_bounds);
    }
  else
    g_test_add_func ("/translation/app-no-display", (GTestFunc) g_test_fail);
  return g_test_run ();
}
