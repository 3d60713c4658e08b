/* hl-timing.c — stage times for HEAPLENS_DEBUG=timing. */
#define _POSIX_C_SOURCE 200809L
#include "hl-config.h"

#include <stdarg.h>
#include <time.h>

#include "hl-timing.h"

gboolean
hl_timing_enabled (void)
{
  static int enabled = -1;

  if (enabled < 0)
    enabled = g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0;
  return enabled;
}

static gint64
clock_us (clockid_t id)
{
  struct timespec ts;

  if (clock_gettime (id, &ts) != 0)
    return 0;
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

void
hl_timing_mark (HlTimingMark *mark)
{
  mark->wall_us = g_get_monotonic_time ();
  mark->cpu_us = clock_us (CLOCK_PROCESS_CPUTIME_ID);
  mark->thread_cpu_us = clock_us (CLOCK_THREAD_CPUTIME_ID);
  mark->thread = g_thread_self ();
}

void
hl_timing_log (const HlTimingMark *since,
               const char         *format,
               ...)
{
  HlTimingMark now;
  g_autofree char *what = NULL;
  va_list args;

  if (!hl_timing_enabled ())
    return;
  hl_timing_mark (&now);
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  if (since->thread == now.thread)
    g_printerr ("heaplens: timing: %s %.1f ms (cpu %.1f ms, this thread %.1f ms)\n", what,
                (now.wall_us - since->wall_us) / 1000.0, (now.cpu_us - since->cpu_us) / 1000.0,
                (now.thread_cpu_us - since->thread_cpu_us) / 1000.0);
  else
    g_printerr ("heaplens: timing: %s %.1f ms (cpu %.1f ms)\n", what,
                (now.wall_us - since->wall_us) / 1000.0, (now.cpu_us - since->cpu_us) / 1000.0);
}
