/* hl-trace-encode-private.h — encodings shared by the writer and the
 * reader of the trace file that are not plain varints. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hl-trace-format.h"
#include "hl-varint.h"

/* addrdelta (see hl-trace-format.h): D = addr - prev_addr modulo 2^64.
 * varint(zigzag(D >> 4, arithmetic) << 1 | (D & 15 ? 1 : 0)), then, when
 * that low bit is 1, one more byte holding D & 15. At most 11 bytes. */
static inline uint8_t *
hl_addr_delta_put (uint8_t *p, uint64_t d)
{
  uint64_t low = d & 15;
  p = hl_varint_put (p, (hl_zigzag_encode ((int64_t) d >> 4) << 1) | (low != 0));
  if (low != 0)
    *p++ = (uint8_t) low;
  return p;
}

static inline const uint8_t *
hl_addr_delta_get (const uint8_t *p, const uint8_t *end, uint64_t *d)
{
  uint64_t v;
  p = hl_varint_get (p, end, &v);
  if (p == NULL)
    return NULL;
  uint64_t high = (uint64_t) hl_zigzag_decode (v >> 1) << 4;
  if ((v & 1) == 0)
    {
      *d = high;
      return p;
    }
  if (p >= end || *p == 0 || *p > 15)
    return NULL;
  *d = high | *p;
  return p + 1;
}

/* ---- Address prediction (see HlAddrPredictor in hl-trace-format.h) ---- */

static inline void
hl_pred_reset (HlAddrPredictor *p)
{
  memset (p->slot_id, 0, sizeof p->slot_id);
  memset (p->depth, 0, sizeof p->depth);
  memset (p->top, 0, sizeof p->top);
}

static inline unsigned
hl_pred_class (uint64_t size)
{
  uint64_t chunk = (size + 23) & ~(uint64_t) 15;
  if (chunk < 32 || size > UINT64_MAX - 23)
    chunk = 32;
  return (unsigned) ((chunk >> 4) % HL_PRED_CLASSES);
}

static inline uint64_t
hl_pred_base (const HlAddrPredictor *p, unsigned cls, uint64_t prev_addr)
{
  return p->depth[cls] > 0 ? p->freed[cls][p->top[cls]] : prev_addr;
}

/* After an allocation of ADDR with id ID in class CLS. Each class's stack
 * is a ring of HL_PRED_DEPTH entries: a push on a full stack overwrites the
 * deepest entry; O(1), no moves. */
static inline void
hl_pred_alloc (HlAddrPredictor *p, unsigned cls, uint64_t id, uint64_t addr)
{
  unsigned d = p->depth[cls];
  if (d > 0 && p->freed[cls][p->top[cls]] == addr)
    {
      p->top[cls] = (uint8_t) ((p->top[cls] - 1u) & (HL_PRED_DEPTH - 1));
      p->depth[cls] = (uint8_t) (d - 1);
    }
  unsigned slot = (unsigned) (id % HL_PRED_SLOTS);
  p->slot_id[slot] = id + 1;
  p->slot_addr[slot] = addr;
  p->slot_class[slot] = (uint8_t) cls;
}

/* After the free of ID (FREE, or REALLOC's old id). */
static inline void
hl_pred_free (HlAddrPredictor *p, uint64_t id)
{
  unsigned slot = (unsigned) (id % HL_PRED_SLOTS);
  if (p->slot_id[slot] != id + 1 || id == UINT64_MAX)
    return;
  p->slot_id[slot] = 0;
  unsigned cls = p->slot_class[slot];
  unsigned t = (p->top[cls] + 1u) & (HL_PRED_DEPTH - 1);
  p->top[cls] = (uint8_t) t;
  p->freed[cls][t] = p->slot_addr[slot];
  if (p->depth[cls] < HL_PRED_DEPTH)
    p->depth[cls]++;
}
