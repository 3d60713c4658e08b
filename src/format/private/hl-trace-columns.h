/* hl-trace-columns.h — the columnar form of a run of plain trace bytes.
 *
 * A compressor sees a trace best as one stream per field: sizes next to
 * sizes, stack ids next to stack ids. hl_trace_columns_split() cuts a run of
 * packets (what one ZFRAME holds) at field boundaries into HL_COL_COUNT
 * byte streams, without decoding a value: every varint is moved as the
 * bytes it was, so hl_trace_columns_join() gives back the run byte for
 * byte, crcs included. Bytes that are not whole INFO/EVENTS packets with
 * well-formed events (an index, damage, a cut packet) go into the RAW
 * column verbatim.
 *
 * Join is bounds-checked everywhere: hostile columns give -1, never a read
 * or write outside the buffers. The joined bytes are then read by the
 * ordinary reader, which checks every packet again.
 *
 * Plain C11, libc only; see docs/trace-format.md section 7c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hl-trace-model.h"

typedef enum
{
  HL_COL_CTRL = 0,  /* per chunk: 0 verbatim (length in LEN, bytes in RAW), 1 packet */
  HL_COL_HEADER,    /* packet headers, 64 bytes each */
  HL_COL_TYPE,      /* event type bytes */
  HL_COL_TIME,      /* time delta varints */
  HL_COL_SIZE,      /* size varints (ALLOC*, REALLOC*) */
  HL_COL_STACK,     /* stack svarints of allocations */
  HL_COL_ADDR,      /* addrdelta of allocations (varint + optional byte) */
  HL_COL_FREE,      /* id delta svarints (FREE, REALLOC) */
  HL_COL_MISC,      /* alignment, FREE_ADDR and REALLOC_ADDR address varints */
  HL_COL_BODYLEN,   /* body length varint of every other event */
  HL_COL_STACKDEF,  /* bodies of STACK events */
  HL_COL_OTHER,     /* bodies of every other event */
  HL_COL_LEN,       /* lengths of verbatim chunks */
  HL_COL_RAW,       /* verbatim chunks */
  HL_COL_MTOK,      /* model frames only: a token byte per allocation (hl-trace-model.h) */
  HL_COL_FTOK,      /* model frames only: per STACK event a form byte, then a token per new frame */
  HL_COL_FID,       /* 5.0 model frames only: a token byte per free (FREE, REALLOC) */
  HL_COL_STACKHDR,  /* 6.0 model frames only: the counts of modelled STACK bodies */
  HL_COL_COUNT
} HlColumn;

/* Columns of a codec-2 frame (all but MTOK, FTOK, FID and STACKHDR), of a
 * codec-3 frame (all but FID and STACKHDR) and of a codec-4 frame (all but
 * STACKHDR). */
#define HL_COL_COUNT_V2 14
#define HL_COL_COUNT_V4 16
#define HL_COL_COUNT_V5 17

/* What a join runs over the columns (hl_trace_columns_join_any). */
typedef enum
{
  HL_JOIN_COLUMNS = 0, /* codec 2: no model */
  HL_JOIN_MODEL   = 1, /* codec 5: the model of format 6.0 */
  HL_JOIN_MODEL_4 = 2, /* codec 3: the model of format 4.0 */
  HL_JOIN_MODEL_5 = 3, /* codec 4: the model of format 5.0 */
} HlJoinKind;

typedef struct
{
  uint8_t *data[HL_COL_COUNT];
  size_t   len[HL_COL_COUNT];
  size_t   cap[HL_COL_COUNT];
} HlColumns;

/* Names for tools ("ctrl", "header", "type", ...). */
const char *hl_column_name (HlColumn col);

/* Splits RAW[0..N) into C (initialised to zeros by the caller; appends).
 * 0, or -1 when out of memory. */
int  hl_trace_columns_split (const uint8_t *raw, size_t n, HlColumns *c);
/* Like split, for a model frame (codec 4, docs/trace-format.md 7d): the
 * stack and address of an allocation that the model (hl-trace-model.h)
 * predicts are left out of the stack and addr columns, and every
 * allocation gets a token in MTOK. 0, or -1 when out of memory. */
int  hl_trace_columns_split_model (const uint8_t *raw, size_t n, HlColumns *c);
/* Like split_model, with the model state M of the frame the bytes belong
 * to (hl-trace-model.h): a frame may be split in several calls, at packet
 * boundaries, with the same M (the recorder takes packets in as they are
 * written). */
int  hl_trace_columns_split_with  (const uint8_t *raw, size_t n, HlColumns *c, HlTraceModel *m);
/* For tests: split_with with every event taken by the general parser
 * (not thread-safe: a static switch), to compare with the short paths of
 * the common events. */
int  hl_trace_columns_split_reference (const uint8_t *raw, size_t n, HlColumns *c, HlTraceModel *m);
/* Frees the column buffers and zeroes C. */
void hl_trace_columns_clear (HlColumns *c);
/* Rewrites column COL of C as varint planes: the first byte of every
 * varint in order (the first plane), then all the other bytes in order
 * (the second; an addr's extra byte counts as a continuation byte). Returns
 * the first plane's length, or 0 (column unchanged) for an empty column, a
 * column that holds no varints (ctrl, header, type, bodylen, stackdef,
 * other, len, raw) or out of memory. */
size_t hl_trace_columns_to_planes (HlColumns *c, HlColumn col);
/* Joins the columns DATA[i][0..LEN[i]) into DST, which must end up exactly
 * DST_SIZE bytes long with every column used up. 0, or -1 when the columns
 * do not describe DST_SIZE bytes. */
int  hl_trace_columns_join  (const uint8_t *const data[HL_COL_COUNT],
                             const size_t         len[HL_COL_COUNT],
                             uint8_t             *dst,
                             size_t               dst_size);
/* Like join, with column i in planes form when SPLIT[i] > 0 (its first
 * plane's length, SPLIT[i] <= LEN[i]); only varint columns may be. */
int  hl_trace_columns_join_planes (const uint8_t *const data[HL_COL_COUNT],
                                   const size_t         len[HL_COL_COUNT],
                                   const size_t         split[HL_COL_COUNT],
                                   uint8_t             *dst,
                                   size_t               dst_size);
/* Joins the columns of a model frame (KIND HL_JOIN_MODEL, codec 5;
 * HL_JOIN_MODEL_5, codec 4; HL_JOIN_MODEL_4, codec 3: FID must be empty) or of a codec-2 frame
 * (HL_JOIN_COLUMNS: MTOK, FTOK and FID must be empty). 0, or -1 as join. */
int  hl_trace_columns_join_any    (const uint8_t *const data[HL_COL_COUNT],
                                   const size_t         len[HL_COL_COUNT],
                                   const size_t         split[HL_COL_COUNT],
                                   HlJoinKind           kind,
                                   uint8_t             *dst,
                                   size_t               dst_size);
