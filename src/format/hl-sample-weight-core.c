/* hl-sample-weight-core.c — the weight of a sampled block
 * (hl-sample-weight-core.h). Compiled into the preload and the readers. */
#include "hl-sample-weight-core.h"

/* 1 - exp (-X): for small X the series of X - X^2/2 + ..., which keeps
 * the relative precision that 1 - exp () loses; else exp (-X) as
 * 2^-K * exp (-R), R = X - K ln 2 in [0, ln 2), by its series. */
double
hl_sample_one_minus_exp (double x)
{
  if (!(x > 0.0))
    return 0.0;
  if (x < 0.25)
    {
      /* sum of (-1)^(k+1) x^k / k!, to x^15 / 15! (below 1e-24 here) */
      double term = x, sum = x;
      for (int k = 2; k <= 15; k++)
        {
          term *= -x / (double) k;
          sum += term;
        }
      return sum;
    }
  if (x > 745.0)
    return 1.0;
  const double ln2 = 0.69314718055994530942;
  int k = (int) (x / ln2);
  double r = x - (double) k * ln2;
  /* exp (-R), R in [0, ln 2]: 20 terms leave less than 1e-19 */
  double term = 1.0, e = 1.0;
  for (int i = 1; i <= 20; i++)
    {
      term *= -r / (double) i;
      e += term;
    }
  while (k-- > 0)
    e *= 0.5;
  return 1.0 - e;
}

/* A uniform number in [0, 1) from ID: splitmix64's finalizer, which
 * spreads consecutive ids over the whole range. */
static double
unit_of_id (uint64_t id)
{
  uint64_t x = id + UINT64_C (0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C (0x94d049bb133111eb);
  x ^= x >> 31;
  return (double) (x >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t
hl_sample_weight_of (uint64_t sample_bytes,
                     uint64_t size,
                     uint64_t id)
{
  /* a block of 0 bytes is never sampled (the countdown does not move):
   * one that is in a trace anyway counts as itself */
  if (sample_bytes == 0 || size == 0)
    return 1;
  double p = hl_sample_one_minus_exp ((double) size / (double) sample_bytes);
  if (!(p > 0.0))
    return 1;
  double inverse = 1.0 / p;
  if (inverse >= 9.0e18)
    return UINT64_C (9000000000000000000);
  uint64_t whole = (uint64_t) inverse; /* floor: inverse >= 1 */
  return whole + (unit_of_id (id) < inverse - (double) whole ? 1 : 0);
}
