/* hl-varint.h — LEB128 varints and zigzag, the integer encodings of the
 * trace file (see hl-trace-format.h).
 *
 * varint:  unsigned LEB128, 7 bits per byte, low bits first, high bit set on
 *          every byte but the last; at most HL_VARINT_MAX_BYTES (10) bytes,
 *          and the 10th byte may only hold the value's top bit (0 or 1).
 * svarint: zigzag ((v << 1) ^ (v >> 63)) then varint, so small negative and
 *          positive numbers are both short.
 *
 * Header-only, inline, libc only: used by the writer on the preload's hot
 * path and by the readers.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

static inline uint64_t
hl_zigzag_encode (int64_t v)
{
  return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static inline int64_t
hl_zigzag_decode (uint64_t v)
{
  return (int64_t) ((v >> 1) ^ (~(v & 1) + 1));
}

/* Writes V at P (at most 10 bytes); returns the byte after it. */
static inline uint8_t *
hl_varint_put (uint8_t *p, uint64_t v)
{
  while (v >= 0x80)
    {
      *p++ = (uint8_t) (v | 0x80);
      v >>= 7;
    }
  *p++ = (uint8_t) v;
  return p;
}

static inline uint8_t *
hl_svarint_put (uint8_t *p, int64_t v)
{
  return hl_varint_put (p, hl_zigzag_encode (v));
}

/* Bytes hl_varint_put would write. */
static inline size_t
hl_varint_size (uint64_t v)
{
  size_t n = 1;
  while (v >= 0x80)
    {
      v >>= 7;
      n++;
    }
  return n;
}

/* Reads a varint from [P, END). Returns the byte after it, or NULL when the
 * input ends inside the varint or the varint is longer than 10 bytes or
 * overflows 64 bits. Never reads at or past END. */
static inline const uint8_t *
hl_varint_get (const uint8_t *p, const uint8_t *end, uint64_t *out)
{
  if (p < end && *p < 0x80)
    {
      *out = *p;
      return p + 1;
    }
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7)
    {
      if (p >= end)
        return NULL;
      uint8_t b = *p++;
      if (shift == 63 && b > 1)
        return NULL;
      v |= (uint64_t) (b & 0x7f) << shift;
      if (b < 0x80)
        {
          *out = v;
          return p;
        }
    }
  return NULL;
}

/* Reads a varint at P that hl_varint_get has accepted before (the caller
 * checked it, with its end): no bounds, never NULL. Returns the byte after
 * it. */
static inline const uint8_t *
hl_varint_get_checked (const uint8_t *p, uint64_t *out)
{
  uint64_t v = *p & 0x7f;
  for (unsigned shift = 7; *p++ & 0x80; shift += 7)
    v |= (uint64_t) (*p & 0x7f) << shift;
  *out = v;
  return p;
}

static inline const uint8_t *
hl_svarint_get (const uint8_t *p, const uint8_t *end, int64_t *out)
{
  uint64_t u;
  p = hl_varint_get (p, end, &u);
  if (p != NULL)
    *out = hl_zigzag_decode (u);
  return p;
}
