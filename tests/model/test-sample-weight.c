/* test-sample-weight.c — the weight of a sampled block (hl-sample-weight.h):
 * 1 in a full recording, floor (1 / P) or one more, and on average 1 / P
 * for P = 1 - exp (-size / N), so the sums over sampled blocks are
 * unbiased; the same id always gets the same weight. */
#include <math.h>

#include <glib.h>

#include "hl-sample-weight.h"
#include "hl-sample-weight-core.h"

static void
test_full (void)
{
  for (guint64 size = 0; size < 5000; size += 7)
    g_assert_cmpuint (hl_sample_weight (0, size, size * 31), ==, 1);
  g_assert_cmpuint (hl_sample_weight (2048, 0, 5), ==, 1);
}

static void
test_mean (void)
{
  static const guint64 sizes[] = { 1, 8, 100, 2047, 2048, 4096, 1 << 20 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      double inverse = 1.0 / -expm1 (-(double) sizes[s] / 2048.0);
      guint64 lo = (guint64) floor (inverse), sum = 0, n = 200000;

      for (guint64 id = 0; id < n; id++)
        {
          guint64 w = hl_sample_weight (2048, sizes[s], id);
          g_assert_true (w == lo || w == lo + 1);
          g_assert_cmpuint (w, ==, hl_sample_weight (2048, sizes[s], id));
          sum += w;
        }
      /* the fraction's share of lo + 1: binomial, 4 sigma at most 0.0045 */
      g_assert_cmpfloat (fabs ((double) sum / n - inverse), <, 0.005);
    }
  /* a block far larger than N is always sampled: weight 1 */
  g_assert_cmpuint (hl_sample_weight (2048, 1 << 24, 3), ==, 1);
}

static void
test_weigh (void)
{
  g_assert_cmpuint (hl_sample_weigh (8, 256), ==, 2048);
  g_assert_cmpuint (hl_sample_weigh (G_MAXUINT64 / 2, 3), ==, G_MAXUINT64);
}

/* The preload's 1 - exp (-x), without libm, against libm's -expm1 (-x)
 * over the sizes a sampling rate sees: 1 byte at N = 1 TiB to far past
 * N. */
static void
test_one_minus_exp (void)
{
  double worst = 0.0;
  g_assert_cmpfloat (hl_sample_one_minus_exp (0.0), ==, 0.0);
  g_assert_cmpfloat (hl_sample_one_minus_exp (1000.0), ==, 1.0);
  for (double x = 1e-13; x < 60.0; x *= 1.0137)
    {
      double want = -expm1 (-x), got = hl_sample_one_minus_exp (x);
      double rel = fabs (got - want) / want;
      worst = MAX (worst, rel);
      if (rel > 1e-14)
        g_error ("1 - exp (-%g): %.17g, libm %.17g (relative error %g)", x, got, want, rel);
    }
  g_test_message ("worst relative error against expm1: %g", worst);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sample-weight/full", test_full);
  g_test_add_func ("/sample-weight/mean", test_mean);
  g_test_add_func ("/sample-weight/weigh", test_weigh);
  g_test_add_func ("/sample-weight/one-minus-exp", test_one_minus_exp);
  return g_test_run ();
}
