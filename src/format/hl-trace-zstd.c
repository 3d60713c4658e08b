/* hl-trace-zstd.c — libzstd behind an HlTraceCodec. */

#include "hl-trace-zstd.h"

#include <stdbool.h>
#include <stdlib.h>
#include <stdatomic.h>

/* ZSTD_c_stableInBuffer (experimental in 1.5, a parameter value only) */
#define ZSTD_STATIC_LINKING_ONLY
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

/* Contexts for the one-shot compressions of inputs up to CACHED_MAX bytes
 * (the streams' probes, the small columns: a dozen per frame), kept in a
 * pool of POOL_SIZE between them: a new context's tables are fresh pages
 * to fault in and clear each time. The pool, not a context per thread:
 * a frame's columns are packed by the compress thread and a helper thread
 * made for the frame, and the last frame, after the program's exit, by
 * `record`'s main thread: contexts of their own were all new (python3:
 * about 3 ms of page faults in the last frame, while the user waited).
 * The output does not depend on the context's past (ZSTD_CCtx_reset). A
 * larger input gets a context of its own, not kept (its tables are as
 * large as the input). The pool's contexts live as long as the process. */
#define CACHED_MAX ((size_t) 1 << 20)
#define POOL_SIZE  2

static ZSTD_CCtx *_Atomic cctx_pool[POOL_SIZE];

/* A context from the pool (reset) or a new one; NULL without memory. */
static ZSTD_CCtx *
cctx_take (void)
{
  for (int k = 0; k < POOL_SIZE; k++)
    {
      ZSTD_CCtx *cx = atomic_exchange (&cctx_pool[k], NULL);
      if (cx != NULL)
        {
          ZSTD_CCtx_reset (cx, ZSTD_reset_session_and_parameters);
          return cx;
        }
    }
  return ZSTD_createCCtx ();
}

/* CX back to the pool, or freed when the pool is full. */
static void
cctx_give (ZSTD_CCtx *cx)
{
  for (int k = 0; k < POOL_SIZE; k++)
    {
      ZSTD_CCtx *empty = NULL;
      if (atomic_compare_exchange_strong (&cctx_pool[k], &empty, cx))
        return;
    }
  ZSTD_freeCCtx (cx);
}

static size_t
compress_at (int level, const void *src, size_t n, void *dst, size_t cap)
{
  bool pooled = n <= CACHED_MAX;
  ZSTD_CCtx *cx = pooled ? cctx_take () : ZSTD_createCCtx ();
  if (cx == NULL)
    return 0;
  size_t r = ZSTD_CCtx_setParameter (cx, ZSTD_c_compressionLevel, level);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (cx, ZSTD_c_enableLongDistanceMatching, 1);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (cx, ZSTD_c_windowLog, WINDOW_LOG);
  if (!ZSTD_isError (r))
    r = ZSTD_compress2 (cx, dst, cap, src, n);
  if (pooled)
    cctx_give (cx);
  else
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

/* ---- Streams (HlTraceCodec.stream_*) ---------------------------------
 * The parameters of compress_at, with two differences a stream needs: the
 * input stays in the caller's buffer (ZSTD_c_stableInBuffer: no copy of
 * the 16 MiB window), and the match tables have 2^STREAM_TABLE_LOG
 * entries (a stream does not know its size, and the level's tables for an
 * unknown size take 13 MiB at level 9, 33 MiB at 16; 2^20 take 7 and 9
 * MiB, and gave sizes within 0.2% on the bench traces, faster). The hash
 * table has 2^STREAM_HASH_LOG: `record` runs a stream for each large
 * column, and their hash tables were most of its memory (bench/
 * compress-stream: churn 101 -> 77 MB, sqlite3 122 -> 84, python3 158 ->
 * 122; traces: churn 0.46 % larger, sqlite3 and python3 the same; a
 * smaller chain table cost sqlite3 3 %). Zstd
 * compresses a stable input in whole blocks as they fill, so the output
 * does not depend on how the input grew between the calls. */
#define STREAM_TABLE_LOG 20
#define STREAM_HASH_LOG  18

/* The input position is zstd's own (ZSTD_c_stableInBuffer: every call
 * passes the same src and pos as the last one left). */
typedef struct
{
  ZSTD_CCtx *cx;
  size_t     pos;
} Stream;

static void
stream_free (void *stream)
{
  Stream *st = stream;
  if (st == NULL)
    return;
  ZSTD_freeCCtx (st->cx);
  free (st);
}

/* HL_CODEC_STREAM_STRONG_LIGHT: level 12 (lazy2), the strong pass of a
 * column until it passes 4 MiB, and to its end unless it is then bound
 * to the end (hl-trace-compress-columns.h). Level 16's optimal parsing on
 * sqlite3's 1.7 MB of such a column took 0.4 s of CPU, most of record's
 * compress thread, which on a 2-core machine competes with the program:
 * instructions of the whole compression 3.20 G -> 1.76 G with level 15
 * (btlazy2), its trace 92.7 -> 115.3 KB. Level 15 was still 0.2 s of
 * that thread's 0.4 s for sqlite3, and 0.33 G instructions of python3's
 * 4.68 G for nothing (its such columns come out the same at any strong
 * level). Level 12 alone (bench/compress-stream under callgrind):
 * sqlite3 1.75 -> 1.40 G, its trace 115.1 -> 117.3 KB (+2 %; level 10:
 * 121.7 KB, level 13, btlazy2 with these tables: 120.6 KB); python3
 * 4.68 -> 4.34 G, the same bytes within 3. */
#define STRONG_LIGHT_LEVEL 12

/* HL_CODEC_STREAM_FAST: on churn's stacks and tokens (compressed 1.5 and
 * 2.5 times) level 1 gave the same sizes (-0.5%, +0.7%) for a fifth of
 * level 9's time. */
#define FAST_LEVEL 1

static void *
stream_new (void *user, int effort)
{
  int level = (int) (intptr_t) user;
  if (effort == HL_CODEC_STREAM_STRONG && level < STRONG_LEVEL)
    level = STRONG_LEVEL;
  if (effort == HL_CODEC_STREAM_STRONG_LIGHT && level < STRONG_LIGHT_LEVEL)
    level = STRONG_LIGHT_LEVEL;
  if (effort == HL_CODEC_STREAM_FAST && level > FAST_LEVEL)
    level = FAST_LEVEL;
  Stream *st = calloc (1, sizeof *st);
  if (st == NULL)
    return NULL;
  st->cx = ZSTD_createCCtx ();
  size_t r = st->cx == NULL ? (size_t) -1 : ZSTD_CCtx_setParameter (st->cx, ZSTD_c_compressionLevel, level);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (st->cx, ZSTD_c_enableLongDistanceMatching, 1);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (st->cx, ZSTD_c_windowLog, WINDOW_LOG);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (st->cx, ZSTD_c_hashLog, STREAM_HASH_LOG);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (st->cx, ZSTD_c_chainLog, STREAM_TABLE_LOG);
  if (!ZSTD_isError (r))
    r = ZSTD_CCtx_setParameter (st->cx, ZSTD_c_stableInBuffer, 1);
  if (ZSTD_isError (r))
    {
      stream_free (st);
      return NULL;
    }
  return st;
}

static int
stream_feed (void *stream, const void *src, size_t n, int end, uint8_t **out, size_t *len, size_t *cap)
{
  Stream *st = stream;
  if (n < st->pos)
    return -1;
  ZSTD_inBuffer in = { src, n, st->pos };
  for (;;)
    {
      if (*cap - *len < ZSTD_CStreamOutSize ())
        {
          size_t want = *cap < ZSTD_CStreamOutSize () ? 2 * ZSTD_CStreamOutSize () : 2 * *cap;
          uint8_t *grown = realloc (*out, want);
          if (grown == NULL)
            return -1;
          *out = grown;
          *cap = want;
        }
      ZSTD_outBuffer o = { *out, *cap, *len };
      size_t left = ZSTD_compressStream2 (st->cx, &o, &in, end ? ZSTD_e_end : ZSTD_e_continue);
      *len = o.pos;
      st->pos = in.pos;
      if (ZSTD_isError (left))
        return -1;
      /* continue: done once the input is taken and the output had room
       * left (zstd keeps a partial block for later); end: once flushed */
      if (end ? left == 0 : (in.pos == in.size && o.pos < o.size))
        return 0;
    }
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
  c->stream_new = stream_new;
  c->stream_feed = stream_feed;
  c->stream_free = stream_free;
  return c;
}
