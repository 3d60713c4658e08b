/* hl-units.c — numbers for people. */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-units.h"

/* Three significant digits: 1.50, 23.4, 117. */
static char *
format_scaled (double      value,
               const char *unit)
{
  if (value < 10.0)
    return g_strdup_printf ("%.2f %s", value, unit);
  if (value < 100.0)
    return g_strdup_printf ("%.1f %s", value, unit);
  return g_strdup_printf ("%.0f %s", value, unit);
}

char *
hl_format_size (guint64 size_bytes)
{
  /* Translators: units of memory size (IEC binary prefixes). */
  static const char *units[] = { N_("KiB"), N_("MiB"), N_("GiB"), N_("TiB"), N_("PiB"), N_("EiB") };
  double value;
  guint i;

  if (size_bytes < 1024)
    /* Translators: a size in bytes, e.g. "812 B" */
    return g_strdup_printf (_("%u B"), (guint) size_bytes);

  /* At most three digits: 1000 KiB is shown as "0.98 MiB". */
  value = (double) size_bytes / 1024.0;
  for (i = 0; i + 1 < G_N_ELEMENTS (units) && value >= 999.5; i++)
    value /= 1024.0;
  return format_scaled (value, _(units[i]));
}

char *
hl_format_count (guint64 count)
{
  char digits[32];
  GString *out;
  gsize len, i;

  g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, count);
  len = strlen (digits);
  out = g_string_sized_new (len + len / 3);
  for (i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
hl_format_duration (guint64 time_ns)
{
  if (time_ns < 1000)
    return g_strdup_printf (_("%u ns"), (guint) time_ns);
  if (time_ns < G_GUINT64_CONSTANT (1000000))
    return format_scaled ((double) time_ns / 1e3, _("µs"));
  if (time_ns < G_GUINT64_CONSTANT (1000000000))
    return format_scaled ((double) time_ns / 1e6, _("ms"));
  if (time_ns < G_GUINT64_CONSTANT (60000000000))
    return format_scaled ((double) time_ns / 1e9, _("s"));
  else
    {
      guint64 s = (time_ns + G_GUINT64_CONSTANT (500000000)) / G_GUINT64_CONSTANT (1000000000);

      if (s < 3600)
        /* Translators: minutes and seconds, e.g. "2 min 05 s" */
        return g_strdup_printf (_("%u min %02u s"), (guint) (s / 60), (guint) (s % 60));
      /* Translators: hours and minutes, e.g. "1 h 02 min" */
      return g_strdup_printf (_("%u h %02u min"), (guint) (s / 3600), (guint) ((s / 60) % 60));
    }
}

char *
hl_format_time (guint64 time_ns)
{
  double s = (double) time_ns / 1e9;

  if (time_ns == 0)
    return g_strdup ("0 s");
  /* below a second, three significant digits without trailing zeros
   * ("4 ms", "1.5 ms", "12.3 ms": a 4 ms trace's times were whole
   * milliseconds); the unit's boundary where %.3g would round up to 1000 */
  if (time_ns < G_GUINT64_CONSTANT (999500))
    return g_strdup_printf ("%.3g µs", (double) time_ns / 1e3);
  if (time_ns < G_GUINT64_CONSTANT (999500000))
    return g_strdup_printf ("%.3g ms", (double) time_ns / 1e6);
  if (s < 60.0)
    return g_strdup_printf ("%.1f s", s);
  return g_strdup_printf ("%u:%04.1f", (guint) (s / 60.0), s - 60.0 * (guint) (s / 60.0));
}

/* Decimals of UNIT_NS that show every multiple of STEP_NS exactly (down
 * to the nanosecond: a tick 1 µs after 1:05 reads 1:05.000001), at least
 * MIN. */
static int
tick_decimals (guint64 step_ns,
               guint64 unit_ns,
               int     min)
{
  int d = 0;
  for (guint64 u = unit_ns; u > 1 && step_ns % u != 0; u /= 10)
    d++;
  return MAX (d, min);
}

char *
hl_format_time_tick (guint64 time_ns,
                     guint64 step_ns)
{
  double s = (double) time_ns / 1e9;

  if (time_ns == 0 || step_ns == 0)
    return hl_format_time (time_ns);
  if (time_ns < G_GUINT64_CONSTANT (1000000))
    return g_strdup_printf ("%.*f µs", tick_decimals (step_ns, 1000, 0), (double) time_ns / 1e3);
  if (time_ns < G_GUINT64_CONSTANT (1000000000))
    return g_strdup_printf ("%.*f ms", tick_decimals (step_ns, 1000000, 0), (double) time_ns / 1e6);
  int d = tick_decimals (step_ns, G_GUINT64_CONSTANT (1000000000), 1);
  if (s < 60.0)
    return g_strdup_printf ("%.*f s", d, s);
  return g_strdup_printf ("%u:%0*.*f", (guint) (s / 60.0), d + 3, d, s - 60.0 * (guint) (s / 60.0));
}

char *
hl_format_percentage (guint64 part,
                      guint64 total)
{
  double p;

  if (total == 0)
    return g_strdup ("–");
  p = 100.0 * (double) part / (double) total;
  if (part == total)
    return g_strdup ("100 %");
  if (part > 0 && p < 0.01)
    return g_strdup ("< 0.01 %");
  if (p < 10.0)
    return g_strdup_printf ("%.2f %%", p);
  return g_strdup_printf ("%.1f %%", p);
}

char *
hl_format_shortened (const char *text,
                     glong       max)
{
  glong n = g_utf8_strlen (text, -1);
  glong head = (max - 1) / 2, tail = max - 1 - head;

  if (n <= max)
    return g_strdup (text);
  return g_strdup_printf ("%.*s…%s", (int) (g_utf8_offset_to_pointer (text, head) - text), text,
                          g_utf8_offset_to_pointer (text, n - tail));
}

