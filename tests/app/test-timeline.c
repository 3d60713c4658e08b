/* test-timeline.c — timeline drawing (no display) and the widget's range
 * selection (under Xvfb). */
#include "hl-app-test.h"
#include "hl-config.h"

#include <adwaita.h>

#include "hl-timeline.h"

#define MS G_GUINT64_CONSTANT (1000000)

static HlTimelineData *
make_data (void)
{
  HlTimelineData *data = hl_timeline_data_new (1000 * MS);

  /* Heap grows 0 → 900 KiB over the first 900 ms, falls to 0 at the end. */
  for (guint i = 0; i < 10; i++)
    {
      HlTimelineBucket b = { .time_ns = i * 100 * MS,
                             .heap_min = i * 100 * 1024, .heap_max = (i < 9 ? i * 100 : 0) * 1024,
                             .rss = 0, .n_allocs = 10 * i };
      hl_timeline_data_add_bucket (data, &b);
    }
  hl_timeline_data_add_band (data, "phase", "phase=load", 0, 300 * MS);
  hl_timeline_data_add_band (data, "phase", "phase=query", 300 * MS, 1000 * MS);
  hl_timeline_data_add_band (data, "request", "request=1", 500 * MS, 600 * MS);
  hl_timeline_data_add_mark (data, 700 * MS, "checkpoint");
  return data;
}

static void
test_data (void)
{
  g_autoptr(HlTimelineData) data = make_data ();

  g_assert_cmpuint (hl_timeline_data_get_n_rows (data), ==, 2);
  g_assert_cmpuint (hl_timeline_data_get_band (data, 2)->row, ==, 1);
  g_assert_cmpuint (hl_timeline_data_get_max_bytes (data), ==, 800 * 1024);
  g_assert_cmpuint (hl_timeline_data_get_max_rate (data), ==, 90);
}

/* The viewport of the drawing tests: 400 x 200 px over the first second. */
static const HlTimelineViewport draw_vp = { .width = 400, .height = 200, .row_height = 16,
                                            .start_ns = 0, .end_ns = 1000 * MS };

/* DATA drawn in light style on white; saved as PNG with HL_TEST_SAVE_PNG. */
static cairo_surface_t *
draw_to_surface_vp (HlTimelineData           *data,
                    const HlTimelineViewport *vp,
                    const char               *png)
{
  HlTimelineStyle style = { .dark = FALSE };
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 200);
  cairo_t *cr = cairo_create (s);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  hl_timeline_draw (cr, data, vp, &style);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  if (g_getenv ("HL_TEST_SAVE_PNG"))
    cairo_surface_write_to_png (s, png);
  return s;
}

static cairo_surface_t *
draw_to_surface (HlTimelineData *data,
                 const char     *png)
{
  return draw_to_surface_vp (data, &draw_vp, png);
}

static void
test_draw (void)
{
  g_autoptr(HlTimelineData) data = make_data ();
  HlTimelineLayout lay;
  cairo_surface_t *s;
  double chart_bottom;

  g_assert_cmpfloat (hl_timeline_x_for_time (&draw_vp, 500 * MS), ==, 200.0);
  g_assert_cmpuint (hl_timeline_time_for_x (&draw_vp, 100.0), ==, 250 * MS);

  s = draw_to_surface (data, "timeline-draw.png");
  hl_timeline_layout (data, &draw_vp, &lay);
  g_assert_cmpfloat (lay.bands_height, ==, 32.0);
  chart_bottom = lay.chart_y + lay.chart_height;
  /* Heap at 800 KiB (full scale) between 800 and 900 ms: just under the
   * chart's top it is filled; at 50 ms (heap 0) it is not. */
  g_assert_cmpuint (hl_app_test_pixel (s, 340, (int) (lay.chart_y + 6)), !=, 0xffffff);
  g_assert_cmpuint (hl_app_test_pixel (s, 10, (int) (chart_bottom - 8)), ==, 0xffffff);
  /* The phase=load band covers x [0, 120) in row 0, nothing in row 1 there. */
  g_assert_cmpuint (hl_app_test_pixel (s, 60, 3), !=, 0xffffff);
  g_assert_cmpuint (hl_app_test_pixel (s, 100, 16 + 8), ==, 0xffffff);
  g_assert_cmpuint (hl_app_test_pixel (s, 230, 16 + 3), !=, 0xffffff);
  cairo_surface_destroy (s);
}

/* A recording with a single RSS sample (a short or truncated one): the
 * sample is drawn as a line across its bucket, as the heap is, not as a
 * path of one point, which draws nothing. */
static void
test_draw_one_rss_sample (void)
{
  g_autoptr(HlTimelineData) data = hl_timeline_data_new (1000 * MS);
  HlTimelineLayout lay;
  cairo_surface_t *s;

  for (guint i = 0; i < 10; i++)
    {
      HlTimelineBucket b = { .time_ns = i * 100 * MS, .heap_min = 1024, .heap_max = i == 9 ? 65536 : 1024,
                             .rss = i == 3 ? 4096 * 1024 : 0, .n_allocs = 1 };
      hl_timeline_data_add_bucket (data, &b);
    }
  s = draw_to_surface (data, "timeline-one-rss.png");
  hl_timeline_layout (data, &draw_vp, &lay);
  /* the sample is the largest RSS: the top of the chart (the heap is low
   * there: its largest value is at the end), over its bucket
   * [300, 400) ms = x [120, 160); nothing there before or after it */
  g_assert_cmpuint (hl_app_test_pixel (s, 140, (int) lay.chart_y), !=, 0xffffff);
  g_assert_cmpuint (hl_app_test_pixel (s, 100, (int) lay.chart_y), ==, 0xffffff);
  g_assert_cmpuint (hl_app_test_pixel (s, 180, (int) lay.chart_y), ==, 0xffffff);
  cairo_surface_destroy (s);
}

/* The heap by call site: two sites stacked from the bottom of the heap's
 * area in their colours, the first lowest; the rest in the heap's colour;
 * nothing of them without by_site. The sites' rows are looked up by time
 * as the model divides its buckets. */
static void
test_draw_sites (void)
{
  g_autoptr(HlTimelineData) data = hl_timeline_data_new (1000 * MS);
  HlTimelineViewport vp = draw_vp;
  HlTimelineLayout lay;
  const char *labels[] = { "parse_file", "intern_string" };
  /* 4 buckets of 250 ms; the heap is 800 KiB throughout: site 0 holds
   * 400 KiB, site 1 200 KiB, the rest 200 KiB */
  guint64 bytes[4 * 3];
  cairo_surface_t *s;
  double bottom, rgb[3];
  guint32 site0, site1;

  for (guint i = 0; i < 10; i++)
    {
      HlTimelineBucket b = { .time_ns = i * 100 * MS, .heap_min = 800 * 1024, .heap_max = 800 * 1024, .n_allocs = 1 };
      hl_timeline_data_add_bucket (data, &b);
    }
  for (guint b = 0; b < 4; b++)
    {
      bytes[b * 3] = 400 * 1024;
      bytes[b * 3 + 1] = 200 * 1024;
      bytes[b * 3 + 2] = 800 * 1024;
    }
  bytes[3 * 3 + 1] = 0; /* site 1 gone in the last quarter */
  hl_timeline_data_set_sites (data, 0, 1000 * MS, 4, 2, labels, bytes);
  g_assert_cmpuint (hl_timeline_data_get_n_sites (data), ==, 2);
  g_assert_cmpstr (hl_timeline_data_get_site_label (data, 1), ==, "intern_string");
  g_assert_true (hl_timeline_data_get_sites_at (data, 0) != &bytes[0]); /* copied */
  g_assert_cmpuint (hl_timeline_data_get_sites_at (data, 249 * MS)[0], ==, 400 * 1024);
  g_assert_cmpuint (hl_timeline_data_get_sites_at (data, 750 * MS)[1], ==, 0);
  g_assert_cmpuint (hl_timeline_data_get_sites_at (data, 749 * MS)[1], ==, 200 * 1024);
  g_assert_null (hl_timeline_data_get_sites_at (data, 1000 * MS));

  vp.by_site = TRUE;
  s = draw_to_surface_vp (data, &vp, "timeline-sites.png");
  hl_timeline_layout (data, &vp, &lay);
  bottom = lay.chart_y + lay.chart_height;
  hl_timeline_site_color (FALSE, 0, rgb);
  site0 = ((guint32) (rgb[0] * 255) << 16) | ((guint32) (rgb[1] * 255) << 8) | (guint32) (rgb[2] * 255);
  hl_timeline_site_color (FALSE, 1, rgb);
  site1 = ((guint32) (rgb[0] * 255) << 16) | ((guint32) (rgb[1] * 255) << 8) | (guint32) (rgb[2] * 255);
  /* at x 50 (125 ms): site 0 in the lower half, site 1 above it to 3/4,
   * then the heap's lighter fill (not a site colour) */
  guint32 low = hl_app_test_pixel (s, 50, (int) (bottom - lay.chart_height * 0.25));
  guint32 mid = hl_app_test_pixel (s, 50, (int) (bottom - lay.chart_height * 0.62));
  guint32 high = hl_app_test_pixel (s, 50, (int) (bottom - lay.chart_height * 0.88));
  g_assert_true (hl_app_test_color_near (low, site0, 40));
  g_assert_true (hl_app_test_color_near (mid, site1, 40));
  g_assert_false (hl_app_test_color_near (high, site0, 40) || hl_app_test_color_near (high, site1, 40));
  g_assert_cmpuint (high, !=, 0xffffff);
  /* at x 350 (875 ms) site 1 is gone: above site 0, the heap's fill */
  guint32 gone = hl_app_test_pixel (s, 350, (int) (bottom - lay.chart_height * 0.62));
  g_assert_false (hl_app_test_color_near (gone, site1, 40));
  cairo_surface_destroy (s);

  /* without by_site, no site colour anywhere in the chart */
  s = draw_to_surface (data, "timeline-sites-off.png");
  g_assert_false (hl_app_test_color_near (hl_app_test_pixel (s, 50, (int) (bottom - lay.chart_height * 0.25)), site0, 40));
  cairo_surface_destroy (s);
}

typedef struct
{
  guint   n_changed;
  guint64 start_ns, end_ns;
  gboolean has;
} Emitted;

static void
on_selection_changed (HlTimeline *timeline,
                      Emitted    *e)
{
  e->n_changed++;
  e->has = hl_timeline_get_selection (timeline, &e->start_ns, &e->end_ns);
}

static void
test_widget_selection (void)
{
  g_autoptr(HlTimelineData) data = make_data ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *timeline = hl_timeline_new ();
  Emitted e = { 0 };
  HlTimelineViewport vp;
  guint64 start, end;

  gtk_window_set_default_size (GTK_WINDOW (window), 500, 150);
  gtk_window_set_child (GTK_WINDOW (window), timeline);
  hl_timeline_set_data (HL_TIMELINE (timeline), data);
  g_signal_connect (timeline, "selection-changed", G_CALLBACK (on_selection_changed), &e);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (timeline) == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (timeline), ==, 500);

  /* Dragging from 100 px to 350 px of 500 selects 200 ms – 700 ms. */
  hl_timeline_drag (HL_TIMELINE (timeline), 350, 100);
  g_assert_cmpuint (e.n_changed, ==, 1);
  g_assert_true (e.has);
  g_assert_cmpuint (e.start_ns, ==, 200 * MS);
  g_assert_cmpuint (e.end_ns, ==, 700 * MS);

  /* A click is not a selection. */
  hl_timeline_drag (HL_TIMELINE (timeline), 50, 51);
  g_assert_cmpuint (e.n_changed, ==, 1);

  /* A click on a metadata band selects its interval: phase=load (row 0,
   * [0, 300) ms) at 100 ms, request=1 (row 1, [500, 600) ms) at 550 ms;
   * in row 1 at 100 ms there is no band: the cursor, no selection. */
  hl_timeline_get_viewport (HL_TIMELINE (timeline), &vp);
  hl_timeline_click (HL_TIMELINE (timeline), 50, vp.row_height / 2);
  g_assert_cmpuint (e.n_changed, ==, 2);
  g_assert_cmpuint (e.start_ns, ==, 0);
  g_assert_cmpuint (e.end_ns, ==, 300 * MS);
  hl_timeline_click (HL_TIMELINE (timeline), 275, vp.row_height * 1.5);
  g_assert_cmpuint (e.n_changed, ==, 3);
  g_assert_cmpuint (e.start_ns, ==, 500 * MS);
  g_assert_cmpuint (e.end_ns, ==, 600 * MS);
  hl_timeline_click (HL_TIMELINE (timeline), 50, vp.row_height * 1.5);
  g_assert_cmpuint (e.n_changed, ==, 3);

  /* Zoom in ×2 around the centre, then the same drag selects half as much. */
  hl_timeline_zoom (HL_TIMELINE (timeline), 2.0, 250);
  hl_timeline_get_visible_range (HL_TIMELINE (timeline), &start, &end);
  g_assert_cmpuint (start, ==, 250 * MS);
  g_assert_cmpuint (end, ==, 750 * MS);
  hl_timeline_drag (HL_TIMELINE (timeline), 100, 350);
  g_assert_cmpuint (e.start_ns, ==, 350 * MS);
  g_assert_cmpuint (e.end_ns, ==, 600 * MS);

  /* Pan stays inside the recording. */
  hl_timeline_pan (HL_TIMELINE (timeline), 10000);
  hl_timeline_get_visible_range (HL_TIMELINE (timeline), &start, &end);
  g_assert_cmpuint (end, ==, 1000 * MS);
  g_assert_cmpuint (start, ==, 500 * MS);

  hl_timeline_clear_selection (HL_TIMELINE (timeline));
  g_assert_cmpuint (e.n_changed, ==, 5);
  g_assert_false (e.has);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timeline/data", test_data);
  g_test_add_func ("/timeline/draw", test_draw);
  g_test_add_func ("/timeline/draw-one-rss-sample", test_draw_one_rss_sample);
  g_test_add_func ("/timeline/draw-sites", test_draw_sites);
  if (gtk_init_check ())
    {
      adw_init ();
      g_test_add_func ("/timeline/widget-selection", test_widget_selection);
    }
  else
    /* A GUI test that cannot run is a failure, not a skip: see meson.build. */
    g_test_add_func ("/timeline/widget-selection", (GTestFunc) g_test_fail);
  return g_test_run ();
}
