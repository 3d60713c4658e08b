/* hl-trace-columns-private.h — what the files of the columns split
 * (hl-trace-columns*.c) share: the column buffers' growth and the general
 * parser's event (hl-trace-columns-parse.c), whose short paths are in
 * hl-trace-columns-split.c. Private to src/format. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "hl-trace-columns.h"
#include "hl-trace-format.h"
#include "hl-trace-model.h"

/* Room for N more bytes in COL. */
static inline int
grow (HlColumns *c, HlColumn col, size_t n)
{
  if (c->len[col] + n > c->cap[col])
    {
      size_t cap = c->cap[col] ? c->cap[col] : 4096;
      while (cap < c->len[col] + n)
        cap *= 2;
      uint8_t *d = realloc (c->data[col], cap);
      if (d == NULL)
        return -1;
      c->data[col] = d;
      c->cap[col] = cap;
    }
  return 0;
}

static inline int
put (HlColumns *c, HlColumn col, const uint8_t *p, size_t n)
{
  if (grow (c, col, n) != 0)
    return -1;
  if (n > 0)
    memcpy (c->data[col] + c->len[col], p, n);
  c->len[col] += n;
  return 0;
}

/* The CRC-32C of a packet: H with its crc32c field 0, then CONTENT. */
static inline uint32_t
packet_crc (const HlPacketHeader *h, const uint8_t *content, size_t n)
{
  HlPacketHeader z = *h;
  z.crc32c = 0;
  return hl_crc32c (hl_crc32c (0, &z, sizeof z), content, n);
}

/* ---- The general parser's event ------------------------------------------- */

typedef struct
{
  HlColumn       col;
  const uint8_t *p;
  size_t         n;
} Seg;

#define MAX_SEGS 9
#define SEG_DROPPED HL_COL_COUNT /* a segment the model predicts */

typedef struct
{
  Seg            seg[MAX_SEGS];
  int            n;
  const uint8_t *p, *end;
  bool           bad;
  uint8_t        tok;           /* the MTOK byte of a model frame */
  uint8_t        fid;           /* the FID byte of a 5.0 model frame */
  uint8_t        addr[HL_VARINT_MAX_BYTES + 1]; /* a 6.0 HL_MTOK_ADDR_LAST's addrdelta */
  uint8_t        freed[HL_VARINT_MAX_BYTES];     /* a 6.0 HL_FTOK_RAW's svarint */
  uint8_t        hdr[1 + 4 * HL_VARINT_MAX_BYTES]; /* a 6.0 STACK's form and counts */
  uint8_t        ftok[1 + HL_TRACE_MAX_FRAMES];          /* a STACK's FTOK bytes */
  uint8_t        body[4 * HL_VARINT_MAX_BYTES + HL_VARINT_MAX_BYTES * HL_TRACE_MAX_FRAMES];
} Ev;

/* Not a zeroing initializer: Ev holds kilobytes of scratch space. */
static inline void
ev_init (Ev *e, const uint8_t *p, const uint8_t *end)
{
  e->n = 0;
  e->p = p;
  e->end = end;
  e->bad = false;
  e->tok = 0;
}


/* Cuts the event at E->p into segments (E->bad when malformed). */
void hl_trace_columns_parse_event (Ev *e);
/* The model frame's view of the event E parsed: its tokens, and the
 * segments the model predicts dropped. */
void hl_trace_columns_model_event (HlTraceModel *m, Ev *e);
