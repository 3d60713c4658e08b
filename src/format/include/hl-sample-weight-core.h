/* hl-sample-weight-core.h — the weight of a block of a sampled recording
 * (HEAPLENS_SAMPLE_BYTES=N, docs/capture.md "Sampling mode"), shared by
 * the preload (its call sites' sums, which a live session shows) and the
 * readers (hl-sample-weight.h in the model), so that both weigh every
 * block alike. libc only, no libm (the preload links neither).
 *
 * A block of SIZE requested bytes is sampled with probability
 * P = 1 - exp (-SIZE / N); it weighs floor (1 / P) or one more, the latter
 * when a hash of its allocation id, as a number in [0, 1), is below the
 * fraction: the expectation is 1 / P, and the rounding is the same in
 * every reader and on every load. N = 0 (not sampled): every block
 * weighs 1. */
#pragma once

#include <stdint.h>

/* The weight of allocation ID of SIZE requested bytes in a recording
 * sampled every SAMPLE_BYTES bytes on average (0: not sampled, 1). */
uint64_t hl_sample_weight_of (uint64_t sample_bytes,
                              uint64_t size,
                              uint64_t id);

/* 1 - exp (-X) for X >= 0, to a few units in the last place, without
 * libm (for the tests: against expm1). */
double   hl_sample_one_minus_exp (double x);
