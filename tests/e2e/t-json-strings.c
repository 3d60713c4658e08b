/* t-json-strings — metadata, a mark and a thread name holding control
 * characters, a quote, a backslash and invalid UTF-8, for test-json-strings:
 * `heaplens-cli report --json` and `timeline --json` must stay valid JSON.
 * Prints "t-json-strings: ok". */
#define _GNU_SOURCE
#include <heaplens.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int
main (void)
{
  pthread_setname_np (pthread_self (), "t\x01\x1f\xff");
  heaplens_metadata_set_string ("key\x01\x1f", "value\t\x7f\xff\"\\\x80");
  heaplens_mark ("mark\x1b[0m\xfe");
  for (int i = 0; i < 3; i++)
    {
      void *volatile p = malloc (100 + (size_t) i);
      (void) p; /* kept: the leak the report lists */
    }
  printf ("t-json-strings: ok\n");
  return 0;
}
