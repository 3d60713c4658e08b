/* hl-trace-columns.c — the columns' names and buffers, and the varint
 * planes of a column (hl-trace-columns.h, docs/trace-format.md 7c). The
 * split is hl-trace-columns-split.c (its general parser
 * hl-trace-columns-parse.c), the join hl-trace-columns-join.c. */

#include "private/hl-trace-columns.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hl-crc32c.h"
#include "private/hl-trace-encode-private.h"
#include "hl-trace-format.h"
#include "private/hl-trace-model.h"
#include "private/hl-varint.h"

static const char *const names[HL_COL_COUNT] = {
  "ctrl", "header", "type", "time", "size", "stack", "addr", "free",
  "misc", "bodylen", "stackdef", "other", "len", "raw", "mtok", "ftok", "fid", "stackhdr",
};

const char *
hl_column_name (HlColumn col)
{
  return (unsigned) col < HL_COL_COUNT ? names[col] : "?";
}

void
hl_trace_columns_clear (HlColumns *c)
{
  for (int i = 0; i < HL_COL_COUNT; i++)
    free (c->data[i]);
  memset (c, 0, sizeof *c);
}

/* ---- Varint planes ---------------------------------------------------- */

size_t
hl_trace_columns_to_planes (HlColumns *c, HlColumn col)
{
  size_t n = c->len[col];
  if (n == 0 || (col != HL_COL_TIME && col != HL_COL_SIZE && col != HL_COL_STACK && col != HL_COL_ADDR
                 && col != HL_COL_FREE && col != HL_COL_MISC))
    return 0;
  uint8_t *out = malloc (n);
  if (out == NULL)
    return 0;
  const uint8_t *src = c->data[col];
  size_t lo = 0;
  /* first pass: the first bytes */
  for (size_t i = 0; i < n;)
    {
      uint64_t v;
      const uint8_t *q = hl_varint_get (src + i, src + n, &v);
      if (q == NULL || (col == HL_COL_ADDR && (v & 1) && q >= src + n))
        {
          free (out);
          return 0;
        }
      out[lo++] = src[i];
      i = (size_t) (q - src) + (col == HL_COL_ADDR && (v & 1) ? 1 : 0);
    }
  /* second pass: the rest, in order */
  size_t hi = lo;
  for (size_t i = 0; i < n;)
    {
      uint64_t v = 0;
      const uint8_t *q = hl_varint_get (src + i, src + n, &v);
      if (q == NULL)
        break; /* not reached: the first pass checked every varint */
      size_t end = (size_t) (q - src) + (col == HL_COL_ADDR && (v & 1) ? 1 : 0);
      memcpy (out + hi, src + i + 1, end - i - 1);
      hi += end - i - 1;
      i = end;
    }
  free (c->data[col]);
  c->data[col] = out;
  c->cap[col] = n;
  return lo;
}
