/* hl-filter-private.h — the conditions of a filter, for the analysis. */
#pragma once

#include "hl-filter.h"

struct _HlFilter
{
  gatomicrefcount ref_count;
  guint64    t0_ns;          /* 0 without a range */
  guint64    t1_ns;          /* HL_TIME_NONE without a range */
  guint64    live_at_ns;     /* HL_TIME_NONE: end of range */
  guint64    lived_at_least_ns; /* LONG_LIVED's T; 0: every block */
  GArray    *tids;           /* guint32, NULL = all */
  GPtrArray *meta_keys;      /* char *, parallel with meta_values */
  GPtrArray *meta_values;
  GPtrArray *modules;        /* char * */
  GPtrArray *functions;      /* char * */
  GPtrArray *regexes;        /* GRegex * */
  guint64    min_size;       /* bytes, inclusive; 0 without a size range */
  guint64    max_size;       /* bytes, inclusive; G_MAXUINT64 without one */
};
