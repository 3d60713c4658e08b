/* test-format-reach.c — REACHABILITY events (the leak scan at exit):
 * written over several events and packets, read back equal; damaged
 * payloads refused by the cursor, never read past. */
#include <stdlib.h>
#include <string.h>

#include "hl-test-util.h"
#include "hl-trace-reader.h"
#include "hl-trace-writer.h"
#include "hl-varint.h"

#define N_RECORDS 5000u

static uint8_t image[64 * HL_PACKET_MAX_SIZE];

/* A trace of the records REC[0..N) written as the preload writes them:
 * events in packets of at most HL_PACKET_MAX_SIZE; returns its size. */
static size_t
write_trace (const HlReachTotals *totals,
             const HlReachRecord *rec,
             size_t               n,
             unsigned            *n_packets)
{
  static HlPacketWriter w;
  static uint8_t packet[HL_PACKET_MAX_SIZE];
  HlTraceFileHeader fh;
  HlReachTotals t = *totals;
  size_t size = sizeof fh, done = 0;

  hl_trace_file_header_init (&fh, 42, 1, 1, 0);
  memcpy (image, &fh, sizeof fh);
  *n_packets = 0;
  do
    {
      size_t wrote = 0;
      hl_packet_writer_init (&w, packet, sizeof packet, 42, 7);
      hl_packet_writer_begin (&w, 100);
      while (hl_packet_writer_reachability (&w, 100, &t, rec + done, n - done, &wrote) == HL_WRITE_OK)
        {
          t.flags &= ~(uint32_t) HL_REACH_FLAG_FIRST;
          done += wrote;
          if (done == n)
            break;
        }
      size_t len = hl_packet_writer_finish (&w);
      if (len == 0 || size + len > sizeof image)
        return 0;
      memcpy (image + size, packet, len);
      size += len;
      (*n_packets)++;
    }
  while (done < n);
  return size;
}

int
main (void)
{
  static HlReachRecord rec[N_RECORDS], back[N_RECORDS + 1];
  HlReachTotals t = { HL_REACH_FLAG_FIRST | HL_REACH_FLAG_INCOMPLETE, 4312021, 8819680, 20,
                      { 5, 2, 10, 3 }, { 4476, 368, 336, 104 } }, first = { 0 };
  uint64_t id = 1;
  unsigned n_packets = 0, n_events = 0, n_first = 0;
  size_t n_back = 0;
  bool ok = true;

  hl_tap_plan (5);
  srand (7);
  for (size_t i = 0; i < N_RECORDS; i++)
    {
      id += 1 + (uint64_t) (rand () % 3 == 0 ? rand () % 100000 : 0);
      rec[i] = (HlReachRecord) { id, (uint64_t) (rand () % 5000), (uint32_t) rand (), 1 + (uint32_t) (rand () % 3) };
    }
  size_t size = write_trace (&t, rec, N_RECORDS, &n_packets);
  HlTraceReader *r;
  HlFormatError err;
  HlPacketView pkt;
  if (size == 0 || hl_trace_reader_open_memory (image, size, &r, &err) != 0)
    {
      hl_tap_diag ("cannot write or open the trace");
      return 1;
    }
  while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
    {
      HlEventCursor *c = malloc (sizeof *c);
      HlEvent ev;
      int rc;
      hl_event_cursor_init (c, &pkt);
      while ((rc = hl_event_cursor_next (c, &ev, &err)) > 0)
        {
          HlReachTotals et;
          HlReachReader rr;
          HlReachRecord one;
          if (ev.type != HL_EVENT_REACHABILITY || !hl_reach_read (ev.u.reach.data, ev.u.reach.size, &et, &rr))
            {
              ok = false;
              continue;
            }
          n_events++;
          if (et.flags & HL_REACH_FLAG_FIRST)
            {
              n_first++;
              first = et;
            }
          while (n_back <= N_RECORDS && hl_reach_next (&rr, &one))
            back[n_back++] = one;
        }
      ok = ok && rc == 0;
      free (c);
    }
  hl_trace_reader_free (r);
  hl_tap_ok (n_packets > 1 && n_events == n_packets,
             "%u records: over %u packets of at most %u bytes, an event each (%u)", N_RECORDS, n_packets,
             HL_PACKET_MAX_SIZE, n_events);
  hl_tap_ok (ok && n_back == N_RECORDS && memcmp (back, rec, sizeof rec) == 0, "every record read back equal (%zu)",
             n_back);
  bool same = first.flags == t.flags && first.scan_ns == t.scan_ns && first.roots_bytes == t.roots_bytes
              && first.blocks_scanned == t.blocks_scanned;
  for (int k = 0; k < HL_REACH_KINDS; k++)
    same = same && first.blocks[k] == t.blocks[k] && first.bytes[k] == t.bytes[k];
  hl_tap_ok (n_first == 1 && same,
             "the totals once with FIRST, equal to those written");

  /* damage: a kind outside 1..3, ids that do not rise, trailing bytes,
   * a record count beyond the payload */
  static const struct { const char *what; uint32_t kind; uint64_t id2; uint32_t extra; uint64_t n; } bad[] = {
    { "kind 0", 0, 20, 0, 2 }, { "kind 4", 4, 20, 0, 2 }, { "ids not rising", 1, 10, 0, 2 },
    { "a byte after the last record", 1, 20, 1, 2 }, { "more records than bytes", 1, 20, 0, 9 },
  };
  unsigned refused = 0;
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    {
      static HlPacketWriter w;
      static uint8_t packet[4096];
      uint8_t payload[128], *p = payload;
      hl_packet_writer_init (&w, packet, sizeof packet, 42, 7);
      hl_packet_writer_begin (&w, 100);
      size_t wrote;
      HlReachRecord two[2] = { { 10, 8, 1, 1 }, { 20, 8, 1, 1 } };
      (void) hl_packet_writer_reachability (&w, 100, &t, two, 2, &wrote);
      /* re-encode the payload by hand with the damage, in place */
      uint8_t *ev = packet + HL_PACKET_HEADER_SIZE;
      size_t head_len = 1; /* type byte, no time (100 = the packet's begin) */
      p = hl_varint_put (p, t.flags);
      p = hl_varint_put (p, t.scan_ns);
      p = hl_varint_put (p, t.roots_bytes);
      p = hl_varint_put (p, t.blocks_scanned);
      for (int i = 0; i < HL_REACH_KINDS; i++)
        {
          p = hl_varint_put (p, t.blocks[i]);
          p = hl_varint_put (p, t.bytes[i]);
        }
      p = hl_varint_put (p, bad[k].n);
      p = hl_varint_put (p, 10);
      p = hl_varint_put (p, 1);
      p = hl_varint_put (p, 1);
      p = hl_varint_put (p, 8);
      p = hl_varint_put (p, bad[k].id2 > 10 ? bad[k].id2 - 10 : 0);
      p = hl_varint_put (p, bad[k].kind);
      p = hl_varint_put (p, 1);
      p = hl_varint_put (p, 8);
      if (bad[k].extra)
        *p++ = 0;
      uint8_t *q = hl_varint_put (ev + head_len, (uint64_t) (p - payload));
      memcpy (q, payload, (size_t) (p - payload));
      w.len = (size_t) (q + (p - payload) - packet);
      size_t len = hl_packet_writer_finish (&w);
      HlTraceFileHeader fh;
      hl_trace_file_header_init (&fh, 42, 1, 1, 0);
      memcpy (image, &fh, sizeof fh);
      memcpy (image + sizeof fh, packet, len);
      if (hl_trace_reader_open_memory (image, sizeof fh + len, &r, &err) != 0)
        continue;
      if (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
        {
          HlEventCursor *c = malloc (sizeof *c);
          HlEvent e;
          hl_event_cursor_init (c, &pkt);
          if (hl_event_cursor_next (c, &e, &err) < 0)
            refused++;
          else
            hl_tap_diag ("%s: not refused", bad[k].what);
          free (c);
        }
      hl_trace_reader_free (r);
    }
  hl_tap_ok (refused == sizeof bad / sizeof bad[0], "damaged payloads refused by the cursor (%u of %zu)", refused,
             sizeof bad / sizeof bad[0]);

  /* an empty scan: the totals alone */
  size = write_trace (&t, rec, 0, &n_packets);
  hl_tap_ok (size > 0 && n_packets == 1, "a scan without lost blocks is one event in one packet");
  return hl_tap_finish ();
}
