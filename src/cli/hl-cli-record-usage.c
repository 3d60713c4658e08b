/* hl-cli-record-usage.c — `heaplens-cli record --help` (hl-cli-record-usage.h). */
#include "hl-config.h"

#include "hl-cli-record-usage.h"

#include "hl-cli-record-profiles.h"

void
hl_cli_record_usage (FILE *out)
{
  fprintf (out,
           "Usage: heaplens-cli record [OPTIONS] [--] PROGRAM [ARGS...]\n\n"
           "Runs PROGRAM under the Heaplens preload and writes a trace.\n\n"
           "Options:\n"
           "  -o, --output FILE        write the program's trace to FILE, its children's and\n"
           "                           its other images' beside it (default: a folder of\n"
           "                           its own, $XDG_STATE_HOME/heaplens/PROG-DATE-TIME)\n"
           "  -d, --output-dir DIR     make that folder in DIR instead\n"
           "  --unwind fp|libunwind    stack unwinder (default: libunwind)\n"
           "  --depth N                at most N frames per stack (default: 128)\n"
           "  --sample-bytes N, --sample\n"
           "                           sampling mode: record a block with probability\n"
           "                           1 - exp (-size / N) (Poisson on bytes, N 524288\n"
           "                           for --sample); counters stay exact\n"
           "  --fine-clock MS          time the first MS milliseconds with the fine clock\n"
           "                           (32.8 us grains; default 50, 0 for none; after\n"
           "                           them the coarse clock's 4 ms ticks)\n"
           "  --leak-scan, --no-leak-scan\n"
           "                           at a clean exit, scan the program's memory for\n"
           "                           pointers to the blocks it did not free and tell\n"
           "                           leaks from blocks still reachable, as Valgrind\n"
           "                           does (default: on; HEAPLENS_LEAK_SCAN=0/1)\n"
           "  --no-follow, --no-children\n"
           "                           do not record forked children and exec'd programs\n"
           "  --no-compress            leave the trace uncompressed (default: zstd frames\n"
           "                           once the program has exited)\n"
           "  --no-costs               do not save the costs `report` reads (by default\n"
           "                           they are computed while the program runs and\n"
           "                           saved when they add at most 5 %% to a compressed\n"
           "                           trace of 1 MiB and more, so that report need not\n"
           "                           decode the events; see docs/cli.md)\n"
           "  --costs                  always save them, even when they could not be\n"
           "                           computed while the program ran (one costs-only\n"
           "                           load once it has exited)\n"
           HL_RECORD_PROFILES_USAGE
           "  -h, --help               this help\n");
}
