/* hl-trace-compress-columns.h — a frame's column packed while it grows
 * (private to hl-trace-compress-stream.c).
 *
 * A frame's columns fill over the program's whole run, and compressing
 * them all at the end left the user waiting after the program exited
 * (sqlite3: the strong pass alone, 0.45 s). A column that reaches
 * HL_COLUMN_STREAM_MIN bytes gets a stream of the codec
 * (HlTraceCodec.stream_*), fed at every poll with what the column gained;
 * finishing it at the end of the frame compresses the last partial block
 * only. The bytes are copied into a buffer of the stream's own, whose
 * address never changes, as a codec's stream needs.
 *
 * The column's first HL_COLUMN_STREAM_MIN bytes, compressed whole (the
 * probe), choose the streams. Compressed less than
 * HL_COLUMN_STREAM_FAST_RATIO times, the column gets a fast stream (little
 * to gain from effort: churn's stacks). Compressed at least
 * HL_STRONG_RATIO times, it is a candidate for the strong pass
 * (HlTraceCodec.compress_strong, hl-trace-compress-private.h), which then
 * runs beside the ordinary stream until the column outgrows
 * HL_STRONG_MAX_IN (or to the end, when the probe compressed at least
 * HL_STRONG_BIG_RATIO times, or a second probe did: the last
 * HL_COLUMN_STREAM_MIN bytes before HL_STRONG_MAX_IN). At the end the
 * strong output is used whenever it came out smaller (its cost is spent;
 * a column compressed whole tries the strong pass only under
 * hl_strong_pays). A column that stays smaller is compressed whole at the
 * end, as before.
 *
 * The strong pass begins with the light strong stream
 * (HL_CODEC_STREAM_STRONG_LIGHT: zstd's level 12, where 16's optimal
 * parsing was most of record's CPU on sqlite3, a program's whole run on a
 * 2-core machine); a column that outgrows HL_STRONG_MAX_IN bound to the
 * end gets the full strong stream in its place, fed from the first byte
 * (so such a column gets the bytes it always got). Below that size the
 * full stream's gain was small for its cost: sqlite3's four columns of 1
 * to 2.6 MB compressed 200 to 1,600 times, 176 bytes for 10 % of its
 * compression's instructions, and churn's two came out no smaller.
 *
 * A column in varint planes (docs/trace-format.md 7c) is two of these, one
 * per plane, fed with the planes of what the column gained; its packed
 * form is the two outputs one after the other (two zstd frames).
 *
 * Every decision depends on the bytes only, never on how they came in
 * between polls, and a codec's stream gives the same output however its
 * input grew: the packed column is the same for a stream polled any number
 * of times, or once at the end. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-codec.h"

#define HL_COLUMN_STREAM_MIN        ((size_t) 256 << 10)
#define HL_COLUMN_STREAM_FAST_RATIO 3u

/* Where a column's strong pass stands. */
typedef enum
{
  HL_STRONG_UNPROBED = 0,  /* under HL_COLUMN_STREAM_MIN bytes: not probed yet */
  HL_STRONG_CANDIDATE,     /* the light stream; the second probe at
                              HL_STRONG_MAX_IN sends it to the end or ends it */
  HL_STRONG_BOUND_LIGHT,   /* bound to the end by the first probe: the light
                              stream until HL_STRONG_MAX_IN, then the full one */
  HL_STRONG_FULL,          /* the full strong stream, to the end */
  HL_STRONG_NONE,          /* no strong pass (or no longer) */
} HlStrongState;

typedef struct
{
  uint8_t *copy;          /* the bytes so far, at a fixed address */
  size_t   len;
  void    *z[2];          /* the ordinary (or fast) and the strong stream */
  uint8_t *out[2];
  size_t   out_len[2], out_cap[2];
  HlStrongState strong;
  bool     failed;        /* out of memory: compressed whole at the end */
} HlColumnStream;

/* Appends BYTES[0..N) to the stream's bytes and compresses what it can
 * (nothing below HL_COLUMN_STREAM_MIN). Out of memory only marks the
 * stream failed. */
void   hl_column_stream_append  (HlColumnStream     *cs,
                                 const HlTraceCodec *codec,
                                 const uint8_t      *bytes,
                                 size_t              n);
/* The packed form of ALL[0..N) — the stream's bytes, with those not
 * appended yet — written to DST (at most CAP bytes): the stream ended, or
 * ALL compressed whole (a small or failed stream). The packed size, or 0
 * on failure. */
size_t hl_column_stream_finish  (HlColumnStream     *cs,
                                 const HlTraceCodec *codec,
                                 const uint8_t      *all,
                                 size_t              n,
                                 uint8_t            *dst,
                                 size_t              cap);
/* ALL[0..N) compressed whole into DST (at most CAP bytes), with the
 * strong pass where it pays (hl_strong_pays). The size, or 0. */
size_t hl_column_compress_whole (const HlTraceCodec *codec,
                                 const uint8_t      *all,
                                 size_t              n,
                                 uint8_t            *dst,
                                 size_t              cap);
/* Frees everything and zeroes CS, for the next frame. */
void   hl_column_stream_clear   (HlColumnStream     *cs,
                                 const HlTraceCodec *codec);

/* A column: one stream, or two for a column in planes. */
typedef struct
{
  HlColumnStream part[2];
  size_t         fed;     /* the column's bytes taken so far */
  bool           planes;
  bool           failed;
} HlColumnPack;

/* Feeds the column COL[0..N) (the same bytes as at the last call, and
 * maybe more; whole varints for a column in planes) once it has
 * HL_COLUMN_STREAM_MIN bytes; COLUMN is the HlColumn it is. */
void   hl_column_pack_advance   (HlColumnPack       *cp,
                                 const HlTraceCodec *codec,
                                 unsigned            column,
                                 const uint8_t      *col,
                                 size_t              n);
/* True when the column of N bytes is packed by hl_column_pack_finish
 * (any column not in planes, a large one in planes with CODEC's streams),
 * false when the caller makes it planes and compresses it whole. */
bool   hl_column_pack_streamed  (const HlColumnPack *cp,
                                 const HlTraceCodec *codec,
                                 size_t              n);
/* Room a packed column of N bytes may need beyond the codec's bound (the
 * two frames of a column in planes). */
#define HL_COLUMN_PACK_SLACK 4096u

/* Packs the whole column COL[0..N) into DST (at most CAP bytes); *SPLIT
 * gets its first plane's length for a column in planes (0 otherwise). The
 * packed size, or 0 on failure. */
size_t hl_column_pack_finish    (HlColumnPack       *cp,
                                 const HlTraceCodec *codec,
                                 unsigned            column,
                                 const uint8_t      *col,
                                 size_t              n,
                                 uint8_t            *dst,
                                 size_t              cap,
                                 size_t             *split);
void   hl_column_pack_clear     (HlColumnPack       *cp,
                                 const HlTraceCodec *codec);
