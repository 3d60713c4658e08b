/* hl-trace-compress-columns.c — a frame's column packed while it grows
 * (hl-trace-compress-columns.h). */

#include "private/hl-trace-compress-columns.h"

#include <stdlib.h>
#include <string.h>

#include "private/hl-trace-columns.h"
#include "private/hl-trace-compress-private.h"
#include "private/hl-varint.h"

/* The copy's room: a column (or plane) holds at most its frame's bytes.
 * malloc of this much maps pages that cost nothing until the copy reaches
 * them. */
#define COPY_RESERVE ((size_t) HL_ZFRAME_MAX_RAW + 2u * HL_PACKET_MAX_SIZE)

static bool
streaming (const HlColumnStream *cs, const HlTraceCodec *codec)
{
  return cs->z[0] != NULL && !cs->failed;
}

/* The strong pass can no longer pay: no strong stream, and no second
 * probe at every later append (it gave its answer). */
static void
end_strong (HlColumnStream *cs, const HlTraceCodec *codec)
{
  if (cs->z[1] != NULL)
    codec->stream_free (cs->z[1]);
  cs->z[1] = NULL;
  cs->strong = HL_STRONG_NONE;
}

/* HL_COLUMN_STREAM_MIN bytes of the copy from AT, compressed whole: their
 * size, or 0. */
static size_t
probe (HlColumnStream *cs, const HlTraceCodec *codec, size_t at)
{
  size_t cap = codec->compress_bound (codec->user, HL_COLUMN_STREAM_MIN);
  uint8_t *buf = malloc (cap);
  size_t got = buf != NULL ? codec->compress (codec->user, cs->copy + at, HL_COLUMN_STREAM_MIN, buf, cap) : 0;
  free (buf);
  return got;
}

/* Starts the streams once the bytes reach HL_COLUMN_STREAM_MIN. */
static void
start (HlColumnStream *cs, const HlTraceCodec *codec)
{
  /* the probe: the first HL_COLUMN_STREAM_MIN bytes, compressed whole */
  size_t got = probe (cs, codec, 0);
  int effort = got * HL_COLUMN_STREAM_FAST_RATIO > HL_COLUMN_STREAM_MIN ? HL_CODEC_STREAM_FAST
                                                                        : HL_CODEC_STREAM_ORDINARY;
  /* bound to the end: compressible enough for the strong pass at any size */
  cs->strong = codec->compress_strong == NULL || got * HL_STRONG_RATIO > HL_COLUMN_STREAM_MIN ? HL_STRONG_NONE
               : got * HL_STRONG_BIG_RATIO <= HL_COLUMN_STREAM_MIN ? HL_STRONG_BOUND_LIGHT
                                                                   : HL_STRONG_CANDIDATE;
  bool strong = cs->strong != HL_STRONG_NONE;
  cs->z[0] = got > 0 ? codec->stream_new (codec->user, effort) : NULL;
  if (cs->z[0] != NULL && strong)
    cs->z[1] = codec->stream_new (codec->user, HL_CODEC_STREAM_STRONG_LIGHT);
  if (cs->z[0] == NULL || (strong && cs->z[1] == NULL))
    cs->failed = true;
}

/* The full strong stream in place of the light one, fed from the first
 * byte by the next feed (the light one's output is dropped). */
static void
go_full_strong (HlColumnStream *cs, const HlTraceCodec *codec)
{
  cs->strong = HL_STRONG_FULL;
  if (cs->z[1] != NULL)
    codec->stream_free (cs->z[1]);
  cs->out_len[1] = 0;
  cs->z[1] = codec->stream_new (codec->user, HL_CODEC_STREAM_STRONG);
  if (cs->z[1] == NULL)
    cs->failed = true;
}

/* The place for N more bytes at the end of the stream's copy, or NULL
 * (nothing to do: N is 0 or the stream failed, which this may mark). */
static uint8_t *
copy_room (HlColumnStream *cs, const HlTraceCodec *codec, size_t n)
{
  if (cs->failed || n == 0)
    return NULL;
  if (codec->stream_new == NULL || n > COPY_RESERVE - cs->len)
    {
      cs->failed = true;
      return NULL;
    }
  if (cs->copy == NULL && (cs->copy = malloc (COPY_RESERVE)) == NULL)
    {
      cs->failed = true;
      return NULL;
    }
  return cs->copy + cs->len;
}

/* After N bytes were written at copy_room's place: compresses what it can
 * (nothing below HL_COLUMN_STREAM_MIN). */
static void
appended (HlColumnStream *cs, const HlTraceCodec *codec, size_t n)
{
  cs->len += n;
  if (cs->len < HL_COLUMN_STREAM_MIN)
    return;
  if (cs->strong == HL_STRONG_UNPROBED)
    start (cs, codec);
  if (cs->strong == HL_STRONG_BOUND_LIGHT && cs->len > HL_STRONG_MAX_IN)
    go_full_strong (cs, codec);
  if (cs->strong == HL_STRONG_CANDIDATE && cs->len > HL_STRONG_MAX_IN)
    {
      /* a program's start compresses worse than its steady state
       * (python3: the imports): the strong stream goes on to the end
       * when the last HL_COLUMN_STREAM_MIN bytes before HL_STRONG_MAX_IN
       * compress HL_STRONG_BIG_RATIO times; else it can no longer pay
       * (hl_strong_pays) */
      size_t got = probe (cs, codec, HL_STRONG_MAX_IN - HL_COLUMN_STREAM_MIN);
      if (got > 0 && got * HL_STRONG_BIG_RATIO <= HL_COLUMN_STREAM_MIN)
        go_full_strong (cs, codec);
      else
        end_strong (cs, codec);
    }
  for (int k = 0; k < 2 && !cs->failed; k++)
    if (cs->z[k] != NULL
        && codec->stream_feed (cs->z[k], cs->copy, cs->len, 0, &cs->out[k], &cs->out_len[k], &cs->out_cap[k]) != 0)
      cs->failed = true;
}

void
hl_column_stream_append (HlColumnStream     *cs,
                         const HlTraceCodec *codec,
                         const uint8_t      *bytes,
                         size_t              n)
{
  uint8_t *at = copy_room (cs, codec, n);
  if (at == NULL)
    return;
  memcpy (at, bytes, n);
  appended (cs, codec, n);
}

size_t
hl_column_compress_whole (const HlTraceCodec *codec,
                          const uint8_t      *all,
                          size_t              n,
                          uint8_t            *dst,
                          size_t              cap)
{
  size_t got = codec->compress (codec->user, all, n, dst, cap);
  if (codec->compress_strong != NULL && hl_strong_pays (n, got))
    {
      uint8_t *strong = malloc (cap);
      size_t st = strong ? codec->compress_strong (codec->user, all, n, strong, cap) : 0;
      if (st > 0 && st < got)
        {
          memcpy (dst, strong, st);
          got = st;
        }
      free (strong);
    }
  return got;
}

size_t
hl_column_stream_finish (HlColumnStream     *cs,
                         const HlTraceCodec *codec,
                         const uint8_t      *all,
                         size_t              n,
                         uint8_t            *dst,
                         size_t              cap)
{
  if (n > cs->len && cs->len >= HL_COLUMN_STREAM_MIN)
    hl_column_stream_append (cs, codec, all + cs->len, n - cs->len);
  if (!streaming (cs, codec) || cs->len != n)
    return n > 0 ? hl_column_compress_whole (codec, all, n, dst, cap) : 0;
  if (codec->stream_feed (cs->z[0], cs->copy, n, 1, &cs->out[0], &cs->out_len[0], &cs->out_cap[0]) != 0)
    return hl_column_compress_whole (codec, all, n, dst, cap);
  /* a strong stream that ran to here is used whenever it came out
   * smaller: the probes decided to spend its cost, and it is spent
   * (hl_strong_pays, the rule of a column compressed whole, threw away
   * sqlite3's finished strong output on three columns with its
   * HL_STRONG_MIN_OUT: 875 bytes) */
  int use = 0;
  size_t got = cs->out_len[0];
  if (cs->z[1] != NULL
      && codec->stream_feed (cs->z[1], cs->copy, n, 1, &cs->out[1], &cs->out_len[1], &cs->out_cap[1]) == 0
      && cs->out_len[1] < got)
    use = 1;
  if (cs->out_len[use] == 0 || cs->out_len[use] > cap)
    return 0;
  memcpy (dst, cs->out[use], cs->out_len[use]);
  return cs->out_len[use];
}

void
hl_column_stream_clear (HlColumnStream     *cs,
                        const HlTraceCodec *codec)
{
  for (int k = 0; k < 2; k++)
    {
      if (cs->z[k] != NULL)
        codec->stream_free (cs->z[k]);
      free (cs->out[k]);
    }
  free (cs->copy);
  memset (cs, 0, sizeof *cs);
}

/* ---- Columns: one stream, or one per plane ---------------------------- */

/* Appends the planes of the column's bytes COL[FED..N) (whole varints) to
 * the two parts, as hl_trace_columns_to_planes makes them: the first byte
 * of every varint to the first, the others to the second, written
 * straight into the parts' copies. Bytes that are not whole varints (as
 * hl_varint_get reads them) fail the column. */
static void
feed_planes (HlColumnPack *cp, const HlTraceCodec *codec, unsigned column, const uint8_t *col, size_t n)
{
  size_t k = n - cp->fed;
  HlColumnStream *p = cp->part;
  if (k > COPY_RESERVE - p[0].len || k > COPY_RESERVE - p[1].len)
    {
      /* (never in a frame's column) a plane may not fit: fail as the
       * appends of the two planes would (a varint starts after a byte
       * without the high bit) */
      size_t firsts = 1;
      for (size_t i = cp->fed + 1; i < n; i++)
        firsts += col[i - 1] < 0x80;
      if (firsts > COPY_RESERVE - p[0].len || k - firsts > COPY_RESERVE - p[1].len)
        {
          cp->failed = true;
          return;
        }
    }
  if (codec->stream_new == NULL)
    {
      cp->failed = true;
      return;
    }
  for (int i = 0; i < 2; i++)
    if (p[i].copy == NULL && (p[i].copy = malloc (COPY_RESERVE)) == NULL)
      {
        cp->failed = true;
        return;
      }
  uint8_t *w0 = p[0].copy + p[0].len, *w1 = p[1].copy + p[1].len;
  uint8_t *s0 = w0, *s1 = w1;
  for (const uint8_t *q = col + cp->fed, *end = col + n; q < end;)
    {
      uint8_t b = *q++;
      *w0++ = b;
      for (unsigned i = 1; b & 0x80; i++)
        {
          if (q == end || i == HL_VARINT_MAX_BYTES)
            {
              cp->failed = true;
              return;
            }
          b = *q++;
          if (i == HL_VARINT_MAX_BYTES - 1 && b > 1)
            {
              cp->failed = true; /* over 64 bits */
              return;
            }
          *w1++ = b;
        }
    }
  appended (&p[0], codec, (size_t) (w0 - s0));
  if (w1 > s1)
    appended (&p[1], codec, (size_t) (w1 - s1));
  cp->failed = p[0].failed || p[1].failed;
}

void
hl_column_pack_advance (HlColumnPack       *cp,
                        const HlTraceCodec *codec,
                        unsigned            column,
                        const uint8_t      *col,
                        size_t              n)
{
  if (n < HL_COLUMN_STREAM_MIN || n <= cp->fed || cp->failed)
    return;
  if (cp->planes)
    feed_planes (cp, codec, column, col, n);
  else
    hl_column_stream_append (&cp->part[0], codec, col + cp->fed, n - cp->fed);
  cp->fed = n;
}

bool
hl_column_pack_streamed (const HlColumnPack *cp,
                         const HlTraceCodec *codec,
                         size_t              n)
{
  return !cp->planes || (n >= HL_COLUMN_STREAM_MIN && !cp->failed && codec->stream_new != NULL);
}

size_t
hl_column_pack_finish (HlColumnPack       *cp,
                       const HlTraceCodec *codec,
                       unsigned            column,
                       const uint8_t      *col,
                       size_t              n,
                       uint8_t            *dst,
                       size_t              cap,
                       size_t             *split)
{
  *split = 0;
  if (!cp->planes)
    {
      hl_column_pack_advance (cp, codec, column, col, n);
      return hl_column_stream_finish (&cp->part[0], codec, col, n, dst, cap);
    }
  hl_column_pack_advance (cp, codec, column, col, n);
  if (cp->failed || cp->fed != n)
    return 0;
  HlColumnStream *p = cp->part;
  size_t a = hl_column_stream_finish (&p[0], codec, p[0].copy, p[0].len, dst, cap);
  size_t b = p[1].len > 0 && a > 0 ? hl_column_stream_finish (&p[1], codec, p[1].copy, p[1].len, dst + a, cap - a) : 0;
  if (a == 0 || (p[1].len > 0 && b == 0))
    return 0;
  *split = p[0].len;
  return a + b;
}

void
hl_column_pack_clear (HlColumnPack       *cp,
                      const HlTraceCodec *codec)
{
  bool planes = cp->planes;
  hl_column_stream_clear (&cp->part[0], codec);
  hl_column_stream_clear (&cp->part[1], codec);
  memset (cp, 0, sizeof *cp);
  cp->planes = planes;
}
