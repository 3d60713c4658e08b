/* fuzz-trace-reader.c — libFuzzer target: any bytes as a trace file,
 * through the packet walk (with and without crc), the event cursor, the
 * index (trailing or walked), seeking, packet_at and the text dump. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-trace-dump.h"
#include "hl-trace-index.h"
#include "hl-trace-reader.h"
#include "hl-trace-columns.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#define CODEC hl_trace_codec_zstd (1)
#else
#include "hl-trace-codec.h"
#define CODEC NULL
#endif

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static FILE *devnull;

static void
run (const uint8_t *data, size_t size)
{
  HlTraceReader *r;
  HlFormatError err;
  /* compressed traces too: ZFRAMEs decompressed at open */
  if (hl_trace_reader_open_memory_codec (data, size, CODEC, &r, &err) != 0)
    return;

  HlEventCursor *c = malloc (sizeof *c);
  HlPacketView pkt;
  HlEvent ev;
  while (hl_trace_reader_next_packet (r, &pkt, &err) > 0)
    {
      hl_event_cursor_init (c, &pkt);
      while (hl_event_cursor_next (c, &ev, &err) > 0)
        if (ev.type == HL_EVENT_STACK && ev.u.stack.n_frames > 0)
          (void) ev.u.stack.frames[ev.u.stack.n_frames - 1];
    }
  HlTraceReaderStats st;
  hl_trace_reader_stats (r, &st);

  /* The header-only walk, from the start again */
  hl_trace_reader_seek (r, hl_trace_reader_file_header (r)->header_size);
  while (hl_trace_reader_next_header (r, &pkt, &err) > 0)
    ;

  /* Index, seek, packets at offsets (the cursor trusts nothing) */
  HlTraceIndex *x;
  if (hl_trace_index_load (r, &x, &err) == 0)
    {
      /* one thread's packets, as a thread filter reads them */
      if (x->n_entries > 0 && x->note[sizeof x->note - 1] == '\0')
        for (size_t k = hl_trace_index_find_thread (x, x->entries[x->n_entries / 2].tid, 0); k < x->n_entries;
             k = hl_trace_index_find_thread (x, x->entries[x->n_entries / 2].tid, k + 1))
          (void) hl_trace_reader_packet_at (r, x->entries[k].offset, &pkt, &err);
      size_t i = hl_trace_index_find_time (x, size > 0 ? data[0] * 1000u : 0);
      for (; i < x->n_entries; i++)
        if (hl_trace_reader_packet_at (r, x->entries[i].offset, &pkt, &err) == 0)
          {
            hl_event_cursor_init (c, &pkt);
            while (hl_event_cursor_next (c, &ev, &err) > 0)
              ;
          }
      hl_trace_index_free (x);
    }
  for (uint64_t off = 0; off < size && off < 256; off += 7)
    (void) hl_trace_reader_packet_at (r, off, &pkt, &err);

  hl_trace_reader_seek (r, hl_trace_reader_file_header (r)->header_size);
  hl_trace_dump (r, devnull, HL_DUMP_OFFSETS, NULL);
  free (c);
  hl_trace_reader_free (r);
}

/* A mutated packet almost never passes its crc, which would hide the event
 * decoder from the fuzzer: a second pass fixes the crc of every packet whose
 * header validates (found by the header-only walk) in a copy. */
static uint8_t *
fix_crcs (const uint8_t *data, size_t size)
{
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_memory (data, size, &r, &err) != 0)
    return NULL;
  uint8_t *copy = malloc (size);
  memcpy (copy, data, size);
  HlPacketView pkt;
  while (hl_trace_reader_next_header (r, &pkt, &err) > 0)
    {
      size_t total = (size_t) pkt.header.header_size + pkt.header.content_size;
      uint8_t *p = copy + pkt.offset;
      memset (p + offsetof (HlPacketHeader, crc32c), 0, 4);
      uint32_t crc = hl_crc32c (0, p, total);
      memcpy (p + offsetof (HlPacketHeader, crc32c), &crc, 4);
    }
  hl_trace_reader_free (r);
  return copy;
}

/* Columns frames (format 3.0) and model frames (4.0, 5.0): any bytes split into
 * columns, with or without the model, join back exactly; and the input
 * read as hostile columns (HL_COL_COUNT u16 lengths, then the columns, the joined
 * size in the first two bytes) never makes either join read or write out
 * of bounds. */
static void
run_columns (const uint8_t *data, size_t size)
{
  HlColumns c = { 0 };
  if (hl_trace_columns_split (data, size, &c) == 0)
    {
      const uint8_t *d[HL_COL_COUNT];
      size_t split[HL_COL_COUNT];
      for (int i = 0; i < HL_COL_COUNT; i++)
        {
          split[i] = (size & 1) ? hl_trace_columns_to_planes (&c, i) : 0;
          d[i] = c.data[i];
        }
      uint8_t *back = malloc (size + 1);
      if (hl_trace_columns_join_planes (d, c.len, split, back, size) != 0 || memcmp (back, data, size) != 0)
        abort ();
      free (back);
    }
  hl_trace_columns_clear (&c);
  if (hl_trace_columns_split_model (data, size, &c) == 0)
    {
      const uint8_t *d[HL_COL_COUNT];
      size_t split[HL_COL_COUNT] = { 0 };
      if (size & 2)
        {
          split[HL_COL_ADDR] = hl_trace_columns_to_planes (&c, HL_COL_ADDR);
          split[HL_COL_FREE] = hl_trace_columns_to_planes (&c, HL_COL_FREE);
        }
      for (int i = 0; i < HL_COL_COUNT; i++)
        d[i] = c.data[i];
      uint8_t *back = malloc (size + 1);
      if (hl_trace_columns_join_any (d, c.len, split, HL_JOIN_MODEL, back, size) != 0 || memcmp (back, data, size) != 0)
        abort ();
      free (back);
    }
  hl_trace_columns_clear (&c);

  size_t head = 2 + 2 * HL_COL_COUNT;
  if (size < head)
    return;
  const uint8_t *d[HL_COL_COUNT];
  size_t len[HL_COL_COUNT];
  size_t at = head;
  for (int i = 0; i < HL_COL_COUNT; i++)
    {
      size_t l = (size_t) data[2 + 2 * i] | (size_t) data[3 + 2 * i] << 8;
      if (l > size - at)
        l = size - at;
      d[i] = data + at;
      len[i] = l;
      at += l;
    }
  size_t out_size = (size_t) data[0] | (size_t) data[1] << 8;
  uint8_t *out = malloc (out_size + 1);
  (void) hl_trace_columns_join (d, len, out, out_size);
  /* the same columns with the varint columns as planes, split in the middle */
  size_t split[HL_COL_COUNT] = { 0 };
  split[HL_COL_SIZE] = len[HL_COL_SIZE] / 2;
  split[HL_COL_ADDR] = len[HL_COL_ADDR] / 2;
  split[HL_COL_FREE] = len[HL_COL_FREE] / 2;
  (void) hl_trace_columns_join_planes (d, len, split, out, out_size);
  /* and as a model frame of 6.0, 5.0 and 4.0 */
  (void) hl_trace_columns_join_any (d, len, split, HL_JOIN_MODEL, out, out_size);
  (void) hl_trace_columns_join_any (d, len, split, HL_JOIN_MODEL_5, out, out_size);
  (void) hl_trace_columns_join_any (d, len, split, HL_JOIN_MODEL_4, out, out_size);
  free (out);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (devnull == NULL)
    devnull = fopen ("/dev/null", "w");
  run (data, size);
  run_columns (data, size);
  uint8_t *fixed = fix_crcs (data, size);
  if (fixed != NULL)
    {
      run (fixed, size);
      free (fixed);
    }
  return 0;
}
