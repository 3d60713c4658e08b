/* fuzz-replay.c — replays fuzz corpora through a fuzz target without
 * libFuzzer (suite fuzz-regression): every file of the directories (or
 * files) given is passed to LLVMFuzzerTestOneInput. TAP output. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hl-test-util.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int n_files;

static void
replay (const char *path)
{
  size_t len;
  char *data = hl_test_read_file (path, &len);
  if (data == NULL)
    return;
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  /* every prefix of small inputs too: truncation is a case of its own */
  if (len <= 4096)
    for (size_t cut = 0; cut < len; cut += 1 + cut / 16)
      LLVMFuzzerTestOneInput ((const uint8_t *) data, cut);
  free (data);
  n_files++;
}

int
main (int argc, char **argv)
{
  hl_tap_plan (argc - 1);
  for (int i = 1; i < argc; i++)
    {
      int before = n_files;
      struct stat st;
      if (stat (argv[i], &st) == 0 && S_ISDIR (st.st_mode))
        {
          DIR *d = opendir (argv[i]);
          struct dirent *e;
          while (d != NULL && (e = readdir (d)) != NULL)
            {
              if (e->d_name[0] == '.')
                continue;
              char path[4096];
              snprintf (path, sizeof path, "%s/%s", argv[i], e->d_name);
              replay (path);
            }
          if (d != NULL)
            closedir (d);
        }
      else
        replay (argv[i]);
      hl_tap_ok (n_files > before, "%s: %d inputs replayed without a crash", argv[i], n_files - before);
    }
  return hl_tap_finish ();
}
