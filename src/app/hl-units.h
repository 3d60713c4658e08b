/* hl-units.h — numbers for people: sizes, counts, durations, percentages. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* "0 B", "812 B", "1.50 KiB", "23.4 MiB", "117 GiB" (IEC units, 3 significant digits). */
char *hl_format_size       (guint64 size_bytes);
/* TEXT in at most MAX characters, its middle left out ("…"), so that both
 * ends stay in sight (a call site's function and its caller's line). */
char *hl_format_shortened  (const char *text,
                            glong       max);
/* "7", "12,345", "1,234,567" (thousands grouped). */
char *hl_format_count      (guint64 count);
/* "0 ns", "850 µs", "12.5 ms", "3.20 s", "2 min 05 s", "1 h 02 min". */
char *hl_format_duration   (guint64 time_ns);
/* A time since the start: "0 s", "850 µs", "1.5 ms", "12.3 ms", "1.5 s",
 * "2:05.3" (shorter than a duration). */
char *hl_format_time       (guint64 time_ns);
/* An axis tick at TIME_NS on ticks STEP_NS apart: hl_format_time's unit,
 * with the decimals the step needs, so that neighbouring ticks never read
 * the same ("1.5 ms", not "2 ms" beside "2 ms"). */
char *hl_format_time_tick  (guint64 time_ns,
                            guint64 step_ns);
/* "45.0 %", "0.12 %", "< 0.01 %", "100 %"; TOTAL 0 gives "–". */
char *hl_format_percentage (guint64 part,
                            guint64 total);

G_END_DECLS
