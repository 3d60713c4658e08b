/* test-format-damage.c — a small trace cut at every byte and with a bit
 * flipped at every byte: never a crash, always the valid prefix or the
 * undamaged packets, and a clear account of what was skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-reader.h"

typedef struct
{
  uint64_t offset, end;
  uint32_t n_events;
} PacketInfo;

static PacketInfo packets[4096];
static size_t n_packets;

/* Walks DATA[0, LEN) (a private copy, so ASan sees overreads). Fills the
 * packets it returned into OUT (offsets) and decodes all events. Returns
 * the count of packets, -1 when the open failed, -2 on a cursor error. */
static long
walk (const uint8_t *data, size_t len, uint64_t *out, size_t max_out, HlTraceReaderStats *st,
      HlFormatError *err)
{
  uint8_t *copy = malloc (len ? len : 1);
  memcpy (copy, data, len);
  HlTraceReader *r;
  if (hl_trace_reader_open_memory (copy, len, &r, err) != 0)
    {
      free (copy);
      return -1;
    }
  HlPacketView pkt;
  HlEventCursor *c = malloc (sizeof *c);
  long n = 0;
  bool cursor_error = false;
  while (hl_trace_reader_next_packet (r, &pkt, err) > 0)
    {
      if ((size_t) n < max_out)
        out[n] = pkt.offset;
      n++;
      hl_event_cursor_init (c, &pkt);
      HlEvent ev;
      int rc;
      while ((rc = hl_event_cursor_next (c, &ev, err)) > 0)
        ;
      if (rc < 0 || c->n_decoded != pkt.header.n_events)
        cursor_error = true;
    }
  hl_trace_reader_stats (r, st);
  hl_trace_reader_free (r);
  free (c);
  free (copy);
  return cursor_error ? -2 : n;
}

int
main (void)
{
  hl_tap_plan (9);
  HlGenOptions o = { 77, 400, 3, 700, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);

  /* The reference walk */
  {
    HlTraceReader *r;
    HlFormatError err;
    hl_trace_reader_open_memory (t.data, t.size, &r, &err);
    HlPacketView pkt;
    while (hl_trace_reader_next_packet (r, &pkt, &err) > 0 && n_packets < 4096)
      {
        packets[n_packets].offset = pkt.offset;
        packets[n_packets].end = pkt.offset + pkt.header.header_size + pkt.header.content_size;
        packets[n_packets].n_events = pkt.header.n_events;
        n_packets++;
      }
    hl_trace_reader_free (r);
  }
  hl_tap_ok (n_packets == t.n_packets && n_packets > 10, "reference trace: %zu bytes, %zu packets", t.size, n_packets);

  uint64_t *seen = malloc (4096 * sizeof *seen);
  HlTraceReaderStats st;
  HlFormatError err;

  /* Truncation at every byte */
  size_t bad_open = 0, bad_prefix = 0, bad_ignored = 0, bad_warning = 0;
  for (size_t len = 0; len <= t.size; len++)
    {
      long n = walk (t.data, len, seen, 4096, &st, &err);
      if (n == -1)
        {
          if (len >= HL_TRACE_FILE_HEADER_SIZE
              || (err.code != HL_FORMAT_ERROR_TRUNCATED && err.code != HL_FORMAT_ERROR_NOT_A_TRACE))
            bad_open++;
          continue;
        }
      size_t complete = 0;
      while (complete < n_packets && packets[complete].end <= len)
        complete++;
      if (n != (long) complete)
        bad_prefix++;
      else
        for (long i = 0; i < n; i++)
          if (seen[i] != packets[i].offset)
            bad_prefix++;
      uint64_t last_end = complete ? packets[complete - 1].end : HL_TRACE_FILE_HEADER_SIZE;
      if (st.bytes_ignored_at_end != len - last_end || st.bytes_skipped != 0)
        bad_ignored++;
      if ((st.bytes_ignored_at_end > 0) != (st.warning[0] != '\0'))
        bad_warning++;
    }
  hl_tap_ok (bad_open == 0, "cut at every byte: only a file shorter than its header fails to open (%zu bad)", bad_open);
  hl_tap_ok (bad_prefix == 0, "cut at every byte: exactly the complete packets are returned (%zu bad)", bad_prefix);
  hl_tap_ok (bad_ignored == 0, "cut at every byte: the ignored bytes are counted (%zu bad)", bad_ignored);
  hl_tap_ok (bad_warning == 0, "cut at every byte: a warning exactly when bytes were ignored (%zu bad)", bad_warning);

  /* A bit flipped at every byte (two patterns) */
  uint8_t *flipped = malloc (t.size);
  size_t bad_lost = 0, bad_cursor = 0, header_opened = 0, header_refused = 0;
  for (int pattern = 0; pattern < 2; pattern++)
    for (size_t i = 0; i < t.size; i++)
      {
        memcpy (flipped, t.data, t.size);
        flipped[i] ^= pattern == 0 ? (uint8_t) (1u << (i % 8)) : 0xff;
        long n = walk (flipped, t.size, seen, 4096, &st, &err);
        if (n == -2)
          bad_cursor++;
        if (i < HL_TRACE_FILE_HEADER_SIZE)
          {
            if (n == -1)
              header_refused++;
            else
              header_opened++;
            continue;
          }
        /* Exactly the packet holding byte i is lost, all others read; a
         * damaged size in the last packet looks like a cut file. */
        if (n != (long) n_packets - 1
            || st.packets_bad_checksum + st.corrupt_regions + (st.bytes_ignored_at_end > 0) < 1)
          {
            if (bad_lost < 3)
              hl_tap_diag ("flip at %zu (pattern %d): %ld packets of %zu; %s", i, pattern, n, n_packets, st.warning);
            bad_lost++;
          }
      }
  hl_tap_ok (bad_cursor == 0, "bit flips: every packet that passes its crc decodes cleanly (%zu bad)", bad_cursor);
  hl_tap_ok (bad_lost == 0, "bit flips in packets: only the damaged packet is lost, the walk resynchronises (%zu bad)", bad_lost);
  hl_tap_ok (header_refused > 0 && header_opened > 0,
             "bit flips in the file header: %zu refused with an error, %zu read without a crash",
             header_refused, header_opened);

  /* Another pid: flip the file header's pid */
  memcpy (flipped, t.data, t.size);
  flipped[offsetof (HlTraceFileHeader, pid)] ^= 1;
  long n = walk (flipped, t.size, seen, 4096, &st, &err);
  hl_tap_ok (n == 0 && st.packets_other_pid == n_packets && strstr (st.warning, "another process") != NULL,
             "packets of another pid are skipped with a warning: %s", st.warning);
  free (flipped);
  free (seen);
  hl_gen_trace_clear (&t);
  return hl_tap_finish ();
}
