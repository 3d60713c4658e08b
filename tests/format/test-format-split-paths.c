/* test-format-split-paths.c — the model split's short paths (ALLOC, FREE
 * and REALLOC straight into the columns, hl-trace-columns.c) give exactly
 * the columns of the general parser (hl_trace_columns_split_reference):
 * on random traces, on packets written by hand with every encoding a
 * reader accepts (non-canonical varints in every field, 10-byte values,
 * bad address extra bytes, missing times, malformed events), and on a
 * trace with a bit flipped at every byte. The hand-written packets also
 * join back exactly. A column in varint planes fed in pieces
 * (hl_column_pack_advance) holds the planes of hl_trace_columns_to_planes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-format-test-check.h"
#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-compress-columns.h"
#include "hl-trace-columns.h"
#include "hl-trace-zstd.h"
#include "hl-trace-encode-private.h"
#include "hl-trace-model.h"

/* The columns of RAW[0..N) split both ways are the same (and *WHERE, when
 * not NULL, gets the first column that differs). */
static bool
same_split (const uint8_t *raw, size_t n, int *where)
{
  HlColumns a = { 0 }, b = { 0 };
  HlTraceModel *ma = hl_trace_model_new (), *mb = hl_trace_model_new ();
  bool same = ma != NULL && mb != NULL && hl_trace_columns_split_with (raw, n, &a, ma) == 0
              && hl_trace_columns_split_reference (raw, n, &b, mb) == 0;
  for (int i = 0; same && i < HL_COL_COUNT; i++)
    if (a.len[i] != b.len[i] || (a.len[i] > 0 && memcmp (a.data[i], b.data[i], a.len[i]) != 0))
      {
        same = false;
        if (where != NULL)
          *where = i;
      }
  hl_trace_columns_clear (&a);
  hl_trace_columns_clear (&b);
  hl_trace_model_free (ma);
  hl_trace_model_free (mb);
  return same;
}

/* The CRC-32C (columns_crc) of the columns of the random traces of test 1. */
#define PINNED_COLUMNS_CRC 0x51fb8830u

/* CRC, chained over the columns of RAW[0..N) split with a model (the
 * lengths, then the bytes, column by column); false when the split
 * failed. */
static bool
columns_crc (const uint8_t *raw, size_t n, uint32_t *crc)
{
  HlColumns c = { 0 };
  HlTraceModel *m = hl_trace_model_new ();
  bool ok = m != NULL && hl_trace_columns_split_with (raw, n, &c, m) == 0;
  for (int i = 0; ok && i < HL_COL_COUNT; i++)
    {
      uint64_t len = c.len[i];
      *crc = hl_crc32c (*crc, &len, sizeof len);
      if (len > 0)
        *crc = hl_crc32c (*crc, c.data[i], c.len[i]);
    }
  hl_trace_columns_clear (&c);
  hl_trace_model_free (m);
  return ok;
}

/* ---- Packets written by hand ------------------------------------------ */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
rnd (void)
{
  return hl_gen_xorshift (&rng);
}

/* A varint, one time in PAD written one byte longer than it needs (a
 * non-canonical encoding: the last byte 0). */
static uint8_t *
put_v (uint8_t *p, uint64_t v, unsigned pad)
{
  uint8_t *s = p;
  p = hl_varint_put (p, v);
  if (pad > 0 && rnd () % pad == 0 && p - s < HL_VARINT_MAX_BYTES)
    {
      p[-1] |= 0x80;
      *p++ = 0;
    }
  return p;
}

static uint8_t *
put_sv (uint8_t *p, int64_t v, unsigned pad)
{
  return put_v (p, hl_zigzag_encode (v), pad);
}

/* A value: small mostly, sometimes any 64 bits (10-byte varints). */
static uint64_t
value (void)
{
  switch (rnd () % 8)
    {
    case 0:
      return rnd ();
    case 1:
      return rnd () % 100000;
    default:
      return rnd () % 100;
    }
}

static uint8_t *
put_addr (uint8_t *p, uint64_t base, unsigned pad)
{
  uint64_t d;
  switch (rnd () % 6)
    {
    case 0:
      d = rnd ();
      break;
    case 1:
      d = 0x555555560000ull + (rnd () % 4096) * 16 - base;
      break;
    default:
      d = (rnd () % 64) * 16 + (rnd () % 3 == 0 ? rnd () % 16 : 0);
      break;
    }
  if (rnd () % 16 == 0)
    {
      /* any varint: beyond what an addrdelta gives back (not canonical) */
      uint64_t v = rnd () | (uint64_t) 1 << 62;
      p = put_v (p, v, pad);
      if (v & 1)
        *p++ = (uint8_t) (1 + rnd () % 15);
      return p;
    }
  uint64_t low = d & 15;
  p = put_v (p, (hl_zigzag_encode ((int64_t) d >> 4) << 1) | (low != 0), pad);
  if (low != 0)
    {
      /* a bad extra byte (0 or over 15) sometimes: read as 0 */
      unsigned r = (unsigned) (rnd () % 16);
      *p++ = r == 0 ? 0 : r == 1 ? (uint8_t) (16 + rnd () % 240) : (uint8_t) low;
    }
  return p;
}

/* One EVENTS packet of about N_EVENTS events, after the ids up to *ID. */
static size_t
hand_packet (uint8_t *out, size_t cap, unsigned n_events, uint64_t *id, unsigned pad)
{
  uint8_t *c = out + HL_PACKET_HEADER_SIZE, *p = c, *limit = out + cap - 2048;
  uint64_t first = *id, frames = 0;
  for (unsigned e = 0; e < n_events && p < limit; e++)
    {
      unsigned kind = (unsigned) (rnd () % 20);
      bool no_time = rnd () % 3 != 0;
      uint8_t type = kind < 8    ? HL_EVENT_ALLOC
                     : kind < 14 ? HL_EVENT_FREE
                     : kind < 16 ? HL_EVENT_REALLOC
                     : kind == 16 ? HL_EVENT_ALLOC_ALIGNED
                     : kind == 17 ? HL_EVENT_FREE_ADDR
                                  : HL_EVENT_STACK;
      *p++ = (uint8_t) (type | (no_time ? HL_EVENT_FLAG_NO_TIME : 0));
      if (!no_time)
        p = put_v (p, value (), pad);
      switch (type)
        {
        case HL_EVENT_FREE:
        case HL_EVENT_REALLOC:
          /* the id allocated last, a recent one, or any */
          p = put_sv (p, rnd () % 4 == 0 ? (int64_t) value () : (int64_t) (rnd () % 8), pad);
          if (type == HL_EVENT_FREE)
            break;
          /* fall through */
        case HL_EVENT_ALLOC:
        case HL_EVENT_ALLOC_ALIGNED:
          p = put_v (p, rnd () % 4 == 0 ? value () : 16 * (rnd () % 8), pad);
          if (type == HL_EVENT_ALLOC_ALIGNED)
            p = put_v (p, 64, pad);
          p = put_sv (p, rnd () % 4 == 0 ? (int64_t) value () : (int64_t) (rnd () % 3) - 1, pad);
          p = put_addr (p, 0, pad);
          (*id)++;
          break;
        case HL_EVENT_FREE_ADDR:
          p = put_v (p, value (), pad);
          break;
        default:
          {
            /* STACK: id, flags, n_frames, n_shared, the new frames */
            uint64_t n = rnd () % 12, shared = frames > 0 && n > 0 ? rnd () % (n < frames ? n : frames) : 0;
            uint8_t *q = put_sv (p, (int64_t) (rnd () % 3), pad);
            q = put_v (q, 0, pad);
            q = put_v (q, n, pad);
            q = put_v (q, shared, pad);
            for (uint64_t i = shared; i < n; i++)
              q = put_sv (q, (int64_t) (rnd () % 5 == 0 ? value () : 0x400000 + rnd () % 4096), pad);
            frames = n;
            p = q;
            break;
          }
        }
    }
  /* sometimes a malformed end: a varint cut short (the packet verbatim) */
  if (rnd () % 16 == 0)
    {
      *p++ = HL_EVENT_ALLOC | HL_EVENT_FLAG_NO_TIME;
      *p++ = 0x80;
    }
  HlPacketHeader h = { 0 };
  h.magic = HL_PACKET_MAGIC;
  h.content_size = (uint32_t) (p - c);
  h.header_size = HL_PACKET_HEADER_SIZE;
  h.kind = HL_PACKET_KIND_EVENTS;
  h.pid = 77;
  h.tid = 100 + (uint32_t) (rnd () % 3);
  h.alloc_id_begin = first;
  h.alloc_id_end = *id;
  h.n_events = n_events;
  h.crc32c = hl_crc32c (hl_crc32c (0, &h, sizeof h), c, h.content_size);
  memcpy (out, &h, sizeof h);
  return HL_PACKET_HEADER_SIZE + h.content_size;
}

/* A free column of N bytes of svarints (1 to 10 bytes), fed to a pack in
 * planes in random pieces of whole varints: its two parts hold the planes
 * that hl_trace_columns_to_planes makes of the whole column. */
static bool
planes_fed_in_pieces (size_t n)
{
  HlColumns c = { 0 };
  c.data[HL_COL_FREE] = malloc (n + HL_VARINT_MAX_BYTES);
  size_t len = 0, *cuts = malloc (n * sizeof *cuts), n_cuts = 0;
  while (len < n)
    {
      uint64_t v = rnd () % 4 == 0 ? rnd () >> (rnd () % 64) : rnd () % 200;
      len = (size_t) (hl_varint_put (c.data[HL_COL_FREE] + len, v) - c.data[HL_COL_FREE]);
      if (rnd () % 5000 == 0)
        cuts[n_cuts++] = len;
    }
  c.len[HL_COL_FREE] = c.cap[HL_COL_FREE] = len;
  const HlTraceCodec *z = hl_trace_codec_zstd (1);
  HlColumnPack cp = { .planes = true };
  for (size_t i = 0; i < n_cuts; i++)
    hl_column_pack_advance (&cp, z, HL_COL_FREE, c.data[HL_COL_FREE], cuts[i]);
  hl_column_pack_advance (&cp, z, HL_COL_FREE, c.data[HL_COL_FREE], len);
  size_t split = hl_trace_columns_to_planes (&c, HL_COL_FREE);
  bool same = !cp.failed && cp.fed == len && split > 0 && cp.part[0].len == split
              && cp.part[1].len == len - split && memcmp (cp.part[0].copy, c.data[HL_COL_FREE], split) == 0
              && memcmp (cp.part[1].copy, c.data[HL_COL_FREE] + split, len - split) == 0;
  hl_column_pack_clear (&cp, z);
  hl_trace_columns_clear (&c);
  free (cuts);
  return same;
}

int
main (void)
{
  hl_tap_plan (6);

  /* 1. random traces of every kind */
  bool all = true, crc_ok = true;
  int where = -1;
  uint32_t crc = 0;
  for (uint32_t seed = 1; seed <= 13; seed++)
    {
      HlGenOptions o = { seed, 3000 + seed * 700, 1 + seed % 4, seed % 3 ? 0 : 2048, (int) (seed & 1) };
      if (seed == 13)
        o = (HlGenOptions) { seed, 200000, 8, 0, 1 };
      HlGenTrace t;
      hl_gen_trace (&t, &o);
      all &= same_split (t.data + HL_TRACE_FILE_HEADER_SIZE, t.size - HL_TRACE_FILE_HEADER_SIZE, &where);
      crc_ok &= columns_crc (t.data + HL_TRACE_FILE_HEADER_SIZE, t.size - HL_TRACE_FILE_HEADER_SIZE, &crc);
      hl_gen_trace_clear (&t);
    }
  hl_tap_ok (all, "13 random traces: the short paths give the general parser's columns (first difference: %d)",
             where);
  /* Both paths above run the same model: a change to the model's
   * predictions would pass them, and change every compressed trace (the
   * joiner mirrors the model). These columns are pinned; the value was
   * the same before the model's speed-ups of 2026-11-29 (whose output is
   * byte for byte the old one's). Change it only with the format. */
  hl_tap_ok (crc_ok && crc == PINNED_COLUMNS_CRC, "the model's columns of those traces are the pinned ones (crc %08x)",
             crc);

  /* 2. packets by hand, with and without non-canonical encodings */
  size_t cap = 1 << 20, n = 0;
  uint8_t *run = malloc (cap);
  uint64_t id = 1;
  bool hand = true;
  unsigned runs = 0;
  for (unsigned r = 0; r < 60; r++)
    {
      n = 0;
      for (unsigned k = 0; k < 20; k++)
        n += hand_packet (run + n, cap - n, 50 + (unsigned) (rnd () % 400), &id, r % 3 == 0 ? 0 : 2 + r % 7);
      size_t split[HL_COL_COUNT];
      hand &= same_split (run, n, &where) && hl_check_columns_roundtrip (run, n, true, 0, split, NULL)
              && hl_check_columns_roundtrip (run, n, true, 1u << HL_COL_FREE, split, NULL);
      runs++;
    }
  hl_tap_ok (hand, "%u runs of hand-written packets (non-canonical varints, 10-byte values, bad extra bytes): "
             "the same columns, and joined back exactly (first difference: %d)", runs, where);

  where = -1;
  /* 3. a run of 4 packets with a bit flipped at every 3rd byte */
  n = 0;
  for (unsigned k = 0; k < 4; k++)
    n += hand_packet (run + n, cap - n, 100, &id, 5);
  bool flips = true;
  uint8_t *bad = malloc (n);
  size_t n_flips = 0;
  for (size_t k = 0; k < n; k += 3)
    {
      memcpy (bad, run, n);
      bad[k] ^= (uint8_t) (1u << (k % 8));
      flips &= same_split (bad, n, &where);
      n_flips++;
    }
  hl_tap_ok (flips, "%zu runs with a flipped bit: the same columns (first difference: %d)", n_flips, where);

  /* 4. a random trace cut at many places */
  HlGenOptions o = { 99, 4000, 3, 4096, 1 };
  HlGenTrace t;
  hl_gen_trace (&t, &o);
  bool cuts = true;
  size_t tn = t.size - HL_TRACE_FILE_HEADER_SIZE;
  where = -1;
  for (size_t k = 1; k < tn; k += 397)
    cuts &= same_split (t.data + HL_TRACE_FILE_HEADER_SIZE, tn - k, &where);
  hl_tap_ok (cuts, "a trace cut anywhere: the same columns (first difference: %d)", where);
  hl_gen_trace_clear (&t);

  /* 5. varint planes fed in pieces */
  hl_tap_ok (planes_fed_in_pieces (HL_COLUMN_STREAM_MIN + 300000) && planes_fed_in_pieces (HL_COLUMN_STREAM_MIN * 5),
             "a column in varint planes fed in pieces holds the planes of the whole column");
  free (bad);
  free (run);
  return hl_tap_finish ();
}
