/* test-format-compress.c — compressed traces (ZFRAME packets) through the
 * zstd codec: same dump as the plain file, index kept, damage contained. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-dump.h"
#include "hl-trace-index.h"
#include "hl-trace-writer.h"
#include "hl-trace-zstd.h"
#include "hl-trace-compress.h"

static bool
write_file (const char *path, const void *data, size_t len)
{
  FILE *f = fopen (path, "wb");
  if (f == NULL)
    return false;
  bool ok = fwrite (data, 1, len, f) == len;
  return fclose (f) == 0 && ok;
}

int
main (void)
{
  hl_tap_plan (12);
  const HlTraceCodec *zstd = hl_trace_codec_zstd (3);
  char *dir = hl_test_tmpdir_new ("hl-format-compress");
  char plain[4096], packed[4096];
  snprintf (plain, sizeof plain, "%s/plain.hltrace", dir);
  snprintf (packed, sizeof packed, "%s/packed.hltrace", dir);

  HlGenOptions o = { 55, 80000, 3, 0, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  write_file (plain, t.data, t.size);
  HlFormatError err;
  hl_tap_ok (hl_trace_index_append_file (plain, &err) == 0, "plain trace with a trailing index");
  size_t plain_len, packed_len;
  free (hl_test_read_file (plain, &plain_len));

  hl_tap_ok (hl_trace_compress_file (plain, packed, zstd, 256 * 1024, &err) == 0, "compress in frames of 256 KiB");
  char *packed_data = hl_test_read_file (packed, &packed_len);
  hl_tap_diag ("%zu bytes plain, %zu compressed (%.1f%%)", plain_len, packed_len, 100.0 * (double) packed_len / (double) plain_len);
  hl_tap_ok (packed_len < plain_len * 3 / 4, "the compressed trace is smaller");

  char *d1 = hl_gen_dump_file (plain, NULL, NULL);
  HlTraceReaderStats st;
  char *d2 = hl_gen_dump_file (packed, zstd, &st);
  hl_tap_ok (d1 != NULL && d2 != NULL && strcmp (d1, d2) == 0 && st.warning[0] == '\0',
             "the compressed trace reads exactly as the plain one");

  HlTraceReader *r;
  hl_tap_ok (hl_trace_reader_open_file (packed, &r, &err) != 0 && err.code == HL_FORMAT_ERROR_UNSUPPORTED,
             "a reader without a codec refuses it: %s", err.message);

  HlTraceIndex *x = NULL;
  bool idx_ok = hl_trace_reader_open_file_codec (packed, zstd, &r, &err) == 0 && hl_trace_reader_is_compressed (r)
                && hl_trace_index_load (r, &x, &err) == 0 && x->from_file && x->n_entries == t.n_packets;
  hl_tap_ok (idx_ok, "its trailing index still reads (offsets of the plain form)");
  hl_trace_index_free (x);
  if (idx_ok)
    hl_trace_reader_free (r);

  /* A damaged frame: skipped and counted, later frames still read */
  packed_data[HL_TRACE_FILE_HEADER_SIZE + HL_PACKET_HEADER_SIZE + 40] ^= 0x20;
  write_file (packed, packed_data, packed_len);
  char *d3 = hl_gen_dump_file (packed, zstd, &st);
  hl_tap_ok (d3 != NULL && st.frames_damaged == 1 && strstr (st.warning, "damaged compressed frames") != NULL
             && st.packets > 0, "a damaged frame is skipped, the others read: %s", st.warning);
  free (d3);
  packed_data[HL_TRACE_FILE_HEADER_SIZE + HL_PACKET_HEADER_SIZE + 40] ^= 0x20;

  /* A frame whose crc is right but which does not decompress to the raw
   * size it states (frames are decompressed in parallel, each straight
   * into its place): dropped, and the trace reads exactly as the same file
   * without that frame. */
  {
    size_t f0 = HL_TRACE_FILE_HEADER_SIZE, f1, f2;
    HlPacketHeader h0, h1;
    HlTraceReaderStats st2;
    uint32_t raw, crc;
    char *bad = malloc (packed_len), *without = malloc (packed_len);
    char *d4 = NULL;

    memcpy (&h0, packed_data + f0, sizeof h0);
    f1 = f0 + h0.header_size + h0.content_size;
    memcpy (&h1, packed_data + f1, sizeof h1);
    f2 = f1 + h1.header_size + h1.content_size;
    memcpy (bad, packed_data, packed_len);
    memcpy (&raw, bad + f1 + h1.header_size + 4, 4);
    raw -= 1;
    memcpy (bad + f1 + h1.header_size + 4, &raw, 4);
    memset (bad + f1 + offsetof (HlPacketHeader, crc32c), 0, 4);
    crc = hl_crc32c (0, bad + f1, f2 - f1);
    memcpy (bad + f1 + offsetof (HlPacketHeader, crc32c), &crc, 4);
    write_file (packed, bad, packed_len);
    d3 = hl_gen_dump_file (packed, zstd, &st);
    memcpy (without, packed_data, f1);
    memcpy (without + f1, packed_data + f2, packed_len - f2);
    write_file (packed, without, packed_len - (f2 - f1));
    d4 = hl_gen_dump_file (packed, zstd, &st2);
    /* The same dump but for its closing warning line. */
    if (d3 != NULL && strstr (d3, "warning: 1 damaged compressed frames") != NULL)
      *strstr (d3, "warning: 1 damaged compressed frames") = 0;
    hl_tap_ok (f2 < packed_len && d3 != NULL && d4 != NULL && strcmp (d3, d4) == 0 && st.frames_damaged == 1
               && st2.frames_damaged == 0 && st.packets == st2.packets && st.packets > 0,
               "a frame that does not decompress is dropped: the rest reads as without it (%llu packets)",
               (unsigned long long) st.packets);
    free (d3);
    free (d4);
    free (bad);
    free (without);
    write_file (packed, packed_data, packed_len);
  }

  /* Cut inside the last frame */
  write_file (packed, packed_data, packed_len - 100);
  d3 = hl_gen_dump_file (packed, zstd, &st);
  hl_tap_ok (d3 != NULL && st.bytes_ignored_at_end > 0, "a cut compressed trace reads its complete frames: %s", st.warning);
  free (d3);

  /* Every cut of a small compressed trace: never a crash */
  size_t n_ok = 0;
  size_t step = packed_len / 300 + 1;
  for (size_t cut = 0; cut <= packed_len; cut += step)
    {
      if (hl_trace_reader_open_memory_codec (packed_data, cut, zstd, &r, &err) == 0)
        {
          HlPacketView pkt;
          while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
            ;
          hl_trace_reader_free (r);
        }
      n_ok++;
    }
  hl_tap_ok (n_ok > 250, "%zu cuts of the compressed trace read without a crash", n_ok);

  /* In place */
  bool in_place = hl_trace_compress_file (plain, plain, zstd, 0, &err) == 0;
  char *d4 = hl_gen_dump_file (plain, zstd, NULL);
  hl_tap_ok (in_place && d4 != NULL && strcmp (d1, d4) == 0, "compressing in place keeps the contents");
  free (d4);

  /* A very repetitive trace: frames hold far more events than bytes */
  {
    static uint8_t buf[HL_PACKET_MAX_SIZE];
    HlPacketWriter *w = malloc (sizeof *w);
    snprintf (plain, sizeof plain, "%s/repetitive.hltrace", dir);
    FILE *f = fopen (plain, "wb");
    HlTraceFileHeader fh;
    hl_trace_file_header_init (&fh, 7, 0, 0, HL_TRACE_FLAG_COARSE_CLOCK);
    fwrite (&fh, 1, sizeof fh, f);
    hl_packet_writer_init (w, buf, sizeof buf, 7, 7);
    hl_packet_writer_begin (w, 0);
    for (uint64_t id = 1; id <= 200000; id++)
      {
        while (hl_packet_writer_alloc (w, 0, id, 32, 0, 1, 0x10000) == HL_WRITE_FULL
               || hl_packet_writer_free (w, 0, id) == HL_WRITE_FULL)
          {
            fwrite (buf, 1, hl_packet_writer_finish (w), f);
            hl_packet_writer_begin (w, 0);
          }
      }
    fwrite (buf, 1, hl_packet_writer_finish (w), f);
    fclose (f);
    free (w);
    snprintf (packed, sizeof packed, "%s/repetitive.z.hltrace", dir);
    HlTraceReaderStats rs;
    bool ok = hl_trace_compress_file (plain, packed, zstd, 0, &err) == 0;
    char *a = hl_gen_dump_file (plain, NULL, NULL), *b = hl_gen_dump_file (packed, zstd, &rs);
    size_t la, lb;
    free (hl_test_read_file (plain, &la));
    free (hl_test_read_file (packed, &lb));
    hl_tap_ok (ok && a != NULL && b != NULL && strcmp (a, b) == 0 && rs.warning[0] == '\0' && lb * 50 < la,
               "a repetitive trace: %zu -> %zu bytes, reads the same", la, lb);
    free (a);
    free (b);
  }

  free (d1);
  free (d2);
  free (packed_data);
  hl_gen_trace_clear (&t);
  hl_test_tmpdir_remove (dir);
  return hl_tap_finish ();
}
