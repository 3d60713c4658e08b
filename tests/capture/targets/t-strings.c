/* t-strings — realloc-grown buffers, asprintf-free string building with
 * strndup and reallocarray; frees everything but one block. No stdio. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (void)
{
  char *buf = NULL;
  size_t cap = 0, len = 0;
  for (int i = 0; i < 5000; i++)
    {
      if (len + 8 > cap)
        {
          cap = cap ? cap * 2 : 16;
          buf = realloc (buf, cap);
        }
      memcpy (buf + len, "abcdefg", 7);
      len += 7;
      char *dup = strndup (buf, (size_t) (i % 50));
      free (dup);
    }
  int *v = NULL;
  for (size_t n = 1; n < 200; n++)
    v = reallocarray (v, n, sizeof *v);
  free (v);
  buf = realloc (buf, 10); /* kept: 10 bytes still reachable through buf */
  (void) !write (1, "t-strings: done\n", 16);
  return buf[0] == 'a' ? 0 : 1;
}
