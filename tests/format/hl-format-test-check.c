/* hl-format-test-check.c — see hl-format-test-check.h. */
#define _POSIX_C_SOURCE 200809L
#include "hl-format-test-check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-test-util.h"
#include "hl-trace-dump.h"

bool
hl_check_columns_roundtrip (const uint8_t *raw, size_t n, bool model, uint32_t planes,
                            size_t split_of[HL_COL_COUNT], HlColumns *keep)
{
  HlColumns c = { 0 };
  if ((model ? hl_trace_columns_split_model (raw, n, &c) : hl_trace_columns_split (raw, n, &c)) != 0)
    return false;
  uint8_t *back = malloc (n + 1);
  const uint8_t *d[HL_COL_COUNT];
  memset (split_of, 0, HL_COL_COUNT * sizeof split_of[0]);
  for (int i = 0; i < HL_COL_COUNT; i++)
    {
      if (planes & (1u << i))
        split_of[i] = hl_trace_columns_to_planes (&c, i);
      d[i] = c.data[i];
    }
  bool ok = back != NULL
            && hl_trace_columns_join_any (d, c.len, split_of, model ? HL_JOIN_MODEL : HL_JOIN_COLUMNS, back, n) == 0
            && memcmp (back, raw, n) == 0;
  free (back);
  if (keep != NULL)
    *keep = c;
  else
    hl_trace_columns_clear (&c);
  return ok;
}

bool
hl_check_golden_dump (const char *name, const HlTraceCodec *codec)
{
  const char *root = getenv ("HL_SOURCE_ROOT");
  char gpath[4096], dpath[4096];
  snprintf (gpath, sizeof gpath, "%s/tests/format/data/%s.hltrace", root ? root : ".", name);
  snprintf (dpath, sizeof dpath, "%s/tests/format/data/%s.dump", root ? root : ".", name);
  size_t dlen = 0, tlen = 0;
  char *expected = hl_test_read_file (dpath, &dlen);
  char *text = NULL;
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_file_codec (gpath, codec, &r, &err) == 0)
    {
      FILE *f = open_memstream (&text, &tlen);
      if (f != NULL)
        {
          hl_trace_dump (r, f, 0, NULL);
          fclose (f);
        }
      hl_trace_reader_free (r);
    }
  bool same = text != NULL && expected != NULL && tlen == dlen && memcmp (text, expected, dlen) == 0;
  free (text);
  free (expected);
  return same;
}
