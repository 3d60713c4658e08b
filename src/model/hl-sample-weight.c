/* hl-sample-weight.c — the weight of a sampled block (hl-sample-weight.h):
 * the format's, which the preload's call-site sums use too. */
#include "hl-sample-weight.h"

#include "hl-sample-weight-core.h"

guint64
hl_sample_weight (guint64 sample_bytes,
                  guint64 size,
                  guint64 id)
{
  return hl_sample_weight_of (sample_bytes, size, id);
}
