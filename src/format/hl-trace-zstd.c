/* hl-trace-zstd.c — libzstd behind an HlTraceCodec. */

#include "hl-trace-zstd.h"

#include <zstd.h>

static size_t
bound (void *user, size_t n)
{
  return ZSTD_compressBound (n);
}

/* Long-distance matching over a window of up to 16 MiB (a whole frame):
 * a program's event stream repeats itself far apart (the rounds of a
 * loop), beyond the 2 MiB window of the fast levels; python3's trace came
 * out 35% smaller at the same level and speed. A reader needs no option:
 * one-shot decompression of a frame accepts any window up to 2^27. */
#define WINDOW_LOG 24

static size_t
compress_at (int level, const void *src, size_t n, void *dst, size_t cap)
{
  ZSTD_CCtx *cx = ZSTD_createCCtx ();
  if (cx == NULL)
    return 0;
  size_t r = ZSTD_CCtx_setParameter (cx, ZSTD_c_compressionLevel, level);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (cx, ZSTD_c_enableLongDistanceMatching, 1);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (cx, ZSTD_c_windowLog, WINDOW_LOG);
  if (!ZSTD_isError (r))
    r = ZSTD_compress2 (cx, dst, cap, src, n);
  ZSTD_freeCCtx (cx);
  return ZSTD_isError (r) ? 0 : r;
}

static size_t
compress (void *user, const void *src, size_t n, void *dst, size_t cap)
{
  return compress_at ((int) (intptr_t) user, src, n, dst, cap);
}

/* Level 16 (btopt): on very compressible columns (sqlite3's sizes: -32%)
 * its optimal parsing finds what the greedy levels miss. */
#define STRONG_LEVEL 16

static size_t
compress_strong (void *user, const void *src, size_t n, void *dst, size_t cap)
{
  int level = (int) (intptr_t) user;
  return compress_at (level > STRONG_LEVEL ? level : STRONG_LEVEL, src, n, dst, cap);
}

static size_t
decompress (void *user, const void *src, size_t n, void *dst, size_t cap)
{
  size_t r = ZSTD_decompress (dst, cap, src, n);
  return ZSTD_isError (r) ? 0 : r;
}

#define LEVELS 20
static HlTraceCodec codecs[LEVELS];

const HlTraceCodec *
hl_trace_codec_zstd (int level)
{
  if (level <= 0)
    level = 3;
  if (level >= LEVELS)
    level = LEVELS - 1;
  HlTraceCodec *c = &codecs[level];
  /* Filling the same constant values from several threads is harmless. */
  c->id = HL_CODEC_ZSTD;
  c->user = (void *) (intptr_t) level;
  c->compress_bound = bound;
  c->compress = compress;
  c->decompress = decompress;
  c->compress_strong = compress_strong;
  return c;
}
