/* hl-lifetimes.h — how long the blocks of each call site lived.
 *
 * For the allocations an analysis selects (its filter, any time range):
 * per call site (stacks with the same symbolized frames, as
 * hl_analysis_get_top_stacks groups them) a histogram of the blocks'
 * lifetimes, free time minus allocation time, in decimal log buckets from
 * under 1 µs to 10 s and more, and a last bucket for the blocks never
 * freed ("still alive at exit"). A block freed after the range's end is
 * counted with its whole lifetime. Two verdicts per site:
 *
 *   - short-lived: at least half its blocks were freed within 1 ms (the
 *     buckets under 1 ms): candidates for a stack buffer or a pool;
 *   - long-lived and growing: at least half its blocks are still alive at
 *     the range's end, and its live bytes at the end of each quarter of
 *     the range rose every quarter.
 *
 * Times come from the trace's clock: mostly CLOCK_MONOTONIC_COARSE, 4 ms
 * ticks (docs/capture.md), so a block freed within a tick may read as 0
 * (under 1 µs) or as 4 ms. Computed in one pass over the allocations
 * (needs them: not for a costs-only recording). */
#pragma once

#include "hl-analysis.h"

G_BEGIN_DECLS

/* 0: < 1 µs, 1: 1–10 µs, ... 7: 1–10 s, 8: ≥ 10 s, 9: never freed. */
#define HL_LIFETIME_N_BUCKETS 10
#define HL_LIFETIME_BUCKET_ALIVE (HL_LIFETIME_N_BUCKETS - 1)
/* Buckets 0..3 are under 1 ms. */
#define HL_LIFETIME_SHORT_BUCKETS 4
#define HL_LIFETIME_N_QUARTERS 4

typedef struct
{
  HlStackId      stack;      /* the call site's first stack */
  const HlFrame *frame;      /* its first resolved frame, NULL without frames */
  guint64        blocks[HL_LIFETIME_N_BUCKETS];
  guint64        bytes[HL_LIFETIME_N_BUCKETS];
  guint64        n_blocks;
  guint64        n_bytes;
  guint          median_bucket; /* the bucket of its middle block */
  /* live bytes (of its selected blocks) at the end of each quarter of the
   * range */
  guint64        live_bytes[HL_LIFETIME_N_QUARTERS];
  gboolean       short_lived;
  gboolean       growing;
} HlSiteLifetimes;

typedef struct
{
  GArray  *sites;            /* HlSiteLifetimes, most blocks first */
  guint64  blocks[HL_LIFETIME_N_BUCKETS];   /* the whole selection */
  guint64  bytes[HL_LIFETIME_N_BUCKETS];
  guint64  t0_ns;            /* the range, its end resolved */
  guint64  t1_ns;
} HlLifetimes;

/* The lower edge of bucket B in ns (0 for bucket 0); G_MAXUINT64 for
 * the never-freed bucket. */
guint64       hl_lifetime_bucket_start_ns (guint b);
/* A short label: "<1 µs", "1–10 µs", ..., "≥10 s", "alive at exit". */
const char   *hl_lifetime_bucket_label    (guint b);
/* A stable key for JSON: "lt_1us", "1us_10us", ..., "ge_10s", "alive_at_exit". */
const char   *hl_lifetime_bucket_key      (guint b);

/* NULL when SELF's recording holds no allocation records (costs only), or
 * only samples of them (a live session's: the blocks that lived through a
 * poll, not the short-lived ones), or when CANCELLABLE was cancelled. */
HlLifetimes  *hl_analysis_get_lifetimes   (HlAnalysis   *self,
                                           GCancellable *cancellable);
void          hl_lifetimes_free           (HlLifetimes  *lifetimes);
/* Borrowed pointers to the sites of LIFETIMES that are short-lived
 * (GROWING FALSE; most blocks first) or growing (the most live bytes at
 * the range's end first), at most TOP (0: all). New array. */
GPtrArray    *hl_lifetimes_pick           (const HlLifetimes *lifetimes,
                                           gboolean           growing,
                                           guint              top);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlLifetimes, hl_lifetimes_free)

/* The same on a worker thread (see hl-analysis.h, "On a worker thread");
 * _finish: the lifetimes, or NULL with ERROR (G_IO_ERROR_CANCELLED, or
 * HL_MODEL_ERROR_UNSUPPORTED for a costs-only or live recording). */
void          hl_analysis_get_lifetimes_async  (HlAnalysis         *self,
                                                GCancellable       *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer            user_data);
HlLifetimes  *hl_analysis_get_lifetimes_finish (HlAnalysis         *self,
                                                GAsyncResult       *result,
                                                GError            **error);

G_END_DECLS
