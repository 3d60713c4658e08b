/* hl-sample-weight.c — the weight of a sampled block (hl-sample-weight.h). */
#include "hl-sample-weight.h"

#include <math.h>

/* A uniform number in [0, 1) from ID: splitmix64's finalizer, which
 * spreads consecutive ids over the whole range. */
static double
unit_of_id (guint64 id)
{
  guint64 x = id + G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  x ^= x >> 31;
  return (double) (x >> 11) * (1.0 / 9007199254740992.0);
}

guint64
hl_sample_weight (guint64 sample_bytes,
                  guint64 size,
                  guint64 id)
{
  double p, inverse, whole;

  /* a block of 0 bytes is never sampled (the countdown does not move):
   * one that is in a trace anyway counts as itself */
  if (sample_bytes == 0 || size == 0)
    return 1;
  p = -expm1 (-(double) size / (double) sample_bytes);
  if (!(p > 0.0))
    return 1;
  inverse = 1.0 / p;
  if (inverse >= 9.0e18)
    return G_GUINT64_CONSTANT (9000000000000000000);
  whole = floor (inverse);
  return (guint64) whole + (unit_of_id (id) < inverse - whole ? 1 : 0);
}
