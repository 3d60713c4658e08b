/* t-clearenv: allocates, clears its environment (as a daemon or a
 * security-minded program does), allocates again and exits: the preload
 * read its settings at the start (HEAPLENS_KEEP_SESSION among them), so
 * that `record` still finds the session. 200 allocations and frees. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>

static void
churn (int n)
{
  for (int i = 0; i < n; i++)
    {
      char *volatile p = malloc (32 + (size_t) i);
      p[0] = (char) i;
      free (p);
    }
}

int
main (void)
{
  churn (100);
  if (clearenv () != 0)
    return 2;
  churn (100);
  puts ("t-clearenv: ok");
  return 0;
}
