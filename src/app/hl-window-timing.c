/* hl-window-timing.c — HEAPLENS_DEBUG=timing: the frames the window
 * paints and the CPU they take, and lines logged once a frame is painted. */
#include "hl-config.h"

#include "hl-window-private.h"

typedef struct
{
  HlWindow    *self;
  const char  *what;
  HlTimingMark since;
  guint        frames;        /* frames_painted at SINCE */
  gint64       paint_cpu_us;  /* paint_cpu_us at SINCE */
  gulong       handler;
} PaintLog;

static void
on_before_paint (GdkFrameClock *clock,
                 HlWindow      *self)
{
  hl_timing_mark (&self->paint_mark);
}

static void
on_after_paint (GdkFrameClock *clock,
                HlWindow      *self)
{
  HlTimingMark now;

  hl_timing_mark (&now);
  self->frames_painted++;
  self->paint_cpu_us += now.cpu_us - self->paint_mark.cpu_us;
}

/* HEAPLENS_DEBUG=timing: counts the frames and their CPU. */
static void
on_realize_timing (HlWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  g_signal_connect_object (clock, "before-paint", G_CALLBACK (on_before_paint), self, 0);
  g_signal_connect_object (clock, "after-paint", G_CALLBACK (on_after_paint), self, G_CONNECT_AFTER);
}

void
hl_window_count_frames (HlWindow *self)
{
  if (hl_timing_enabled ())
    g_signal_connect (self, "realize", G_CALLBACK (on_realize_timing), NULL);
}

static void
on_logged_paint (GdkFrameClock *clock,
                 PaintLog      *log)
{
  HlWindow *self = log->self;

  hl_timing_log (&log->since, "%s (%u frames painted, %.1f ms cpu in them)", log->what,
                 self->frames_painted - log->frames, (self->paint_cpu_us - log->paint_cpu_us) / 1000.0);
  g_signal_handler_disconnect (clock, log->handler);
}

/* Logs WHAT once the next frame is painted (the views drawn), with the
 * frames painted since SINCE (given their counts at SINCE). */
void
hl_window_log_after_paint (HlWindow           *self,
                           const char         *what,
                           const HlTimingMark *since,
                           guint               frames,
                           gint64              paint_cpu_us)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  PaintLog *log;

  if (clock == NULL)
    return;
  log = g_new0 (PaintLog, 1);
  log->self = self;
  log->what = what;
  log->since = *since;
  log->frames = frames;
  log->paint_cpu_us = paint_cpu_us;
  /* after on_after_paint; a paint, without redrawing what did not change */
  log->handler = g_signal_connect_data (clock, "after-paint", G_CALLBACK (on_logged_paint), log,
                                        (GClosureNotify) (void (*) (void)) g_free, G_CONNECT_AFTER);
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_PAINT);
}
