/* test-format-columns.c — columns frames (format 3.0, hl-trace-columns.h):
 * split and join give the bytes back exactly for random traces, cut and
 * damaged ones; a truncated or flipped column never crashes the join; a
 * compressed trace cut at every byte or flipped at every byte reads a
 * valid prefix or gives a clear error; the committed 3.0 compressed golden
 * file reads to its committed dump. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-format-test-check.h"
#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-columns.h"
#include "hl-trace-dump.h"
#include "hl-trace-zstd.h"
#include "hl-trace-compress.h"

static size_t split_of[HL_COL_COUNT];

/* Split, then join; with PLANES, every varint column as planes. */
static bool
roundtrip_planes (const uint8_t *raw, size_t n, HlColumns *keep, bool planes)
{
  return hl_check_columns_roundtrip (raw, n, false, planes ? ~0u : 0u, split_of, keep);
}

static bool
roundtrip (const uint8_t *raw, size_t n, HlColumns *keep)
{
  return roundtrip_planes (raw, n, keep, false) && roundtrip_planes (raw, n, NULL, true);
}

static bool
write_file (const char *path, const void *data, size_t len)
{
  FILE *f = fopen (path, "wb");
  if (f == NULL)
    return false;
  bool ok = fwrite (data, 1, len, f) == len;
  return fclose (f) == 0 && ok;
}

/* Events the reader returns from DATA (compressed), or -1 when it refuses. */
static long
count_events (const uint8_t *data, size_t len)
{
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_memory_codec (data, len, hl_trace_codec_zstd (3), &r, &err) != 0)
    return -1;
  long n = 0;
  HlPacketView pkt;
  HlEventCursor *c = malloc (sizeof *c);
  while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
    {
      hl_event_cursor_init (c, &pkt);
      HlEvent ev;
      while (hl_event_cursor_next (c, &ev, &err) > 0)
        n++;
    }
  free (c);
  hl_trace_reader_free (r);
  return n;
}

int
main (void)
{
  hl_tap_plan (12);

  /* 1. random traces, every kind, several threads and packet sizes */
  bool all = true;
  for (uint32_t seed = 1; seed <= 12; seed++)
    {
      HlGenOptions o = { seed, 2000 + seed * 500, 1 + seed % 4, seed % 3 ? 0 : 2048, (int) (seed & 1) };
      HlGenTrace t;
      hl_gen_trace (&t, &o);
      all &= roundtrip (t.data + HL_TRACE_FILE_HEADER_SIZE, t.size - HL_TRACE_FILE_HEADER_SIZE, NULL);
      hl_gen_trace_clear (&t);
    }
  hl_tap_ok (all, "split then join gives 12 random traces back byte for byte, as bytes and as varint planes");

  /* 2. verbatim paths: cut, damaged, garbage */
  HlGenOptions o = { 77, 3000, 2, 4096, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  const uint8_t *raw = t.data + HL_TRACE_FILE_HEADER_SIZE;
  size_t n = t.size - HL_TRACE_FILE_HEADER_SIZE;
  uint8_t *bad = malloc (n);
  bool cut_ok = true;
  for (size_t k = 1; k < n; k += 97)
    cut_ok &= roundtrip (raw, n - k, NULL);
  hl_tap_ok (cut_ok, "a run cut anywhere joins back exactly (the cut packet verbatim)");
  bool flip_ok = true;
  for (size_t k = 0; k < n; k += 13)
    {
      memcpy (bad, raw, n);
      bad[k] ^= (uint8_t) (1u << (k % 8));
      flip_ok &= roundtrip (bad, n, NULL);
    }
  hl_tap_ok (flip_ok, "a run with a flipped bit anywhere joins back exactly");
  for (size_t k = 0; k < n; k++)
    bad[k] = (uint8_t) (k * 2654435761u >> 13);
  hl_tap_ok (roundtrip (bad, n, NULL), "garbage joins back exactly (verbatim)");

  /* 3. hostile columns: every truncation and every flip of every column */
  HlColumns c = { 0 };
  HlGenOptions small = { 5, 400, 2, 2048, 1 };
  HlGenTrace s;
  hl_gen_trace (&s, &small);
  const uint8_t *sraw = s.data + HL_TRACE_FILE_HEADER_SIZE;
  size_t sn = s.size - HL_TRACE_FILE_HEADER_SIZE;
  hl_tap_ok (roundtrip (sraw, sn, &c), "a small trace in columns");
  uint8_t *out = malloc (sn);
  bool trunc_fails = true;
  size_t n_flips = 0, n_flip_ok = 0;
  for (int i = 0; i < HL_COL_COUNT; i++)
    {
      const uint8_t *d[HL_COL_COUNT];
      size_t len[HL_COL_COUNT];
      for (int j = 0; j < HL_COL_COUNT; j++)
        {
          d[j] = c.data[j];
          len[j] = c.len[j];
        }
      for (size_t l = 0; l < c.len[i]; l++)
        {
          len[i] = l;
          trunc_fails &= hl_trace_columns_join (d, len, out, sn) != 0;
        }
      len[i] = c.len[i];
      uint8_t *copy = malloc (c.len[i] + 1);
      d[i] = copy;
      for (size_t k = 0; k < c.len[i]; k++)
        {
          memcpy (copy, c.data[i], c.len[i]);
          copy[k] ^= 0x81;
          n_flips++;
          /* either refused, or some bytes of exactly sn */
          n_flip_ok += hl_trace_columns_join (d, len, out, sn) <= 0;
        }
      free (copy);
    }
  hl_tap_ok (trunc_fails, "a column cut at any byte is refused");
  hl_tap_ok (n_flips > 0 && n_flip_ok == n_flips, "%zu flipped column bytes: joined or refused, never out of bounds",
             n_flips);
  hl_trace_columns_clear (&c);

  /* the same with every varint column as planes: cut and flipped */
  hl_tap_ok (roundtrip_planes (sraw, sn, &c, true), "a small trace in varint planes");
  size_t psplit[HL_COL_COUNT];
  memcpy (psplit, split_of, sizeof psplit);
  size_t p_runs = 0, p_ok = 0;
  for (int i = 0; i < HL_COL_COUNT; i++)
    {
      const uint8_t *d[HL_COL_COUNT];
      size_t len[HL_COL_COUNT];
      for (int j = 0; j < HL_COL_COUNT; j++)
        {
          d[j] = c.data[j];
          len[j] = c.len[j];
        }
      for (size_t l = 0; l < c.len[i]; l++)
        {
          len[i] = l;
          p_runs++;
          p_ok += hl_trace_columns_join_planes (d, len, psplit, out, sn) != 0;
        }
      len[i] = c.len[i];
      uint8_t *copy = malloc (c.len[i] + 1);
      d[i] = copy;
      for (size_t k = 0; k < c.len[i]; k++)
        {
          memcpy (copy, c.data[i], c.len[i]);
          copy[k] ^= 0x80;
          p_runs++;
          p_ok += hl_trace_columns_join_planes (d, len, psplit, out, sn) <= 0;
        }
      free (copy);
    }
  hl_tap_ok (p_runs > 0 && p_ok == p_runs, "%zu cut or flipped planes: refused when cut, never out of bounds", p_runs);
  hl_trace_columns_clear (&c);

  /* 4. the compressed file: cut at every byte, flipped at every byte */
  char *dir = hl_test_tmpdir_new ("hl-format-columns");
  char plain[4096], packed[4096];
  snprintf (plain, sizeof plain, "%s/plain.hltrace", dir);
  snprintf (packed, sizeof packed, "%s/packed.hltrace", dir);
  write_file (plain, s.data, s.size);
  HlFormatError err;
  size_t plen = 0;
  uint8_t *p = NULL;
  if (hl_trace_compress_file (plain, packed, hl_trace_codec_zstd (3), 0, &err) == 0)
    p = (uint8_t *) hl_test_read_file (packed, &plen);
  long full = p ? count_events (p, plen) : -2;
  long expect = count_events (s.data, s.size);
  bool cut_prefix = p != NULL && full > 0;
  for (size_t l = 0; p != NULL && l < plen; l++)
    {
      long k = count_events (p, l);
      cut_prefix &= k <= full; /* one frame: all or nothing */
    }
  hl_tap_ok (cut_prefix && full == expect,
             "compressed (%zu bytes, %ld events) cut at every byte: a prefix or an error", plen, full);
  bool flips = p != NULL;
  for (size_t k = 0; p != NULL && k < plen; k++)
    {
      p[k] ^= 0x10;
      flips &= count_events (p, plen) <= full;
      p[k] ^= 0x10;
    }
  hl_tap_ok (flips, "compressed, a bit flipped at every byte: the frame read whole or skipped");

  /* 5. the committed 3.0 compressed golden file */
  hl_tap_ok (hl_check_golden_dump ("basic-columns", hl_trace_codec_zstd (3)),
             "basic-columns.hltrace (3.0, columns frame) reads to its committed dump");
  free (p);
  free (out);
  free (bad);
  hl_gen_trace_clear (&s);
  hl_gen_trace_clear (&t);
  hl_test_tmpdir_remove (dir);
  return hl_tap_finish ();
}
