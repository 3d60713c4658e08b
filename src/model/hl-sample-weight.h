/* hl-sample-weight.h — how many of the program's allocations one block
 * of a sampled recording stands for (HEAPLENS_SAMPLE_BYTES=N,
 * docs/capture.md "Sampling mode").
 *
 * The preload samples a block of SIZE requested bytes with probability
 * P = 1 - exp (-SIZE / N). Weighing it by 1 / P makes every sum over the
 * sampled blocks (allocations, bytes, peak, live, leaked, temporary) an
 * unbiased estimate of the same sum over all blocks. The model counts in
 * whole numbers, so a block weighs floor (1 / P) or one more, the latter
 * with odds equal to the fraction's, chosen by a hash of its allocation
 * id: the expectation is still 1 / P, the rounding is the same on every
 * load, and the sizes times weights stay exact integers. A full recording
 * (N = 0) weighs every block 1. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The weight of allocation ID of SIZE requested bytes in a recording
 * sampled every SAMPLE_BYTES bytes on average (0: not sampled, 1). */
guint64 hl_sample_weight (guint64 sample_bytes,
                          guint64 size,
                          guint64 id);

/* SIZE × WEIGHT, at most G_MAXUINT64. */
static inline guint64
hl_sample_weigh (guint64 size,
                 guint64 weight)
{
  return weight != 0 && size > G_MAXUINT64 / weight ? G_MAXUINT64 : size * weight;
}

G_END_DECLS
