/* test-format-sysmem.c — the skippable MMAP, MUNMAP, MREMAP and
 * ALLOCATOR events (docs/trace-format.md 5.3): written by the packet
 * writer and read back field for field; a newer minor's extra bytes
 * inside an event's length are stepped over, an unknown skippable type
 * too; a length past the packet or a field past the length is an error.
 * With HL_WRITE_SEED=PATH the trace is also written there (the trace
 * reader fuzzer's seed tests/fuzz/corpus/trace-reader/sysmem.hltrace). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-test-util.h"
#include "hl-trace-reader.h"
#include "hl-trace-writer.h"

static uint8_t file[HL_TRACE_FILE_HEADER_SIZE + 2 * HL_PACKET_MAX_SIZE];

static size_t
header (void)
{
  HlTraceFileHeader fh;
  hl_trace_file_header_init (&fh, 42, 1, 2, 0);
  memcpy (file, &fh, sizeof fh);
  return sizeof fh;
}

/* A packet of thread 43 holding CONTENT (hand-made events). */
static size_t
raw_packet (size_t o, const uint8_t *content, size_t n, uint32_t n_events)
{
  static uint8_t at[HL_PACKET_MAX_SIZE];
  HlPacketHeader h = { 0 };
  if (n > sizeof at - sizeof h || o + sizeof h + n > sizeof file)
    return 0;
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) n;
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = HL_PACKET_KIND_EVENTS;
  h.pid = 42;
  h.tid = 43;
  h.time_begin_ns = 10;
  h.time_end_ns = 10;
  h.n_events = n_events;
  memcpy (at, &h, sizeof h);
  memcpy (at + sizeof h, content, n);
  h.crc32c = hl_packet_crc32c (at, sizeof h + n);
  memcpy (at, &h, sizeof h);
  memcpy (file + o, at, sizeof h + n);
  return sizeof h + n;
}

/* The events of the trace of SIZE bytes, into EVS (copies); the number
 * read, -1 after an error (ERR). */
static int
read_all (size_t size, HlEvent *evs, int cap, HlAllocatorSample *sample, HlFormatError *err)
{
  HlTraceReader *r;
  if (hl_trace_reader_open_memory (file, size, &r, err) != 0)
    return -1;
  HlPacketView pkt;
  int n = 0, rc = 0;
  static HlEventCursor c;
  while (hl_trace_reader_next_packet (r, &pkt, err) > 0 && rc >= 0)
    {
      hl_event_cursor_init (&c, &pkt);
      HlEvent ev;
      while ((rc = hl_event_cursor_next (&c, &ev, err)) > 0 && n < cap)
        {
          if (ev.type == HL_EVENT_ALLOCATOR)
            *sample = *ev.u.allocator;
          evs[n++] = ev;
        }
    }
  hl_trace_reader_free (r);
  return rc < 0 ? -1 : n;
}

int
main (void)
{
  hl_tap_plan (7);
  HlPacketWriter *w = malloc (sizeof *w);
  uint8_t *pkt = malloc (HL_PACKET_MAX_SIZE);
  size_t off = header ();
  hl_packet_writer_init (w, pkt, HL_PACKET_MAX_SIZE, 42, 43);
  hl_packet_writer_begin (w, 1000);
  const HlAllocatorSample a = { HL_ALLOCATOR_FLAG_MALLINFO, 10u << 20, 3u << 20, 1u << 20, 5u << 20,
                                4u << 20, 1u << 20, 200u << 10, 1 };
  int ok = hl_packet_writer_mmap (w, 1000, 0x7f0000000000ull, 1u << 20, 7, 3, 0x22) == HL_WRITE_OK
           && hl_packet_writer_munmap (w, 1001, 0x7f0000001000ull, 4096) == HL_WRITE_OK
           && hl_packet_writer_mremap (w, 1002, 0x7f0000000000ull, 4096, 0x7f1000000000ull, 1u << 18, 7, 1) == HL_WRITE_OK
           && hl_packet_writer_allocator (w, 1003, &a) == HL_WRITE_OK;
  size_t n = hl_packet_writer_finish (w);
  hl_tap_ok (ok && n > 0, "the writer takes the four events");
  memcpy (file + off, pkt, n);
  off += n;

  HlEvent evs[16];
  HlAllocatorSample got = { 0 };
  HlFormatError err;
  int k = read_all (off, evs, 16, &got, &err);
  hl_tap_ok (k == 4 && evs[0].type == HL_EVENT_MMAP && evs[0].u.mmap.address == 0x7f0000000000ull
             && evs[0].u.mmap.size == 1u << 20 && evs[0].u.mmap.stack_id == 7 && evs[0].u.mmap.prot == 3
             && evs[0].u.mmap.flags == 0x22 && evs[0].time_ns == 1000
             && evs[1].type == HL_EVENT_MUNMAP && evs[1].u.munmap.address == 0x7f0000001000ull
             && evs[1].u.munmap.size == 4096
             && evs[2].type == HL_EVENT_MREMAP && evs[2].u.mremap.old_address == 0x7f0000000000ull
             && evs[2].u.mremap.old_size == 4096 && evs[2].u.mremap.address == 0x7f1000000000ull
             && evs[2].u.mremap.size == 1u << 18 && evs[2].u.mremap.stack_id == 7 && evs[2].u.mremap.flags == 1
             && evs[3].type == HL_EVENT_ALLOCATOR && got.flags == a.flags && got.rss_bytes == a.rss_bytes
             && got.heap_bytes == a.heap_bytes && got.mmap_bytes == a.mmap_bytes && got.arena_bytes == a.arena_bytes
             && got.in_use_bytes == a.in_use_bytes && got.free_bytes == a.free_bytes
             && got.mmapped_chunks_bytes == a.mmapped_chunks_bytes && got.mmapped_chunks == a.mmapped_chunks,
             "read back field for field (%d events)", k);

  /* a newer minor: an MMAP with two more fields, and a type 69 */
  static const uint8_t newer[] = {
    HL_EVENT_MMAP | 0x80, 9, 0x80, 0x20, 0x80, 0x20, 5, 3, 0x22, 9, 9,
    69 | 0x80, 3, 1, 2, 3,
    HL_EVENT_MUNMAP | 0x80, 3, 0x80, 0x20, 0,
  };
  size_t end = off + raw_packet (off, newer, sizeof newer, 3);
  k = read_all (end, evs, 16, &got, &err);
  hl_tap_ok (k == 7 && evs[4].type == HL_EVENT_MMAP && evs[4].u.mmap.address == 4096 && evs[4].u.mmap.size == 4096
             && evs[4].u.mmap.stack_id == 5 && evs[5].type == 69 && evs[5].u.unknown.size == 3
             && evs[6].type == HL_EVENT_MUNMAP && evs[6].u.munmap.address == 4096 && evs[6].u.munmap.size == 0,
             "a newer minor's fields and an unknown skippable type are stepped over (%d events)", k);
  const char *seed = getenv ("HL_WRITE_SEED");
  if (seed != NULL)
    {
      FILE *f = fopen (seed, "wb");
      if (f != NULL)
        {
          fwrite (file, 1, end, f);
          fclose (f);
        }
    }

  /* a field past the event's length */
  static const uint8_t short_len[] = { HL_EVENT_MUNMAP | 0x80, 1, 0x80, 0x20 };
  end = off + raw_packet (off, short_len, sizeof short_len, 1);
  k = read_all (end, evs, 16, &got, &err);
  hl_tap_ok (k < 0 && err.code == HL_FORMAT_ERROR_CORRUPT && strstr (err.message, "length") != NULL,
             "a field past the event's length is an error: %s", err.message);
  /* a length past the packet */
  static const uint8_t long_len[] = { HL_EVENT_ALLOCATOR | 0x80, 40, 1, 2, 3 };
  end = off + raw_packet (off, long_len, sizeof long_len, 1);
  k = read_all (end, evs, 16, &got, &err);
  hl_tap_ok (k < 0 && strstr (err.message, "event length") != NULL,
             "a length past the packet is an error: %s", err.message);
  /* a range that wraps around */
  static const uint8_t wrap[] = { HL_EVENT_MUNMAP | 0x80, 11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 2 };
  end = off + raw_packet (off, wrap, sizeof wrap, 1);
  k = read_all (end, evs, 16, &got, &err);
  hl_tap_ok (k < 0 && strstr (err.message, "munmap range") != NULL, "a range past 2^64 is an error: %s", err.message);
  /* a stack id beyond 32 bits */
  static const uint8_t big_stack[] = { HL_EVENT_MMAP | 0x80, 9, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 3, 0x22 };
  end = off + raw_packet (off, big_stack, sizeof big_stack, 1);
  k = read_all (end, evs, 16, &got, &err);
  hl_tap_ok (k < 0 && strstr (err.message, "mmap fields") != NULL, "a stack id past 32 bits is an error: %s",
             err.message);
  free (pkt);
  free (w);
  return hl_tap_finish ();
}
