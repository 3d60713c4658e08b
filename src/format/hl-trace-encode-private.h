/* hl-trace-encode-private.h — encodings shared by the writer and the
 * reader of the trace file that are not plain varints. */
#pragma once

#include <stddef.h>
#include <stdint.h>

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
