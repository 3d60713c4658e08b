/* test-prefault.c — hl-prefault.h: faulting in memory on another thread
 * while it is written leaves every byte as written; finishing early, a
 * range of nothing and NULL are fine. */
#include "hl-prefault.h"

#include <string.h>

/* 64 MiB written in order while a prefault runs over it. */
static void
test_prefault_keeps_contents (void)
{
  gsize len = (gsize) 64 << 20, half = len / 2;
  guint8 *a = g_malloc (len);
  guint8 *b = g_malloc (half);
  gpointer start[2] = { a, b };
  gsize lens[2] = { len, half };
  HlPrefault *pf = hl_prefault_start ((gpointer const *) start, lens, 2);

  for (gsize i = 0; i < len; i++)
    a[i] = (guint8) (i * 31 + 7);
  for (gsize i = 0; i < half; i++)
    b[i] = (guint8) (i ^ 0x5a);
  hl_prefault_finish (pf);
  for (gsize i = 0; i < len; i += 4093)
    g_assert_cmpuint (a[i], ==, (guint8) (i * 31 + 7));
  for (gsize i = 0; i < half; i += 4091)
    g_assert_cmpuint (b[i], ==, (guint8) (i ^ 0x5a));
  g_free (a);
  g_free (b);
}

static void
test_prefault_edges (void)
{
  guint8 small[100];
  gpointer start[2] = { small + 1, NULL };
  gsize lens[2] = { sizeof small - 1, 1 << 20 };
  HlPrefault *pf;

  memset (small, 0xab, sizeof small);
  /* less than a page, and a NULL range: nothing to do */
  pf = hl_prefault_start ((gpointer const *) start, lens, 2);
  hl_prefault_finish (pf);
  for (gsize i = 0; i < sizeof small; i++)
    g_assert_cmpuint (small[i], ==, 0xab);
  hl_prefault_finish (NULL);
  /* finished at once, before it went far */
  {
    gsize len = (gsize) 256 << 20;
    guint8 *big = g_malloc (len);
    gpointer s[1] = { big };
    gsize l[1] = { len };

    pf = hl_prefault_start ((gpointer const *) s, l, 1);
    hl_prefault_finish (pf);
    big[len - 1] = 1;
    g_assert_cmpuint (big[len - 1], ==, 1);
    g_free (big);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/prefault/keeps-contents", test_prefault_keeps_contents);
  g_test_add_func ("/prefault/edges", test_prefault_edges);
  return g_test_run ();
}
