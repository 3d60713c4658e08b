/* test-flame-draw.c — the flame graph drawing function on known data, no display. */
#include "hl-app-test.h"
#include "hl-config.h"

#include <math.h>

#include <cairo.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "hl-flame-export.h"
#include "hl-flame-graph-draw.h"

#define W 200
#define ROW 20.0

typedef struct
{
  HlFlameData *data;
  guint a, a1, b;
} Fixture;

/* all(100) ─┬─ a(50) ── a1(25)
 *           └─ b(50)                  */
static void
fixture_setup (Fixture       *f,
               gconstpointer  user_data)
{
  f->data = hl_flame_data_new ("all", TRUE);
  f->a = hl_flame_data_add (f->data, 0, "alpha", "libone.so", "a.c", 10, 50, FALSE, NULL);
  f->a1 = hl_flame_data_add (f->data, f->a, "alpha_inner", "libone.so", "a.c", 20, 25, FALSE, NULL);
  f->b = hl_flame_data_add (f->data, 0, "beta", "libtwo.so", "b.c", 30, 50, FALSE, NULL);
  hl_flame_data_finish (f->data);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  user_data)
{
  hl_flame_data_unref (f->data);
}

static cairo_surface_t *
render (const HlFlameData     *data,
        const HlFlameViewport *vp,
        const HlFlameStyle    *style,
        HlFlameDrawStats      *stats)
{
  int h = (int) hl_flame_graph_content_height (data, vp);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) vp->width, h);
  cairo_t *cr = cairo_create (surface);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  hl_flame_graph_draw (cr, data, vp, style, stats);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  if (g_getenv ("HL_TEST_SAVE_PNG") != NULL)
    {
      g_autofree char *name = g_strdup_printf ("flame-%s.png", g_test_get_path () + 1);
      g_strdelimit (name, "/", '-');
      cairo_surface_write_to_png (surface, name);
    }
  return surface;
}

static guint32
expected (const HlFlameData  *data,
          guint               node,
          const HlFlameStyle *style)
{
  double rgb[3];

  hl_flame_graph_node_color (data, node, style, rgb);
  return ((guint32) (rgb[0] * 255 + 0.5) << 16) | ((guint32) (rgb[1] * 255 + 0.5) << 8) | (guint32) (rgb[2] * 255 + 0.5);
}

static void
assert_color_near (guint32 got,
                   guint32 want)
{
  for (int shift = 0; shift <= 16; shift += 8)
    {
      int g = (got >> shift) & 0xff, w = (want >> shift) & 0xff;
      if (ABS (g - w) > 2)
        g_error ("colour %06x, expected %06x", got, want);
    }
}

static void
test_widths (Fixture       *f,
             gconstpointer  user_data)
{
  HlFlameViewport vp = { .width = W, .row_height = ROW, .zoom = 0, .inverted = FALSE };
  HlFlameStyle style = { .colors = HL_FLAME_COLORS_BY_NAME, .selected = -1 };
  cairo_surface_t *s = render (f->data, &vp, &style, NULL);
  int y_depth1 = (int) (ROW * 1 + 2);  /* max depth 2, not inverted: depth 1 is the middle row */
  int y_depth2 = 2;

  /* alpha is 50 % of the width: x in [0, 100), beta [100, 200). */
  assert_color_near (hl_app_test_pixel (s, 2, y_depth1), expected (f->data, f->a, &style));
  assert_color_near (hl_app_test_pixel (s, 97, y_depth1), expected (f->data, f->a, &style));
  assert_color_near (hl_app_test_pixel (s, 102, y_depth1), expected (f->data, f->b, &style));
  assert_color_near (hl_app_test_pixel (s, 197, y_depth1), expected (f->data, f->b, &style));
  /* alpha_inner is 25 %: [0, 50), nothing above beta. */
  assert_color_near (hl_app_test_pixel (s, 47, y_depth2), expected (f->data, f->a1, &style));
  assert_color_near (hl_app_test_pixel (s, 53, y_depth2), 0xffffff);
  assert_color_near (hl_app_test_pixel (s, 150, y_depth2), 0xffffff);
  g_assert_cmpuint (expected (f->data, f->a, &style), !=, expected (f->data, f->b, &style));
  cairo_surface_destroy (s);
}

static void
test_inverted (Fixture       *f,
               gconstpointer  user_data)
{
  HlFlameViewport vp = { .width = W, .row_height = ROW, .zoom = 0, .inverted = TRUE };
  HlFlameStyle style = { .colors = HL_FLAME_COLORS_BY_MODULE, .selected = -1 };
  cairo_surface_t *s = render (f->data, &vp, &style, NULL);

  /* Icicle: the root on top, alpha_inner in the bottom row. */
  assert_color_near (hl_app_test_pixel (s, 100, 2), expected (f->data, 0, &style));
  assert_color_near (hl_app_test_pixel (s, 20, (int) (2 * ROW + 2)), expected (f->data, f->a1, &style));
  /* By module: alpha and alpha_inner share libone.so's colour. */
  g_assert_cmpuint (expected (f->data, f->a, &style), ==, expected (f->data, f->a1, &style));
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 20, 2 * ROW + 5), ==, (gint) f->a1);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 20, 5), ==, 0);
  cairo_surface_destroy (s);
}

static void
test_hit_test (Fixture       *f,
               gconstpointer  user_data)
{
  HlFlameViewport vp = { .width = W, .row_height = ROW, .zoom = 0, .inverted = FALSE };

  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 10, 45), ==, 0);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 99, 25), ==, (gint) f->a);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 100, 25), ==, (gint) f->b);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 49, 5), ==, (gint) f->a1);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 51, 5), ==, -1);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 150, 5), ==, -1);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, -1, 25), ==, -1);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 10, 61), ==, -1);
}

static void
test_zoom (Fixture       *f,
           gconstpointer  user_data)
{
  HlFlameViewport vp = { .width = W, .row_height = ROW, .zoom = 0, .inverted = FALSE };
  HlFlameStyle style = { .colors = HL_FLAME_COLORS_BY_NAME, .selected = -1 };
  cairo_surface_t *s;
  double x, y, w, h;

  vp.zoom = f->a;
  /* Zoomed into alpha: it fills the width, alpha_inner is now half of it,
   * beta is outside and the root (an ancestor) is still drawn full width. */
  g_assert_true (hl_flame_graph_node_rect (f->data, &vp, f->a, &x, &y, &w, &h));
  g_assert_cmpfloat_with_epsilon (x, 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (w, W, 1e-9);
  g_assert_true (hl_flame_graph_node_rect (f->data, &vp, f->a1, &x, &y, &w, &h));
  g_assert_cmpfloat_with_epsilon (w, W / 2.0, 1e-9);
  g_assert_false (hl_flame_graph_node_rect (f->data, &vp, f->b, &x, &y, &w, &h));
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 190, 25), ==, (gint) f->a);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 90, 5), ==, (gint) f->a1);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 110, 5), ==, -1);
  g_assert_cmpint (hl_flame_graph_hit_test (f->data, &vp, 190, 45), ==, 0);

  s = render (f->data, &vp, &style, NULL);
  assert_color_near (hl_app_test_pixel (s, 150, 5), 0xffffff);
  assert_color_near (hl_app_test_pixel (s, 95, 5), expected (f->data, f->a1, &style));
  assert_color_near (hl_app_test_pixel (s, 190, 25), expected (f->data, f->a, &style));
  cairo_surface_destroy (s);
}

static void
test_search (Fixture       *f,
             gconstpointer  user_data)
{
  HlFlameViewport vp = { .width = W, .row_height = ROW, .zoom = 0, .inverted = FALSE };
  HlFlameStyle plain = { .colors = HL_FLAME_COLORS_BY_NAME, .selected = -1 };
  HlFlameStyle style = { .colors = HL_FLAME_COLORS_BY_NAME, .selected = -1, .search = "INNER" };
  cairo_surface_t *s = render (f->data, &vp, &style, NULL);
  guint32 match = hl_app_test_pixel (s, 20, 5), other = hl_app_test_pixel (s, 20, 25), other2 = hl_app_test_pixel (s, 150, 25);

  /* The match is highlighted: its colour differs from its normal colour and
   * from the dimmed frames, which are grey. */
  g_assert_cmpuint (match, !=, other);
  g_assert_cmpuint (other, ==, other2);
  g_assert_cmpuint (match, !=, expected (f->data, f->a1, &plain));
  g_assert_cmpuint ((other >> 16) & 0xff, ==, other & 0xff);

  /* Share of the total: alpha_inner is 25 of 100; "alpha" matches alpha and
   * alpha_inner but counts once (50); "a" matches everything below the root. */
  g_assert_cmpuint (hl_flame_data_search_cost (f->data, "INNER"), ==, 25);
  g_assert_cmpuint (hl_flame_data_search_cost (f->data, "alpha"), ==, 50);
  g_assert_cmpuint (hl_flame_data_search_cost (f->data, "a"), ==, 100);
  g_assert_cmpuint (hl_flame_data_search_cost (f->data, "zeta"), ==, 0);
  cairo_surface_destroy (s);
}

static void
test_lod (void)
{
  g_autoptr(HlFlameData) data = hl_flame_data_new ("all", FALSE);
  HlFlameViewport vp = { .width = W, .row_height = ROW, .zoom = 0, .inverted = TRUE };
  HlFlameStyle style = { .colors = HL_FLAME_COLORS_BY_NAME, .selected = -1 };
  HlFlameDrawStats stats;
  cairo_surface_t *s;
  guint big;

  /* One frame of half the width, then 10,000 frames of 1/20,000 each with a
   * child apiece: 20,000 sub-pixel frames. */
  big = hl_flame_data_add (data, 0, "big", "m", NULL, 0, 10000, FALSE, NULL);
  for (guint i = 0; i < 10000; i++)
    {
      g_autofree char *name = g_strdup_printf ("tiny%u", i);
      guint t = hl_flame_data_add (data, 0, name, "m", NULL, 0, 1, FALSE, NULL);
      hl_flame_data_add (data, t, "leaf", "m", NULL, 0, 1, FALSE, NULL);
    }
  hl_flame_data_finish (data);
  g_assert_cmpuint (hl_flame_data_get_total (data), ==, 20000);

  s = render (data, &vp, &style, &stats);
  /* root + big + one merged sliver: the tiny frames are one rectangle, and
   * their children are not visited at all. */
  g_assert_cmpuint (stats.n_rectangles, ==, 3);
  g_assert_cmpuint (stats.n_merged, ==, 1);
  /* The sliver covers the right half. */
  g_assert_cmpuint (hl_app_test_pixel (s, 150, 25), !=, 0xffffff);
  g_assert_cmpuint (hl_app_test_pixel (s, 150, 45), ==, 0xffffff);
  g_assert_cmpint (hl_flame_graph_hit_test (data, &vp, 50, 25), ==, (gint) big);
  cairo_surface_destroy (s);
}

static void
test_collapsed (Fixture       *f,
                gconstpointer  user_data)
{
  g_autofree char *text = hl_flame_data_to_collapsed (f->data);

  g_assert_cmpstr (text, ==, "alpha 25\nalpha;alpha_inner 25\nbeta 50\n");
}

typedef struct
{
  gboolean root_is_svg;
  char    *width;
  guint    n_elements;
} SvgInfo;

static void
svg_start (GMarkupParseContext *context,
           const char          *element,
           const char         **names,
           const char         **values,
           gpointer             user_data,
           GError             **error)
{
  SvgInfo *info = user_data;

  if (info->n_elements++ == 0)
    {
      info->root_is_svg = g_str_equal (element, "svg");
      for (guint i = 0; names[i]; i++)
        if (g_str_equal (names[i], "width"))
          info->width = g_strdup (values[i]);
    }
}

static void
test_export (Fixture       *f,
             gconstpointer  user_data)
{
  HlFlameViewport vp = { .width = W, .row_height = ROW, .zoom = 0, .inverted = FALSE };
  HlFlameStyle style = { .colors = HL_FLAME_COLORS_BY_NAME, .selected = -1 };
  g_autofree char *dir = g_dir_make_tmp ("hl-export-XXXXXX", NULL);
  g_autofree char *svg_path = g_build_filename (dir, "flame.svg", NULL);
  g_autofree char *png_path = g_build_filename (dir, "flame.PNG", NULL);
  g_autofree char *txt_path = g_build_filename (dir, "flame.txt", NULL);
  g_autoptr(GFile) svg = g_file_new_for_path (svg_path);
  g_autoptr(GFile) png = g_file_new_for_path (png_path);
  g_autoptr(GFile) txt = g_file_new_for_path (txt_path);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  GMarkupParser parser = { .start_element = svg_start };
  GMarkupParseContext *context;
  SvgInfo info = { 0 };
  cairo_surface_t *image;

  g_assert_cmpint (hl_flame_export_format_for_file (svg), ==, HL_FLAME_EXPORT_SVG);
  g_assert_cmpint (hl_flame_export_format_for_file (png), ==, HL_FLAME_EXPORT_PNG);
  g_assert_cmpint (hl_flame_export_format_for_file (txt), ==, HL_FLAME_EXPORT_COLLAPSED);

  /* SVG: parses as XML, is 200 wide, and holds the frames. */
  g_assert_true (hl_flame_export (f->data, &vp, &style, HL_FLAME_EXPORT_SVG, svg, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg_path, &contents, NULL, NULL));
  context = g_markup_parse_context_new (&parser, 0, &info, NULL);
  g_assert_true (g_markup_parse_context_parse (context, contents, -1, &error));
  g_assert_no_error (error);
  g_markup_parse_context_free (context);
  g_assert_true (info.root_is_svg);
  g_assert_true (g_str_has_prefix (info.width, "200"));
  g_assert_cmpuint (info.n_elements, >, 4);
  g_free (info.width);
  g_clear_pointer (&contents, g_free);

  /* PNG: the same pixels as the drawing. */
  g_assert_true (hl_flame_export (f->data, &vp, &style, HL_FLAME_EXPORT_PNG, png, &error));
  g_assert_no_error (error);
  image = cairo_image_surface_create_from_png (png_path);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, W);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 3 * (int) ROW);
  assert_color_near (hl_app_test_pixel (image, 97, (int) ROW + 2), expected (f->data, f->a, &style));
  cairo_surface_destroy (image);

  /* Collapsed stacks. */
  g_assert_true (hl_flame_export (f->data, &vp, &style, HL_FLAME_EXPORT_COLLAPSED, txt, &error));
  g_assert_true (g_file_get_contents (txt_path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "alpha 25\nalpha;alpha_inner 25\nbeta 50\n");

  g_unlink (svg_path);
  g_unlink (png_path);
  g_unlink (txt_path);
  g_rmdir (dir);
}

static double
luminance (const double rgb[3])
{
  double l[3];

  for (int i = 0; i < 3; i++)
    l[i] = rgb[i] <= 0.03928 ? rgb[i] / 12.92 : pow ((rgb[i] + 0.055) / 1.055, 2.4);
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

/* Labels stay readable on every frame colour, light and dark: WCAG AA
 * contrast (4.5:1) against the text colour, for 2,000 names and modules. */
static void
test_contrast (void)
{
  g_autoptr(HlFlameData) data = hl_flame_data_new ("all", TRUE);
  double worst = 100;

  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *name = g_strdup_printf ("function_%u", i);
      g_autofree char *module = g_strdup_printf ("libmodule%u.so", i);
      hl_flame_data_add (data, 0, name, module, NULL, 0, 1, FALSE, NULL);
    }
  hl_flame_data_finish (data);

  for (int dark = 0; dark <= 1; dark++)
    for (int colors = 0; colors <= 1; colors++)
      {
        HlFlameStyle style = { .dark = dark, .colors = colors, .selected = -1 };
        double text[3], lt;

        for (guint i = 1; i < hl_flame_data_get_n_nodes (data); i++)
          {
            double fill[3], lf, ratio;

            hl_flame_graph_node_color (data, i, &style, fill);
            hl_flame_graph_text_color (fill, text);
            lt = luminance (text);
            lf = luminance (fill);
            ratio = (MAX (lf, lt) + 0.05) / (MIN (lf, lt) + 0.05);
            worst = MIN (worst, ratio);
          }
      }
  g_test_message ("worst label contrast %.2f:1", worst);
  g_assert_cmpfloat (worst, >=, 4.5);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/flame-draw/widths", Fixture, NULL, fixture_setup, test_widths, fixture_teardown);
  g_test_add ("/flame-draw/inverted", Fixture, NULL, fixture_setup, test_inverted, fixture_teardown);
  g_test_add ("/flame-draw/hit-test", Fixture, NULL, fixture_setup, test_hit_test, fixture_teardown);
  g_test_add ("/flame-draw/zoom", Fixture, NULL, fixture_setup, test_zoom, fixture_teardown);
  g_test_add ("/flame-draw/search", Fixture, NULL, fixture_setup, test_search, fixture_teardown);
  g_test_add ("/flame-draw/collapsed", Fixture, NULL, fixture_setup, test_collapsed, fixture_teardown);
  g_test_add_func ("/flame-draw/lod", test_lod);
  g_test_add_func ("/flame-draw/contrast", test_contrast);
  g_test_add ("/flame-draw/export", Fixture, NULL, fixture_setup, test_export, fixture_teardown);
  return g_test_run ();
}
