/* hl-trace-column-stream.c — a frame's column compressed while it grows
 * (hl-trace-column-stream.h). */

#include "hl-trace-column-stream.h"

#include <stdlib.h>
#include <string.h>

#include "hl-trace-compress-private.h"

/* The copy's room: a column holds at most its frame's bytes. malloc of
 * this much maps pages that cost nothing until the copy reaches them. */
#define COPY_RESERVE ((size_t) HL_ZFRAME_MAX_RAW + 2u * HL_PACKET_MAX_SIZE)

bool
hl_column_stream_used (const HlColumnStream *cs,
                       const HlTraceCodec   *codec,
                       size_t                n)
{
  return n >= HL_COLUMN_STREAM_MIN && !cs->failed && codec->stream_new != NULL && n <= COPY_RESERVE;
}

static void
end_strong (HlColumnStream *cs, const HlTraceCodec *codec)
{
  if (cs->z[1] != NULL)
    codec->stream_free (cs->z[1]);
  cs->z[1] = NULL;
  free (cs->out[1]);
  cs->out[1] = NULL;
  cs->out_len[1] = cs->out_cap[1] = 0;
}

void
hl_column_stream_advance (HlColumnStream     *cs,
                          const HlTraceCodec *codec,
                          const uint8_t      *col,
                          size_t              n)
{
  if (!hl_column_stream_used (cs, codec, n) || n < cs->len)
    return;
  if (cs->copy == NULL)
    {
      cs->copy = malloc (COPY_RESERVE);
      cs->reserve = COPY_RESERVE;
      /* the probe: the first HL_COLUMN_STREAM_MIN bytes, compressed whole */
      size_t cap = codec->compress_bound (codec->user, HL_COLUMN_STREAM_MIN);
      uint8_t *probe = cs->copy != NULL ? malloc (cap) : NULL;
      size_t got = probe != NULL ? codec->compress (codec->user, col, HL_COLUMN_STREAM_MIN, probe, cap) : 0;
      free (probe);
      cs->effort = got * HL_COLUMN_STREAM_FAST_RATIO > HL_COLUMN_STREAM_MIN ? HL_CODEC_STREAM_FAST
                                                                            : HL_CODEC_STREAM_ORDINARY;
      cs->strong = codec->compress_strong != NULL && got * HL_STRONG_RATIO <= HL_COLUMN_STREAM_MIN ? 1 : -1;
      cs->z[0] = got > 0 ? codec->stream_new (codec->user, cs->effort) : NULL;
      if (cs->z[0] == NULL)
        {
          cs->failed = true;
          return;
        }
    }
  memcpy (cs->copy + cs->len, col + cs->len, n - cs->len);
  cs->len = n;
  if (cs->strong == 1 && n > HL_STRONG_MAX_IN)
    {
      cs->strong = -1;
      end_strong (cs, codec);
    }
  if (cs->strong == 1 && cs->z[1] == NULL && (cs->z[1] = codec->stream_new (codec->user, HL_CODEC_STREAM_STRONG)) == NULL)
    {
      cs->failed = true;
      return;
    }
  for (int k = 0; k < 2; k++)
    if (cs->z[k] != NULL
        && codec->stream_feed (cs->z[k], cs->copy, cs->len, 0, &cs->out[k], &cs->out_len[k], &cs->out_cap[k]) != 0)
      {
        cs->failed = true;
        return;
      }
}

size_t
hl_column_stream_finish (HlColumnStream     *cs,
                         const HlTraceCodec *codec,
                         const uint8_t      *col,
                         size_t              n,
                         uint8_t            *dst,
                         size_t              cap)
{
  hl_column_stream_advance (cs, codec, col, n);
  if (!hl_column_stream_used (cs, codec, n) || cs->len != n)
    return 0;
  if (codec->stream_feed (cs->z[0], cs->copy, n, 1, &cs->out[0], &cs->out_len[0], &cs->out_cap[0]) != 0)
    return 0;
  int use = 0;
  size_t got = cs->out_len[0];
  if (cs->strong == 1 && cs->z[1] != NULL && hl_strong_pays (n, got)
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
