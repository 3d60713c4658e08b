/* hl-trace-compress-private.h — the layout of a columns frame's content
 * (docs/trace-format.md 7c), shared by its writer and its reader: the
 * ZFRAME header (codec, raw_size), n_columns, then (plain_len packed_len
 * split) x n_columns (HL_COL_COUNT_V2 in codec 2, HL_COL_COUNT_V4 in codec
 * 3, HL_COL_COUNT in codec 4) as 32-bit little-endian fields, then the packed
 * columns, each compressed on its own. */
#pragma once

#include "hl-trace-codec.h"
#include "hl-trace-columns.h"

#define HL_COLS_HEADER_SIZE(n_cols) (HL_ZFRAME_HEADER_SIZE + 4u + 12u * (n_cols))
#define HL_COL_FIELD(i, k)          (HL_ZFRAME_HEADER_SIZE + 4u + 12u * (i) + 4u * (k))
