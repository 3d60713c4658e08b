/* test-format-writer.c — varints, crc32c and the packet writer, checked
 * byte by byte without the reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-test-util.h"
#include "hl-trace-encode-private.h"
#include "hl-trace-writer.h"
#include "hl-varint.h"

static uint8_t buf[HL_PACKET_MAX_SIZE];

static void
test_crc32c (void)
{
  static const char check[] = "123456789";
  hl_tap_ok (hl_crc32c (0, check, 9) == 0xe3069283u, "crc32c check value (hardware or table)");
  hl_tap_ok (hl_crc32c_portable (0, check, 9) == 0xe3069283u, "crc32c check value (table)");
  uint8_t data[1000];
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t) (i * 37 + 11);
  bool same = true;
  for (size_t off = 0; off < 9; off++)
    for (size_t n = 0; n < 200; n += 7)
      {
        uint32_t a = hl_crc32c (0, data + off, n);
        uint32_t b = hl_crc32c_portable (0, data + off, n);
        uint32_t c = hl_crc32c (hl_crc32c (0, data + off, n / 2), data + off + n / 2, n - n / 2);
        same = same && a == b && a == c;
      }
  hl_tap_ok (same, "crc32c: both implementations agree at every alignment, and chain");
}

static void
test_varint (void)
{
  static const uint64_t values[] = { 0, 1, 127, 128, 255, 16383, 16384, UINT32_MAX,
                                     (uint64_t) 1 << 63, UINT64_MAX, UINT64_MAX - 1 };
  bool ok = true;
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    {
      uint8_t b[16];
      uint8_t *end = hl_varint_put (b, values[i]);
      uint64_t v = 0;
      ok = ok && (size_t) (end - b) == hl_varint_size (values[i]);
      ok = ok && hl_varint_get (b, end, &v) == end && v == values[i];
      /* Every truncation fails. */
      for (uint8_t *cut = b; cut < end; cut++)
        ok = ok && hl_varint_get (b, cut, &v) == NULL;
    }
  hl_tap_ok (ok, "varint round trip, sizes, truncations");
  uint8_t b[16];
  hl_tap_ok (hl_varint_put (b, UINT64_MAX) - b == 10, "UINT64_MAX takes 10 bytes");
  memset (b, 0x80, sizeof b);
  uint64_t v;
  hl_tap_ok (hl_varint_get (b, b + sizeof b, &v) == NULL, "an 11-byte varint is refused");
  memset (b, 0xff, 9);
  b[9] = 0x02;
  hl_tap_ok (hl_varint_get (b, b + 10, &v) == NULL, "a 10-byte varint overflowing 64 bits is refused");

  static const int64_t svalues[] = { 0, -1, 1, -64, 63, -65, INT64_MIN, INT64_MAX };
  ok = true;
  for (size_t i = 0; i < sizeof svalues / sizeof svalues[0]; i++)
    {
      uint8_t *end = hl_svarint_put (b, svalues[i]);
      int64_t s = 0;
      ok = ok && hl_svarint_get (b, end, &s) == end && s == svalues[i];
    }
  hl_tap_ok (ok && hl_zigzag_encode (-1) == 1 && hl_zigzag_encode (1) == 2, "zigzag round trip");

  static const uint64_t deltas[] = { 0, 16, (uint64_t) -16, 1, (uint64_t) -1, 0x7fff0, UINT64_MAX,
                                     (uint64_t) 1 << 63, ((uint64_t) 1 << 63) | 7 };
  ok = true;
  for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++)
    {
      uint8_t *end = hl_addr_delta_put (b, deltas[i]);
      uint64_t d = 0;
      ok = ok && hl_addr_delta_get (b, end, &d) == end && d == deltas[i];
    }
  uint8_t *e16 = hl_addr_delta_put (b, 16 * 20);
  hl_tap_ok (ok && e16 - b == 1, "address deltas round trip; a 320-byte step takes 1 byte");
}

static HlPacketHeader
header_of (const uint8_t *p)
{
  HlPacketHeader h;
  memcpy (&h, p, sizeof h);
  return h;
}

static void
test_writer (void)
{
  HlPacketWriter *w = malloc (sizeof *w);
  hl_packet_writer_init (w, buf, sizeof buf, 42, 43);
  hl_packet_writer_begin (w, 1000);
  hl_tap_ok (hl_packet_writer_is_empty (w) && hl_packet_writer_finish (w) == 0,
             "an empty packet writes nothing");
  hl_packet_writer_begin (w, 1000);
  hl_tap_ok (hl_packet_writer_alloc (w, 1010, 5, 100, 0, 1, 0x1000) == HL_WRITE_OK, "alloc");
  hl_tap_ok (hl_packet_writer_alloc (w, 1020, 6, 100, 16, 1, 0x1070) == HL_WRITE_OK, "alloc with default alignment");
  hl_tap_ok (hl_packet_writer_alloc (w, 1030, 9, 100, 64, 2, 0x2000) == HL_WRITE_OK, "alloc with a gap in ids");
  hl_tap_ok (hl_packet_writer_alloc (w, 1040, 3, 100, 0, 2, 0x2000) == HL_WRITE_FULL, "an id going back returns FULL");
  hl_tap_ok (hl_packet_writer_free (w, 1050, 5) == HL_WRITE_OK, "free");
  size_t n = hl_packet_writer_finish (w);
  HlPacketHeader h = header_of (buf);
  hl_tap_ok (n == HL_PACKET_HEADER_SIZE + h.content_size && h.magic == HL_PACKET_MAGIC
             && h.pid == 42 && h.tid == 43 && h.kind == HL_PACKET_KIND_EVENTS
             && h.header_size == HL_PACKET_HEADER_SIZE,
             "packet header: size, magic, pid, tid, kind");
  hl_tap_ok (h.time_begin_ns == 1000 && h.time_end_ns == 1050, "packet times");
  hl_tap_ok (h.alloc_id_begin == 5 && h.alloc_id_end == 10 && h.n_events == 4,
             "packet ids [5, 10) and 4 events (an ID_SKIP is not counted)");
  uint32_t crc = h.crc32c;
  memset (buf + offsetof (HlPacketHeader, crc32c), 0, 4);
  hl_tap_ok (hl_crc32c (0, buf, n) == crc, "crc32c covers the packet with its crc field zeroed");
  /* content: ALLOC dt=10 size=100 stack=+1 addr=0x1000 */
  const uint8_t *c = buf + HL_PACKET_HEADER_SIZE;
  hl_tap_ok (c[0] == HL_EVENT_ALLOC && c[1] == 10 && c[2] == 100 && c[3] == 2,
             "first event bytes: type, time delta, size, stack delta");
  const uint8_t *e = c + h.content_size;
  bool has_aligned = false, has_skip = false;
  for (const uint8_t *p = c; p < e; p++)
    {
      has_aligned = has_aligned || *p == HL_EVENT_ALLOC_ALIGNED;
      has_skip = has_skip || *p == HL_EVENT_ID_SKIP;
    }
  hl_tap_ok (has_aligned && has_skip, "ALLOC_ALIGNED and ID_SKIP bytes are present");

  /* Fill a packet: every event until FULL, the packet stays within the max. */
  hl_packet_writer_begin (w, 0);
  uint64_t id = 0, t = 0;
  static uint64_t frames[300];
  for (int i = 0; i < 300; i++)
    frames[i] = 0x400000 + (uint64_t) i * 0x1234;
  size_t n_ok = 0;
  for (;;)
    {
      HlWriteStatus s = hl_packet_writer_stack (w, t++, (uint32_t) id + 1, 0, frames, 300);
      if (s == HL_WRITE_FULL)
        break;
      if (hl_packet_writer_alloc (w, t++, id, id * 8, 0, (uint32_t) id + 1, 0x10000 + id * 64) == HL_WRITE_FULL)
        break;
      id++;
      n_ok++;
    }
  n = hl_packet_writer_finish (w);
  hl_tap_ok (n > HL_PACKET_MAX_SIZE - HL_EVENT_MAX_SIZE && n <= HL_PACKET_MAX_SIZE && n_ok > 5,
             "a full packet stays within %u bytes (%zu bytes)", HL_PACKET_MAX_SIZE, n);

  /* After begin(), the largest events fit. */
  hl_packet_writer_begin (w, 0);
  char *big = malloc (HL_TRACE_STRING_MAX + 100);
  memset (big, 'x', HL_TRACE_STRING_MAX + 99);
  big[HL_TRACE_STRING_MAX + 99] = '\0';
  uint8_t bid[100] = { 0 };
  bool fits = hl_packet_writer_module (w, 1, HL_MODULE_FLAG_LOADED, 1, 2, 3, bid, 100, big) == HL_WRITE_OK;
  hl_packet_writer_begin (w, 0);
  fits = fits && hl_packet_writer_meta_string (w, 1, big, big) == HL_WRITE_OK;
  hl_packet_writer_begin (w, 0);
  fits = fits && hl_packet_writer_stack (w, 1, 7, 0, frames, 300) == HL_WRITE_OK;
  hl_tap_ok (fits, "the largest module, metadata and stack events fit an empty packet");

  const char *keys[] = { "exe", "pid" };
  const char *values[] = { "/bin/true", "42" };
  n = hl_packet_writer_info (w, 7, keys, values, 2);
  h = header_of (buf);
  hl_tap_ok (n > 0 && h.kind == HL_PACKET_KIND_INFO && h.n_events == 1, "INFO packet");
  const char *many_keys[HL_TRACE_INFO_MAX_PAIRS + 1];
  for (size_t i = 0; i <= HL_TRACE_INFO_MAX_PAIRS; i++)
    many_keys[i] = "k";
  hl_tap_ok (hl_packet_writer_info (w, 7, many_keys, many_keys, HL_TRACE_INFO_MAX_PAIRS + 1) == 0,
             "INFO refuses more than %u pairs", HL_TRACE_INFO_MAX_PAIRS);
  const char *big_keys[] = { big, big, big };
  hl_tap_ok (hl_packet_writer_info (w, 7, big_keys, big_keys, 3) == 0,
             "INFO refuses more than %u bytes", HL_TRACE_INFO_MAX_BYTES);

  HlTraceFileHeader fh;
  hl_trace_file_header_init (&fh, 42, 1, 2, HL_TRACE_FLAG_COARSE_CLOCK);
  hl_tap_ok (memcmp (fh.magic, "HLTRACE", 8) == 0 && fh.version_major == HL_TRACE_VERSION_MAJOR
             && fh.header_size == 64 && fh.pid == 42 && fh.start_mono_ns == 2
             && fh.flags == HL_TRACE_FLAG_COARSE_CLOCK, "file header");
  free (big);
  free (w);
}

int
main (void)
{
  hl_tap_plan (27);
  test_crc32c ();
  test_varint ();
  test_writer ();
  return hl_tap_finish ();
}
