/* hl-trace-zstd.c — libzstd behind an HlTraceCodec. */

#include "hl-trace-zstd.h"

#include <zstd.h>

static size_t
bound (void *user, size_t n)
{
  return ZSTD_compressBound (n);
}

static size_t
compress (void *user, const void *src, size_t n, void *dst, size_t cap)
{
  int level = (int) (intptr_t) user;
  size_t r = ZSTD_compress (dst, cap, src, n, level);
  return ZSTD_isError (r) ? 0 : r;
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
  return c;
}
