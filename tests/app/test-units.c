/* test-units.c — sizes, counts, durations and percentages for people. */
#include "hl-config.h"

#include <glib.h>

#include "hl-units.h"

#define CHECK(call, expected) \
  G_STMT_START { g_autofree char *s_ = (call); g_assert_cmpstr (s_, ==, (expected)); } G_STMT_END

static void
test_size (void)
{
  CHECK (hl_format_size (0), "0 B");
  CHECK (hl_format_size (812), "812 B");
  CHECK (hl_format_size (1023), "1023 B");
  CHECK (hl_format_size (1024), "1.00 KiB");
  CHECK (hl_format_size (1536), "1.50 KiB");
  CHECK (hl_format_size (72704), "71.0 KiB");
  CHECK (hl_format_size (1000 * 1024), "0.98 MiB");
  CHECK (hl_format_size (999 * 1024), "999 KiB");
  CHECK (hl_format_size (24536678), "23.4 MiB");
  CHECK (hl_format_size (G_GUINT64_CONSTANT (125627793408)), "117 GiB");
}

static void
test_count (void)
{
  CHECK (hl_format_count (0), "0");
  CHECK (hl_format_count (7), "7");
  CHECK (hl_format_count (999), "999");
  CHECK (hl_format_count (1000), "1,000");
  CHECK (hl_format_count (12345), "12,345");
  CHECK (hl_format_count (1234567), "1,234,567");
}

static void
test_duration (void)
{
  CHECK (hl_format_duration (0), "0 ns");
  CHECK (hl_format_duration (850000), "850 µs");
  CHECK (hl_format_duration (12500000), "12.5 ms");
  CHECK (hl_format_duration (3200000000u), "3.20 s");
  CHECK (hl_format_duration (G_GUINT64_CONSTANT (125000000000)), "2 min 05 s");
  CHECK (hl_format_duration (G_GUINT64_CONSTANT (3720000000000)), "1 h 02 min");
}

static void
test_time (void)
{
  CHECK (hl_format_time (0), "0 s");
  CHECK (hl_format_time (850), "0.85 µs");
  CHECK (hl_format_time (850000), "850 µs");
  CHECK (hl_format_time (999700), "1 ms");
  CHECK (hl_format_time (1500000), "1.5 ms");
  CHECK (hl_format_time (4000000), "4 ms");
  CHECK (hl_format_time (12345678), "12.3 ms");
  CHECK (hl_format_time (999700000), "1.0 s");
  CHECK (hl_format_time (1500000000), "1.5 s");
  CHECK (hl_format_time (G_GUINT64_CONSTANT (125300000000)), "2:05.3");
}

/* Long labels keep both ends: a call site's function and its caller's
 * line; characters, not bytes, are counted. */
static void
test_shortened (void)
{
  CHECK (hl_format_shortened ("demo_xmalloc", 36), "demo_xmalloc");
  CHECK (hl_format_shortened ("abcdefghij", 10), "abcdefghij");
  CHECK (hl_format_shortened ("abcdefghijk", 10), "abcd…ghijk");
  CHECK (hl_format_shortened ("demo_xmalloc ← demo_load_thread:139", 20), "demo_xmal…thread:139");
  CHECK (hl_format_shortened ("ääääääääääää", 5), "ää…ää");
}

/* Axis ticks: the decimals the step needs, so that neighbours differ (a
 * 4 ms trace's 500 µs ticks read 1 ms, 2 ms, 2 ms, 2 ms, 3 ms, 4 ms). */
static void
test_time_tick (void)
{
  CHECK (hl_format_time_tick (0, 500000), "0 s");
  CHECK (hl_format_time_tick (500000, 500000), "500 µs");
  CHECK (hl_format_time_tick (1000000, 500000), "1.0 ms");
  CHECK (hl_format_time_tick (1500000, 500000), "1.5 ms");
  CHECK (hl_format_time_tick (2500000, 500000), "2.5 ms");
  CHECK (hl_format_time_tick (2000000, 1000000), "2 ms");
  CHECK (hl_format_time_tick (1500, 500), "1.5 µs");
  CHECK (hl_format_time_tick (250000000, 50000000), "250 ms");
  CHECK (hl_format_time_tick (1050000000, 50000000), "1.05 s");
  CHECK (hl_format_time_tick (1500000000, 500000000), "1.5 s");
  CHECK (hl_format_time_tick (2000000000, 1000000000), "2.0 s");
  CHECK (hl_format_time_tick (G_GUINT64_CONSTANT (65500000000), 500000000), "1:05.5");
  CHECK (hl_format_time_tick (G_GUINT64_CONSTANT (65250000000), 250000000), "1:05.25");
  CHECK (hl_format_time_tick (G_GUINT64_CONSTANT (65000001000), 1000), "1:05.000001");
  CHECK (hl_format_time_tick (G_GUINT64_CONSTANT (2000000002), 2), "2.000000002 s");
  for (guint64 step = 1; step <= G_GUINT64_CONSTANT (100000000000); step *= 10)
    for (guint64 m = 1; m <= 5; m += m == 1 ? 1 : 3)
      {
        /* every 1-2-5 step: consecutive ticks read differently */
        guint64 st = step * m;
        for (guint64 k = 1; k < 30; k++)
          {
            /* near the start, and deep into a long trace (zoomed in) */
            for (guint64 at = 0; at <= G_GUINT64_CONSTANT (3700000000000); at += G_GUINT64_CONSTANT (3700000000000))
              {
                g_autofree char *a = hl_format_time_tick (at + k * st, st);
                g_autofree char *b = hl_format_time_tick (at + (k + 1) * st, st);
                g_assert_cmpstr (a, !=, b);
              }
          }
      }
}

static void
test_percentage (void)
{
  CHECK (hl_format_percentage (0, 0), "–");
  CHECK (hl_format_percentage (1, 2), "50.0 %");
  CHECK (hl_format_percentage (3, 3), "100 %");
  CHECK (hl_format_percentage (12, 10000), "0.12 %");
  CHECK (hl_format_percentage (1, 1000000), "< 0.01 %");
  CHECK (hl_format_percentage (0, 10), "0.00 %");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/units/size", test_size);
  g_test_add_func ("/units/count", test_count);
  g_test_add_func ("/units/duration", test_duration);
  g_test_add_func ("/units/time", test_time);
  g_test_add_func ("/units/time-tick", test_time_tick);
  g_test_add_func ("/units/shortened", test_shortened);
  g_test_add_func ("/units/percentage", test_percentage);
  return g_test_run ();
}
