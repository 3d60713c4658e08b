/* hl-adapter-lifetimes.h — the allocations view's Lifetimes page from the
 * model's lifetimes (hl-lifetimes.h): a row per call site and the
 * histogram of the whole selection. */
#pragma once

#include <gio/gio.h>
#include "hl-model.h"
#include "hl-histogram.h"

G_BEGIN_DECLS

/* The call sites of LT as HlAllocItem rows (count: blocks, size: bytes,
 * lifetime: the median block's bucket, verdict: short-lived or growing),
 * at most MAX_ROWS, most blocks first; an empty list for NULL. */
GListModel *hl_adapter_lifetime_items     (HlRecording       *recording,
                                           const HlLifetimes *lt,
                                           guint              max_rows);
/* The buckets of LT's whole selection, labelled; returns how many (0 for
 * NULL or a selection without blocks). */
guint       hl_adapter_lifetime_histogram (const HlLifetimes *lt,
                                           HlHistogramBucket  out[HL_LIFETIME_N_BUCKETS]);

G_END_DECLS
