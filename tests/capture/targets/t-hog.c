/* t-hog — allocates and touches 64 KiB blocks until malloc fails (under
 * prlimit --as: out of memory as an address-space limit makes it), prints
 * how many it got, and aborts as a program out of memory does
 * (test-oom). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (void)
{
  unsigned long n = 0;
  void **chain = NULL;
  for (;;)
    {
      void **b = malloc (65536);
      if (b == NULL)
        break;
      memset (b, 1, 65536);
      b[0] = chain;
      chain = b;
      n++;
    }
  char line[32];
  int len = snprintf (line, sizeof line, "%lu\n", n);
  (void) write (1, line, (size_t) len);
  abort ();
}
