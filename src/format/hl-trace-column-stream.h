/* hl-trace-column-stream.h — one column of the frame being filled,
 * compressed while it grows (private to hl-trace-compress-stream.c).
 *
 * A frame's columns fill over the program's whole run, and compressing
 * them all at the end left the user waiting after the program exited
 * (sqlite3: the strong pass alone, 0.45 s). A column that reaches
 * HL_COLUMN_STREAM_MIN bytes gets a stream of the codec
 * (HlTraceCodec.stream_*), fed at every poll with what the column gained;
 * finishing it at the end of the frame compresses the last partial block
 * only. The column is copied into a buffer of its own, whose address never
 * changes, as a codec's stream needs.
 *
 * The column's first HL_COLUMN_STREAM_MIN bytes, compressed whole (the
 * probe), choose the streams. Compressed less than
 * HL_COLUMN_STREAM_FAST_RATIO times, the column gets a fast stream (little
 * to gain from effort: churn's stacks). Compressed at least
 * HL_STRONG_RATIO times, it is a candidate for the strong pass
 * (HlTraceCodec.compress_strong, hl-trace-compress-private.h), which then
 * runs beside the ordinary stream until the column outgrows
 * HL_STRONG_MAX_IN. At the end the strong output is used, for a
 * candidate, under the rule of a column compressed whole.
 *
 * Every decision depends on the column's bytes only, never on how they
 * came in between polls, and a codec's stream gives the same output
 * however its input grew: the packed column is the same for a stream
 * polled any number of times, or once at the end. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-codec.h"

#define HL_COLUMN_STREAM_MIN        ((size_t) 256 << 10)
#define HL_COLUMN_STREAM_FAST_RATIO 3u

typedef struct
{
  uint8_t *copy;          /* the column's bytes so far, at a fixed address */
  size_t   len, reserve;
  void    *z[2];          /* the ordinary and the strong stream */
  uint8_t *out[2];
  size_t   out_len[2], out_cap[2];
  int      strong;        /* 0 not probed yet, 1 candidate, -1 not */
  int      effort;        /* of z[0]: HL_CODEC_STREAM_FAST or _ORDINARY */
  bool     failed;        /* out of memory: the column is compressed whole */
} HlColumnStream;

/* True when the column of length N is (or is to be) compressed by a stream
 * with CODEC, false when it is compressed whole at the end. */
bool   hl_column_stream_used    (const HlColumnStream *cs,
                                 const HlTraceCodec   *codec,
                                 size_t                n);
/* Feeds the column COL[0..N) (the same bytes as at the last call, and
 * maybe more) to the streams; nothing below HL_COLUMN_STREAM_MIN. Out of
 * memory only marks the stream failed. */
void   hl_column_stream_advance (HlColumnStream     *cs,
                                 const HlTraceCodec *codec,
                                 const uint8_t      *col,
                                 size_t              n);
/* Ends the streams of the whole column COL[0..N) and writes its packed
 * form to DST (at most CAP bytes). The packed size, or 0 on failure. */
size_t hl_column_stream_finish  (HlColumnStream     *cs,
                                 const HlTraceCodec *codec,
                                 const uint8_t      *col,
                                 size_t              n,
                                 uint8_t            *dst,
                                 size_t              cap);
/* Frees everything and zeroes CS, for the next frame. */
void   hl_column_stream_clear   (HlColumnStream     *cs,
                                 const HlTraceCodec *codec);
