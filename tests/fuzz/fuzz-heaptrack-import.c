/* fuzz-heaptrack-import.c — libFuzzer target: any bytes as a heaptrack
 * file (text, or zstd/gzip of it) through hl_heaptrack_import; a
 * recording that loads is analysed. Never a crash, never a huge
 * allocation. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "hl-analysis.h"
#include "hl-heaptrack-import.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  HlRecording *rec;
  int fd = g_file_open_tmp ("fuzz-heaptrack-XXXXXX", &path, NULL);

  if (fd < 0)
    abort ();
  if (size > 0 && write (fd, data, size) != (ssize_t) size)
    abort ();
  close (fd);
  (void) hl_heaptrack_sniff (path);
  rec = hl_heaptrack_import (path, NULL, &error);
  if (rec != NULL)
    {
      HlAnalysis *a = hl_analysis_new (rec, NULL);
      HlCosts totals;

      hl_analysis_get_totals (a, &totals);
      for (guint s = 0; s <= hl_recording_get_n_stacks (rec) && s < 64; s++)
        hl_analysis_get_stack_costs (a, s, &totals);
      g_object_unref (a);
      g_object_unref (rec);
    }
  else if (error == NULL)
    abort ();
  unlink (path);
  return 0;
}
