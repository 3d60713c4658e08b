/* hl-timing.h — stage times for HEAPLENS_DEBUG=timing (bench/app.sh reads them). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A moment: wall clock, the process's CPU time (every thread) and the
 * calling thread's CPU time. */
typedef struct
{
  gint64   wall_us;
  gint64   cpu_us;
  gint64   thread_cpu_us;
  GThread *thread;
} HlTimingMark;

/* TRUE when HEAPLENS_DEBUG=timing. */
gboolean hl_timing_enabled (void);
void     hl_timing_mark    (HlTimingMark *mark);
/* Prints "heaplens: timing: WHAT W ms (cpu C ms, this thread T ms)" on
 * stderr with the time since SINCE; the thread's time only when SINCE was
 * marked on this thread. Does nothing unless timing is enabled. */
void     hl_timing_log     (const HlTimingMark *since,
                            const char         *format,
                            ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
