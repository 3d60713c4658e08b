/* fuzz-costs-packet.c — libFuzzer target: any bytes as a saved-costs
 * payload (hl_costs_packet_parse, docs/trace-format.md 7e: the trie of
 * frames, stacks by reference, every count bounded) and, when they start
 * with a trace file header, as a whole compressed trace whose COSTS packet
 * is found, checked and read (hl_costs_packet_load: the covered crc, the
 * stacks by reference filled from the trace's STACK events). A recording
 * that loads is committed and its costs read: never a crash, never a huge
 * allocation. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hl-analysis.h"
#include "hl-recording-costs-packet.h"
#include "hl-trace-format.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
use (HlRecording *rec)
{
  HlAnalysis *a;
  HlCosts totals;

  if (rec == NULL)
    return;
  a = hl_analysis_new (rec, NULL);
  hl_analysis_get_totals (a, &totals);
  for (guint s = 0; s <= hl_recording_get_n_stacks (rec) && s < 64; s++)
    hl_analysis_get_stack_costs (a, s, &totals);
  g_object_unref (a);
  g_object_unref (rec);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  use (hl_costs_packet_parse (data, size));
  if (size >= HL_TRACE_FILE_HEADER_SIZE && memcmp (data, HL_TRACE_MAGIC, HL_TRACE_MAGIC_SIZE) == 0)
    {
      int fd = memfd_create ("hl-fuzz-costs", MFD_CLOEXEC);
      char path[64];

      if (fd < 0)
        return 0;
      if (write (fd, data, size) == (ssize_t) size)
        {
          snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
          use (hl_costs_packet_load (path));
        }
      close (fd);
    }
  return 0;
}
