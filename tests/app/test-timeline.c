/* test-timeline.c — timeline drawing (no display) and the widget's range
 * selection (under Xvfb). */
#include "hl-app-test.h"
#include "hl-config.h"

#include <math.h>
#include <string.h>

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

#define MIB (G_GUINT64_CONSTANT (1024) * 1024)

/* 0xRRGGBB of a series colour (as cairo rounds it down) */
static guint32
pack (const double rgb[3])
{
  return ((guint32) (rgb[0] * 255) << 16) | ((guint32) (rgb[1] * 255) << 8) | (guint32) (rgb[2] * 255);
}

/* Memory beside the heap: the free space inside malloc's arenas and the
 * program's own mappings stacked on the heap, in their colours (over the
 * white background at 55 %), under the RSS line; none where a bucket has
 * none (issue 30 point 2). */
static void
test_draw_memory (void)
{
  g_autoptr(HlTimelineData) data = hl_timeline_data_new (1000 * MS);
  HlTimelineLayout lay;
  cairo_surface_t *s;
  double bottom, free_c[3], mmap_c[3];
  guint32 want_free, want_mmap;

  for (guint i = 0; i < 10; i++)
    {
      /* heap 1 MiB, then 1 MiB free and 1 MiB mapped from 500 ms on; RSS 4 MiB */
      HlTimelineBucket b = { .time_ns = i * 100 * MS, .heap_min = MIB, .heap_max = MIB, .rss = 4 * MIB,
                             .malloc_free = i >= 5 ? MIB : 0, .mmap = i >= 5 ? MIB : 0, .n_allocs = 1 };
      hl_timeline_data_add_bucket (data, &b);
    }
  g_assert_true (hl_timeline_data_has_memory (data));
  s = draw_to_surface (data, "timeline-memory.png");
  hl_timeline_layout (data, &draw_vp, &lay);
  bottom = lay.chart_y + lay.chart_height;
  hl_timeline_malloc_free_color (FALSE, free_c);
  hl_timeline_mmap_color (FALSE, mmap_c);
  /* 55 % over white */
  for (int k = 0; k < 3; k++)
    {
      free_c[k] = 0.55 * free_c[k] + 0.45;
      mmap_c[k] = 0.55 * mmap_c[k] + 0.45;
    }
  want_free = pack (free_c);
  want_mmap = pack (mmap_c);
  /* the chart's scale is RSS's 4 MiB (or a round tick above it): 1.5 MiB
   * and 2.5 MiB are in the free and the mapped band at 700 ms (x 280) */
  double per_mib = lay.chart_height / ((double) lay.axis.top / (double) MIB);
  guint32 at_free = hl_app_test_pixel (s, 280, (int) (bottom - 1.5 * per_mib));
  guint32 at_mmap = hl_app_test_pixel (s, 280, (int) (bottom - 2.5 * per_mib));
  guint32 before = hl_app_test_pixel (s, 120, (int) (bottom - 1.5 * per_mib));
  g_assert_true (hl_app_test_color_near (at_free, want_free, 24));
  g_assert_true (hl_app_test_color_near (at_mmap, want_mmap, 24));
  g_assert_false (hl_app_test_color_near (before, want_free, 24));
  cairo_surface_destroy (s);
}

/* The value axis: round ticks in the unit of the largest value, as many
 * as the height has room for (3 to 6 ticks in a chart of a few rows). */
static void
test_axis_ticks (void)
{
  HlTimelineAxis axis;
  const char *rss_ticks[] = { "0", "50 MiB", "100 MiB", "150 MiB", "200 MiB", "250 MiB" };

  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_BYTES, 242 * MIB, 5);
  g_assert_cmpuint (axis.n_intervals, ==, 5);
  g_assert_cmpfloat (axis.top, ==, 250.0 * MIB);
  for (guint i = 0; i <= axis.n_intervals; i++)
    {
      g_autofree char *label = hl_timeline_axis_tick_label (&axis, i);
      g_assert_cmpstr (label, ==, rss_ticks[i]);
      g_assert_cmpfloat (hl_timeline_axis_tick_value (&axis, i), ==, i * 50.0 * MIB);
    }

  /* fewer rows, fewer ticks: 0, 100, 200, 300 MiB */
  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_BYTES, 242 * MIB, 3);
  g_assert_cmpuint (axis.n_intervals, ==, 3);
  g_assert_cmpfloat (axis.top, ==, 300.0 * MIB);

  /* a largest value on a tick is the top: 800 KiB, 4 MiB */
  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_BYTES, 800 * 1024, 4);
  g_assert_cmpfloat (axis.top, ==, 800.0 * 1024);
  {
    g_autofree char *label = hl_timeline_axis_tick_label (&axis, 1);
    g_assert_cmpstr (label, ==, "200 KiB");
  }
  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_BYTES, 4 * MIB, 5);
  g_assert_cmpfloat (axis.top, ==, 4.0 * MIB);

  /* fractions of a unit with the decimals the step needs */
  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_BYTES, (guint64) (1.4 * MIB), 3);
  {
    g_autofree char *label = hl_timeline_axis_tick_label (&axis, 1);
    g_assert_cmpstr (label, ==, "0.5 MiB");
  }
  /* bytes never in fractions */
  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_BYTES, 3, 5);
  g_assert_cmpfloat (axis.step, ==, 1.0);
  g_assert_cmpuint (axis.n_intervals, ==, 3);

  /* counts in thousands: 12,345 allocations → 0, 5 k, 10 k, 15 k */
  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_COUNT, 12345, 4);
  g_assert_cmpfloat (axis.top, ==, 15000.0);
  {
    g_autofree char *label = hl_timeline_axis_tick_label (&axis, 2);
    g_assert_cmpstr (label, ==, "10 k");
  }
  hl_timeline_axis_init (&axis, HL_TIMELINE_AXIS_COUNT, 37, 4);
  {
    g_autofree char *label = hl_timeline_axis_tick_label (&axis, 1);
    g_assert_cmpstr (label, ==, "10");
  }

  /* labels two rows' worth apart at most; never fewer than one interval */
  g_assert_cmpuint (hl_timeline_axis_max_intervals (88, 16), ==, 3);
  g_assert_cmpuint (hl_timeline_axis_max_intervals (400, 16), ==, 5);
  g_assert_cmpuint (hl_timeline_axis_max_intervals (10, 16), ==, 1);

  /* the rate strip's label */
  {
    g_autofree char *k = hl_timeline_axis_format_rate (12345.0);
    g_autofree char *m = hl_timeline_axis_format_rate (1.5e6);
    g_autofree char *one = hl_timeline_axis_format_rate (850.0);
    g_assert_cmpstr (k, ==, "12 k/s");
    g_assert_cmpstr (m, ==, "1.5 M/s");
    g_assert_cmpstr (one, ==, "850/s");
  }
}

/* The row of the chart at X whose pixel is nearest COLOR: the core of the
 * 1.5 px line of that colour (the first of equals); -1 if none is near. */
static int
first_row_near (cairo_surface_t        *s,
                const HlTimelineLayout *lay,
                int                     x,
                guint32                 color)
{
  int best = -1, best_distance = 3 * 255;

  for (int y = (int) lay->chart_y - 2; y < (int) (lay->chart_y + lay->chart_height); y++)
    {
      guint32 p = hl_app_test_pixel (s, x, y);
      int distance = 0;

      for (int shift = 0; shift <= 16; shift += 8)
        distance += ABS ((int) ((p >> shift) & 0xff) - (int) ((color >> shift) & 0xff));
      if (distance < best_distance)
        {
          best = y;
          best_distance = distance;
        }
    }
  return best_distance < 120 ? best : -1;
}

/* Heap and RSS on one axis: heap 100 MiB under RSS 250 MiB is drawn at
 * 40 % of its height, and the axis is labelled in MiB. */
static void
test_draw_one_axis (void)
{
  g_autoptr(HlTimelineData) data = hl_timeline_data_new (1000 * MS);
  HlTimelineLayout lay;
  cairo_surface_t *s;
  double rgb[3], bottom;
  int heap_y, rss_y;

  for (guint i = 0; i < 10; i++)
    {
      HlTimelineBucket b = { .time_ns = i * 100 * MS, .heap_min = 100 * MIB, .heap_max = 100 * MIB,
                             .rss = 250 * MIB, .n_allocs = 5 };
      hl_timeline_data_add_bucket (data, &b);
    }
  s = draw_to_surface (data, "timeline-one-axis.png");
  hl_timeline_layout (data, &draw_vp, &lay);
  bottom = lay.chart_y + lay.chart_height;
  g_assert_cmpfloat (lay.axis.top, ==, 250.0 * MIB);
  hl_timeline_heap_color (FALSE, rgb);
  heap_y = first_row_near (s, &lay, 100, pack (rgb));
  hl_timeline_rss_color (FALSE, rgb);
  rss_y = first_row_near (s, &lay, 100, pack (rgb));
  g_assert_cmpint (heap_y, >, 0);
  g_assert_cmpint (rss_y, >, 0);
  g_test_message ("heap top at %d, RSS at %d, bottom %g", heap_y, rss_y, bottom);
  g_assert_cmpfloat (fabs ((bottom - heap_y) - 0.4 * (bottom - rss_y)), <=, 1.0);
  {
    g_autofree char *top = hl_timeline_axis_tick_label (&lay.axis, lay.axis.n_intervals);
    g_assert_cmpstr (top, ==, "250 MiB");
  }
  cairo_surface_destroy (s);

  /* RSS far below the heap sits far below it too (not at the top) */
  {
    g_autoptr(HlTimelineData) low = hl_timeline_data_new (1000 * MS);

    for (guint i = 0; i < 10; i++)
      {
        HlTimelineBucket b = { .time_ns = i * 100 * MS, .heap_min = 9 * MIB, .heap_max = 9 * MIB,
                               .rss = (guint64) (4.5 * MIB), .n_allocs = 5 };
        hl_timeline_data_add_bucket (low, &b);
      }
    s = draw_to_surface (low, "timeline-low-rss.png");
    hl_timeline_layout (low, &draw_vp, &lay);
    bottom = lay.chart_y + lay.chart_height;
    hl_timeline_heap_color (FALSE, rgb);
    heap_y = first_row_near (s, &lay, 100, pack (rgb));
    hl_timeline_rss_color (FALSE, rgb);
    rss_y = first_row_near (s, &lay, 100, pack (rgb));
    g_assert_cmpfloat (fabs ((bottom - rss_y) - 0.5 * (bottom - heap_y)), <=, 1.0);
    cairo_surface_destroy (s);
  }
}

/* Buckets whose counts since the start grow evenly to 1000 allocations
 * and 250 temporaries; the heap stays at 8 MiB. */
static HlTimelineData *
make_counted_data (void)
{
  HlTimelineData *data = hl_timeline_data_new (1000 * MS);

  for (guint i = 0; i < 10; i++)
    {
      HlTimelineBucket b = { .time_ns = i * 100 * MS, .heap_min = 8 * MIB, .heap_max = 8 * MIB,
                             .n_allocs = 100, .allocations_total = 100 * (i + 1),
                             .temporary_total = 25 * (i + 1) };
      hl_timeline_data_add_bucket (data, &b);
    }
  return data;
}

/* The three charts: Consumed draws the heap; Allocations and Temporary
 * their counts since the start, rising to the top, on axes of counts. */
static void
test_draw_modes (void)
{
  g_autoptr(HlTimelineData) data = make_counted_data ();
  HlTimelineViewport vp = draw_vp;
  HlTimelineLayout lay;
  cairo_surface_t *s;
  double bottom;

  g_assert_cmpuint (hl_timeline_data_get_max_value (data, HL_TIMELINE_MODE_ALLOCATIONS), ==, 1000);
  g_assert_cmpuint (hl_timeline_data_get_max_value (data, HL_TIMELINE_MODE_TEMPORARY), ==, 250);
  g_assert_cmpuint (hl_timeline_data_get_max_value (data, HL_TIMELINE_MODE_CONSUMED), ==, 8 * MIB);

  /* Consumed: the heap fills the chart at 10 % of the time */
  s = draw_to_surface_vp (data, &vp, "timeline-mode-consumed.png");
  hl_timeline_layout (data, &vp, &lay);
  bottom = lay.chart_y + lay.chart_height;
  g_assert_cmpuint (hl_app_test_pixel (s, 40, (int) (bottom - lay.chart_height * 0.8)), !=, 0xffffff);
  cairo_surface_destroy (s);

  for (HlTimelineMode mode = HL_TIMELINE_MODE_ALLOCATIONS; mode <= HL_TIMELINE_MODE_TEMPORARY; mode++)
    {
      g_autofree char *top = NULL;

      vp.mode = mode;
      s = draw_to_surface_vp (data, &vp, mode == HL_TIMELINE_MODE_ALLOCATIONS ? "timeline-mode-allocations.png"
                                                                              : "timeline-mode-temporary.png");
      hl_timeline_layout (data, &vp, &lay);
      bottom = lay.chart_y + lay.chart_height;
      top = hl_timeline_axis_tick_label (&lay.axis, lay.axis.n_intervals);
      g_assert_cmpstr (top, ==, mode == HL_TIMELINE_MODE_ALLOCATIONS ? "1000" : "250");
      /* at 10 % of the time the count is at about 10 % of the top: the
       * heap's area is not drawn above it */
      g_assert_cmpuint (hl_app_test_pixel (s, 40, (int) (bottom - lay.chart_height * 0.05)), !=, 0xffffff);
      g_assert_true (hl_app_test_color_near (hl_app_test_pixel (s, 40, (int) (bottom - lay.chart_height * 0.5)),
                                             0xffffff, 8));
      /* at 90 % it is filled up to 80 % */
      g_assert_cmpuint (hl_app_test_pixel (s, 360, (int) (bottom - lay.chart_height * 0.8)), !=, 0xffffff);
      g_assert_true (hl_app_test_color_near (hl_app_test_pixel (s, 300, (int) (bottom - lay.chart_height * 0.97)),
                                             0xffffff, 8));
      cairo_surface_destroy (s);
    }
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

/* The chart's mode: the tooltip names its series' value with its unit. */
static void
test_widget_modes (void)
{
  g_autoptr(HlTimelineData) data = make_counted_data ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *timeline = hl_timeline_new ();
  g_autofree char *consumed = NULL, *allocations = NULL, *temporary = NULL;
  HlTimelineViewport vp;

  gtk_window_set_default_size (GTK_WINDOW (window), 500, 150);
  gtk_window_set_child (GTK_WINDOW (window), timeline);
  hl_timeline_set_data (HL_TIMELINE (timeline), data);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (timeline) == 0)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpint (hl_timeline_get_mode (HL_TIMELINE (timeline)), ==, HL_TIMELINE_MODE_CONSUMED);
  consumed = hl_timeline_describe (HL_TIMELINE (timeline), 230, 60);
  g_assert_nonnull (strstr (consumed, "8.00 MiB"));
  /* by_site draws in Consumed only */
  hl_timeline_set_by_site (HL_TIMELINE (timeline), TRUE);
  hl_timeline_set_mode (HL_TIMELINE (timeline), HL_TIMELINE_MODE_ALLOCATIONS);
  hl_timeline_get_viewport (HL_TIMELINE (timeline), &vp);
  g_assert_false (vp.by_site);
  g_assert_cmpint (vp.mode, ==, HL_TIMELINE_MODE_ALLOCATIONS);
  /* at 460 ms of 1000 (230 px of 500): the bucket [400, 500) ms */
  allocations = hl_timeline_describe (HL_TIMELINE (timeline), 230, 60);
  g_assert_nonnull (strstr (allocations, "Allocations so far: 500"));
  g_assert_null (strstr (allocations, "MiB"));
  hl_timeline_set_mode (HL_TIMELINE (timeline), HL_TIMELINE_MODE_TEMPORARY);
  temporary = hl_timeline_describe (HL_TIMELINE (timeline), 230, 60);
  g_assert_nonnull (strstr (temporary, "Temporary allocations so far: 125"));
  /* the range drag selects in every mode */
  hl_timeline_drag (HL_TIMELINE (timeline), 100, 350);
  g_assert_true (hl_timeline_get_selection (HL_TIMELINE (timeline), NULL, NULL));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A short timeline narrows its bands before its chart: full rows while
 * the axis, a chart of MIN rows and the bands fit; then what is left per
 * band, never under HL_TIMELINE_MIN_BAND_PX. */
static void
test_fit_band_height (void)
{
  /* 4 rows of 20 px, the axis and 3 chart rows: 160 px is enough */
  g_assert_cmpfloat (hl_timeline_fit_band_height (160, 20, 4, 3), ==, 20);
  g_assert_cmpfloat (hl_timeline_fit_band_height (300, 20, 4, 3), ==, 20);
  /* 120 px: 40 for the bands, 10 each */
  g_assert_cmpfloat (hl_timeline_fit_band_height (120, 20, 4, 3), ==, 10);
  g_assert_cmpfloat (hl_timeline_fit_band_height (90, 20, 4, 3), ==, HL_TIMELINE_MIN_BAND_PX);
  g_assert_cmpfloat (hl_timeline_fit_band_height (90, 20, 0, 3), ==, 20);
  /* the layout uses it: bands over the chart */
  {
    HlTimelineViewport vp = { .width = 400, .height = 120, .row_height = 20, .band_height = 10,
                              .start_ns = 0, .end_ns = 100 };
    HlTimelineViewport full = vp;
    full.band_height = 0;
    g_assert_cmpfloat (hl_timeline_band_height (&vp), ==, 10);
    g_assert_cmpfloat (hl_timeline_band_height (&full), ==, 20);
  }
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
  g_test_add_func ("/timeline/axis-ticks", test_axis_ticks);
  g_test_add_func ("/timeline/draw-one-axis", test_draw_one_axis);
  g_test_add_func ("/timeline/draw-modes", test_draw_modes);
  g_test_add_func ("/timeline/draw-memory", test_draw_memory);
  g_test_add_func ("/timeline/fit-band-height", test_fit_band_height);
  if (gtk_init_check ())
    {
      adw_init ();
      g_test_add_func ("/timeline/widget-selection", test_widget_selection);
      g_test_add_func ("/timeline/widget-modes", test_widget_modes);
    }
  else
    {
      /* A GUI test that cannot run is a failure, not a skip: see meson.build. */
      g_test_add_func ("/timeline/widget-selection", (GTestFunc) g_test_fail);
      g_test_add_func ("/timeline/widget-modes", (GTestFunc) g_test_fail);
    }
  return g_test_run ();
}
