/* hl-app-test.c — helpers shared by the application's widget tests. */
#include "hl-config.h"

#include "hl-app-test.h"

#include <glib/gstdio.h>

HlApplication *
hl_app_test_init (int         *argc,
                  char      ***argv,
                  const char  *prefix)
{
  HlApplication *app;

  g_test_init (argc, argv, NULL);
  if (!gtk_init_check ())
    {
      g_autofree char *path = g_strconcat (prefix, "/no-display", NULL);

      g_test_add_func (path, (GTestFunc) g_test_fail);
      return NULL;
    }
  app = hl_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  return app;
}

void
hl_app_test_spin_until (gboolean (*done) (gpointer),
                        gpointer  data)
{
  gint64 deadline = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;

  while (!done (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (done (data));
}

static gboolean
set_true (gpointer flag)
{
  *(gboolean *) flag = TRUE;
  return G_SOURCE_REMOVE;
}

void
hl_app_test_spin_ms (guint ms)
{
  gboolean done = FALSE;

  /* Blocking iterations: other tests on the machine get the CPU. */
  g_timeout_add (ms, set_true, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

void
hl_app_test_spin_a_little (void)
{
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
}

gboolean
hl_app_test_shows_views (gpointer window)
{
  return g_strcmp0 (hl_window_get_page (window), "views") == 0;
}

void
hl_app_test_wait_for_page (HlWindow   *window,
                           const char *page)
{
  gint64 deadline = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;

  while (g_strcmp0 (hl_window_get_page (window), page) != 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpstr (hl_window_get_page (window), ==, page);
}

HlWindow *
hl_app_test_new_window (HlApplication *app,
                        int            width,
                        int            height)
{
  HlWindow *window = hl_window_new (app);

  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);
  return window;
}

GtkWidget *
hl_app_test_find_widget (GtkWidget *widget,
                         GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = hl_app_test_find_widget (c, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

GtkWidget *
hl_app_test_find_text (GtkWidget  *widget,
                       const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), text) == 0)
    return widget;
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), text) == 0)
    return widget;
  if (ADW_IS_STATUS_PAGE (widget) && g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (widget)), text) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = hl_app_test_find_text (c, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

GFile *
hl_app_test_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("HL_SOURCE_ROOT"), "tests", "format", "data", name, NULL);

  return g_file_new_for_path (path);
}

guint32
hl_app_test_pixel (cairo_surface_t *surface,
                   int              x,
                   int              y)
{
  const guint8 *row = cairo_image_surface_get_data (surface) + y * cairo_image_surface_get_stride (surface);

  return ((const guint32 *) (gconstpointer) row)[x] & 0xffffff;
}

gboolean
hl_app_test_color_near (guint32 a,
                        guint32 b,
                        guint   tolerance)
{
  for (guint shift = 0; shift < 24; shift += 8)
    {
      int ca = (int) ((a >> shift) & 0xff), cb = (int) ((b >> shift) & 0xff);
      if ((guint) ABS (ca - cb) > tolerance)
        return FALSE;
    }
  return TRUE;
}

void
hl_app_test_save_window_png (GtkWindow  *window,
                             const char *name)
{
  const char *dir = g_getenv ("HL_TEST_SCREENSHOT_DIR");
  if (dir == NULL)
    return;
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  hl_app_test_spin_ms (300);
  int w = gtk_widget_get_width (GTK_WIDGET (window)), h = gtk_widget_get_height (GTK_WIDGET (window));
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  g_autoptr(GskRenderNode) node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return;
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_autoptr(GdkTexture) texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_autofree char *path = g_build_filename (dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
  g_test_message ("screenshot %s", path);
}

void
hl_app_test_save_window_pngs (GtkWindow  *window,
                              const char *prefix)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *light = g_strdup_printf ("%s-light.png", prefix);
  g_autofree char *dark = g_strdup_printf ("%s-dark.png", prefix);

  hl_app_test_spin_ms (300);
  hl_app_test_save_window_png (window, light);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  hl_app_test_spin_ms (300);
  hl_app_test_save_window_png (window, dark);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

char *
hl_app_test_build_path (const char *dir,
                        const char *name)
{
  const char *root = g_getenv ("HL_BUILD_ROOT");

  g_assert_nonnull (root);
  return g_build_filename (root, dir, name, NULL);
}

char *
hl_app_test_run_cli (const char *first,
                     ...)
{
  g_autofree char *cli = hl_app_test_build_path ("src/cli", "heaplens-cli");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = 0;
  va_list ap;

  g_ptr_array_add (argv, cli);
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

char *
hl_app_test_record_demo (void)
{
  g_autofree char *dir = g_dir_make_tmp ("hl-app-demo-XXXXXX", NULL);
  g_autofree char *demo = hl_app_test_build_path ("examples", "heaplens-demo");
  g_autofree char *out = NULL;
  char *trace;

  g_assert_nonnull (dir);
  trace = g_build_filename (dir, "demo.hltrace", NULL);
  out = hl_app_test_run_cli ("record", "-o", trace, "--", demo, "--seconds", "1", NULL);
  g_assert_true (g_file_test (trace, G_FILE_TEST_EXISTS));
  return trace;
}

void
hl_app_test_remove_demo (const char *trace)
{
  g_autofree char *dir = NULL;

  if (trace == NULL)
    return;
  dir = g_path_get_dirname (trace);
  g_unlink (trace);
  g_rmdir (dir);
}
