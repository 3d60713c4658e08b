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
  g_test_add_func ("/units/percentage", test_percentage);
  return g_test_run ();
}
