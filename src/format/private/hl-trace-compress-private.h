/* hl-trace-compress-private.h — the layout of a columns frame's content
 * (docs/trace-format.md 7c), shared by its writer and its reader: the
 * ZFRAME header (codec, raw_size), n_columns, then (plain_len packed_len
 * split) x n_columns (HL_COL_COUNT_V2 in codec 2, HL_COL_COUNT_V4 in codec
 * 3, HL_COL_COUNT_V5 in codec 4, HL_COL_COUNT in codec 5) as 32-bit little-endian fields, then the packed
 * columns, each compressed on its own. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "hl-trace-codec.h"
#include "hl-trace-columns.h"

#define HL_COLS_HEADER_SIZE(n_cols) (HL_ZFRAME_HEADER_SIZE + 4u + 12u * (n_cols))
#define HL_COL_FIELD(i, k)          (HL_ZFRAME_HEADER_SIZE + 4u + 12u * (i) + 4u * (k))

/* The stronger compression (HlTraceCodec.compress_strong) is tried on a
 * column whose ordinary compression is at least HL_STRONG_MIN_OUT bytes
 * and at most 1/HL_STRONG_RATIO of it, when the column has at most
 * HL_STRONG_MAX_IN bytes or compresses to 1/HL_STRONG_BIG_RATIO: there the
 * cost is small and the gain large (sqlite3's sizes: -32%; python3's
 * 10 MB of event types -16% for 40 ms); high-entropy columns (churn's
 * stacks) gain little for a large cost. */
#define HL_STRONG_MAX_IN     ((size_t) 4 << 20)
#define HL_STRONG_MIN_OUT    4096u
#define HL_STRONG_RATIO      12u
#define HL_STRONG_BIG_RATIO  64u
/* ... and on any column of at most this many bytes (cheap there). Not
 * up to 256 KiB: level 16 packs such columns at 3 to 17 MB/s (a column of
 * 4-byte records, python3's STACKHDR, at 2 MB/s), and python3's three of
 * 40 to 128 KiB were 47 ms of its last frame's 80 ms of work, after the
 * program's exit, for 2.7 KB of a 152 KB trace. */
#define HL_STRONG_SMALL_IN   ((size_t) 32 << 10)

/* Whether the strong compression is worth trying on a column of N bytes
 * that the ordinary one packed into GOT bytes. */
static inline bool
hl_strong_pays (size_t n, size_t got)
{
  return got > 0 && got >= HL_STRONG_MIN_OUT
         && ((got * HL_STRONG_RATIO <= n && (n <= HL_STRONG_MAX_IN || got * HL_STRONG_BIG_RATIO <= n))
             || n <= HL_STRONG_SMALL_IN);
}
