/* test-histogram.c — the size histogram drawing, no display. */
#include "hl-config.h"

#include <math.h>

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

/* Log scale: height ∝ log(1 + value), so 9 of 999 is a third of the
 * chart, not a hundredth; with an axis the bars start right of it. */
static void
test_log_scale (void)
{
  HlHistogramBucket buckets[] = {
    { 8, 999, 8000, NULL, 15 }, { 16, 9, 144, NULL, 31 }, { 32, 0, 0, NULL, 63 },
  };
  HlHistogramStyle style = { .width = 400, .height = 236, .log_scale = TRUE };
  double x, y, w, h, x0, y0, w0, h0;
  g_autofree char *caption = NULL;

  hl_histogram_bar_rect (3, buckets, &style, 0, &x0, &y0, &w0, &h0);
  hl_histogram_bar_rect (3, buckets, &style, 1, &x, &y, &w, &h);
  g_assert_cmpfloat_with_epsilon (h0, 200.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (h, 200.0 * log (10) / log (1000), 1e-9);
  hl_histogram_bar_rect (3, buckets, &style, 2, &x, &y, &w, &h);
  g_assert_cmpfloat (h, ==, 0.0);
  caption = hl_histogram_caption (&style);
  g_assert_cmpstr (caption, ==, "Allocations (log scale)");

  /* the axis: bars from x = 56, hit-testing the same columns */
  style.axis = TRUE;
  hl_histogram_bar_rect (3, buckets, &style, 0, &x0, &y0, &w0, &h0);
  g_assert_cmpfloat (x0, >=, 56.0);
  g_assert_cmpint (hl_histogram_bucket_at (3, &style, 10), ==, -1);
  g_assert_cmpint (hl_histogram_bucket_at (3, &style, x0 + 1), ==, 0);
  g_assert_cmpint (hl_histogram_bucket_at (3, &style, 399), ==, 2);
  g_assert_cmpint (hl_histogram_bucket_at (3, &style, 400), ==, -1);
  style.by_bytes = TRUE;
  style.log_scale = FALSE;
  g_clear_pointer (&caption, g_free);
  caption = hl_histogram_caption (&style);
  g_assert_cmpstr (caption, ==, "Bytes allocated");
}

static void
on_range (HlHistogram *histogram,
          guint64      min_size,
          guint64      max_size,
          guint64     *out)
{
  out[0] = min_size;
  out[1] = max_size;
}

/* A size bar's click gives its range, both ends included; a lifetime
 * bar (a label) gives none. */
static void
test_activate (void)
{
  HlHistogramBucket sizes[] = { { 64, 3, 200, NULL, 127 } };
  HlHistogramBucket lifetimes[] = { { 0, 3, 200, "1–10 ms", 0 } };
  GtkWidget *histogram;
  guint64 range[2] = { 0, 0 };
  g_autofree char *tip = NULL;

  if (!gtk_init_check ())
    {
      g_test_skip ("no display");
      return;
    }
  histogram = g_object_ref_sink (hl_histogram_new ());
  g_signal_connect (histogram, "size-range-activated", G_CALLBACK (on_range), range);
  hl_histogram_set_buckets (HL_HISTOGRAM (histogram), 1, sizes);
  g_assert_true (hl_histogram_activate_bar (HL_HISTOGRAM (histogram), 0));
  g_assert_cmpuint (range[0], ==, 64);
  g_assert_cmpuint (range[1], ==, 127);
  g_assert_false (hl_histogram_activate_bar (HL_HISTOGRAM (histogram), 1));
  tip = hl_histogram_describe_bar (HL_HISTOGRAM (histogram), 0);
  g_assert_true (g_str_has_prefix (tip, "64 B to 127 B: 3 allocations, 200 B"));
  hl_histogram_set_buckets (HL_HISTOGRAM (histogram), 1, lifetimes);
  range[0] = range[1] = 0;
  g_assert_false (hl_histogram_activate_bar (HL_HISTOGRAM (histogram), 0));
  g_assert_cmpuint (range[1], ==, 0);
  g_object_unref (histogram);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/histogram/bars", test_bars);
  g_test_add_func ("/histogram/log-scale", test_log_scale);
  g_test_add_func ("/histogram/activate", test_activate);
  return g_test_run ();
}
