/* test-histogram.c — the size histogram drawing, no display. */
#include "hl-config.h"

#include "hl-histogram.h"

static void
test_bars (void)
{
  HlHistogramBucket buckets[] = {
    { 16, 100, 1600 }, { 32, 50, 1600 }, { 64, 0, 0 }, { 128, 25, 3200 },
  };
  HlHistogramStyle style = { .width = 400, .height = 236 };
  double x, y, w, h, x2, y2, w2, h2;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 236);
  cairo_t *cr = cairo_create (s);
  const guint8 *row;

  /* By count: the first bar is full height (200 px), the second half. */
  hl_histogram_bar_rect (4, buckets, &style, 0, &x, &y, &w, &h);
  hl_histogram_bar_rect (4, buckets, &style, 1, &x2, &y2, &w2, &h2);
  g_assert_cmpfloat_with_epsilon (h, 200.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (h2, 100.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (x2 - x, 100.0, 1e-9);
  hl_histogram_bar_rect (4, buckets, &style, 2, &x, &y, &w, &h);
  g_assert_cmpfloat (h, ==, 0.0);

  /* By bytes: the last bar is the tallest. */
  style.by_bytes = TRUE;
  hl_histogram_bar_rect (4, buckets, &style, 3, &x, &y, &w, &h);
  g_assert_cmpfloat_with_epsilon (h, 200.0, 1e-9);
  hl_histogram_bar_rect (4, buckets, &style, 0, &x, &y, &w, &h);
  g_assert_cmpfloat_with_epsilon (h, 100.0, 1e-9);

  style.by_bytes = FALSE;
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  hl_histogram_draw (cr, 4, buckets, &style);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  /* Inside bar 1 (x 100..200, y 118..218) is coloured; above it is not. */
  row = cairo_image_surface_get_data (s) + 180 * cairo_image_surface_get_stride (s);
  g_assert_cmpuint (((const guint32 *) (gconstpointer) row)[150] & 0xffffff, !=, 0xffffff);
  row = cairo_image_surface_get_data (s) + 60 * cairo_image_surface_get_stride (s);
  g_assert_cmpuint (((const guint32 *) (gconstpointer) row)[150] & 0xffffff, ==, 0xffffff);
  cairo_surface_destroy (s);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/histogram/bars", test_bars);
  return g_test_run ();
}
