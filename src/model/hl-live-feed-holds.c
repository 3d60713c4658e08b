/* hl-live-feed-holds.c — who may touch a live recording when: the readers'
 * holds (analyses built on a worker), the polls' appends, the live table's
 * scan and the symbols' store, and the fairness between them (see
 * hl-live-feed.h). */
#include "hl-live-feed-private.h"

/* ---- Holds ---------------------------------------------------------------- */

gboolean
hl_live_feed_hold (HlLiveFeed *self)
{
  /* a scan in flight appends when it lands, a symbolizer rewrites frames */
  if (self->feed_waiting || (self->holds == 0 && hl_live_scan_is_running (self->scan)))
    {
      self->hold_wanted = TRUE;
      return FALSE;
    }
  self->hold_wanted = FALSE;
  self->holds++;
  return TRUE;
}

void
hl_live_feed_release (HlLiveFeed *self)
{
  g_return_if_fail (self->holds > 0);
  self->holds--;
}

gboolean
hl_live_feed_is_held (HlLiveFeed *self)
{
  return self->holds > 0;
}

gboolean
hl_live_feed_is_waiting (HlLiveFeed *self)
{
  return self->feed_waiting;
}

void
hl_live_feed_begin (HlLiveFeed *self)
{
  self->was_waiting = self->feed_waiting;
  /* appends wait while analyses of the recording are being built; a
   * poll held off refuses new holds, so that back-to-back analyses do not
   * starve the feeding */
  self->feeding = self->holds == 0;
  self->feed_waiting = !self->feeding;
  if (!self->feeding || self->pending_meta->len == 0)
    return;
  for (guint i = 0; i < self->pending_meta->len; i++)
    hl_live_feed_append_meta (self, &g_array_index (self->pending_meta, HlShmMetaItem, i));
  g_array_set_size (self->pending_meta, 0);
}

/* ---- The live table's scan (hl-live-scan.h) ------------------------------- */

static void
scan_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  HlLiveFeed *self = user_data;
  g_autoptr(GError) error = NULL;
  if (!hl_live_scan_finish (self->scan, result, self->recording, self->time_ns, &error))
    {
      hl_live_feed_warn (self, error->message);
      return;
    }
  if (self->need_symbols)
    hl_live_feed_start_symbolize (self);
  self->events.updated (self->owner);
}

static void
start_scan (HlLiveFeed *self)
{
  hl_live_scan_async (self->scan, hl_live_segment_get_reader (self->segment), self->owner, scan_done, self);
}

/* ---- The workers' turn ---------------------------------------------------- */

void
hl_live_feed_dispatch_workers (HlLiveFeed *self)
{
  g_assert (self->feeding);
  hl_live_feed_store_symbols (self);
  if (self->need_symbols && !hl_live_scan_is_running (self->scan))
    hl_live_feed_start_symbolize (self);
  /* fairness: a reader refused a hold goes before the next scan (one
   * scan skipped, so that neither starves the other) */
  if (self->hold_wanted && !self->scan_skipped)
    {
      self->hold_wanted = FALSE;
      self->scan_skipped = TRUE;
    }
  else if (!hl_live_scan_is_running (self->scan))
    {
      self->scan_skipped = FALSE;
      start_scan (self);
    }
}

gboolean
hl_live_feed_is_busy (HlLiveFeed *self)
{
  return hl_live_scan_is_running (self->scan) || self->symbolizing;
}
