/* trace-columns.c — where the bytes of a trace go (not a test): splits the
 * plain form of a trace into the columns of a model frame
 * (hl-trace-columns.h, docs/trace-format.md 7d) and prints,
 * per column, the bytes before and after zstd, next to the whole plain
 * trace compressed in one piece. Checks that the columns join back.
 *
 *   trace-columns FILE.hltrace [LEVEL [PLAIN_OUT [COMPRESSED]]]
 *   (plain or compressed; level 3; PLAIN_OUT receives the plain trace, "-"
 *   none; COMPRESSED: a compressed file of the same trace whose open is
 *   timed) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-cpu.h"
#include "hl-trace-columns.h"
#include "hl-trace-reader-private.h"
#include "hl-trace-zstd.h"
#include "hl-trace-compress.h"

static size_t
zsize (const HlTraceCodec *z, const uint8_t *p, size_t n)
{
  if (n == 0)
    return 0;
  size_t cap = z->compress_bound (z->user, n);
  uint8_t *buf = malloc (cap);
  size_t r = buf ? z->compress (z->user, p, n, buf, cap) : 0;
  free (buf);
  return r;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: trace-columns FILE [LEVEL]\n");
      return 2;
    }
  const HlTraceCodec *z = hl_trace_codec_zstd (argc > 2 ? atoi (argv[2]) : 3);
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_file_codec (argv[1], z, &r, &err) != 0)
    {
      fprintf (stderr, "%s: %s\n", argv[1], err.message);
      return 1;
    }
  if (argc > 3 && strcmp (argv[3], "-") != 0)
    {
      FILE *f = fopen (argv[3], "wb");
      HlTraceFileHeader h = r->header;
      h.flags &= ~(uint32_t) HL_TRACE_FLAG_COMPRESSED;
      if (f == NULL || fwrite (&h, sizeof h, 1, f) != 1
          || fwrite (r->data + sizeof h, 1, r->size - sizeof h, f) != r->size - sizeof h || fclose (f) != 0)
        {
          fprintf (stderr, "cannot write %s\n", argv[3]);
          return 1;
        }
    }
  const uint8_t *raw = r->data + r->data_start;
  size_t n = r->size - r->data_start;
  HlColumns c = { 0 };
  if (hl_trace_columns_split_model (raw, n, &c) != 0)
    return 1;
  uint8_t *back = malloc (n ? n : 1);
  const uint8_t *d[HL_COL_COUNT];
  for (int i = 0; i < HL_COL_COUNT; i++)
    d[i] = c.data[i];
  static const size_t none[HL_COL_COUNT];
  int ok = hl_trace_columns_join_any (d, c.len, none, HL_JOIN_MODEL, back, n) == 0 && memcmp (back, raw, n) == 0;
  /* HL_COLUMNS_DUMP=DIR: each column's plain bytes into DIR/NAME */
  const char *dump = getenv ("HL_COLUMNS_DUMP");
  for (int i = 0; dump != NULL && i < HL_COL_COUNT; i++)
    {
      char path[4096];
      snprintf (path, sizeof path, "%s/%s", dump, hl_column_name (i));
      FILE *f = fopen (path, "wb");
      if (f != NULL)
        {
          fwrite (c.data[i], 1, c.len[i], f);
          fclose (f);
        }
    }
  printf ("%-10s %12s %12s %12s\n", "column", "plain", "zstd", "as written");
  size_t tp = 0, tz = 0, tw = 0;
  for (int i = 0; i < HL_COL_COUNT; i++)
    {
      size_t zs = zsize (z, c.data[i], c.len[i]);
      /* what hl_trace_compress_file writes: addr and free as varint planes */
      size_t ws = zs;
      if (i == HL_COL_ADDR || i == HL_COL_FREE)
        {
          HlColumns one = { 0 };
          one.data[i] = malloc (c.len[i] + 1);
          memcpy (one.data[i], c.data[i], c.len[i]);
          one.len[i] = one.cap[i] = c.len[i];
          hl_trace_columns_to_planes (&one, i);
          ws = zsize (z, one.data[i], one.len[i]);
          hl_trace_columns_clear (&one);
        }
      printf ("%-10s %12zu %12zu %12zu\n", hl_column_name (i), c.len[i], zs, ws);
      tp += c.len[i];
      tz += zs;
      tw += ws;
    }
  printf ("%-10s %12zu %12zu %12zu\n", "columns", tp, tz, tw);
  printf ("%-10s %12zu %12zu\n", "whole", n, zsize (z, raw, n));
  printf ("join %s\n", ok ? "exact" : "DIFFERS");

  /* What reading costs per event, one core: joining the columns (model and
   * 3.0's columns), and the whole open of the compressed file as
   * hl_trace_compress_file writes it (decompression on all threads
   * counted as CPU time). */
  uint64_t n_events = 0;
  {
    HlPacketView pkt;
    hl_trace_reader_seek (r, r->data_start);
    while (hl_trace_reader_next_header (r, &pkt, NULL) > 0)
      n_events += pkt.header.n_events;
  }
  HlColumns c2 = { 0 };
  hl_trace_columns_split (raw, n, &c2);
  const uint8_t *d2[HL_COL_COUNT];
  for (int i = 0; i < HL_COL_COUNT; i++)
    d2[i] = c2.data[i];
  double best_model = 1e9, best_cols = 1e9;
  for (int rep = 0; rep < 3; rep++)
    {
      double t0 = bench_cpu_seconds ();
      (void) hl_trace_columns_join_any (d, c.len, none, HL_JOIN_MODEL, back, n);
      double t1 = bench_cpu_seconds ();
      (void) hl_trace_columns_join (d2, c2.len, back, n);
      double t2 = bench_cpu_seconds ();
      if (t1 - t0 < best_model)
        best_model = t1 - t0;
      if (t2 - t1 < best_cols)
        best_cols = t2 - t1;
    }
  hl_trace_columns_clear (&c2);
  printf ("events %llu; join, one core: model %.1f M events/s, 3.0 columns %.1f M events/s\n",
          (unsigned long long) n_events, (double) n_events / best_model / 1e6, (double) n_events / best_cols / 1e6);
  /* What the recorder's split costs per event (the model frame's columns,
   * as `record` makes them while the program runs) */
  double best_split = 1e9;
  for (int rep = 0; rep < 3; rep++)
    {
      HlColumns c3 = { 0 };
      double t0 = bench_cpu_seconds ();
      int src = hl_trace_columns_split_model (raw, n, &c3);
      double t1 = bench_cpu_seconds ();
      hl_trace_columns_clear (&c3);
      if (src == 0 && t1 - t0 < best_split)
        best_split = t1 - t0;
    }
  printf ("split, one core: model %.1f M events/s (%.3f s)\n", (double) n_events / best_split / 1e6, best_split);
  if (argc > 4)
    {
      /* ARGV[4]: the compressed file, opened as the model and CLI do */
      double t0 = bench_cpu_seconds ();
      HlTraceReader *cr;
      if (hl_trace_reader_open_file_codec (argv[4], z, &cr, &err) == 0)
        {
          double t1 = bench_cpu_seconds ();
          printf ("open %s: %.3f s CPU, %.1f M events/s\n", argv[4], t1 - t0, (double) n_events / (t1 - t0) / 1e6);
          hl_trace_reader_free (cr);
        }
    }
  free (back);
  hl_trace_columns_clear (&c);
  hl_trace_reader_free (r);
  return ok ? 0 : 1;
}
