/* hl-recording-costs-stream.c — a trace's saved costs computed as its
 * packets are written (hl-recording-costs-stream.h). */
#include "hl-recording-costs-stream.h"

#include <stddef.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-model-error.h"
#include "hl-recording-aggregate.h"
#include "hl-recording-costs-packet.h"
#include "hl-recording-struct.h"
#include "hl-trace-load-private.h"

/* A thread's last packet's end; EXITED once its THREAD exit event came
 * (it writes no packet after that one). */
typedef struct
{
  guint64  time_end_ns;
  gboolean exited;
} Writer;

struct _HlCostsStream
{
  HlRecording   *rec;
  HlEventCursor *cursor;
  GHashTable    *writers;      /* tid → Writer */
  guint32        pid;
  gboolean       started;
  guint64        packets;
  guint64        keep;
  guint64        trailing;     /* bytes after the packets, as the last poll saw them */
  char          *failure;      /* why no payload, NULL while it follows */
};

HlCostsStream *
hl_costs_stream_new (void)
{
  HlCostsStream *self = g_new0 (HlCostsStream, 1);

  self->rec = hl_recording_new ();
  hl_recording_begin_aggregate (self->rec, NULL);
  self->cursor = g_new0 (HlEventCursor, 1);
  self->writers = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->keep = HL_COSTS_STREAM_KEEP;
  return self;
}

void
hl_costs_stream_free (HlCostsStream *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->rec);
  g_free (self->cursor);
  g_hash_table_unref (self->writers);
  g_free (self->failure);
  g_free (self);
}

void
hl_costs_stream_set_keep (HlCostsStream *self,
                          guint64        keep)
{
  self->keep = keep;
}

guint64
hl_costs_stream_packets (const HlCostsStream *self)
{
  return self->packets;
}

gboolean
hl_costs_stream_failed (const HlCostsStream *self)
{
  return self->failure != NULL;
}

static void fail (HlCostsStream *self,
                  const char    *fmt,
                  ...) G_GNUC_PRINTF (2, 3);

static void
fail (HlCostsStream *self,
      const char    *fmt,
      ...)
{
  va_list ap;

  if (self->failure != NULL)
    return;
  va_start (ap, fmt);
  self->failure = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* what was built is of no further use: let its memory go */
  g_clear_object (&self->rec);
}

static gboolean
crc_matches (const HlPacketView *pkt)
{
  HlPacketHeader h = pkt->header;
  guint32 crc;

  /* the header as the file has it, its crc field counted as zero */
  h.crc32c = 0;
  crc = hl_crc32c (0, &h, sizeof h);
  if (pkt->header.header_size > sizeof h)
    {
      /* a newer minor's longer header: its bytes precede the content */
      const guint8 *extra = pkt->content - (pkt->header.header_size - sizeof h);
      crc = hl_crc32c (crc, extra, pkt->header.header_size - sizeof h);
    }
  crc = hl_crc32c (crc, pkt->content, pkt->header.content_size);
  return crc == pkt->header.crc32c;
}

/* The least last-packet end of the threads that may still write: no
 * packet to come holds an earlier event (but see the header). */
static guint64
watermark (HlCostsStream *self)
{
  GHashTableIter it;
  gpointer value;
  guint64 least = G_MAXUINT64;

  g_hash_table_iter_init (&it, self->writers);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      const Writer *w = value;
      if (!w->exited && w->time_end_ns < least)
        least = w->time_end_ns;
    }
  return least;
}

void
hl_costs_stream_take (void                *user_data,
                      const HlTraceReader *reader,
                      const HlPacketView  *pkt,
                      guint64              from)
{
  HlCostsStream *self = user_data;
  HlFormatError err;
  HlEvent ev;
  Writer *w;
  int rc;

  if (self->failure != NULL)
    return;
  if (!self->started)
    {
      self->pid = hl_trace_reader_file_header (reader)->pid;
      self->started = TRUE;
    }
  if (pkt == NULL)
    {
      /* The end of a poll: what may be released is known now (within a
       * poll, a thread's first packet may come after others'); the
       * bytes after FROM are a packet being written, unless this was
       * the last poll. */
      self->trailing = hl_trace_reader_file_size (reader) - MIN (from, hl_trace_reader_file_size (reader));
      hl_aggregate_release_until (self->rec->aggregate, watermark (self), self->keep);
      return;
    }
  if (pkt->offset != from)
    {
      fail (self, "%" G_GUINT64_FORMAT " bytes at offset %" G_GUINT64_FORMAT " were not a packet of the trace",
            pkt->offset - from, from);
      return;
    }
  if (pkt->header.pid != self->pid || !crc_matches (pkt))
    {
      fail (self, "the packet at offset %" G_GUINT64_FORMAT " is damaged or another process's", pkt->offset);
      return;
    }
  hl_event_cursor_init (self->cursor, pkt);
  while ((rc = hl_event_cursor_next (self->cursor, &ev, &err)) > 0)
    {
      hl_trace_apply_event (self->rec, &ev);
      if (ev.type == HL_EVENT_THREAD && (ev.u.thread.flags & HL_THREAD_FLAG_EXIT) != 0 &&
          ev.u.thread.tid == pkt->header.tid)
        {
          w = g_hash_table_lookup (self->writers, GUINT_TO_POINTER (pkt->header.tid));
          if (w == NULL)
            {
              w = g_new0 (Writer, 1);
              g_hash_table_insert (self->writers, GUINT_TO_POINTER (pkt->header.tid), w);
            }
          w->exited = TRUE;
        }
    }
  if (rc < 0)
    {
      fail (self, "malformed events in the packet at offset %" G_GUINT64_FORMAT ": %s", pkt->offset, err.message);
      return;
    }
  self->packets++;
  w = g_hash_table_lookup (self->writers, GUINT_TO_POINTER (pkt->header.tid));
  if (w == NULL)
    {
      w = g_new0 (Writer, 1);
      g_hash_table_insert (self->writers, GUINT_TO_POINTER (pkt->header.tid), w);
    }
  w->time_end_ns = MAX (w->time_end_ns, pkt->header.time_end_ns);
  /* a poll that takes in much: some released before its end */
  if (hl_aggregate_n_waiting (self->rec->aggregate) > self->keep)
    hl_aggregate_release_until (self->rec->aggregate, 0, self->keep);
}

GBytes *
hl_costs_stream_finish (HlCostsStream *self,
                        GError       **error)
{
  g_autoptr (HlRecording) rec = NULL;

  if (self->failure == NULL && self->packets == 0)
    fail (self, "no packet");
  if (self->failure == NULL && self->trailing > 0)
    fail (self, "%" G_GUINT64_FORMAT " bytes after the last packet", self->trailing);
  if (self->failure != NULL)
    {
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, "costs not followed: %s", self->failure);
      return NULL;
    }
  rec = g_steal_pointer (&self->rec);
  /* What a costs-only load does after the last packet (hl-trace-loader.c)
   * when the reader had nothing to warn about. */
  if (!hl_recording_end_aggregate (rec))
    {
      fail (self, "a thread's events came after later ones were counted");
      g_set_error (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED, "costs not followed: %s", self->failure);
      return NULL;
    }
  hl_recording_commit (rec);
  hl_trace_load_warn_dropped (rec);
  return hl_costs_packet_payload (rec, error);
}
